"""The client tier's password-login flow, in a process of its own: the client reads
GALILEO_USERNAME and GALILEO_PASSWORD (no API key), logs in at POST /login, keeps the refresh
cookie in its httpx jar, and creates the project named by argv[1]. Exits non-zero when the
client raises or logs a WARNING or ERROR; the tier reads the project back."""

import logging
import sys

from support import LogWatch


def main() -> int:
    watch = LogWatch()
    watch.install()
    from galileo.projects import create_project

    create_project(sys.argv[1])
    problems = watch.take()
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
