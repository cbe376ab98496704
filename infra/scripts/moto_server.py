"""Runs moto's server as `moto_server -H HOST -p PORT` does, but one request at a time.

moto_server serves every request on its own thread, and moto's DynamoDB backend is not safe
under that: concurrent UpdateItem ADD calls returned the same ALL_NEW count (the conformance
suite's ConcurrentCounter saw [... 7 8 8 9 ...]). DynamoDB applies the writes to one item one
after the other; serving serially gives the tests that behaviour. Imports moto internals, so
it is tied to the moto version pinned in infra/requirements.txt.
"""

import argparse

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    args = parser.parse_args()
    run_simple(
        args.host,
        args.port,
        DomainDispatcherApplication(create_backend_app),
        threaded=False,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
