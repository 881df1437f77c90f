"""The subjects this runner announces, in hello order."""

from __future__ import annotations

from .arrow import PolarsParquet, PyarrowFeather, PyarrowIpc, PyarrowParquet
from .avro import Fastavro
from .base import Bound, Subject
from .msgspec_ import MsgspecJson, MsgspecMsgpack
from .protobuf_ import Protobuf
from .rowformats import Cbor2, Msgpack, Orjson, Pyfory, StdJson
from .textformats import PolarsCsv, PolarsNdjson, PyarrowCsv

ALL = [
    StdJson,
    Orjson,
    MsgspecJson,
    MsgspecMsgpack,
    Msgpack,
    Cbor2,
    Fastavro,
    PyarrowIpc,
    PyarrowFeather,
    PyarrowParquet,
    PyarrowCsv,
    PolarsParquet,
    PolarsCsv,
    PolarsNdjson,
    Pyfory,
    Protobuf,
]


def available(log=None) -> dict[str, Subject]:
    """The installed subjects by name; log(msg) hears of the others."""
    out = {}
    for cls in ALL:
        s = cls()
        why = s.available()
        if why is None:
            out[s.name] = s
        elif log is not None:
            log(f"subject {s.name} not available: {why}")
    return out


__all__ = ["ALL", "Bound", "Subject", "available"]
