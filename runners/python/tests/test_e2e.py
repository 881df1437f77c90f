"""End to end: a work directory as serbench writes it, the runner started as
serbench starts it, its lines checked as serbench reads them."""

import json
import os
import subprocess
import sys

import pyarrow as pa
import pytest

from serbench_runner import dataset, digest, projection

from . import sample_data

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def case(id, subject, op, group="", role="subject", **kw):
    c = {
        "id": id,
        "group": group,
        "subject": subject,
        "role": role,
        "op": op,
        "dataset": "sample-40",
        "size": 40,
        "codec": "",
        "query": "",
        "count": 3,
        "min_count": 1,
        "budget_ns": 0,
        "per_round": 0,
        "no_warmup": False,
        "limit_of": "",
        "params": {},
        "a_field_from_the_future": 1,
    }
    c.update(kw)
    return c


def make_work(tmp_path, cases, benchtime_ns=2_000_000):
    work = tmp_path / "work"
    (work / "tmp").mkdir(parents=True)
    d = work / "datasets" / "sample-40"
    d.mkdir(parents=True)
    t = sample_data.table(40)
    sample_data.arrow_stream(t, str(d / "data.arrows"), batch=7)
    (work / "run.json").write_text(
        json.dumps({"protocol": 1, "run_id": "test", "benchtime_ns": benchtime_ns, "max_iters": 1_000_000_000, "count": 3, "seed": 1})
    )
    (work / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    return work, t


def run(args, work=None, timeout=300):
    env = dict(os.environ, SERBENCH_PROTOCOL="1", TZ="UTC", LC_ALL="C.UTF-8", PYTHONPATH=ROOT)
    if work is not None:
        env["SERBENCH_WORK"] = str(work)
    p = subprocess.run(
        [sys.executable, "-m", "serbench_runner", *args],
        cwd=str(work) if work is not None else ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
    )
    lines = [json.loads(x) for x in p.stdout.decode().splitlines() if x.strip()]
    return p.returncode, lines, p.stderr.decode()


def test_hello():
    code, lines, _ = run(["hello", "--protocol", "1"])
    assert code == 0
    assert [x["type"] for x in lines] == ["hello", "end"]
    h = lines[0]
    assert h["protocol"] == 1 and h["runner"] == "python" and h["language"] == "python"
    assert h["alloc"] == "none"
    names = [s["name"] for s in h["subjects"]]
    assert len(names) == len(set(names))
    for s in h["subjects"]:
        assert s["version"] and s["version"] != "not installed", s
        assert set(s["ops"]) <= {"encode", "decode", "query", "export", "import"}
        assert "none" in s["codecs"]
        assert all(isinstance(v, str) for v in s["labels"].values())


def test_protocol_mismatch():
    code, lines, _ = run(["hello", "--protocol", "2"])
    assert code == 2
    assert lines[0]["type"] == "hello" and lines[0]["protocol"] == 1
    assert lines[1] == {"type": "error", "phase": "setup", "message": "protocol 2 requested, this runner speaks 1"}


def test_usage():
    code, lines, _ = run(["frobnicate"])
    assert code == 2
    assert lines[-2]["type"] == "error"


def test_unreadable_work(tmp_path):
    code, lines, _ = run(["run", "--protocol", "1", "--work", str(tmp_path / "nope")], work=None)
    assert code == 1
    assert [x["type"] for x in lines] == ["hello", "error", "end"]
    assert "case" not in lines[1]


def test_run(tmp_path):
    q = "id,items.[].qty"
    cases = [
        case("s/json/decode", "json", "decode", group="s/decode", role="baseline"),
        case("s/orjson/decode", "orjson", "decode", group="s/decode"),
        case("s/msgspec-json/decode", "msgspec-json", "decode", group="s/decode", per_round=2, count=4),
        case("s/copy", "copy", "copy", group="s/decode", role="limit", limit_of="s/json/decode"),
        case("s/msgpack/encode/zstd:3", "msgpack", "encode", codec="zstd:3"),
        case("s/pq/query", "pyarrow-parquet", "query", query=q),
        case("s/nope", "nope", "decode"),
        case("s/badcodec", "json", "decode", codec="rar:1"),
        case("s/params", "json", "decode", params={"reuse": "true"}),
        case("s/ipc/decode", "pyarrow-ipc", "decode", no_warmup=True, count=2, budget_ns=1),
    ]
    work, t = make_work(tmp_path, cases)
    code, lines, err = run(["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    assert lines[0]["type"] == "hello"
    assert lines[-1] == {"type": "end", "cases": 10, "failed": 3}
    rows = dataset.to_native(t)
    full = digest.digest_rows(t.schema, rows)
    proj = projection.parse(q, t.schema)
    want_q = digest.digest_rows(t.schema, rows, proj.leaves)
    verify = {x["case"]: x for x in lines if x["type"] == "verify"}
    errors = {x["case"]: x for x in lines if x["type"] == "error"}
    samples = {}
    for x in lines:
        if x["type"] == "sample":
            assert x["iters"] > 0 and x["ns_per_op"] > 0 and x["bytes_per_op"] > 0
            assert x["alloc_bytes_per_op"] is None
            assert verify[x["case"]]["ok"]
            samples.setdefault(x["case"], []).append(x)
    assert set(errors) == {"s/nope", "s/badcodec", "s/params"}
    assert all(e["phase"] == "setup" for e in errors.values())
    assert "unknown subject nope" in errors["s/nope"]["message"]
    for cid in ("s/json/decode", "s/orjson/decode", "s/msgspec-json/decode", "s/msgpack/encode/zstd:3", "s/ipc/decode"):
        assert verify[cid]["ok"], verify[cid]
        assert verify[cid]["digest"] == full, cid
    assert verify["s/pq/query"]["digest"] == want_q
    assert verify["s/copy"]["digest"] is None
    assert verify["s/copy"]["encoded_bytes"] == verify["s/json/decode"]["encoded_bytes"]
    assert [s["bytes_per_op"] for s in samples["s/copy"]] == [verify["s/json/decode"]["encoded_bytes"]] * 3
    # counts, the burst, the budget
    assert len(samples["s/json/decode"]) == 3
    assert len(samples["s/msgspec-json/decode"]) == 4
    assert len(samples["s/ipc/decode"]) == 1  # a budget of 1 ns: min_count only
    # rounds: rotation, positions, and no member follows itself across rounds
    group = [x for x in lines if x["type"] == "sample" and x["case"] in ("s/json/decode", "s/orjson/decode", "s/msgspec-json/decode", "s/copy")]
    r1 = [(x["case"], x["order"]) for x in group if x["round"] == 1]
    assert r1 == [("s/json/decode", 0), ("s/orjson/decode", 1), ("s/msgspec-json/decode", 2), ("s/msgspec-json/decode", 2), ("s/copy", 3)]
    r2 = [x["case"] for x in group if x["round"] == 2]
    assert r2 == ["s/orjson/decode", "s/msgspec-json/decode", "s/msgspec-json/decode", "s/copy", "s/json/decode"]
    for a, b in zip(group, group[1:]):
        if a["round"] != b["round"]:
            assert a["case"] != b["case"]
    for x in group:
        assert x["iters"] == samples[x["case"]][0]["iters"]


def test_interrupt(tmp_path):
    """SIGTERM stops at a sample boundary with an error line and end."""
    import signal
    import time

    cases = [case("s/json/decode", "json", "decode", count=1000)]
    work, _ = make_work(tmp_path, cases, benchtime_ns=20_000_000)
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.Popen(
        [sys.executable, "-m", "serbench_runner", "run", "--protocol", "1", "--work", str(work)],
        cwd=str(work),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    seen = []
    for line in p.stdout:
        seen.append(json.loads(line))
        if seen[-1]["type"] == "sample":
            break
    p.send_signal(signal.SIGTERM)
    t0 = time.time()
    rest = [json.loads(x) for x in p.stdout.read().decode().splitlines()]
    code = p.wait(timeout=30)
    assert time.time() - t0 < 10
    assert code == 1
    assert rest[-1]["type"] == "end"
    assert any(x["type"] == "error" and "signal" in x["message"] for x in rest)


@pytest.mark.parametrize("subject", ["fastavro", "cbor2", "pyfory", "polars-parquet", "msgspec-msgpack", "pyarrow-parquet", "pyarrow-feather"])
def test_run_each_subject(tmp_path, subject):
    cases = [
        case(f"s/{subject}/decode", subject, "decode", group="g", count=1),
        case(f"s/{subject}/encode", subject, "encode", group="g", count=1),
    ]
    work, t = make_work(tmp_path, cases, benchtime_ns=1_000_000)
    code, lines, err = run(["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    full = digest.digest_rows(t.schema, dataset.to_native(t))
    verify = [x for x in lines if x["type"] == "verify"]
    assert [v["digest"] for v in verify] == [full, full]
    assert lines[-1] == {"type": "end", "cases": 2, "failed": 0}


@pytest.mark.parametrize("subject", ["pyarrow-csv", "polars-csv", "polars-ndjson"])
def test_run_text_subjects(tmp_path, subject):
    """The CSV and NDJSON subjects on the sample table's columns they hold
    (a dataset of its own, "flat-40"), and on the whole sample table: a setup
    error, cannot_hold, naming the first column the subject refuses."""
    flat = subject != "polars-ndjson"
    cases = [
        case(f"s/{subject}/decode", subject, "decode", group="g", count=1, dataset="flat-40"),
        case(f"s/{subject}/encode/zstd:3", subject, "encode", group="g", count=1, dataset="flat-40", codec="zstd:3"),
        case(f"s/{subject}/sample", subject, "decode", count=1),
    ]
    work, t = make_work(tmp_path, cases, benchtime_ns=1_000_000)
    keep = [f.name for f in t.schema if f.name != "blob" and not (flat and pa.types.is_nested(f.type))]
    ft = t.select(keep)
    d = work / "datasets" / "flat-40"
    d.mkdir()
    sample_data.arrow_stream(ft, str(d / "data.arrows"), batch=7)
    code, lines, err = run(["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    want = digest.digest_rows(ft.schema, dataset.to_native(ft))
    verify = [x for x in lines if x["type"] == "verify"]
    assert [v["digest"] for v in verify] == [want, want]
    errors = [x for x in lines if x["type"] == "error"]
    first = "tags" if flat else "blob"
    assert [(e["case"], e["phase"]) for e in errors] == [(f"s/{subject}/sample", "setup")]
    assert errors[0]["message"].startswith(f"{subject}: column '{first}' has type "), errors[0]["message"]
    assert errors[0].get("cannot_hold") is True, errors[0]
    assert lines[-1] == {"type": "end", "cases": 3, "failed": 1}


def test_copy_of_a_case_that_cannot_hold(tmp_path):
    """A copy limit row whose case cannot hold the dataset is cannot hold
    too (no bytes to copy), not a failure."""
    cases = [
        case("s/csv/decode", "pyarrow-csv", "decode", group="s/decode"),
        case("s/copy", "copy", "copy", group="s/decode", role="limit", limit_of="s/csv/decode"),
    ]
    work, _ = make_work(tmp_path, cases)
    code, lines, err = run(["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    errors = {x["case"]: x for x in lines if x["type"] == "error"}
    assert errors["s/csv/decode"].get("cannot_hold") is True, errors
    assert errors["s/copy"].get("cannot_hold") is True, errors
    assert "cannot hold this data, so there are no bytes to copy" in errors["s/copy"]["message"]
