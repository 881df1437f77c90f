"""The runner against the protocol's JSON Schema (runner/protocol.schema.json
of the repository): its codecs are the schema's, its hello line and its
subjects' labels are valid by it, and the work files the schema describes
are what the runner reads.

The schema is read from the repository checkout (runners/python/../../runner);
a copy of the runner outside it (serbench's extracted sources) skips these."""

import json
import os
import re
import subprocess
import sys

import jsonschema
import pytest
from referencing import Registry, Resource

from serbench_runner import codecs, kit, subjects
from serbench_runner.run import Case

from .test_e2e import case, make_work

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "..", "..", "runner", "protocol.schema.json")
GOLDEN = os.path.join(ROOT, "..", "..", "runner", "testdata", "protocol")

# The schema's codecs this runner does not apply, and why. Every other codec
# of the schema's list must parse here.
NOT_IMPLEMENTED = {
    "s2": "no maintained S2 (Snappy's Go extension) binding on PyPI",
}


@pytest.fixture(scope="module")
def schema():
    if not os.path.exists(SCHEMA):
        pytest.skip(f"no {os.path.normpath(SCHEMA)}: this runner is not in a serbench checkout")
    with open(SCHEMA, encoding="utf-8") as f:
        return json.load(f)


def validator(schema, definition):
    """A draft 2020-12 validator of one of the schema's $defs, its $refs
    resolved within the schema."""
    resource = Resource.from_contents(schema)
    registry = Registry().with_resource(schema["$id"], resource)
    sub = {"$schema": schema["$schema"], "$ref": f"{schema['$id']}#/$defs/{definition}"}
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(sub, registry=registry, format_checker=cls.FORMAT_CHECKER)


def errors(v, instance):
    return [f"{'/'.join(map(str, e.absolute_path)) or '.'}: {e.message}" for e in v.iter_errors(instance)]


def schema_codecs(schema):
    """The codec names of the schema's pattern, ^(a|b|…)(:-?[0-9]+)?$."""
    m = re.fullmatch(r"\^\(([a-z0-9|]+)\)\(:-\?\[0-9\]\+\)\?\$", schema["$defs"]["codec"]["pattern"])
    assert m, schema["$defs"]["codec"]["pattern"]
    return m.group(1).split("|")


@pytest.fixture(scope="module")
def hello():
    """The lines of ``python -m serbench_runner hello --protocol 1``, as serbench starts it."""
    p = subprocess.run(
        [sys.executable, "-m", "serbench_runner", "hello", "--protocol", "1"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=300,
        check=True,
    )
    return [json.loads(line) for line in p.stdout.decode().splitlines()]


def test_the_validator_is_real(schema):
    # The golden lines of the Go side: a validator that passes all of them
    # and fails every invalid one is the schema's, not a permissive stand-in.
    v = validator(schema, "line")
    with open(os.path.join(GOLDEN, "valid.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            assert not errors(v, json.loads(line)), (i, line)
    with open(os.path.join(GOLDEN, "invalid.jsonl"), encoding="utf-8") as f:
        bad = [json.loads(line) for line in f]
    assert bad
    for g in bad:
        assert errors(v, g["line"]), g["why"]


def test_announced_codecs_match_the_schema(schema, hello):
    pattern = re.compile(schema["$defs"]["codec"]["pattern"])
    assert codecs.ANNOUNCED
    for spec in codecs.ANNOUNCED:
        assert pattern.fullmatch(spec), spec
    announced = [(s["name"], c) for s in hello[0]["subjects"] for c in s["codecs"] or []]
    assert announced
    for name, spec in announced:
        assert pattern.fullmatch(spec), (name, spec)
    for s in subjects.builtin():
        for spec in s.codecs or []:
            assert pattern.fullmatch(spec), (s.name, spec)


def test_every_schema_codec_parses(schema):
    names = schema_codecs(schema)
    assert set(NOT_IMPLEMENTED) <= set(names), "NOT_IMPLEMENTED names a codec the schema has not"
    for name in names:
        if name in NOT_IMPLEMENTED:
            with pytest.raises(ValueError, match="unknown codec"):
                codecs.parse(name)
            continue
        c = codecs.parse(name)
        data = b"serbench " * 64
        if c.compress is None:
            assert name == "none"
            continue
        assert c.decompress(c.compress(data)) == data, name
    # and every level the runner announces
    for spec in codecs.ANNOUNCED:
        c = codecs.parse(spec)
        assert c is codecs.NONE or c.decompress(c.compress(b"x" * 100)) == b"x" * 100, spec


def test_hello_is_valid_by_the_schema(schema, hello):
    assert [x["type"] for x in hello] == ["hello", "end"]
    assert hello[0]["subjects"], "no subject installed: the checks below would check nothing"
    assert not errors(validator(schema, "hello"), hello[0])
    line = validator(schema, "line")
    for x in hello:
        assert not errors(line, x), x


def test_labels_use_the_schema_values(schema, hello):
    defined = schema["$defs"]["labels"]["properties"]
    v = validator(schema, "labels")
    declared = [(s.name, dict(s.labels)) for s in subjects.builtin()]
    announced = [(s["name"], s["labels"]) for s in hello[0]["subjects"]]
    assert announced
    for name, labels in declared + announced + [("kit.labels()", kit.labels())]:
        assert not errors(v, labels), (name, labels)
        for key in labels.keys() & defined.keys():
            allowed = defined[key].get("enum")
            if allowed is not None:
                assert labels[key] in allowed, (name, key, labels[key], allowed)
    # the keys serbench acts on are named as the schema names them
    for key in kit.labels():
        assert key in defined, key


def test_work_files_are_what_the_runner_reads(schema, tmp_path):
    # The golden files hold runner output only; the work files a runner
    # reads (run.json, cases.jsonl lines) are checked on the end-to-end
    # tests' own, which the schema must accept and Case.parse must read.
    cases = [
        case("g/a", "orjson", "decode", group="g", codec="zstd:3"),
        case("g/copy", "copy", "copy", group="g", role="limit", limit_of="g/a"),
        case("x", "fastavro", "export", path="tmp/x.avro"),
    ]
    work, _ = make_work(tmp_path, cases)
    run_v, case_v = validator(schema, "run"), validator(schema, "case")
    assert not errors(run_v, json.loads((work / "run.json").read_text()))
    for line in (work / "cases.jsonl").read_text().splitlines():
        obj = json.loads(line)
        assert not errors(case_v, obj), obj
        c = Case.parse(obj)
        assert (c.id, c.subject, c.op, c.codec) == (obj["id"], obj["subject"], obj["op"], obj["codec"])
    # a case the schema refuses: no id
    bad = {k: v for k, v in cases[0].items() if k != "id"}
    assert errors(case_v, bad)
    with pytest.raises(ValueError):
        Case.parse(bad)
