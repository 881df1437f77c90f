"""serbench pgscan peers: reads a query through the ADBC PostgreSQL driver
or ConnectorX, into Arrow.

Protocol (one JSON object per line on stdout, commands on stdin):
  start:  python3 peer_runner.py, then the first stdin line
          {"dsn": DSN, "sql": SQL, "driver": "adbc" | "connectorx",
           "partition_on": COLUMN, "partitions": N}
          -> {"ready": true, "backend_pid": P, "versions": {...}}
          (backend_pid is 0 for ConnectorX, which connects per read;
          partition_on and partitions are ConnectorX's, N > 1 to split)
  "run"   -> read every Arrow batch        -> {"rows": N, "cpu_s": S, "maxrss_kb": K}
  "check" -> read and checksum every batch -> {"rows": N, "sum_id": …, "active": …,
             "sum_name_len": …, "sum_days": …, "bad_score": …, "nulls": …}
  "dump PATH" -> read and write every batch to PATH as an Arrow IPC stream
             -> {"rows": N} (the --query check: serbench checksums the file)
The process stays up between commands so that Python start-up and imports
are not timed. The connection string comes on stdin, never on the command
line or in the environment: other users of the machine can read those.
"""
import json
import resource
import sys
import time


def reply(obj):
    print(json.dumps(obj), flush=True)


def checksums(batches, pyarrow, pc):
    out = {"rows": 0, "sum_id": 0, "active": 0, "sum_name_len": 0,
           "sum_days": 0, "bad_score": 0, "nulls": 0}
    for b in batches:
        out["rows"] += b.num_rows
        out["nulls"] += sum(c.null_count for c in b.columns)
        ids = pc.cast(b.column(0), pyarrow.int64())
        out["sum_id"] += pc.sum(ids).as_py() or 0
        out["active"] += pc.sum(pc.cast(b.column(2), pyarrow.int64())).as_py() or 0
        out["sum_name_len"] += pc.sum(pc.utf8_length(b.column(3))).as_py() or 0
        days = pc.cast(pc.cast(b.column(4), pyarrow.date32()), pyarrow.int32())
        out["sum_days"] += pc.sum(pc.cast(days, pyarrow.int64())).as_py() or 0
        want = pc.multiply(pc.cast(ids, pyarrow.float64()), 0.5)
        out["bad_score"] += pc.sum(pc.cast(pc.not_equal(b.column(1), want), pyarrow.int64())).as_py() or 0
    return out


def dump(batches, path, pyarrow):
    """Writes the batches to path as an Arrow IPC stream (nothing when
    there is none) and returns the row count: serbench checksums them."""
    import pyarrow.ipc
    rows, writer = 0, None
    try:
        for b in batches:
            if writer is None:
                writer = pyarrow.ipc.new_stream(path, b.schema)
            writer.write_batch(b)
            rows += b.num_rows
    finally:
        if writer is not None:
            writer.close()
    return rows


def adbc_reader(dsn):
    """Returns (versions, backend_pid, read) for the ADBC driver; read(sql)
    yields the result's record batches."""
    import adbc_driver_postgresql
    import adbc_driver_postgresql.dbapi as dbapi
    import pyarrow
    conn = dbapi.connect(dsn)
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        backend_pid = cur.fetchone()[0]

    def read(sql):
        with conn.cursor() as cur:
            cur.execute(sql)
            for batch in cur.fetch_record_batch():
                yield batch
    return {"adbc-driver-postgresql": adbc_driver_postgresql.__version__,
            "pyarrow": pyarrow.__version__}, backend_pid, read


def connectorx_reader(dsn, partition_on, partitions):
    """Returns (versions, 0, read) for ConnectorX: read(sql) runs
    connectorx.read_sql into a pyarrow Table (over `partitions`
    connections split on `partition_on` when partitions > 1) and yields
    its batches."""
    import connectorx
    import pyarrow
    kw = {}
    if partitions > 1:
        kw = {"partition_on": partition_on, "partition_num": partitions}

    def read(sql):
        table = connectorx.read_sql(dsn, sql, return_type="arrow", **kw)
        for batch in table.to_batches():
            yield batch
    # Fail at start, not at the first read, when the server is unreachable.
    connectorx.read_sql(dsn, "SELECT 1 AS one", return_type="arrow")
    return {"connectorx": connectorx.__version__, "pyarrow": pyarrow.__version__}, 0, read


def main():
    try:
        start = json.loads(sys.stdin.readline())
        dsn, sql = start["dsn"], start["sql"]
        driver = start.get("driver", "adbc")
        partition_on = start.get("partition_on", "")
        partitions = int(start.get("partitions", 1))
    except (ValueError, KeyError, TypeError) as e:
        reply({"error": "bad start line (want {\"dsn\": …, \"sql\": …}): %s" % type(e).__name__})
        return 2
    try:
        import pyarrow
        import pyarrow.compute as pc
        if driver == "adbc":
            import adbc_driver_postgresql.dbapi  # noqa: F401
        elif driver == "connectorx":
            import connectorx  # noqa: F401
        else:
            reply({"error": "unknown driver %r" % driver})
            return 2
    except ImportError as e:
        reply({"error": "not installed: %s" % e})
        return 1
    try:
        if driver == "adbc":
            versions, backend_pid, read = adbc_reader(dsn)
        else:
            versions, backend_pid, read = connectorx_reader(dsn, partition_on, partitions)
    except Exception as e:  # the caller redacts the password from errors
        reply({"error": "connect: %s: %s" % (type(e).__name__, e)})
        return 1
    del dsn, start
    reply({"ready": True, "backend_pid": backend_pid, "versions": versions})
    for line in sys.stdin:
        cmd = line.strip()
        try:
            cpu0 = time.process_time()
            if cmd == "run":
                rows = 0
                for batch in read(sql):
                    rows += batch.num_rows
                out = {"rows": rows}
            elif cmd == "check":
                out = checksums(read(sql), pyarrow, pc)
            elif cmd.startswith("dump "):
                out = {"rows": dump(read(sql), cmd[len("dump "):], pyarrow)}
            else:
                out = {"error": "unknown command %r" % cmd}
            out["cpu_s"] = time.process_time() - cpu0
            out["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        except Exception as e:  # report, keep serving
            out = {"error": "%s: %s" % (type(e).__name__, e)}
        reply(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
