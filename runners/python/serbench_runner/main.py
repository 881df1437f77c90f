"""The command line (docs/runner-protocol.md §2, §5, §6):

python -m serbench_runner hello --protocol 1
python -m serbench_runner run --protocol 1 --work WORK
"""

from __future__ import annotations

import os
import platform
import signal
import sys

from .out import Out, one_line

PROTOCOL = 1
RUNNER_VERSION = "0.1.0"

USAGE = """usage: python -m serbench_runner hello --protocol 1
       python -m serbench_runner run --protocol 1 --work DIR"""


def log(msg: str) -> None:
    print("serbench-runner: " + msg, file=sys.stderr, flush=True)


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


def hello(subjects: dict | None) -> dict:
    ds = []
    codec_lib, announced = "", []
    if subjects:
        from . import codecs

        codec_lib, announced = codecs.library(), codecs.ANNOUNCED
    for s in (subjects or {}).values():
        ds.append(
            {
                "name": s.name,
                "format": s.format,
                "library": s.library,
                "version": s.version(),
                "ops": list(s.ops),
                "codecs": list(announced),
                "codec_library": codec_lib,
                "labels": dict(s.labels),
            }
        )
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "runner": "python",
        "language": "python",
        "runtime": platform.python_implementation(),
        "runtime_version": platform.python_version(),
        "vm_flags": _vm_flags(),
        "os": platform.system().lower(),
        "arch": _arch(),
        "alloc": "none",
        "runner_version": RUNNER_VERSION,
        "subjects": ds,
    }


def _parse(argv: list[str]):
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


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Out()
    try:
        cmd, proto, work = _parse(argv)
    except ValueError as e:
        log(str(e))
        print(USAGE, file=sys.stderr)
        out.line(hello(None))
        out.line({"type": "error", "phase": "setup", "message": f"usage: {e}"})
        out.line({"type": "end", "cases": 0, "failed": 0})
        return 2
    try:
        import pyarrow  # noqa: F401 - every dataset is read with it
    except ImportError as e:
        out.line(hello(None))
        out.line(
            {
                "type": "error",
                "phase": "setup",
                "message": f"pyarrow is missing ({e}): create the runner's environment from runners/python/requirements.lock",
            }
        )
        out.line({"type": "end", "cases": 0, "failed": 0})
        return 3
    from . import subjects as subjects_mod

    subjects = subjects_mod.available(log)
    out.line(hello(subjects))
    if proto != PROTOCOL:
        out.line({"type": "error", "phase": "setup", "message": f"protocol {proto} requested, this runner speaks {PROTOCOL}"})
        return 2
    if cmd == "hello":
        out.line({"type": "end", "cases": 0, "failed": 0})
        return 0

    from .run import Runner, WorkError

    r = Runner(out, work, subjects, log)
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
