"""``run``: every case of cases.jsonl, group by group (§4)."""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from dataclasses import dataclass, field

from . import codecs, dataset, digest, measure, projection
from .kit import CannotHold
from .out import Out, fatal, one_line

OPS = ("encode", "decode", "query", "copy", "export", "import")
FILE_OPS = ("export", "import")


class WorkError(Exception):
    """The runner's own failure (an error line without case, exit 1)."""


@dataclass
class Case:
    id: str
    group: str = ""
    subject: str = ""
    role: str = "subject"
    op: str = ""
    dataset: str = ""
    size: int = 0
    codec: str = ""
    query: str = ""
    count: int = 0
    min_count: int = 0
    budget_ns: int = 0
    per_round: int = 0
    no_warmup: bool = False
    limit_of: str = ""
    params: dict = field(default_factory=dict)
    path: str = ""

    @classmethod
    def parse(cls, obj: dict) -> Case:
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str) or not obj["id"]:
            raise ValueError("a case without id")
        kw = {}
        for name in cls.__dataclass_fields__:
            if name in obj and obj[name] is not None:
                kw[name] = obj[name]
        c = cls(**kw)
        for name in ("count", "min_count", "budget_ns", "per_round", "size"):
            v = getattr(c, name)
            if not isinstance(v, int) or isinstance(v, bool):
                raise ValueError(f"case {c.id}: {name} is not an integer")
        if not isinstance(c.params, dict):
            raise ValueError(f"case {c.id}: params is not an object")
        return c


class _Member:
    def __init__(self, c: Case):
        self.c = c
        self.bound = None
        self.run = None
        self.bytes_per_op = 0
        self.encoded = None
        self.proj = None
        self.codec = None
        self.ds = None
        self.m: measure.Member | None = None


class Runner:
    def __init__(self, out: Out, work: str, subjects: dict, log=None):
        self.out = out
        self.work = work
        self.subjects = subjects
        self.log = log or (lambda s: print("serbench-runner: " + s, file=sys.stderr, flush=True))
        self.stop = False
        self.finished = 0
        self.failed = 0
        self.datasets: dict[str, dataset.Dataset] = {}
        self.kept: dict[str, bytes] = {}
        self.limit_targets: set[str] = set()
        # the cases that ended "cannot hold": a copy limit row of one has no
        # bytes to copy, and cannot hold them either
        self.unheld: set[str] = set()

    # -- reading the work directory

    def read(self) -> list[Case]:
        try:
            with open(os.path.join(self.work, "run.json"), encoding="utf-8") as f:
                rj = json.load(f)
            self.benchtime = int(rj.get("benchtime_ns") or 1_000_000_000)
            self.max_iters = int(rj.get("max_iters") or 1_000_000_000)
            self.default_count = int(rj.get("count") or 1)
            if self.benchtime <= 0 or self.max_iters <= 0:
                raise WorkError("run.json: benchtime_ns and max_iters must be positive")
            cases = []
            with open(os.path.join(self.work, "cases.jsonl"), encoding="utf-8") as f:
                for i, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        cases.append(Case.parse(json.loads(line)))
                    except (ValueError, TypeError) as e:
                        raise WorkError(f"cases.jsonl line {i}: {e}") from None
        except OSError as e:
            raise WorkError(f"unreadable work directory {self.work}: {one_line(e)}") from None
        except (ValueError, TypeError, AttributeError) as e:
            if isinstance(e, WorkError):
                raise
            raise WorkError(f"run.json: {one_line(e)}") from None
        return cases

    def run(self) -> None:
        cases = self.read()
        self.limit_targets = {c.limit_of for c in cases if c.limit_of}
        i = 0
        while i < len(cases) and not self.stop:
            j = i + 1
            g = cases[i].group
            if g:
                while j < len(cases) and cases[j].group == g:
                    j += 1
            self.run_group(cases[i:j])
            i = j

    # -- lines

    def error(self, c: Case, phase: str, message: str, cannot_hold: bool = False) -> None:
        line: dict[str, object] = {"type": "error", "case": c.id, "phase": phase, "message": message or "error"}
        if cannot_hold:
            line["cannot_hold"] = True
            self.unheld.add(c.id)
        self.out.line(line)

    def _fail(self, mb: _Member, phase: str, e: BaseException) -> None:
        self.error(mb.c, phase, one_line(e), _cannot_hold(e))
        self.failed += 1
        self.finished += 1

    # -- one group

    def run_group(self, group: list[Case]) -> None:
        used = {c.dataset for c in group}
        for k in list(self.datasets):
            if k not in used:
                del self.datasets[k]
        members: list[_Member] = []
        for c in group:
            if self.stop:
                return
            if c.op in FILE_OPS:
                self.file_case(c)
                continue
            mb = _Member(c)
            try:
                self.setup(mb)
            except BaseException as e:  # noqa: BLE001
                if fatal(e):
                    raise
                self._fail(mb, "setup", e)
                continue
            try:
                ok = self.verify(mb)
            except BaseException as e:  # noqa: BLE001
                if fatal(e):
                    raise
                self._fail(mb, "verify", e)
                continue
            if not ok:
                self.failed += 1
                self.finished += 1
                continue
            members.append(mb)
        # What the group holds from here to its end (the datasets, each
        # member's encoded input and bound subject) is frozen out of the
        # collector: the gc.collect() before each calibration and turn then
        # traverses only what was allocated since, instead of every live
        # object of the group (a collection then costs what the last turn
        # left behind, not the size of the data), and still frees every
        # cycle the previous turn made.
        gc.collect()
        gc.freeze()
        try:
            self._measure(members)
        finally:
            gc.unfreeze()

    def _measure(self, members: list[_Member]) -> None:
        """Calibrates the verified members one after another, then samples
        them in interleaved rounds (§4.2, §4.3)."""
        sampled = []
        for mb in members:
            if self.stop:
                return
            c = mb.c
            try:
                gc.collect()
                cal = measure.calibrate(mb.run, self.benchtime, self.max_iters, c.no_warmup)
            except BaseException as e:  # noqa: BLE001
                if fatal(e):
                    raise
                self._fail(mb, "calibrate", e)
                continue
            count = c.count if c.count > 0 else max(self.default_count, 1)
            mb.m = measure.Member(
                key=mb,
                run=mb.run,
                n=cal.n,
                count=count,
                min_count=c.min_count if c.min_count > 0 else 1,
                budget_ns=c.budget_ns,
                per_round=c.per_round,
                pending=cal.first_sample,
            )
            self.log(f"{c.id}: {cal.n} iteration(s)/sample after {cal.runs} calibration run(s)")
            sampled.append(mb)

        def emit(m: measure.Member, rnd: int, order: int, iters: int, ns: int) -> None:
            mb = m.key
            self.out.line(
                {
                    "type": "sample",
                    "case": mb.c.id,
                    "round": rnd,
                    "order": order,
                    "iters": iters,
                    "ns_per_op": max(ns, 1) / iters,
                    "bytes_per_op": mb.bytes_per_op,
                    "alloc_bytes_per_op": None,
                    "allocs_per_op": None,
                }
            )

        def fail(m: measure.Member, e: BaseException) -> None:
            self._fail(m.key, "sample", e)

        done = measure.rounds([mb.m for mb in sampled], emit, fail, lambda: self.stop)
        if done:
            for mb in sampled:
                if not mb.m.failed:
                    self.finished += 1

    def dataset(self, name: str) -> dataset.Dataset:
        d = self.datasets.get(name)
        if d is None:
            if not name or "/" in name or "\\" in name or name in (".", ".."):
                raise ValueError(f"bad dataset name {name!r}")
            d = dataset.load(name, os.path.join(self.work, "datasets", name, "data.arrows"))
            self.datasets[name] = d
        return d

    # -- the file ops (§10): export and import, verified, never timed

    def file_path(self, c: Case) -> str:
        """The case's path, resolved against WORK; it must lie under WORK/tmp."""
        if not c.path:
            raise ValueError(f"op {c.op} without a path")
        tmp = os.path.realpath(os.path.join(self.work, "tmp"))
        p = os.path.realpath(os.path.join(self.work, c.path))
        if os.path.dirname(p) != tmp and not p.startswith(tmp + os.sep):
            raise ValueError(f"path {c.path!r} is not under WORK/tmp")
        return p

    def file_case(self, c: Case) -> None:
        """export: write the dataset to path as the subject's format's file,
        read it back; import: read the file at path. Both report the digest of
        what was read (through the dataset's schema) and the file's size."""
        try:
            if c.params:
                raise ValueError(f"unknown params key {sorted(c.params)[0]}")
            if c.codec not in ("", "none"):
                raise ValueError(f"op {c.op} takes no codec (got {c.codec})")
            s = self.subjects.get(c.subject)
            if s is None:
                raise ValueError(f"unknown subject {c.subject}")
            if c.op not in s.ops:
                raise ValueError(f"unknown op {c.op} for subject {c.subject}")
            path = self.file_path(c)
            ds = self.dataset(c.dataset)
            b = bind(s, ds)
            if c.op == "export":
                natives = b.prepare(ds)
            else:
                natives = None
                b.prepare_import(ds)
        except BaseException as e:  # noqa: BLE001
            if fatal(e):
                raise
            self.error(c, "setup", one_line(e), _cannot_hold(e))
            self.failed += 1
            self.finished += 1
            return
        what = "write" if c.op == "export" else "read"
        try:
            t0 = time.perf_counter_ns()
            if c.op == "export":
                b.write_file(natives, path)
                elapsed = time.perf_counter_ns() - t0
                del natives
                what = "reading its own file back"
                read = b.read_file(path)
            else:
                read = b.read_file(path)
                elapsed = time.perf_counter_ns() - t0
            rows = b.rows(read)
            del read
            if len(rows) != ds.table.num_rows:
                raise ValueError(f"read {len(rows)} rows, want {ds.table.num_rows}")
            r = digest.digest_rows(ds.schema, rows)
        except BaseException as e:  # noqa: BLE001
            if fatal(e):
                raise
            if _cannot_hold(e):
                # the format cannot hold a value of the data (§4.1): said as
                # such, not as a failed read
                self.error(c, "verify", f"{c.op} ({what}): {one_line(e)}", True)
                self.failed += 1
                self.finished += 1
                return
            self.out.line({"type": "verify", "case": c.id, "ok": False, "reason": f"{c.op} ({what}) failed: {one_line(e)}"})
            self.failed += 1
            self.finished += 1
            return
        self.out.line({"type": "verify", "case": c.id, "ok": True, "encoded_bytes": os.path.getsize(path), "elapsed_ns": elapsed, "digest": r})
        self.finished += 1

    # -- setup and verify (§4.1, §4.2)

    def setup(self, mb: _Member) -> None:
        c = mb.c
        if c.per_round < 0:
            raise ValueError(f"per_round {c.per_round}")
        if c.params:
            raise ValueError(f"unknown params key {sorted(c.params)[0]}")
        if c.op == "copy" or c.subject == "copy":
            if c.op != "copy" or c.subject != "copy":
                raise ValueError(f"op copy goes with subject copy (got subject {c.subject}, op {c.op})")
            src = self.kept.get(c.limit_of)
            if src is None and c.limit_of in self.unheld:
                raise CannotHold(f"limit_of {c.limit_of}: that case cannot hold this data, so there are no bytes to copy")
            if src is None:
                raise ValueError(f"limit_of {c.limit_of}: no encoded bytes from that case (unknown or failed)")
            mb.encoded = src
            mb.dst = bytearray(len(src))
            mb.run = measure.copy_loop(src, mb.dst)
            mb.bytes_per_op = len(src)
            return
        s = self.subjects.get(c.subject)
        if s is None:
            raise ValueError(f"unknown subject {c.subject}")
        if c.op not in s.ops:
            raise ValueError(f"unknown op {c.op} for subject {c.subject}")
        codec = codecs.parse(c.codec)
        if c.op == "query" and not c.query.strip():
            raise ValueError("op query without a query")
        ds = self.dataset(c.dataset)
        proj = projection.parse(c.query, ds.schema) if c.op == "query" else None
        b = bind(s, ds)
        natives = b.prepare(ds)
        enc, dec = b.encode, b.decode
        if codec.compress is not None:
            comp, decomp = codec.compress, codec.decompress
            enc_op = lambda x: comp(enc(x))  # noqa: E731
            if proj is None:
                dec_op = lambda x: dec(decomp(x))  # noqa: E731
            else:
                q = b.query
                dec_op = lambda x: q(decomp(x), proj)  # noqa: E731
        else:
            enc_op = enc
            if proj is None:
                dec_op = dec
            else:
                q = b.query
                dec_op = lambda x: q(x, proj)  # noqa: E731
        encoded = bytes(memoryview(enc_op(natives)))
        mb.bound, mb.encoded, mb.proj, mb.codec, mb.ds = b, encoded, proj, codec, ds
        mb.bytes_per_op = len(encoded)
        mb.dec_op = dec_op
        if c.op == "encode":
            mb.run = measure.op_loop(enc_op, natives)
        elif c.op in ("decode", "query"):
            mb.run = measure.op_loop(dec_op, encoded)
        else:
            raise ValueError(f"unknown op {c.op}")

    def verify(self, mb: _Member) -> bool:
        c = mb.c
        if c.op == "copy":
            mb.run(1)
            if bytes(mb.dst) != mb.encoded:
                self.out.line({"type": "verify", "case": c.id, "ok": False, "reason": "the copy differs from its source"})
                return False
            self.out.line({"type": "verify", "case": c.id, "ok": True, "encoded_bytes": len(mb.encoded), "digest": None})
            mb.encoded = None
            return True
        try:
            decoded = mb.dec_op(mb.encoded)
            rows = mb.bound.rows(decoded)
        except BaseException as e:  # noqa: BLE001
            if fatal(e):
                raise
            self.out.line({"type": "verify", "case": c.id, "ok": False, "reason": "round trip failed: " + one_line(e)})
            return False
        if len(rows) != mb.ds.table.num_rows:
            self.out.line(
                {
                    "type": "verify",
                    "case": c.id,
                    "ok": False,
                    "reason": f"round trip gave {len(rows)} rows, want {mb.ds.table.num_rows}",
                }
            )
            return False
        r = digest.digest_rows(mb.ds.schema, rows, None if mb.proj is None else mb.proj.leaves)
        del rows, decoded
        self.out.line({"type": "verify", "case": c.id, "ok": True, "encoded_bytes": len(mb.encoded), "digest": r})
        if c.id in self.limit_targets:
            self.kept[c.id] = mb.encoded
        mb.encoded = None if c.op == "encode" else mb.encoded
        mb.ds = None
        return True


def _cannot_hold(e: BaseException | None) -> bool:
    """Whether e, or an exception it was raised from, is a kit.CannotHold."""
    seen = 0
    while e is not None and seen < 20:
        if isinstance(e, CannotHold):
            return True
        e = e.__cause__ or e.__context__
        seen += 1
    return False


def bind(s, ds: dataset.Dataset):
    """s bound to ds: with the user's schema for a subject of a given kind."""
    if s.given:
        if ds.given is None or ds.given.kind != s.given:
            raise ValueError(f"subject {s.name} measures a given {s.given} schema; dataset {ds.name} has none")
        return s.bind_given(ds.schema, ds.given)
    return s.bind(ds.schema)
