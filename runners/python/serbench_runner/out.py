"""Protocol lines on standard output: one JSON object a line, flushed."""

from __future__ import annotations

import json
import sys


class Out:
    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stdout.buffer

    def line(self, obj: dict) -> None:
        b = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        self.stream.write(b + b"\n")
        self.stream.flush()


def fatal(e: BaseException) -> bool:
    """Whether e ends the runner rather than a case: an interrupt or an
    exit. Anything else a library raises is the case's failure — the
    panics of Rust extensions included (pyo3's PanicException derives from
    BaseException, so ``except Exception`` lets it kill the runner before
    its end line)."""
    return isinstance(e, (KeyboardInterrupt, SystemExit, GeneratorExit))


def one_line(e: BaseException) -> str:
    # A kit.CannotHold says what the format cannot hold; its class name
    # adds nothing to that.
    s = str(e) if type(e).__name__ == "CannotHold" else f"{type(e).__name__}: {e}"
    s = " ".join(s.split())
    return s[:2000]
