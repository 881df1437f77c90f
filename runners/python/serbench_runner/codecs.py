"""Compression applied to a subject's encoded bytes (the case's ``codec``).

``none`` (or ""), ``gzip:N`` (stdlib gzip, levels 1-9, mtime 0),
``xz:N`` / ``lzma:N`` (stdlib lzma, XZ container, preset 0-9),
``zstd:N`` (zstandard, one frame with the content size, levels 1-22),
``lz4`` (lz4.frame, default level), ``brotli:N`` (brotli, quality 0-11),
``snappy`` (cramjam, raw/block format).
"""

from __future__ import annotations

import functools
import gzip
import lzma
from collections.abc import Callable, Iterable
from dataclasses import dataclass

ANNOUNCED = [
    "none",
    "gzip:1",
    "gzip:6",
    "gzip:9",
    "zstd:1",
    "zstd:3",
    "zstd:9",
    "zstd:19",
    "lz4",
    "snappy",
    "brotli:5",
    "brotli:11",
    "xz:6",
]


@dataclass
class Codec:
    name: str
    compress: Callable[[bytes], bytes] | None  # None: bytes pass through
    decompress: Callable[[bytes], bytes] | None


NONE = Codec("none", None, None)


def _level(spec: str, level: str | None, default: int, lo: int, hi: int) -> int:
    if level is None:
        return default
    try:
        lv = int(level)
    except ValueError:
        raise ValueError(f"codec {spec}: bad level") from None
    if lv < lo or lv > hi:
        raise ValueError(f"codec {spec}: levels are {lo}-{hi}")
    return lv


def parse(spec: str | None) -> Codec:
    """The codec named by spec; an unknown name or level is a ValueError."""
    if not spec or spec == "none":
        return NONE
    name, _, level = spec.partition(":")
    if not _:
        level = None
    if name == "gzip":
        lv = _level(spec, level, 6, 1, 9)
        return Codec(spec, lambda b: gzip.compress(b, compresslevel=lv, mtime=0), gzip.decompress)
    if name in ("xz", "lzma"):
        lv = _level(spec, level, 6, 0, 9)
        return Codec(spec, lambda b: lzma.compress(b, format=lzma.FORMAT_XZ, preset=lv), lzma.decompress)
    if name == "zstd":
        import zstandard

        lv = _level(spec, level, 3, 1, 22)
        c = zstandard.ZstdCompressor(level=lv, write_content_size=True)
        d = zstandard.ZstdDecompressor()
        return Codec(spec, c.compress, d.decompress)
    if name == "lz4":
        if level is not None:
            raise ValueError(f"codec {spec}: lz4 takes no level")
        import lz4.frame

        return Codec(spec, lz4.frame.compress, lz4.frame.decompress)
    if name == "brotli":
        import brotli

        lv = _level(spec, level, 5, 0, 11)
        # brotli takes only a C-contiguous buffer: a memoryview of the
        # encoded bytes (of a pyarrow Buffer too), no copy.
        return Codec(spec, lambda b: brotli.compress(memoryview(b), quality=lv), brotli.decompress)
    if name == "snappy":
        if level is not None:
            raise ValueError(f"codec {spec}: snappy takes no level")
        import cramjam

        # cramjam returns its own Buffer: bytes() gives the decoders the
        # bytes they take (one copy, counted in the op).
        return Codec(
            spec,
            lambda b: bytes(cramjam.snappy.compress_raw(b)),
            lambda b: bytes(cramjam.snappy.decompress_raw(b)),
        )
    raise ValueError(f"unknown codec {spec}")


@functools.cache
def _usable(spec: str) -> bool:
    try:
        parse(spec)
    except ImportError:
        return False
    return True


def usable(specs: Iterable[str]) -> list[str]:
    """The codecs of specs this environment can apply (their library
    imports), in order; an unknown codec is a ValueError."""
    return [s for s in specs if _usable(s)]


def library(specs: Iterable[str] = ANNOUNCED) -> str:
    """The libraries that apply the codecs of specs, for hello's codec_library
    ("" when none but none)."""
    from .versions import version

    names = {s.partition(":")[0] for s in specs}
    std = [lib for lib, n in (("gzip", ("gzip",)), ("lzma (xz)", ("xz", "lzma"))) if names.intersection(n)]
    parts = ["stdlib " + ", ".join(std)] if std else []
    for n, lib, what in (
        ("zstd", "zstandard", " (zstd, one frame)"),
        ("lz4", "lz4", " (lz4.frame)"),
        ("brotli", "brotli", ""),
        ("snappy", "cramjam", " (snappy raw)"),
    ):
        if n in names:
            parts.append(f"{lib} {version(lib)}{what}")
    return "; ".join(parts)
