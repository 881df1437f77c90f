"""The runner kit's public API (serbench_runner.kit): subjects declared by
subclass or by keywords, their hello descriptors, the default bind, and
runners written with the kit alone run as serbench runs them — hello, verify
by digest, rounds with a copy limit row, codecs, error lines and exit codes.
Also: the built-in runner is declared with the same API, the example runner
of examples/runner-python, and pyproject.toml agrees with the lock files."""

import functools
import importlib
import json
import os
import pickle
import platform
import re
import subprocess
import sys
import textwrap

import pytest

from serbench_runner import __version__, cli, dataset, digest, kit, main, subjects

from . import sample_data
from .test_e2e import ROOT, case, make_work

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(ROOT)), "examples", "runner-python", "runner.py")


class Pickle(kit.Subject):
    name = "pickle"
    format = "pickle"
    library = "pickle"
    labels = kit.labels(model="dict rows", protocol=5)

    def encode(self, rows):
        return pickle.dumps(rows, protocol=5)

    def decode(self, data):
        return pickle.loads(data)


@pytest.fixture(scope="module")
def ds():
    t = sample_data.table(30)
    return dataset.Dataset("sample", t.schema, t, dataset.to_native(t))


def test_public_names():
    for name in kit.__all__:
        assert getattr(kit, name) is not None, name
    assert kit.__version__ == __version__
    assert kit.PROTOCOL == 1
    assert kit.Dataset is dataset.Dataset
    assert kit.Projection.__name__ == "Projection"
    with pytest.raises(AttributeError):
        kit.nope  # noqa: B018


def test_labels():
    assert kit.labels() == {"codegen": "no", "reuse": "no", "zero_copy": "no", "time_precision": "us"}
    got = kit.labels(protocol=5, reuse="yes", nesting="flat")
    assert got == {"codegen": "no", "reuse": "yes", "zero_copy": "no", "time_precision": "us", "protocol": "5", "nesting": "flat"}


def test_describe():
    d = Pickle().describe()
    assert d["name"] == "pickle" and d["format"] == "pickle" and d["library"] == "pickle"
    assert d["version"] == platform.python_version()  # a standard-library module
    assert d["ops"] == ["encode", "decode"]
    assert d["codecs"][0] == "none" and "gzip:6" in d["codecs"]
    assert d["codec_library"].startswith("stdlib gzip")
    assert d["labels"]["protocol"] == "5"
    # the version of a distribution, of an importable module's distribution, or as given
    assert kit.Subject(name="a", format="f", library="pyarrow").describe()["version"] == __import__("pyarrow").__version__
    assert (
        kit.Subject(name="a", format="f", library="google.protobuf").describe()["version"] == importlib.import_module("google.protobuf").__version__
    )
    assert kit.Subject(name="a", format="f", library="mine", version="1.2").describe()["version"] == "1.2"
    assert kit.Subject(name="a", format="f", library="no-such-library-here").describe()["version"] == "not installed"
    # codecs: only those given, none of them needing a library: no codec_library
    d = kit.Subject(name="a", format="f", library="x", codecs=["none"]).describe()
    assert d["codecs"] == ["none"] and "codec_library" not in d
    assert kit.Subject(name="a", format="f", library="x", codecs=["none", "zstd"]).describe()["codecs"] == ["none", "zstd"]


def test_keywords_override_class_attributes():
    s = Pickle(name="pickle-2", labels={"protocol": "2"})
    assert (s.name, s.format, s.labels) == ("pickle-2", "pickle", {"protocol": "2"})
    assert Pickle.name == "pickle"
    with pytest.raises(TypeError):
        kit.Subject(nmae="typo")


def test_default_bind_is_the_subjects_encode_and_decode(ds):
    s = Pickle()
    b = s.bind(ds.schema)
    assert isinstance(b, kit.Bound)
    assert b.encode == s.encode and b.decode == s.decode  # no layer in the timed call
    natives = b.prepare(ds)
    assert natives is ds.rows
    decoded = b.decode(bytes(b.encode(natives)))
    assert digest.digest_rows(ds.schema, b.rows(decoded)) == digest.digest_rows(ds.schema, ds.rows)
    # the same with functions given as keywords
    k = kit.Subject(name="p2", format="pickle", library="pickle", encode=functools.partial(pickle.dumps, protocol=2), decode=pickle.loads)
    kb = k.bind(ds.schema)
    assert kb.decode is pickle.loads
    assert digest.digest_rows(ds.schema, kb.rows(kb.decode(kb.encode(ds.rows)))) == digest.digest_rows(ds.schema, ds.rows)


def test_encode_and_decode_are_required(ds):
    b = kit.Subject(name="a", format="f", library="x").bind(ds.schema)
    with pytest.raises(NotImplementedError, match="define encode and decode, or bind"):
        b.encode(ds.rows)


@pytest.mark.parametrize(
    "bad, message",
    [
        ([kit.Subject(name="", format="f", library="x")], "name must be a non-empty string"),
        ([kit.Subject(name="a", format="", library="x")], "format must be a non-empty string"),
        ([Pickle(), Pickle()], "two subjects are called pickle"),
        ([Pickle(name="copy")], "the limit row"),
        ([Pickle(ops=("encode", "zap"))], "ops"),
        ([Pickle(ops="encode")], "ops"),
        ([Pickle(codecs=["none", "rar:1"])], "unknown codec rar:1"),
        (["pickle"], "is not a serbench_runner.kit.Subject"),
    ],
)
def test_check_refuses(bad, message):
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        cli.check(bad)


def test_builtin_runner_uses_the_kit():
    assert all(issubclass(c, kit.Subject) for c in subjects.ALL)
    built = main.builtin()
    assert [type(s) for s in built] == subjects.ALL
    assert cli.check(built) == built
    assert list(subjects.available()) == [s.name for s in cli.installed(built)]


# -- runners written with the kit, run as serbench runs them

RUNNER = """
import functools, pickle, sys
from serbench_runner import kit

class Pickle(kit.Subject):
    name = "pickle"
    format = "pickle"
    library = "pickle"
    labels = kit.labels(model="dict rows")

    def encode(self, rows):
        print("a subject's print goes to stderr")
        return pickle.dumps(rows, protocol=5)

    def decode(self, data):
        return pickle.loads(data)

class Refuses(Pickle):
    name = "refuses"

    def bind(self, schema):
        raise ValueError(f"refuses: column {schema.names[0]!r} is not for me")

class Broken(Pickle):
    name = "broken"

    def encode(self, rows):
        raise RuntimeError("the library broke")

class Loses(Pickle):
    name = "loses"

    def decode(self, data):
        return pickle.loads(data)[:-1]

class Changes(Pickle):
    name = "changes"

    def decode(self, data):
        rows = pickle.loads(data)
        for r in rows:
            r["id"] = 0
        return rows

SUBJECTS = [
    Pickle(),
    kit.Subject(name="pickle-2", format="pickle", library="pickle", codecs=["none", "gzip:6"],
                encode=functools.partial(pickle.dumps, protocol=2), decode=pickle.loads),
    Refuses(), Broken(), Loses(), Changes(),
    kit.Subject(name="absent", format="f", library="x", modules=["no_such_module_here"]),
]

if __name__ == "__main__":
    kit.main(runner="mine", subjects=SUBJECTS)
"""


def run_script(path, args, work=None, timeout=300):
    env = dict(os.environ, SERBENCH_PROTOCOL="1", TZ="UTC", LC_ALL="C.UTF-8", PYTHONPATH=ROOT)
    if work is not None:
        env["SERBENCH_WORK"] = str(work)
    p = subprocess.run(
        [sys.executable, str(path), *args],
        cwd=str(work) if work is not None else ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
    )
    lines = [json.loads(x) for x in p.stdout.decode().splitlines() if x.strip()]
    return p.returncode, lines, p.stderr.decode()


def write_runner(tmp_path, source=RUNNER):
    p = tmp_path / "runner.py"
    p.write_text(textwrap.dedent(source))
    return p


def test_hello(tmp_path):
    code, lines, err = run_script(write_runner(tmp_path), ["hello", "--protocol", "1"])
    assert code == 0, err
    assert [x["type"] for x in lines] == ["hello", "end"]
    h = lines[0]
    assert (h["protocol"], h["runner"], h["language"], h["alloc"]) == (1, "mine", "python", "none")
    assert h["runtime_version"] == platform.python_version() and h["runner_version"] == __version__
    names = [s["name"] for s in h["subjects"]]
    assert names == ["pickle", "pickle-2", "refuses", "broken", "loses", "changes"]
    assert "subject absent not available" in err
    assert h["subjects"][1]["codecs"] == ["none", "gzip:6"]


def test_run(tmp_path):
    cases = [
        case("r/pickle/decode", "pickle", "decode", group="r/decode", role="baseline"),
        case("r/pickle-2/decode", "pickle-2", "decode", group="r/decode"),
        case("r/copy", "copy", "copy", group="r/decode", role="limit", limit_of="r/pickle/decode"),
        case("r/pickle/encode/gzip:6", "pickle", "encode", codec="gzip:6", per_round=2, count=4),
        case("r/refuses", "refuses", "decode"),
        case("r/broken", "broken", "encode"),
        case("r/loses", "loses", "decode"),
        case("r/changes", "changes", "decode"),
        case("r/absent", "absent", "decode"),
        case("r/query", "pickle", "query", query="id"),
    ]
    work, t = make_work(tmp_path, cases)
    code, lines, err = run_script(write_runner(tmp_path), ["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    assert lines[0]["type"] == "hello" and lines[-1] == {"type": "end", "cases": 10, "failed": 5}
    assert "a subject's print goes to stderr" in err
    full = digest.digest_rows(t.schema, dataset.to_native(t))
    verify = {x["case"]: x for x in lines if x["type"] == "verify"}
    errors = {x["case"]: x for x in lines if x["type"] == "error"}
    samples = {}
    for x in lines:
        if x["type"] == "sample":
            samples.setdefault(x["case"], []).append(x)
    for cid in ("r/pickle/decode", "r/pickle-2/decode", "r/pickle/encode/gzip:6"):
        assert verify[cid]["ok"] and verify[cid]["digest"] == full, cid
    assert verify["r/copy"] == {
        "type": "verify",
        "case": "r/copy",
        "ok": True,
        "encoded_bytes": verify["r/pickle/decode"]["encoded_bytes"],
        "digest": None,
    }
    # a value changed: the runner reports its digest (and measures the case);
    # serbench compares it with its own and fails the case
    assert verify["r/changes"]["ok"] and verify["r/changes"]["digest"]["table"] != full["table"]
    want = {c["path"]: c["digest"] for c in full["columns"]}
    assert {c["path"] for c in verify["r/changes"]["digest"]["columns"] if c["digest"] != want[c["path"]]} == {"id"}
    assert verify["r/loses"] == {"type": "verify", "case": "r/loses", "ok": False, "reason": "round trip gave 39 rows, want 40"}
    assert {c: (e["phase"], e["message"]) for c, e in errors.items()} == {
        "r/refuses": ("setup", "ValueError: refuses: column 'id' is not for me"),
        "r/broken": ("setup", "RuntimeError: the library broke"),
        "r/absent": ("setup", "ValueError: unknown subject absent"),
        "r/query": ("setup", "ValueError: unknown op query for subject pickle"),
    }
    assert {c: len(s) for c, s in samples.items()} == {
        "r/pickle/decode": 3,
        "r/pickle-2/decode": 3,
        "r/copy": 3,
        "r/pickle/encode/gzip:6": 4,
        "r/changes": 3,
    }
    # interleaved rounds, rotated: round 2 starts with the second member
    group = [x for x in lines if x["type"] == "sample" and x["case"] in ("r/pickle/decode", "r/pickle-2/decode", "r/copy")]
    assert [(x["case"], x["order"]) for x in group if x["round"] == 1] == [("r/pickle/decode", 0), ("r/pickle-2/decode", 1), ("r/copy", 2)]
    assert [x["case"] for x in group if x["round"] == 2] == ["r/pickle-2/decode", "r/copy", "r/pickle/decode"]


def test_exit_codes(tmp_path):
    r = write_runner(tmp_path)
    code, lines, _ = run_script(r, ["frobnicate"])
    assert code == 2 and [x["type"] for x in lines] == ["hello", "error", "end"] and lines[1]["message"].startswith("usage: ")
    code, lines, _ = run_script(r, ["hello", "--protocol", "2"])
    assert code == 2 and lines[1] == {"type": "error", "phase": "setup", "message": "protocol 2 requested, this runner speaks 1"}
    code, lines, _ = run_script(r, ["run", "--protocol", "1", "--work", str(tmp_path / "nope")])
    assert code == 1 and [x["type"] for x in lines] == ["hello", "error", "end"] and "case" not in lines[1]


@pytest.mark.parametrize(
    "subjects, code, message",
    [
        ("[kit.Subject(name='a', format='f', library='x'), kit.Subject(name='a', format='f', library='x')]", 1, "two subjects are called a"),
        ("lambda: [kit.Subject(name='a', format='f', library=__import__('no_such_module_here').x)]", 3, "No module named 'no_such_module_here'"),
        ("lambda: 1 / 0", 1, "ZeroDivisionError"),
    ],
)
def test_declaration_errors(tmp_path, subjects, code, message):
    """A runner whose subjects are declared wrong (or whose libraries are
    missing) still speaks the protocol: hello, an error line, end."""
    r = write_runner(tmp_path, f"from serbench_runner import kit\nkit.main(runner='mine', subjects={subjects})\n")
    got, lines, err = run_script(r, ["hello", "--protocol", "1"])
    assert got == code, err
    assert [x["type"] for x in lines] == ["hello", "error", "end"]
    assert message in lines[1]["message"]


def test_no_pyarrow(tmp_path):
    r = write_runner(tmp_path, "import sys\nsys.modules['pyarrow'] = None\nfrom serbench_runner import kit\nkit.main(runner='mine', subjects=[])\n")
    code, lines, _ = run_script(r, ["hello", "--protocol", "1"])
    assert code == 3 and [x["type"] for x in lines] == ["hello", "error", "end"]
    assert lines[1]["message"].startswith("pyarrow is missing")


def test_main_returns_with_exit_false(capsysbinary):
    assert kit.main(runner="mine", subjects=[Pickle()], argv=["hello", "--protocol", "1"], exit=False) == 0
    lines = [json.loads(x) for x in capsysbinary.readouterr().out.splitlines()]
    assert [s["name"] for s in lines[0]["subjects"]] == ["pickle"] and lines[1]["type"] == "end"
    with pytest.raises(SystemExit) as e:
        kit.main(runner="mine", subjects=[Pickle()], argv=["hello", "--protocol", "2"])
    assert e.value.code == 2


# -- the example of examples/runner-python (outside this project)


@pytest.mark.skipif(not os.path.exists(EXAMPLE), reason="no examples/runner-python in this tree")
def test_example_runner(tmp_path):
    code, lines, err = run_script(EXAMPLE, ["hello", "--protocol", "1"])
    assert code == 0, err
    assert lines[0]["runner"] == "py-pickle" and [s["name"] for s in lines[0]["subjects"]] == ["pickle", "marshal"]
    # the sample table has timestamps, dates and decimals: pickle holds
    # them, marshal refuses the dataset at setup; flat records of core
    # types go through both
    flat = sample_data.table(40).select(["id", "name", "score", "flag", "blob", "u32", "tags", "pair"])
    cases = [
        case("e/pickle/decode", "pickle", "decode", group="e/decode", count=2),
        case("e/marshal/decode", "marshal", "decode", group="e/decode", count=2),
        case("e/marshal/flat", "marshal", "decode", dataset="flat-40", count=2),
        case("e/pickle/flat/xz:6", "pickle", "encode", dataset="flat-40", codec="xz:6", count=2),
    ]
    work, t = make_work(tmp_path, cases)
    d = work / "datasets" / "flat-40"
    d.mkdir()
    sample_data.arrow_stream(flat, str(d / "data.arrows"), batch=7)
    code, lines, err = run_script(EXAMPLE, ["run", "--protocol", "1", "--work", str(work)], work=work)
    assert code == 0, err
    verify = {x["case"]: x for x in lines if x["type"] == "verify"}
    errors = {x["case"]: x for x in lines if x["type"] == "error"}
    assert verify["e/pickle/decode"]["digest"] == digest.digest_rows(t.schema, dataset.to_native(t))
    want_flat = digest.digest_rows(flat.schema, dataset.to_native(flat))
    assert verify["e/marshal/flat"]["digest"] == want_flat and verify["e/pickle/flat/xz:6"]["digest"] == want_flat
    assert list(errors) == ["e/marshal/decode"] and errors["e/marshal/decode"]["phase"] == "setup"
    assert errors["e/marshal/decode"]["message"].startswith("ValueError: marshal: column 'ts' has type timestamp[us, tz=UTC]")
    assert lines[-1] == {"type": "end", "cases": 4, "failed": 1}


# -- pyproject.toml and the lock files


def _norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                n, v = line.split("==")
                out[_norm(n)] = v
    return out


def test_pyproject_agrees_with_the_locks():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    lock = _lock(os.path.join(ROOT, "requirements.lock"))
    dev = _lock(os.path.join(ROOT, "requirements-dev.lock"))
    extras = project["optional-dependencies"]
    groups = {"dependencies": project["dependencies"], **extras}
    assert project["dependencies"] == ["pyarrow==26.0.1"]  # the kit needs only pyarrow
    assert extras["all"] == ["serbench-runner[codecs,subjects,pgscan]"]
    pinned = {}
    for group, reqs in groups.items():
        for r in reqs:
            if r.startswith("serbench-runner["):
                continue
            n, v = r.split("==")
            pinned[_norm(n)] = v
            assert (dev if group == "dev" else lock).get(_norm(n)) == v, (group, r)
    assert "version" in project["dynamic"]  # serbench_runner.__version__

    # every lock entry is pinned here or required by what is (the installed
    # distributions' metadata: only in an environment of the lock)
    from importlib import metadata

    for n, v in lock.items():
        try:
            if metadata.version(n) != v:
                pytest.skip(f"this environment has {n} {metadata.version(n)}, the lock {v}")
        except metadata.PackageNotFoundError:
            pytest.skip(f"this environment has no {n}")
    closure, todo = set(), [n for n in pinned if n in lock]
    while todo:
        n = todo.pop()
        if n in closure:
            continue
        closure.add(n)
        try:
            reqs = metadata.requires(n) or []
        except metadata.PackageNotFoundError:
            continue
        todo.extend(_norm(re.split(r"[ ;<>=!~\[(]", r, maxsplit=1)[0]) for r in reqs)
    assert set(lock) <= closure, set(lock) - closure
