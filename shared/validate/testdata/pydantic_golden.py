"""Generates pydantic_golden.json: what Pydantic v2 (as FastAPI runs it) reports for each body.

Run from the repository root with pydantic 2.x installed:
    python3 shared/validate/testdata/pydantic_golden.py > shared/validate/testdata/pydantic_golden.json
The Go test (reader_golden_test.go) reads the same bodies through a reader that mirrors the
model below and must produce the same errors. Credential fields are redacted afterwards, as
our contract (SPEC-DECISIONS.md) requires and FastAPI does not.
"""
import json
from datetime import date, datetime
from enum import Enum
from typing import Literal, Optional
from uuid import UUID

import pydantic
from pydantic import UUID4, BaseModel, Field, TypeAdapter, ValidationError


class Color(str, Enum):
    red = "red"
    green = "green"
    blue = "blue"


class Inner(BaseModel):
    model: str
    id: str


class M(BaseModel):
    name: str = Field(min_length=1, max_length=5)
    count: int = Field(default=1, ge=1, le=10)
    ratio: float = Field(default=0.5, ge=0, le=1)
    flag: bool = False
    color: Color = Color.red
    kind: Literal["a", "b"] = "a"
    ident: Optional[UUID4] = None
    any_uuid: Optional[UUID] = None
    when: Optional[datetime] = None
    day: Optional[date] = None
    tags: list[str] = Field(default_factory=list, min_length=1, max_length=2)
    inner: Optional[Inner] = None
    extra_labels: Optional[dict[str, str]] = None
    token: Optional[str] = None


CASES = [
    {"name": "ok"},
    {},
    {"name": ""},
    {"name": "toolong"},
    {"name": 5},
    {"name": None},
    {"name": "ok", "count": 0},
    {"name": "ok", "count": 11},
    {"name": "ok", "count": "abc"},
    {"name": "ok", "count": "7"},
    {"name": "ok", "count": 2.5},
    {"name": "ok", "count": 3.0},
    {"name": "ok", "count": None},
    {"name": "ok", "count": [1]},
    {"name": "ok", "ratio": 1.5},
    {"name": "ok", "ratio": -0.1},
    {"name": "ok", "ratio": "x"},
    {"name": "ok", "ratio": {}},
    {"name": "ok", "flag": "yes"},
    {"name": "ok", "flag": "maybe"},
    {"name": "ok", "flag": 2},
    {"name": "ok", "flag": None},
    {"name": "ok", "flag": []},
    {"name": "ok", "color": "purple"},
    {"name": "ok", "color": 1},
    {"name": "ok", "kind": "c"},
    {"name": "ok", "ident": "not-a-uuid"},
    {"name": "ok", "ident": "6ba7b810-9dad-11d1-80b4-00c04fd430c8"},
    {"name": "ok", "ident": "6ba7b810-9dad-41d1-80b4-00c04fd430c"},
    {"name": "ok", "ident": "6ba7b8109dad41d180b400c04fd430c8"},
    {"name": "ok", "ident": "6ba7b810-9dad-41d1-80b400c04fd430c8"},
    {"name": "ok", "ident": "6ba7b810-9dad-41d1-80b4-00c04fd430c8-00"},
    {"name": "ok", "ident": "6ba7b8109-dad-41d1-80b4-00c04fd430c8"},
    {"name": "ok", "ident": "abc"},
    {"name": "ok", "ident": "zz"},
    {"name": "ok", "ident": 123},
    {"name": "ok", "any_uuid": "6ba7b810-9dad-11d1-80b4-00c04fd430c8"},
    {"name": "ok", "when": "2023-10-01T00:00:00Z"},
    {"name": "ok", "when": "2023-10-01"},
    {"name": "ok", "when": "yesterday"},
    {"name": "ok", "when": "2023-1"},
    {"name": "ok", "when": "2023-13-01"},
    {"name": "ok", "when": "2023-02-30"},
    {"name": "ok", "when": "2023-10-01X10:00"},
    {"name": "ok", "when": "20x3-10-01"},
    {"name": "ok", "when": "2023/10/01"},
    {"name": "ok", "when": True},
    {"name": "ok", "day": "2023-10-01"},
    {"name": "ok", "day": "2023-10-01T00:00:00"},
    {"name": "ok", "day": "2023-10-01T10:00:00"},
    {"name": "ok", "day": "tomorrow"},
    {"name": "ok", "day": "2023-10-32"},
    {"name": "ok", "tags": []},
    {"name": "ok", "tags": ["a", "b", "c"]},
    {"name": "ok", "tags": "a"},
    {"name": "ok", "tags": ["a", 1]},
    {"name": "ok", "inner": "x"},
    {"name": "ok", "inner": {}},
    {"name": "ok", "inner": {"model": 1, "id": "x"}},
    {"name": "ok", "extra_labels": {"a": 1, "b": "x"}},
    {"name": "ok", "extra_labels": []},
    {"name": "ok", "token": 12345},
    {"name": "ok", "token": "fine"},
    {"name": 1, "count": 0, "ratio": 2, "flag": "x", "color": "x", "kind": "x", "tags": [], "inner": {}},
    [],
    "text",
    None,
]

SECRET = {"token", "password", "api_key", "client_secret", "default_headers", "refresh_token", "api_key_value", "headers"}


def redact(loc, value):
    if any(isinstance(s, str) and s in SECRET for s in loc):
        return "[redacted]"
    if isinstance(value, dict):
        return {k: ("[redacted]" if k in SECRET else redact((), v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact((), v) for v in value]
    return value


def errors_of(body):
    adapter = TypeAdapter(M)
    if body is None:  # FastAPI: a required body that is null is missing
        return [{"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}]
    try:
        adapter.validate_python(body, from_attributes=True)
        return []
    except ValidationError as e:
        out = []
        for err in e.errors(include_url=False):
            loc = ["body", *err["loc"]]
            d = {"type": err["type"], "loc": loc, "msg": err["msg"], "input": redact(loc, err["input"])}
            if "ctx" in err:
                d["ctx"] = {k: ({} if isinstance(v, Exception) else v) for k, v in err["ctx"].items()}
            out.append(d)
        return out


print(json.dumps({"pydantic": pydantic.VERSION,
                  "cases": [{"body": b, "detail": errors_of(b)} for b in CASES]}, indent=1, default=str))
