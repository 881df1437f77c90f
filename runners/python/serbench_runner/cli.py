"""The command line of a runner (docs/runner-protocol.md §2, §5, §6), for
serbench's own runner and any runner built with the kit:

RUNNER hello --protocol 1
RUNNER run --protocol 1 --work WORK

Exit codes: 0 every case attempted; 1 the runner's own failure (an
unreadable work directory, a subject declared wrong) or SIGTERM/SIGINT; 2 a
usage error or a protocol mismatch; 3 pyarrow missing.
"""

from __future__ import annotations

import os
import platform
import signal
import sys
from collections.abc import Callable, Iterable, Sequence

from . import __version__
from .kit import OPS, PROTOCOL, Subject
from .out import Out, fatal, one_line

USAGE = """usage: RUNNER hello --protocol 1
       RUNNER run --protocol 1 --work DIR"""


def _vm_flags() -> list[str]:
    flags = []
    for k, v in sys._xoptions.items():
        flags.append(f"-X{k}" if v is True else f"-X{k}={v}")
    if sys.flags.optimize:
        flags.append("-" + "O" * sys.flags.optimize)
    if sys.flags.dev_mode:
        flags.append("-Xdev")
    if sys.flags.isolated:
        flags.append("-I")
    return flags


def _arch() -> str:
    m = platform.machine().lower()
    return {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(m, m)


def hello(runner: str, language: str, subjects: Iterable[Subject]) -> dict:
    """The hello line (§3.1)."""
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "runner": runner,
        "language": language,
        "runtime": platform.python_implementation(),
        "runtime_version": platform.python_version(),
        "vm_flags": _vm_flags(),
        "os": platform.system().lower(),
        "arch": _arch(),
        "alloc": "none",
        "runner_version": __version__,
        "subjects": [s.describe() for s in subjects],
    }


def parse(argv: Sequence[str]) -> tuple[str, int, str | None]:
    """(command, protocol, work) of a command line; a ValueError says what is wrong."""
    if not argv or argv[0] not in ("hello", "run"):
        raise ValueError("a command, hello or run, is required")
    cmd, opts = argv[0], {}
    i = 1
    while i < len(argv):
        a = argv[i]
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
        elif a in ("--protocol", "--work"):
            if i + 1 >= len(argv):
                raise ValueError(f"{a} needs a value")
            k, v = a[2:], argv[i + 1]
            i += 1
        else:
            raise ValueError(f"unknown argument {a}")
        if k not in ("protocol", "work"):
            raise ValueError(f"unknown flag --{k}")
        opts[k] = v
        i += 1
    proto = opts.get("protocol", os.environ.get("SERBENCH_PROTOCOL"))
    if proto is None:
        raise ValueError("--protocol is required")
    try:
        proto = int(proto)
    except ValueError:
        raise ValueError(f"bad --protocol {proto!r}") from None
    work = opts.get("work", os.environ.get("SERBENCH_WORK"))
    if cmd == "run" and not work:
        raise ValueError("run needs --work DIR")
    return cmd, proto, work


def check(subjects: Iterable[object]) -> list[Subject]:
    """The subjects as a list; a TypeError or ValueError says which is
    declared wrong and how."""
    out: list[Subject] = []
    seen: set[str] = set()
    for s in subjects:
        if not isinstance(s, Subject):
            raise TypeError(f"{s!r} is not a serbench_runner.kit.Subject")
        for attr in ("name", "format", "library"):
            v = getattr(s, attr)
            if not isinstance(v, str) or not v:
                raise ValueError(f"subject {s!r}: {attr} must be a non-empty string")
        if s.name == "copy":
            raise ValueError("subject copy: the name is the limit row's (§4.5)")
        if s.name in seen:
            raise ValueError(f"two subjects are called {s.name}")
        seen.add(s.name)
        if isinstance(s.ops, str) or not s.ops or any(op not in OPS for op in s.ops):
            raise ValueError(f"subject {s.name}: ops {s.ops!r}: a sequence of {', '.join(OPS)}")
        if s.codecs is not None and (isinstance(s.codecs, str) or not all(isinstance(c, str) for c in s.codecs)):
            raise ValueError(f"subject {s.name}: codecs {s.codecs!r}: a sequence of codec names, or None")
        if not hasattr(s.labels, "items"):
            raise ValueError(f"subject {s.name}: labels must be a mapping of strings")
        s.describe()  # an unknown codec name is a ValueError here
        out.append(s)
    return out


def installed(subjects: Iterable[Subject], log: Callable[[str], None] | None = None) -> list[Subject]:
    """The subjects whose available() is None; log(msg) hears of the others."""
    out = []
    for s in subjects:
        why = s.available()
        if why is None:
            out.append(s)
        elif log is not None:
            log(f"subject {s.name} not available: {why}")
    return out


def serve(
    *,
    runner: str,
    language: str,
    subjects: Iterable[Subject] | Callable[[], Iterable[Subject]],
    argv: Sequence[str] | None = None,
) -> int:
    """The runner's whole life on one command line; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    out = Out(sys.stdout.buffer)

    def log(msg: str) -> None:
        print(f"{runner}: {msg}", file=sys.stderr, flush=True)

    def fail(code: int, message: str) -> int:
        out.line(hello(runner, language, []))
        out.line({"type": "error", "phase": "setup", "message": message})
        out.line({"type": "end", "cases": 0, "failed": 0})
        return code

    try:
        cmd, proto, work = parse(argv)
    except ValueError as e:
        log(str(e))
        print(USAGE.replace("RUNNER", runner), file=sys.stderr)
        return fail(2, f"usage: {e}")
    try:
        import pyarrow  # noqa: F401 - every dataset is read with it
    except ImportError as e:
        return fail(
            3,
            f"pyarrow is missing ({e}): install it into this Python's environment"
            " (serbench's runner: from runners/python/requirements.lock; a runner of the kit: pip install ./runners/python)",
        )
    # What a subject prints goes to standard error: standard output carries
    # only protocol lines (out holds it).
    stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        try:
            declared = subjects() if callable(subjects) else subjects
            declared = check(declared)
            ready = installed(declared, log)
        except ImportError as e:
            return fail(3, f"a library the runner's subjects need is missing: {one_line(e)}")
        except BaseException as e:  # noqa: BLE001
            if fatal(e):
                raise
            import traceback

            traceback.print_exc()
            return fail(1, f"the runner's subjects: {one_line(e)}")
        return _command(out, log, runner, language, ready, cmd, proto, work)
    finally:
        sys.stdout = stdout


def _command(out: Out, log, runner: str, language: str, subjects: list[Subject], cmd: str, proto: int, work: str | None) -> int:
    out.line(hello(runner, language, subjects))
    if proto != PROTOCOL:
        out.line({"type": "error", "phase": "setup", "message": f"protocol {proto} requested, this runner speaks {PROTOCOL}"})
        return 2
    if cmd == "hello":
        out.line({"type": "end", "cases": 0, "failed": 0})
        return 0

    from .run import Runner, WorkError

    r = Runner(out, work, {s.name: s for s in subjects}, log)
    stopped = []

    def on_signal(signum, frame):
        stopped.append(signum)
        r.stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    code = 0
    try:
        r.run()
    except WorkError as e:
        out.line({"type": "error", "phase": "setup", "message": str(e)})
        code = 1
    except Exception as e:  # noqa: BLE001
        import traceback

        traceback.print_exc()
        out.line({"type": "error", "phase": "setup", "message": "runner failed: " + one_line(e)})
        code = 1
    if stopped and code == 0:
        out.line({"type": "error", "phase": "sample", "message": f"stopped by signal {stopped[0]} at a sample boundary"})
        code = 1
    out.line({"type": "end", "cases": r.finished, "failed": r.failed})
    return code
