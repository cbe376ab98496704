"""The DuckDB side of `make bench-scan` (infra/bench/scan.go runs it; never part of make test).

Reads a spec as JSON on stdin: the NDJSON of the traces the Go side exported from the
embedded store, where to write the Parquet, the range, the bucket length, one `input contains`
needle per query ("" for none) and the number of measured runs. Converts the NDJSON to
Parquet (not timed), then for each query runs its SQL once unmeasured and `runs` times
measured: the timer starts just before `execute` and stops after `fetchall` has returned the
rows as Python objects (the result materialised), the Parquet file long written. Prints JSON:
versions, sizes, and per query the times in ms and the whole-range aggregates, in the shape
of the API's aggregate_metrics, for the Go side to check against its own.
"""

import json
import os
import sys
import time

import duckdb

COLUMNS = {
    "id": "VARCHAR", "session_id": "VARCHAR", "created_at": "TIMESTAMP", "type": "VARCHAR",
    "name": "VARCHAR", "input": "VARCHAR", "output": "VARCHAR", "tags": "VARCHAR[]",
    "status_code": "BIGINT", "model": "VARCHAR", "provider": "VARCHAR", "latency_ms": "DOUBLE",
    "total_tokens": "BIGINT", "total_cost": "DOUBLE", "correctness": "DOUBLE",
    "correctness_error_code": "BIGINT", "toxicity": "BOOLEAN", "tone": "VARCHAR",
}

# One row per 5-minute bucket and one for the whole range (bucket NULL), with the metrics the
# API reports for the demo's log stream, each by its roll-up method: count; latency average;
# tokens and cost sums; correctness average (errors excluded); toxicity percentage_true;
# tone category_count; and the scorer error codes seen.
SQL = """
SELECT (epoch_us(created_at) - epoch_us($start::TIMESTAMP)) // $bucket_us AS bucket,
       count(*) AS count,
       avg(latency_ms) AS latency_ms,
       sum(total_tokens) AS total_tokens,
       sum(total_cost) AS total_cost,
       avg(correctness) AS correctness,
       avg(toxicity::INTEGER) AS toxicity,
       histogram(tone) AS tone,
       list(DISTINCT correctness_error_code) FILTER (WHERE correctness_error_code IS NOT NULL) AS errors
FROM traces
WHERE created_at >= $start::TIMESTAMP AND created_at < $end::TIMESTAMP {filter}
GROUP BY GROUPING SETS ((bucket), ())
ORDER BY bucket NULLS FIRST
"""


def main():
    spec = json.load(sys.stdin)
    con = duckdb.connect()
    cols = "{" + ", ".join(f"'{k}': '{v}'" for k, v in COLUMNS.items()) + "}"
    con.execute(
        f"COPY (SELECT * FROM read_json(?, format='newline_delimited', columns={cols}) ORDER BY created_at) "
        f"TO '{quote(spec['parquet'])}' (FORMAT parquet)",
        [spec["ndjson"]],
    )
    con.execute(f"CREATE VIEW traces AS SELECT * FROM read_parquet('{quote(spec['parquet'])}')")
    out = {
        "version": duckdb.__version__,
        "threads": con.execute("SELECT current_setting('threads')").fetchone()[0],
        "parquet_bytes": os.path.getsize(spec["parquet"]),
        "rows": con.execute("SELECT count(*) FROM traces").fetchone()[0],
        "queries": [],
    }
    out["threads"] = str(out["threads"])
    for needle in spec["filters"]:
        sql = SQL.format(filter="AND contains(input, $needle)" if needle else "")
        params = {"start": spec["start"], "end": spec["end"], "bucket_us": spec["interval_minutes"] * 60_000_000}
        if needle:
            params["needle"] = needle
        times = []
        for i in range(spec["runs"] + 1):
            t0 = time.perf_counter()
            rows = con.execute(sql, params).fetchall()
            took = (time.perf_counter() - t0) * 1000
            if i > 0:
                times.append(took)
        total = rows[0]
        assert total[0] is None, "the whole-range row sorts first"
        agg = {
            "count": float(total[1]), "latency_ms": total[2], "total_tokens": float(total[3]),
            "total_cost": total[4], "correctness": total[5], "toxicity": total[6],
            "tone": {k: float(v) for k, v in total[7].items()},
        }
        out["queries"].append({"times_ms": times, "aggregate": agg, "buckets": len(rows) - 1})
    json.dump(out, sys.stdout)


def quote(s):
    return s.replace("'", "''")


if __name__ == "__main__":
    main()
