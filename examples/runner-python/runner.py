"""A serbench runner for two serializers serbench does not ship, Python's
standard pickle and marshal, written with the runner kit (serbench_runner.kit)
alone: each subject is a name, a format, a library, labels, an encode and a
decode; kit.main speaks the runner protocol.

    python3 -m venv VENV && VENV/bin/pip install ./runners/python
    serbench runner check 'VENV/bin/python examples/runner-python/runner.py'
    serbench run records --runner py-pickle='VENV/bin/python examples/runner-python/runner.py'
"""

from __future__ import annotations

import marshal
import pickle

import pyarrow as pa
from serbench_runner import kit


class Pickle(kit.Subject):
    """pickle at its highest protocol, of the native rows (a list of dicts
    of plain values, datetimes and Decimals included): all it takes."""

    name = "pickle"
    format = "pickle"
    library = "pickle"  # a standard-library module: hello reports Python's version
    labels = kit.labels(model="dict rows", protocol=pickle.HIGHEST_PROTOCOL)

    def encode(self, rows):
        return pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)

    def decode(self, data):
        return pickle.loads(data)


def _core(t: pa.DataType) -> bool:
    """Whether the native values of an Arrow type are all of Python's core
    types (no datetime, date, time, timedelta or Decimal)."""
    if pa.types.is_temporal(t) or pa.types.is_decimal(t):
        return False
    if pa.types.is_dictionary(t):
        return _core(t.value_type)
    return all(_core(t.field(i).type) for i in range(t.num_fields))


class Marshal(kit.Subject):
    """marshal, CPython's format for its own code objects: it holds only the
    core types (ints, floats, strings, bytes, lists, dicts, tuples), and its
    format may change between Python versions. bind refuses, in one line, a
    dataset it cannot hold, before anything is encoded; that is an error line
    for the case, and the runner goes on with the others."""

    name = "marshal"
    format = "marshal"
    library = "marshal"
    labels = kit.labels(model="dict rows", marshal_version=marshal.version, holds="core types only (no datetime, date, time, Decimal)")

    def bind(self, schema):
        for f in schema:
            if not _core(f.type):
                raise ValueError(f"marshal: column {f.name!r} has type {f.type}: marshal holds no datetime, date, time, timedelta or Decimal")
        return super().bind(schema)

    def encode(self, rows):
        return marshal.dumps(rows)

    def decode(self, data):
        return marshal.loads(data)


if __name__ == "__main__":
    kit.main(runner="py-pickle", subjects=[Pickle(), Marshal()])
