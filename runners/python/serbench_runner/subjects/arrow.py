"""Columnar subjects whose native object is a table, not rows: pyarrow's
Arrow IPC stream, Feather and Parquet (in-memory buffers), and polars'
Parquet.
The digest reads the decoded table's rows (dataset.to_native), outside
timing."""

from __future__ import annotations

import io

import pyarrow as pa

from .. import dataset, digest
from ..kit import FILE_OPS, Bound, Subject, labels


class _TableBound(Bound):
    def rows(self, decoded):
        return dataset.to_native(decoded)


class _IpcBound(_TableBound):
    def prepare(self, ds):
        return ds.table.combine_chunks()

    def encode(self, table):
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as w:
            w.write_table(table)
        return sink.getvalue()

    def decode(self, data):
        return pa.ipc.open_stream(pa.py_buffer(data)).read_all()

    def write_file(self, table, path):
        # the IPC *file* format (magic, footer), not the stream
        with pa.OSFile(path, "wb") as f, pa.ipc.new_file(f, table.schema) as w:
            w.write_table(table)

    def read_file(self, path):
        with pa.memory_map(path, "r") as f:
            return pa.ipc.open_file(f).read_all()


class PyarrowIpc(Subject):
    name = "pyarrow-ipc"
    format = "arrow-ipc-stream"
    library = "pyarrow"
    modules = ("pyarrow",)
    ops = ("encode", "decode", *FILE_OPS)
    labels = labels(
        model="pyarrow.Table (columnar)",
        layout="columnar",
        zero_copy="yes",
        note="decode reads the stream into a Table over the input buffer (no copy)",
    )

    def bind(self, schema):
        return _IpcBound()


class _FeatherBound(_TableBound):
    def __init__(self):
        import pyarrow.feather as feather

        self.feather = feather

    def prepare(self, ds):
        return ds.table.combine_chunks()

    def encode(self, table):
        # Feather V2 with pyarrow's default compression (lz4 when the wheel
        # has it, as every pyarrow wheel does)
        sink = pa.BufferOutputStream()
        self.feather.write_feather(table, sink)
        return sink.getvalue()

    def decode(self, data):
        return self.feather.read_table(pa.BufferReader(data))

    def query(self, data, proj):
        return self.feather.read_table(pa.BufferReader(data), columns=proj.top)


class PyarrowFeather(Subject):
    name = "pyarrow-feather"
    format = "feather"
    library = "pyarrow"
    modules = ("pyarrow.feather",)
    ops = ("encode", "decode", "query")
    labels = labels(
        model="pyarrow.Table (columnar)",
        layout="columnar",
        body_compression="lz4",
        query="reads the selected top-level columns whole",
        note="Feather V2 (the Arrow IPC file format) with pyarrow's default lz4 body compression; decode decompresses every buffer",
    )

    def available(self):
        why = super().available()
        if why is None:
            from pyarrow import Codec

            if not Codec.is_available("lz4_frame"):
                why = f"{self.name}: pyarrow was built without lz4 (write_feather's default compression)"
        return why

    def bind(self, schema):
        return _FeatherBound()


def _relaxed(t: pa.DataType, under_null: bool) -> pa.DataType:
    """t with every field below a nullable struct, list or map made
    nullable: pyarrow's Parquet writer refuses a required child holding the
    placeholders under a null parent (apache/arrow#50470)."""
    if pa.types.is_struct(t):
        return pa.struct([_relaxed_field(t.field(i), under_null) for i in range(t.num_fields)])
    if pa.types.is_map(t):
        return pa.map_(t.key_field, _relaxed_field(t.item_field, under_null))
    if pa.types.is_large_list(t):
        return pa.large_list(_relaxed_field(t.value_field, under_null))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(_relaxed_field(t.value_field, under_null), t.list_size)
    if pa.types.is_list(t):
        return pa.list_(_relaxed_field(t.value_field, under_null))
    return t


def _relaxed_field(f: pa.Field, under_null: bool) -> pa.Field:
    nullable = f.nullable or under_null
    return pa.field(f.name, _relaxed(f.type, nullable), nullable=nullable, metadata=f.metadata)


def parquet_writable(schema: pa.Schema) -> pa.Schema | None:
    """The schema pyarrow's Parquet writer takes for rows of schema, or None
    when it takes schema itself (no required field below a nullable one)."""
    out = pa.schema([_relaxed_field(f, False) for f in schema], metadata=schema.metadata)
    return None if out.equals(schema) else out


class _ParquetBound(_TableBound):
    def __init__(self, schema: pa.Schema):
        import pyarrow.parquet as pq

        self.pq = pq
        self.schema = schema
        self._columns = {}
        self._writable = parquet_writable(schema)

    def prepare(self, ds):
        t = ds.table.combine_chunks()
        # the same values; only fields below a nullable parent are written
        # optional (the digest reads them through the dataset's schema)
        return t if self._writable is None else t.cast(self._writable)

    def encode(self, table):
        sink = pa.BufferOutputStream()
        self.pq.write_table(table, sink, compression="none")
        return sink.getvalue()

    def decode(self, data):
        return self.pq.read_table(pa.BufferReader(data))

    def write_file(self, table, path):
        self.pq.write_table(table, path, compression="none")

    def read_file(self, path):
        return self.pq.read_table(path)

    def columns(self, data, proj) -> list[str]:
        """The Parquet column paths of the projection's leaves (Parquet's
        leaves are the Arrow leaves, in order)."""
        cols = self._columns.get(proj.query)
        if cols is None:
            ps = self.pq.ParquetFile(pa.BufferReader(data)).schema
            arrow_leaves = digest.leaves(self.schema)
            if len(arrow_leaves) != len(ps):
                raise ValueError(f"parquet: {len(ps)} leaf columns, the schema has {len(arrow_leaves)}")
            cols = [ps.column(i).path for i, lf in enumerate(arrow_leaves) if lf.path in proj.leaves]
            self._columns[proj.query] = cols
        return cols

    def query(self, data, proj):
        cols = self.columns(data, proj)
        return self.pq.ParquetFile(pa.BufferReader(data)).read(columns=cols)


class PyarrowParquet(Subject):
    name = "pyarrow-parquet"
    format = "parquet"
    library = "pyarrow"
    modules = ("pyarrow.parquet",)
    ops = ("encode", "decode", "query", *FILE_OPS)
    labels = labels(
        model="pyarrow.Table (columnar)",
        layout="columnar",
        page_compression="none",
        query="reads only the selected leaf columns",
    )

    def bind(self, schema):
        return _ParquetBound(schema)


class _PolarsBound(_TableBound):
    def __init__(self, schema):
        import polars as pl

        self.pl = pl

    def prepare(self, ds):
        return self.pl.from_arrow(ds.table)

    def encode(self, df):
        bio = io.BytesIO()
        df.write_parquet(bio, compression="uncompressed")
        return bio.getvalue()

    def decode(self, data):
        return self.pl.read_parquet(io.BytesIO(data))

    def write_file(self, df, path):
        df.write_parquet(path, compression="uncompressed")

    def read_file(self, path):
        return self.pl.read_parquet(path)

    def query(self, data, proj):
        return self.pl.read_parquet(io.BytesIO(data), columns=proj.top)

    def rows(self, decoded):
        return dataset.to_native(decoded.to_arrow())


class PolarsParquet(Subject):
    name = "polars-parquet"
    format = "parquet"
    library = "polars"
    modules = ("polars",)
    ops = ("encode", "decode", "query", *FILE_OPS)
    labels = labels(
        model="polars.DataFrame (columnar)",
        layout="columnar",
        page_compression="none",
        query="reads the selected top-level columns whole",
    )

    def bind(self, schema):
        return _PolarsBound(schema)
