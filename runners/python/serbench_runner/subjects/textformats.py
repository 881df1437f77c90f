"""Text formats of the columnar libraries: pyarrow's and polars' CSV, and
polars' NDJSON (JSON Lines). The native object is the library's table, as
for the columnar subjects; the bytes are text rows.

A subject binds only to the schemas it round-trips exactly. bind() refuses
any other column with a one-line ValueError naming the column and its type:
the CSV subjects (label nesting=flat) hold only flat schemas and no binary
columns, and each library has types its text reader or writer lacks."""

from __future__ import annotations

import io
import re

import pyarrow as pa

from ..kit import CannotHold, Subject, labels
from .arrow import _TableBound


def _is_nested(t: pa.DataType) -> bool:
    """A list (of any kind), struct or map: what nesting=flat excludes."""
    ty = pa.types
    return (
        ty.is_list(t)
        or ty.is_large_list(t)
        or ty.is_fixed_size_list(t)
        or ty.is_list_view(t)
        or ty.is_large_list_view(t)
        or ty.is_struct(t)
        or ty.is_map(t)
    )


def _is_binary(t: pa.DataType) -> bool:
    ty = pa.types
    return ty.is_binary(t) or ty.is_large_binary(t) or ty.is_fixed_size_binary(t) or ty.is_binary_view(t)


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _refuse(subject: str, name: str, t: pa.DataType, why: str) -> CannotHold:
    ts = str(t)
    if len(ts) > 100:  # a deep struct
        ts = ts[:99] + "…"
    return CannotHold(f"{subject}: column {name!r} has type {ts}: {why}")


def _flat(subject: str, schema: pa.Schema) -> None:
    """Refuses a nested column (nesting=flat)."""
    for f in schema:
        if _is_nested(f.type):
            raise _refuse(subject, f.name, f.type, "nested (list, struct or map); this subject holds only flat columns (nesting=flat)")


# ---------------------------------------------------------------- pyarrow CSV


def _pyarrow_csv_type(name: str, t: pa.DataType, top: pa.DataType | None = None) -> pa.DataType:
    """The type pyarrow's CSV reader is asked for (ConvertOptions.column_types)
    to read back a column of type t, or a ValueError."""
    ty = pa.types
    top = top or t
    if ty.is_dictionary(t):
        v = t.value_type
        if _is_text(v):
            # the reader builds dictionaries with int32 indices only
            return pa.dictionary(pa.int32(), v)
        return _pyarrow_csv_type(name, v, t)  # read as its values
    if _is_binary(t):
        raise _refuse("pyarrow-csv", name, top, "CSV is text, and pyarrow's CSV writer refuses bytes that are not UTF-8")
    if (
        ty.is_null(t)
        or ty.is_boolean(t)
        or ty.is_integer(t)
        or ty.is_float32(t)
        or ty.is_float64(t)
        or _is_text(t)
        or ty.is_timestamp(t)
        or ty.is_date32(t)
        or ty.is_date64(t)
        or ty.is_time32(t)
        or ty.is_time64(t)
        or ty.is_duration(t)
        or ty.is_decimal128(t)
    ):
        return t
    raise _refuse("pyarrow-csv", name, top, "pyarrow's CSV writer or reader does not support it")


class _PyarrowCsvBound(_TableBound):
    def __init__(self, schema: pa.Schema):
        import pyarrow.csv as pcsv

        self.pcsv = pcsv
        _flat("pyarrow-csv", schema)
        types = {f.name: _pyarrow_csv_type(f.name, f.type) for f in schema}
        # - newlines_in_values: a string may hold a line break (the writer
        #   quotes it);
        # - ignore_empty_lines=False: the row of a one-column table whose
        #   value is null is an empty line;
        # - null_values=[""], strings_can_be_null=True,
        #   quoted_strings_can_be_null=False: the writer writes a null as
        #   nothing and quotes every string, so "" is an empty string and the
        #   default null spellings ("NaN", "nan", "NULL", "N/A", ...) stay
        #   values: a NaN float otherwise reads back as null.
        self.parse = pcsv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False)
        self.convert = pcsv.ConvertOptions(column_types=types, null_values=[""], strings_can_be_null=True, quoted_strings_can_be_null=False)

    def prepare(self, ds):
        return ds.table.combine_chunks()

    def encode(self, table):
        sink = pa.BufferOutputStream()
        self.pcsv.write_csv(table, sink)
        return sink.getvalue()

    def decode(self, data):
        return self.pcsv.read_csv(pa.BufferReader(data), parse_options=self.parse, convert_options=self.convert)


class PyarrowCsv(Subject):
    name = "pyarrow-csv"
    format = "csv"
    library = "pyarrow"
    modules = ("pyarrow.csv",)
    ops = ("encode", "decode")
    labels = labels(
        model="pyarrow.Table (columnar)",
        layout="columnar",
        nesting="flat",
        note=(
            "write_csv defaults (header, strings quoted, null written as nothing); read_csv with the dataset's column types, "
            'null_values [""], quoted strings never null, newlines in values; no binary columns'
        ),
    )

    def bind(self, schema):
        return _PyarrowCsvBound(schema)


# --------------------------------------------------------------------- polars


def _first_line(e: BaseException) -> str:
    """An exception's first line; for a panic, polars' own error in it."""
    s = str(e).strip()
    m = re.search(r'ErrString\("([^"\\]+)', s)
    if m:
        return m.group(1)
    return s.splitlines()[0] if s else type(e).__name__


def _polars_schema(subject: str, schema: pa.Schema):
    """The polars schema of a dataset's (already checked) Arrow schema, as
    polars.from_arrow makes it."""
    import polars as pl
    from polars.exceptions import PanicException

    def frame(s: pa.Schema):
        try:
            return pl.from_arrow(s.empty_table()), None
        except (Exception, PanicException) as e:  # noqa: BLE001 - polars' refusal (a panic for a fixed-offset zone) is the bind's
            return None, e

    df, err = frame(schema)
    if df is None:
        for f in schema:  # name the column
            if frame(pa.schema([f]))[0] is None:
                raise _refuse(subject, f.name, f.type, f"polars cannot hold it: {_first_line(err)}")
        raise CannotHold(f"{subject}: polars cannot hold the schema: {_first_line(err)}")
    ps = df.schema
    if list(ps.names()) != schema.names:
        for f, b in zip(schema, ps.names()):
            if f.name != b:
                raise _refuse(subject, f.name, f.type, f"polars renames the column to {b!r}")
    return ps


def _polars_csv_check(name: str, t: pa.DataType, top: pa.DataType | None = None) -> None:
    ty = pa.types
    top = top or t
    if ty.is_dictionary(t):
        _polars_csv_check(name, t.value_type, t)
        return
    if _is_binary(t):
        raise _refuse("polars-csv", name, top, "polars' CSV writer cannot write binary")
    if ty.is_duration(t):
        raise _refuse("polars-csv", name, top, "polars' CSV writer cannot write durations")
    if ty.is_null(t):
        raise _refuse("polars-csv", name, top, "polars' CSV reader cannot read a Null column")
    if (
        ty.is_boolean(t)
        or ty.is_integer(t)
        or ty.is_floating(t)
        or _is_text(t)
        or ty.is_string_view(t)
        or ty.is_timestamp(t)
        or ty.is_date32(t)
        or ty.is_date64(t)
        or ty.is_time32(t)
        or ty.is_time64(t)
        or ty.is_decimal128(t)
    ):
        return
    raise _refuse("polars-csv", name, top, "polars' CSV writer or reader does not support it")


class _PolarsFrameBound(_TableBound):
    def __init__(self, schema):
        import polars as pl

        self.pl = pl

    def prepare(self, ds):
        return self.pl.from_arrow(ds.table)

    def rows(self, decoded):
        return super().rows(decoded.to_arrow())


class _PolarsCsvBound(_PolarsFrameBound):
    def __init__(self, schema):
        super().__init__(schema)
        _flat("polars-csv", schema)
        for f in schema:
            _polars_csv_check(f.name, f.type)
        self.schema = _polars_schema("polars-csv", schema)
        # polars' reader must find its own header's names: it does not undo
        # a doubled quote in a quoted name (reads q""x for q"x) and drops a
        # leading byte order mark. Checked on an empty frame, then column by
        # column to name the one it misreads.
        why = self._header_error(self.schema)
        if why is not None:
            for f, (n, dt) in zip(schema, self.schema.items()):
                if self._header_error(self.pl.Schema({n: dt})) is not None:
                    raise _refuse("polars-csv", n, f.type, f"polars does not read this name back from its own CSV header ({why})")
            raise ValueError(f"polars-csv: polars does not read the column names back from its own CSV header ({why})")

    def _header_error(self, ps):
        bio = io.BytesIO()
        self.pl.DataFrame(schema=ps).write_csv(bio)
        try:
            got = self.pl.read_csv(io.BytesIO(bio.getvalue()), schema=ps).columns
        except Exception as e:  # noqa: BLE001 - polars' error is the reason
            return _first_line(e)
        return None if got == list(ps.names()) else f"read {got!r}"

    def encode(self, df):
        bio = io.BytesIO()
        df.write_csv(bio)
        return bio.getvalue()

    def decode(self, data):
        return self.pl.read_csv(io.BytesIO(data), schema=self.schema)


class PolarsCsv(Subject):
    name = "polars-csv"
    format = "csv"
    library = "polars"
    modules = ("polars",)
    ops = ("encode", "decode")
    labels = labels(
        model="polars.DataFrame (columnar)",
        layout="columnar",
        nesting="flat",
        note=(
            'write_csv defaults (header, quotes where needed, null written as nothing, empty string as ""); '
            "read_csv with the dataset's schema; no binary, duration or null columns"
        ),
    )

    def bind(self, schema):
        return _PolarsCsvBound(schema)


def _polars_ndjson_check(name: str, t: pa.DataType, top: pa.DataType | None = None) -> None:
    ty = pa.types
    top = top or t
    if ty.is_dictionary(t):
        _polars_ndjson_check(name, t.value_type, top)
    elif _is_binary(t):
        raise _refuse("polars-ndjson", name, top, "polars' NDJSON writer cannot write binary")
    elif ty.is_time(t) or ty.is_duration(t):
        raise _refuse("polars-ndjson", name, top, "polars' NDJSON reader cannot read the times and durations its writer writes")
    elif ty.is_map(t):
        k = t.key_type
        if not (_is_text(k) or ty.is_string_view(k) or (ty.is_dictionary(k) and _is_text(k.value_type))):
            raise _refuse("polars-ndjson", name, top, "polars writes a map as a JSON object, so only with string keys")
        _polars_ndjson_check(name, t.item_type, top)
    elif ty.is_struct(t):
        for i in range(t.num_fields):
            _polars_ndjson_check(name, t.field(i).type, top)
    elif _is_nested(t):  # the lists
        _polars_ndjson_check(name, t.value_type, top)
    elif not (
        ty.is_null(t)
        or ty.is_boolean(t)
        or ty.is_integer(t)
        or ty.is_floating(t)
        or _is_text(t)
        or ty.is_string_view(t)
        or ty.is_timestamp(t)
        or ty.is_date32(t)
        or ty.is_date64(t)
        or ty.is_decimal128(t)
    ):
        raise _refuse("polars-ndjson", name, top, "polars' NDJSON writer or reader does not support it")


def _ndjson_wire(pl, dt, top: bool):
    """The dtype polars' NDJSON reader is asked for, for a column of dtype
    dt: decimals, which the writer writes as strings, as strings; top-level
    8- and 16-bit integers, which the reader panics on, as 32-bit ones."""
    if isinstance(dt, pl.Decimal):
        return pl.String
    if top and dt in (pl.Int8, pl.Int16):
        return pl.Int32
    if top and dt in (pl.UInt8, pl.UInt16):
        return pl.UInt32
    if isinstance(dt, pl.List):
        return pl.List(_ndjson_wire(pl, dt.inner, False))
    if isinstance(dt, pl.Array):
        return pl.Array(_ndjson_wire(pl, dt.inner, False), dt.size)
    if isinstance(dt, pl.Struct):
        return pl.Struct({f.name: _ndjson_wire(pl, f.dtype, False) for f in dt.fields})
    if isinstance(dt, pl.Map):
        return pl.Map(dt.key, _ndjson_wire(pl, dt.value, False))
    return dt


class _PolarsNdjsonBound(_PolarsFrameBound):
    def __init__(self, schema):
        super().__init__(schema)
        for f in schema:
            _polars_ndjson_check(f.name, f.type)
        target = _polars_schema("polars-ndjson", schema)
        pl = self.pl
        self.wire = pl.Schema({n: _ndjson_wire(pl, dt, True) for n, dt in target.items()})
        # the columns read as another dtype, cast back inside decode
        self.cast = {n: dt for n, dt in target.items() if self.wire[n] != dt}

    def encode(self, df):
        bio = io.BytesIO()
        df.write_ndjson(bio)
        return bio.getvalue()

    def decode(self, data):
        df = self.pl.read_ndjson(io.BytesIO(data), schema=self.wire)
        if self.cast:
            df = df.cast(self.cast)
        return df


class PolarsNdjson(Subject):
    name = "polars-ndjson"
    format = "json"
    library = "polars"
    modules = ("polars",)
    ops = ("encode", "decode")
    labels = labels(
        model="polars.DataFrame (columnar)",
        layout="columnar",
        timestamps="ISO 8601 strings",
        decimals="strings",
        nan="null (JSON has no NaN)",
        note=(
            "JSON Lines by write_ndjson / read_ndjson with the dataset's schema; decimal columns are read as strings and "
            "8/16-bit integer columns as 32-bit, then cast back inside decode; no binary, time or duration columns, "
            "map keys must be strings (duplicate keys collapse)"
        ),
    )

    def bind(self, schema):
        return _PolarsNdjsonBound(schema)
