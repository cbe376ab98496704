#!/usr/bin/env python3
"""Compares two recordings of the suite's responses (apitest's RESPONSE_RECORD_DIR) made
before and after a change meant to be invisible (a refactoring):

    RESPONSE_RECORD_DIR=/tmp/rec-old go test -count=1 ./...   # on the old tree
    RESPONSE_RECORD_DIR=/tmp/rec-new go test -count=1 ./...   # on the new tree
    python3 infra/scripts/response-diff.py /tmp/rec-old /tmp/rec-new

It prints the differences in the multiset of (method, path, status) and in the bodies of
4xx answers (the error contract: 422 details, 404s, 403s), with what tests draw at random
(ids, ports, numbers, hex names) replaced, and exits 1 when there are any. 2xx bodies hold
random names and tokens of the tests, so they are not compared.
"""
import collections
import pathlib
import re
import sys


def load(d):
    statuses, errors = collections.Counter(), collections.Counter()
    for f in sorted(pathlib.Path(d).glob("responses-*.txt")):
        for line in f.open(encoding="utf-8", errors="replace"):
            m = re.match(r"^(\S+) (\S+) (\d+) (.*)$", line.rstrip("\n"))
            if not m:
                continue
            key = m.group(1, 2, 3)
            statuses[key] += 1
            if key[2].startswith("4"):
                body = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", m.group(4))
                body = re.sub(r"[0-9a-fA-F]{8,}", "<hex>", body)
                errors[(key, re.sub(r"\d+(\.\d+)?", "<n>", body))] += 1
    return statuses, errors


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: response-diff.py OLD_DIR NEW_DIR")
    (a, ae), (b, be) = load(sys.argv[1]), load(sys.argv[2])
    diffs = 0
    for sign, c in (("-", a - b), ("+", b - a)):
        for k, n in sorted(c.items()):
            print(f"{sign} {n} {' '.join(k)}")
            diffs += n
    for sign, c in (("-", ae - be), ("+", be - ae)):
        for (k, body), n in sorted(c.items()):
            print(f"{sign} {n} {' '.join(k)} {body[:300]}")
            diffs += n
    print(f"{sum(a.values())} and {sum(b.values())} responses, {sum(ae.values())} and "
          f"{sum(be.values())} error bodies; {diffs} lines differ")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
