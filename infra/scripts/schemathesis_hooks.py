"""schemathesis hooks of infra/scripts/schemathesis.sh.

The service validates as FastAPI with Pydantic v2 in lax mode does (shared/validate, and
/work/shared SPEC-DECISIONS: the 422 contract is Pydantic's): a boolean field takes 0, 1,
"true", "off", ...; an integer or number field takes a numeric string or a boolean. Those
inputs violate the JSON Schema types of docs/openapi.yaml but are valid requests for the
service, so negative_data_rejection's "Incorrect type" cases (coverage phase) and type mutations
(fuzzing phase) that send exactly such a value and are accepted are not defects. Only those are dropped: every other accepted negative case
still fails the run.
"""

import schemathesis
from schemathesis.core.failures import AcceptedNegativeData

BOOL_WORDS = {"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"}


def _lax_coercible(value):
    """Whether Pydantic v2 lax mode reads value as a bool, int or float."""
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return value in (0, 1)
    if isinstance(value, str):
        s = value.strip().lower()
        if s in BOOL_WORDS:
            return True
        try:
            float(s)
            return True
        except ValueError:
            return False
    return False


def _values_at(body, pointer):
    """The body values a schema pointer (/properties/a/items/anyOf/0/...) designates."""
    parts = [p for p in pointer.split("/") if p]
    values = [body]
    i = 0
    while i < len(parts):
        p = parts[i]
        if p == "properties" and i + 1 < len(parts):
            name = parts[i + 1]
            values = [v[name] for v in values if isinstance(v, dict) and name in v]
            i += 2
        elif p == "items":
            values = [x for v in values if isinstance(v, list) for x in v]
            i += 1
        elif p in ("anyOf", "oneOf", "allOf") and i + 1 < len(parts):
            i += 2  # the same value, checked against one alternative
        elif p == "additionalProperties" and i + 1 < len(parts):
            values = [x for v in values if isinstance(v, dict) for x in v.values()]
            i += 2
        elif p == "type" and i == len(parts) - 1:
            i += 1
        else:
            return []
    return values


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if not isinstance(failure, AcceptedNegativeData):
        return True
    data = case.meta.phase.data if case.meta else None
    # The fuzzing phase says what it changed as mutations: drop the case only when every
    # one of them changed a body value's type to a value lax mode accepts.
    mutations = getattr(data, "mutations", None) or ()
    if mutations:
        if not all(tuple(m.keywords) == ("type",) and m.schema_pointer for m in mutations):
            return True
        values = [v for m in mutations for v in _values_at(case.body, m.schema_pointer)]
        return not (values and all(_lax_coercible(v) for v in values))
    # The coverage phase names its scenario and the schema location it broke.
    scenario = getattr(getattr(data, "scenario", None), "value", "")
    location = getattr(data, "location", None) or ""
    if scenario != "incorrect_type" or not location.endswith("/type"):
        return True
    values = _values_at(case.body, location)
    # Keep the failure unless the mutated value is one lax mode accepts.
    return not (values and all(_lax_coercible(v) for v in values))
