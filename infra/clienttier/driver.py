"""The client tier's driver: runs every flow of flows.FLOWS with the original service's Python
client against the local host that infra/scripts/client-tier.sh started, and prints one line
per flow (ok or FAILED with the reason) with its time. Exits 1 when any flow fails.

Environment (set by client-tier.sh): TIER_URL, TIER_API_KEY, TIER_EMAIL, TIER_PASSWORD;
TIER_FLOWS (optional) runs only the flows whose names contain one of its comma-separated words.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import traceback

from support import API, FlowError, LogWatch, StubProvider


def main() -> int:
    url, key = os.environ["TIER_URL"], os.environ["TIER_API_KEY"]
    # The client is configured as its users configure it: environment variables.
    os.environ.update(GALILEO_CONSOLE_URL=url, GALILEO_API_URL=url, GALILEO_API_KEY=key)
    for k in ("GALILEO_USERNAME", "GALILEO_PASSWORD", "GALILEO_PROJECT", "GALILEO_LOG_STREAM"):
        os.environ.pop(k, None)

    watch = LogWatch()
    watch.install()

    # Importing the client takes seconds (it loads pydantic models for its whole API): timed
    # apart so that the first flow's time is its own.
    start = time.monotonic()
    import galileo  # noqa: F401

    print(f"client-tier: import galileo {time.monotonic() - start:.1f} s", flush=True)
    api = API(url, key)
    stub = StubProvider()
    # The provider the experiment and the judges call: an integration naming the stub, set up
    # with plain HTTP (the client has no call for it).
    api.put("/v2/integrations/custom", {"endpoint": stub.url, "models": ["stub-model"], "authentication_type": "none"})

    from flows import FLOWS, Run

    run = Run(api=api, stub=stub, watch=watch, url=url, email=os.environ["TIER_EMAIL"], password=os.environ["TIER_PASSWORD"])
    only = [w.strip().lower() for w in os.environ.get("TIER_FLOWS", "").split(",") if w.strip()]
    failed = 0
    total = time.monotonic()
    for flow in FLOWS:
        if only and not any(w in flow.name.lower() for w in only):
            continue
        start = time.monotonic()
        missing = [n for n in flow.needs if n not in run.made]
        why = ""
        if missing:
            why = "skipped: an earlier flow did not make " + ", ".join(missing)
        else:
            try:
                flow.fn(run)
            except FlowError as e:
                why = str(e)
            except Exception as e:  # the client's own exceptions: report them, go on
                why = f"{type(e).__name__}: {e}".strip()[:600]
                if os.environ.get("TIER_TRACEBACK"):
                    traceback.print_exc()
        logged = watch.take()
        if logged and not why:
            why = "the client logged " + " | ".join(logged)
        elif logged:
            why += " (and logged " + " | ".join(logged) + ")"
        took = time.monotonic() - start
        why = " ".join(why.split())  # one line per flow
        if why:
            failed += 1
            print(f"client-tier: {flow.name:<48} FAILED  {took:5.1f} s  {why}", flush=True)
        else:
            print(f"client-tier: {flow.name:<48} ok      {took:5.1f} s", flush=True)
    stub.close()
    print(f"client-tier: flows {time.monotonic() - total:.1f} s, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
