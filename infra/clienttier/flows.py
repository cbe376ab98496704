"""The flows of the client tier: the original service's Python client (galileo 2.7.0), used
as its users use it, each result read back through the API (support.API).

A flow is a function of the run (Run) that raises on failure. Flows run in the order of FLOWS;
a later flow may use what an earlier one made (the project, the dataset, the metric), and
says so by its `needs`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from support import API, FlowError, LogWatch, StubProvider, check

MODEL = "stub-model"  # the model the stub integration offers


@dataclass
class Run:
    api: API
    stub: StubProvider
    watch: LogWatch
    url: str
    email: str
    password: str
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    made: dict[str, Any] = field(default_factory=dict)

    def name(self, what: str) -> str:
        return f"tier-{what}-{self.tag}"

    def quiet(self, what: str) -> None:
        """Fails at once when the client logged a warning or an error: after a flush, that is
        how it reports a batch it dropped, and waiting for the batch to show would only time
        out."""
        if self.watch.records:
            raise FlowError(f"{what}: the client logged " + " | ".join(self.watch.take()))


def projects(run: Run) -> None:
    from galileo.projects import create_project, get_project

    p = create_project(run.name("project"))
    check(get_project(name=p.name).id == p.id, "get_project(name=) finds the project it created")
    got = run.api.get(f"/v2/projects/{p.id}")
    check(got["name"] == p.name, f"the project reads back as {got.get('name')!r}")
    run.made["project"] = p


def log_streams(run: Run) -> None:
    from galileo.log_streams import create_log_stream, list_log_streams

    p = run.made["project"]
    ls = create_log_stream(run.name("stream"), project_id=p.id)
    check(any(s.id == ls.id for s in list_log_streams(project_id=p.id)), "list_log_streams holds the new stream")
    got = run.api.get(f"/v2/projects/{p.id}/log_streams/{ls.id}")
    check(got["name"] == ls.name, f"the log stream reads back as {got.get('name')!r}")
    run.made["log_stream"] = ls


def datasets(run: Run) -> None:
    from galileo.datasets import create_dataset, get_dataset, get_dataset_version, get_dataset_version_history

    p = run.made["project"]
    rows = [{"input": "Paris", "output": "France"}, {"input": "Rome", "output": "Italy"}]
    ds = create_dataset(run.name("dataset"), rows, project_id=p.id)
    ds = get_dataset(id=ds.id)
    ds.add_rows([{"input": "Lima", "output": "Peru"}])
    content = run.api.get(f"/v2/datasets/{ds.id}/content")
    inputs = [r["values_dict"]["input"] for r in content["rows"]]
    check(inputs == ["Paris", "Rome", "Lima"], f"the dataset's rows read back as {inputs}")
    history = get_dataset_version_history(dataset_id=ds.id)
    versions = run.api.post(f"/v2/datasets/{ds.id}/versions/query", {})["versions"]
    check(len(versions) >= 2 and len(history.versions) == len(versions),
          f"versions: the client sees {len(history.versions)}, the API {len(versions)} (want 2 or more)")
    first = get_dataset_version(dataset_id=ds.id, version_index=min(v["version_index"] for v in versions))
    check(len(first.rows) == 2, f"the first version holds {len(first.rows)} rows, want 2")
    run.made["dataset"] = ds


def prompts(run: Run) -> None:
    from galileo.prompts import create_prompt, get_prompt, get_prompts, render_template
    from galileo import Message, MessageRole

    p = run.made["project"]
    tmpl = create_prompt(
        name=run.name("prompt"),
        template=[Message(role=MessageRole.system, content="Answer with one country."),
                  Message(role=MessageRole.user, content="Which country has {{input}} as its capital?")],
        project_id=p.id,
    )
    check(get_prompt(id=tmpl.id) is not None, "get_prompt(id=) finds the template")
    check(any(t.id == tmpl.id for t in get_prompts(project_id=p.id)), "get_prompts(project_id=) lists the template")
    got = run.api.get(f"/v2/projects/{p.id}/templates/{tmpl.id}")
    check("{{input}}" in str(got), "the template's messages read back through the project route")
    rendered = render_template(template="Which country has {{input}} as its capital?", data=["Oslo", "Bern"])
    texts = [r.result for r in rendered.rendered_templates]
    check(texts == ["Which country has Oslo as its capital?", "Which country has Bern as its capital?"],
          f"render_template gave {texts}")
    run.made["prompt"] = tmpl


def custom_metric(run: Run) -> None:
    from galileo.log_streams import enable_metrics
    from galileo.metrics import create_custom_llm_metric

    p, ls = run.made["project"], run.made["log_stream"]
    name = run.name("metric")
    create_custom_llm_metric(name=name, user_prompt="Is the answer a country? Answer true or false.", model_name=MODEL, num_judges=1)
    scorers = run.api.post("/v2/scorers/list", {"filters": [{"name": "name", "operator": "eq", "value": name}]})["scorers"]
    check(len(scorers) == 1, f"the metric {name} reads back {len(scorers)} times, want once")
    check(scorers[0].get("latest_version") is not None, "the metric has a version (create_custom_llm_metric's POST .../version/llm)")
    enable_metrics(project_name=p.name, log_stream_name=ls.name, metrics=[name])
    settings = run.api.get(f"/v2/projects/{p.id}/log_streams/{ls.id}/metric_settings")
    check(any(s.get("name") == name or s.get("id") == scorers[0]["id"] for s in settings.get("scorers", [])),
          f"enable_metrics by name: the log stream's metric settings lack {name}")
    # The client reads them back through its own route (GET .../runs/{run_id}/scorer-settings).
    from galileo.log_stream import LogStream

    enabled = LogStream.get(name=ls.name, project_name=p.name).get_metrics()
    check(name in enabled, f"LogStream.get_metrics() gives {enabled}, want {name} in it")
    # The metric enabled by name judges the log stream's new records (an llm span here, the
    # node type the client's custom LLM metrics score), its value rolled up to the trace.
    from galileo.logger import GalileoLogger

    lg = GalileoLogger(project=p.name, log_stream=ls.name)
    trace = lg.start_trace(input="Which country has Oslo as its capital?", name="metric check")
    lg.add_llm_span(input="Which country has Oslo as its capital?", output="Norway", model=MODEL, name="answer")
    lg.conclude(output="Norway")
    lg.flush()
    run.quiet("flush")

    def judged() -> bool:
        t = _trace(run.api, p.id, str(trace.id)) or {}
        state = ((t.get("metric_info") or {}).get(name) or {}).get("status_type")
        check(state not in ("error", "failed"), f"the metric {name} on the log stream's trace: {state}")
        return state == "success"

    run.api.wait(f"the metric {name} on the log stream's new trace", judged, 60)
    run.made["metric"] = name


def prompt_experiment(run: Run) -> None:
    from galileo.experiments import run_experiment

    p, ds, tmpl, metric = run.made["project"], run.made["dataset"], run.made["prompt"], run.made["metric"]
    res = run_experiment(run.name("experiment"), prompt_template=tmpl, prompt_settings={"model_alias": MODEL},
                         project_id=p.id, dataset_id=ds.id, metrics=[metric])
    exp = res["experiment"]
    run.api.wait("the experiment's three rows", lambda: len(run.api.records(p.id, "traces", experiment_id=exp.id)) == 3, 60)
    for capital in ("Paris", "Rome", "Lima"):
        check(run.stub.seen(f"Which country has {capital} as its capital?"), f"the stub never got the rendered row {capital!r}")
    # The service serves no read of one experiment (the specification lists none): the list.
    got = next((e for e in run.api.get(f"/v2/projects/{p.id}/experiments") if e.get("id") == exp.id), {})
    check(got.get("prompt_model") == MODEL, f"the experiment's model reads back as {got.get('prompt_model')!r}")

    # The metric named by the client judged every row (through the stub, as a judge).
    def judged() -> bool:
        traces = run.api.records(p.id, "traces", experiment_id=exp.id)
        states = [((t.get("metric_info") or {}).get(metric) or {}).get("status_type") for t in traces]
        check(not any(s in ("error", "failed") for s in states), f"the metric {metric} on the rows: {states}")
        return len(states) == 3 and all(s == "success" for s in states)

    run.api.wait(f"the metric {metric} on every row", judged, 60)


def logger_session(run: Run) -> None:
    from galileo.logger import GalileoLogger

    p, ls = run.made["project"], run.made["log_stream"]
    lg = GalileoLogger(project=p.name, log_stream=ls.name)
    external = run.name("conversation")
    sid = lg.start_session(name="support chat", external_id=external)
    trace = lg.start_trace(input="Where is my parcel?", name="support turn")
    lg.add_workflow_span(input="Where is my parcel?", name="triage")
    lg.add_retriever_span(input="parcel status", output=["parcel 42 left the depot"], name="lookup")
    lg.add_tool_span(input='{"parcel": 42}', output='{"eta": "tomorrow"}', name="eta")
    lg.add_llm_span(input="Where is my parcel?", output="It arrives tomorrow.", model=MODEL, name="answer")
    lg.conclude(output="It arrives tomorrow.")
    lg.conclude(output="It arrives tomorrow.")
    lg.flush()
    run.quiet("flush")
    got = run.api.wait("the session's trace", lambda: _trace(run.api, p.id, str(trace.id)))
    check(got.get("session_id") == str(sid), f"the trace's session is {got.get('session_id')}, want {sid}")
    session = run.api.get(f"/v2/projects/{p.id}/sessions/{sid}")
    check(session.get("external_id") == external, f"the session's external id reads back as {session.get('external_id')!r}")
    types = sorted(_span_types(got))
    check(types == ["llm", "retriever", "tool", "workflow"], f"the trace's spans are {types}")
    # A second logger for the same conversation finds the session by its external id.
    lg2 = GalileoLogger(project=p.name, log_stream=ls.name)
    sid2 = lg2.start_session(external_id=external)
    check(str(sid2) == str(sid), f"the external id {external} gave a second session {sid2} (first {sid})")
    run.made["trace"] = str(trace.id)


def continue_trace(run: Run) -> None:
    from galileo.logger import GalileoLogger

    p, ls = run.made["project"], run.made["log_stream"]
    up = GalileoLogger(project=p.name, log_stream=ls.name, mode="distributed")
    trace = up.start_trace(input="plan a trip", name="gateway")
    up.add_workflow_span(input="plan a trip", name="planner")
    headers = up.get_tracing_headers()
    # The downstream service continues the trace from the propagated headers.
    down = GalileoLogger(project=p.name, log_stream=ls.name, mode="distributed",
                         trace_id=headers["X-Galileo-Trace-ID"], span_id=headers["X-Galileo-Parent-ID"])
    down.add_llm_span(input="plan a trip", output="Go to Lisbon.", model=MODEL, name="downstream answer")
    down.conclude(output="Go to Lisbon.")
    down.flush()
    up.conclude(output="Go to Lisbon.", conclude_all=True)
    up.flush()
    run.quiet("flush")
    got = run.api.wait("the continued trace", lambda: (t := _trace(run.api, p.id, str(trace.id))) and
                       "downstream answer" in _span_names(t) and t)
    check("planner" in _span_names(got), f"the continued trace's spans are {sorted(_span_names(got))}")


def log_decorator(run: Run) -> None:
    from galileo import galileo_context, log

    p, ls = run.made["project"], run.made["log_stream"]
    marker = run.name("decorated")

    @log(span_type="tool", name="lookup_capital")
    def lookup(city: str) -> str:
        return {"Oslo": "Norway"}.get(city, "?")

    @log(name="answer_question")
    def answer(question: str) -> str:
        return lookup("Oslo")

    galileo_context.init(project=p.name, log_stream=ls.name)
    answer(marker)
    galileo_context.flush()
    run.quiet("flush")
    hit = run.api.wait("the @log trace", lambda: [t for t in run.api.records(p.id, "traces", log_stream_id=ls.id)
                                                  if marker in str(t.get("input"))])
    got = _trace(run.api, p.id, hit[0]["id"])
    check("lookup_capital" in _span_names(got), f"the @log trace's spans are {sorted(_span_names(got))}")


def search(run: Run) -> None:
    from galileo.search import get_sessions, get_spans, get_traces

    p, ls = run.made["project"], run.made["log_stream"]
    want = {t["id"] for t in run.api.records(p.id, "traces", log_stream_id=ls.id)}
    got = {str(r.id) for r in get_traces(project_id=p.id, log_stream_id=ls.id).records}
    check(bool(want) and got == want, f"get_traces found {len(got)} traces, the API {len(want)}")
    spans = get_spans(project_id=p.id, log_stream_id=ls.id).records
    check(len(spans) == len(run.api.records(p.id, "spans", log_stream_id=ls.id)), "get_spans and the API disagree")
    sessions = get_sessions(project_id=p.id, log_stream_id=ls.id).records
    check(len(sessions) == len(run.api.records(p.id, "sessions", log_stream_id=ls.id)), "get_sessions and the API disagree")


def password_login(run: Run) -> None:
    # A fresh process: the client keeps one configuration per process, and this one logs in
    # with the admin's e-mail and password instead of the API key.
    name = run.name("by-password")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GALILEO_")}
    env.update(GALILEO_CONSOLE_URL=run.url, GALILEO_API_URL=run.url, GALILEO_USERNAME=run.email, GALILEO_PASSWORD=run.password)
    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, os.path.join(here, "password_login.py"), name], env=env,
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise FlowError(f"password_login.py: {(proc.stdout + proc.stderr).strip()[-600:]}")
    found = _projects_named(run.api, name)
    check(len(found) == 1, f"the project made after a password login reads back {len(found)} times")


def otel_exporter(run: Run) -> None:
    from galileo.otel import GalileoSpanProcessor
    from opentelemetry.sdk.trace import TracerProvider

    p, ls = run.made["project"], run.made["log_stream"]
    provider = TracerProvider()
    provider.add_span_processor(GalileoSpanProcessor(project=p.name, logstream=ls.name))
    tracer = provider.get_tracer("clienttier")
    marker = run.name("otel")
    with tracer.start_as_current_span("chat " + MODEL) as span:
        span.set_attribute("gen_ai.operation.name", "chat")
        span.set_attribute("gen_ai.request.model", MODEL)
        span.set_attribute("gen_ai.prompt.0.role", "user")
        span.set_attribute("gen_ai.prompt.0.content", marker)
        span.set_attribute("gen_ai.completion.0.role", "assistant")
        span.set_attribute("gen_ai.completion.0.content", "OK")
    check(provider.force_flush(30_000), "the span processor did not flush within 30 s")
    provider.shutdown()
    run.quiet("export")
    run.api.wait("the exported span", lambda: [t for t in run.api.records(p.id, "spans", log_stream_id=ls.id)
                                               if t.get("name") == "chat " + MODEL])


def _projects_named(api: API, name: str) -> list[dict]:
    body = {"filters": [{"name": "name", "operator": "eq", "value": name}]}
    return api.post("/v2/projects/paginated", body)["projects"]


def _trace(api: API, project_id: str, trace_id: str) -> dict | None:
    r = api.http.get(f"/v2/projects/{project_id}/traces/{trace_id}")
    if r.status_code == 404:
        return None
    if r.status_code != 200:
        raise FlowError(f"GET trace {trace_id}: {r.status_code} {r.text[:300]}")
    return r.json()


def _walk(rec: dict):
    for s in rec.get("spans") or []:
        yield s
        yield from _walk(s)


def _span_types(rec: dict) -> list[str]:
    return [s["type"] for s in _walk(rec)]


def _span_names(rec: dict) -> set[str]:
    return {s.get("name") for s in _walk(rec)}


@dataclass
class Flow:
    name: str
    fn: Callable[[Run], None]
    needs: tuple[str, ...] = ()  # keys of Run.made an earlier flow must have set


FLOWS = [
    Flow("projects", projects),
    Flow("log streams", log_streams, ("project",)),
    Flow("datasets with rows and versions", datasets, ("project",)),
    Flow("prompts created, fetched, rendered", prompts, ("project",)),
    Flow("custom LLM metric, enabled by name", custom_metric, ("project", "log_stream")),
    Flow("prompt-template experiment", prompt_experiment, ("project", "dataset", "prompt", "metric")),
    Flow("logger: external-id session, four span types", logger_session, ("project", "log_stream")),
    Flow("continuing a trace (trace_id=)", continue_trace, ("project", "log_stream")),
    Flow("@log", log_decorator, ("project", "log_stream")),
    Flow("search", search, ("project", "log_stream")),
    Flow("password login", password_login),
    Flow("OpenTelemetry exporter", otel_exporter, ("project", "log_stream")),
]
