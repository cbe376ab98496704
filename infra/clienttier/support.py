"""What the client tier's flows share: the API reader, the stub provider, the log watch.

The client under test swallows most errors (a failed flush only logs a warning), so nothing a
flow learns from the client is trusted: every result is read back through the API with plain
HTTP and the run's API key, and a WARNING or ERROR the client logs fails the flow.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


class FlowError(AssertionError):
    """A flow's result, read back through the API, is not what the client was asked for."""


def check(cond: bool, what: str) -> None:
    if not cond:
        raise FlowError(what)


class API:
    """Plain HTTP to the service with the run's API key: the reader of every flow's result."""

    def __init__(self, url: str, key: str) -> None:
        self.http = httpx.Client(base_url=url, headers={"Service-API-Key": key}, timeout=30)

    def _do(self, method: str, path: str, body: Any = None) -> Any:
        r = self.http.request(method, path, json=body)
        if r.status_code >= 300:
            raise FlowError(f"{method} {path}: {r.status_code} {r.text[:300]}")
        return r.json() if r.content else None

    def get(self, path: str) -> Any:
        return self._do("GET", path)

    def post(self, path: str, body: Any) -> Any:
        return self._do("POST", path, body)

    def put(self, path: str, body: Any) -> Any:
        return self._do("PUT", path, body)

    def records(self, project_id: str, kind: str, **query: Any) -> list[dict]:
        """The traces, spans or sessions (kind) of a log stream or experiment, newest first."""
        body = {"limit": 100, **query}
        return self.post(f"/v2/projects/{project_id}/{kind}/search", body)["records"]

    def wait(self, what: str, probe, timeout: float = 30.0):
        """Polls probe until it returns something truthy: writes land asynchronously (the
        client's own flush threads, the experiment runner, the OTLP batch processor)."""
        deadline = time.monotonic() + timeout
        while True:
            got = probe()
            if got:
                return got
            if time.monotonic() > deadline:
                raise FlowError(f"{what}: not seen through the API within {timeout:.0f} s")
            time.sleep(0.2)


class StubProvider:
    """A chat-completions server on 127.0.0.1 (never the internet), in the shape of
    infra/fakeprovider: every answer is a judgment the judges can read (a JSON object with an
    explanation and a rating, true here), and every prompt is kept so that a flow can check
    what the service sent."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                try:
                    req = json.loads(raw)
                except ValueError:
                    self.send_error(400)
                    return
                text = "\n".join(str(m.get("content", "")) for m in req.get("messages", []))
                with stub._lock:
                    stub.prompts.append(text)
                answer = json.dumps({"explanation": "stub verdict " + hashlib.sha256(text.encode()).hexdigest()[:8], "rating": True})
                body = json.dumps({
                    "id": "stub-1", "object": "chat.completion", "model": req.get("model"),
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
                    "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": 12, "total_tokens": len(text) // 4 + 12},
                }).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # quiet: the tier prints its own lines
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def seen(self, needle: str) -> bool:
        with self._lock:
            return any(needle in p for p in self.prompts)

    def close(self) -> None:
        self.server.shutdown()


# Loggers whose WARNING and ERROR records fail a flow: the client's own, and the OpenTelemetry
# exporter the client configures (it logs a failed export and drops the batch).
WATCHED = ("galileo", "galileo_core", "opentelemetry")


class LogWatch(logging.Handler):
    """Keeps every WARNING or ERROR record the client emits. Some client modules log through
    the root logger (logging.warning), so records are also matched by the file that made
    them."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        path = record.pathname.replace("\\", "/")
        if record.name.startswith(WATCHED) or any(f"/{w}/" in path for w in WATCHED):
            self.records.append(record)

    def install(self) -> None:
        """Hooks the watch in before the client is imported. The client silences its "galileo"
        logger unless the user configured it (galileo.utils.log_config): setting a level and a
        handler here is that configuration, so its warnings reach the watch."""
        root = logging.getLogger()
        root.addHandler(self)
        for name in WATCHED:
            lg = logging.getLogger(name)
            lg.setLevel(logging.WARNING)
            lg.addHandler(self)
            lg.propagate = False  # seen once, here, not again at the root

    def take(self) -> list[str]:
        out = []
        for r in self.records:
            line = f"{r.levelname} {r.name}: {r.getMessage()[:300]}"
            if r.exc_info and r.exc_info[1] is not None:  # the exporter logs its failure this way
                line += f" ({type(r.exc_info[1]).__name__}: {str(r.exc_info[1])[:300]})"
            out.append(line)
        self.records.clear()
        return out
