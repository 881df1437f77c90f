"""serbench pgscan peer: reads a query through the ADBC PostgreSQL driver.

Protocol (one JSON object per line on stdout, commands on stdin):
  start:  python3 adbc_runner.py, then the first stdin line
          {"dsn": DSN, "sql": SQL}         -> {"ready": true, "backend_pid": P, "versions": {...}}
  "run"   -> read every Arrow batch        -> {"rows": N, "cpu_s": S, "maxrss_kb": K}
  "check" -> read and checksum every batch -> {"rows": N, "sum_id": …, "active": …,
             "sum_name_len": …, "sum_days": …, "bad_score": …, "nulls": …}
The process stays up between commands so that Python start-up and imports
are not timed. The connection string comes on stdin, never on the command
line or in the environment: other users of the machine can read those.
"""
import json
import resource
import sys
import time


def main():
    try:
        start = json.loads(sys.stdin.readline())
        dsn, sql = start["dsn"], start["sql"]
    except (ValueError, KeyError, TypeError) as e:
        print(json.dumps({"error": "bad start line (want {\"dsn\": …, \"sql\": …}): %s" % type(e).__name__}), flush=True)
        return 2
    try:
        import adbc_driver_postgresql
        import adbc_driver_postgresql.dbapi as dbapi
        import pyarrow
        import pyarrow.compute as pc
    except ImportError as e:
        print(json.dumps({"error": "not installed: %s" % e}), flush=True)
        return 1
    try:
        conn = dbapi.connect(dsn)
        with conn.cursor() as cur:
            cur.execute("SELECT pg_backend_pid()")
            backend_pid = cur.fetchone()[0]
    except Exception as e:  # the caller redacts the password from errors
        print(json.dumps({"error": "connect: %s: %s" % (type(e).__name__, e)}), flush=True)
        return 1
    del dsn, start
    print(json.dumps({"ready": True, "backend_pid": backend_pid, "versions": {
        "adbc-driver-postgresql": adbc_driver_postgresql.__version__,
        "pyarrow": pyarrow.__version__}}), flush=True)
    for line in sys.stdin:
        cmd = line.strip()
        try:
            cpu0 = time.process_time()
            with conn.cursor() as cur:
                cur.execute(sql)
                reader = cur.fetch_record_batch()
                if cmd == "run":
                    rows = 0
                    for batch in reader:
                        rows += batch.num_rows
                    out = {"rows": rows}
                elif cmd == "check":
                    out = {"rows": 0, "sum_id": 0, "active": 0, "sum_name_len": 0,
                           "sum_days": 0, "bad_score": 0, "nulls": 0}
                    for b in reader:
                        out["rows"] += b.num_rows
                        out["nulls"] += sum(c.null_count for c in b.columns)
                        ids = b.column(0)
                        out["sum_id"] += pc.sum(ids).as_py() or 0
                        out["active"] += pc.sum(pc.cast(b.column(2), pyarrow.int64())).as_py() or 0
                        out["sum_name_len"] += pc.sum(pc.utf8_length(b.column(3))).as_py() or 0
                        out["sum_days"] += pc.sum(pc.cast(pc.cast(b.column(4), pyarrow.int32()), pyarrow.int64())).as_py() or 0
                        want = pc.multiply(pc.cast(ids, pyarrow.float64()), 0.5)
                        out["bad_score"] += pc.sum(pc.cast(pc.not_equal(b.column(1), want), pyarrow.int64())).as_py() or 0
                else:
                    out = {"error": "unknown command %r" % cmd}
            out["cpu_s"] = time.process_time() - cpu0
            out["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        except Exception as e:  # report, keep serving
            out = {"error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
