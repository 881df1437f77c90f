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


def one_line(e: BaseException) -> str:
    s = f"{type(e).__name__}: {e}"
    s = " ".join(s.split())
    return s[:2000]
