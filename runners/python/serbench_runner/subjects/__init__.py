"""serbench's built-in Python subjects, declared with the kit's public API
(serbench_runner.kit.Subject and Bound), in hello order."""

from __future__ import annotations

from ..cli import installed
from ..kit import Bound, Subject
from .arrow import PolarsParquet, PyarrowFeather, PyarrowIpc, PyarrowParquet
from .avro import Fastavro, FastavroAvsc
from .msgspec_ import MsgspecJson, MsgspecMsgpack
from .protobuf_ import Protobuf
from .protomsg import ProtobufMessage
from .rowformats import Cbor2, Msgpack, Orjson, Pyfory, StdJson
from .textformats import PolarsCsv, PolarsNdjson, PyarrowCsv

ALL: list[type[Subject]] = [
    StdJson,
    Orjson,
    MsgspecJson,
    MsgspecMsgpack,
    Msgpack,
    Cbor2,
    Fastavro,
    FastavroAvsc,
    PyarrowIpc,
    PyarrowFeather,
    PyarrowParquet,
    PyarrowCsv,
    PolarsParquet,
    PolarsCsv,
    PolarsNdjson,
    Pyfory,
    Protobuf,
    ProtobufMessage,
]


def builtin() -> list[Subject]:
    """One of each subject, installed or not."""
    return [cls() for cls in ALL]


def available(log=None) -> dict[str, Subject]:
    """The installed subjects by name; log(msg) hears of the others."""
    return {s.name: s for s in installed(builtin(), log)}


__all__ = ["ALL", "Bound", "Subject", "available", "builtin"]
