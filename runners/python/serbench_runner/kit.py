"""The runner kit: your own Python serializer in serbench's tables.

serbench measures subjects in other runtimes through *runners*, programs that
speak its runner protocol (docs/runner-protocol.md). This module is that
protocol in Python, the same code serbench's own Python runner runs: you
declare subjects and call :func:`main`, and the kit does the rest — the
``hello``, reading the work directory (``run.json``, ``cases.jsonl``, each
dataset's ``data.arrows`` with pyarrow), building the native rows outside
timing, the round trip of every case and the §7 digest of what came back,
calibration, interleaved rounds, the codecs, the ``copy`` limit row, ``error``
lines for what a subject cannot measure, SIGTERM at a sample boundary, and the
exit codes.

A subject is a name, a format, a library and its version, fairness labels, and
two functions::

    import pickle
    from serbench_runner import kit

    class Pickle(kit.Subject):
        name = "pickle"
        format = "pickle"
        library = "pickle"  # a standard-library module: Python's version is reported
        labels = kit.labels(model="dict rows")

        def encode(self, rows):
            return pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)

        def decode(self, data):
            return pickle.loads(data)

    if __name__ == "__main__":
        kit.main(runner="py-pickle", subjects=[Pickle()])

or, without a class, ``kit.Subject(name="pickle", format="pickle",
library="pickle", encode=..., decode=...)``. Then::

    serbench runner check 'VENV/bin/python runner.py'
    serbench run records --runner py-pickle='VENV/bin/python runner.py'

**What encode gets and decode returns.** ``encode`` gets the dataset's *native
rows*: a list with one ``dict`` per row, keyed by field name, of plain Python
values — ``int``, ``float``, ``str``, ``bytes``, ``bool``, ``None``; ``list``
for lists; ``dict`` for structs; a list of ``(key, value)`` tuples for maps;
an aware UTC ``datetime.datetime`` for timestamps (nanoseconds floored to
microseconds, as the digest does); ``datetime.date``; ``decimal.Decimal``. It
returns the encoded bytes (``bytes``, ``bytearray`` or anything
``memoryview`` takes). ``decode`` gets those bytes — after the case's codec
has been undone — and returns the decoded objects in the same form. The kit
digests what ``decode`` returned, through the dataset's schema, and serbench
compares that with its own digest of the data: a value your library changes
(a float narrowed, a timestamp truncated) makes the case FAILED, naming the
column. An exception in either function is an ``error`` line for that case;
the runner goes on with the others.

**Subjects that need more.** A library that needs the dataset's schema (to
generate classes, say), starts from something other than the rows (a
``pyarrow.Table``), decodes into objects of its own, or implements ``query``
or the file ops, overrides :meth:`Subject.bind` and returns a :class:`Bound`
— serbench's built-in subjects are all written that way.

The stable API is what this module's ``__all__`` names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import __version__

if TYPE_CHECKING:  # pyarrow is imported by main() once the command line is read: a missing pyarrow is exit 3, not a traceback
    import pyarrow as pa

    from .dataset import Dataset, Given
    from .projection import Projection

__all__ = [
    "FILE_OPS",
    "OPS",
    "PROTOCOL",
    "Bound",
    "CannotHold",
    "Dataset",
    "Given",
    "Projection",
    "Row",
    "Subject",
    "__version__",
    "labels",
    "main",
]

PROTOCOL = 1
"""The version of the runner protocol the kit speaks."""

OPS = ("encode", "decode", "query", "export", "import")
"""The ops a subject may announce in ``Subject.ops``."""

FILE_OPS = ("export", "import")
"""The optional file ops of the interop matrix (protocol §10); a subject
announcing them implements :meth:`Bound.write_file` and :meth:`Bound.read_file`."""

Row = dict[str, Any]
"""One native row: field name to native value (see the module's docstring)."""


class CannotHold(ValueError):
    """Raised (from ``bind``, or a case's first ``encode``) when the subject's
    format cannot represent the dataset — a type it has no form for, a value
    out of its range: the case's error line says ``cannot_hold`` and serbench
    records "cannot hold", not FAILED. Say in one line which column (and row)."""


def labels(**extra: object) -> dict[str, str]:
    """serbench's fairness labels for a subject over the native rows:
    ``codegen=no``, ``reuse=no``, ``zero_copy=no``, ``time_precision=us``,
    updated with ``extra`` (values become strings).

    ``labels(model="dict rows", protocol=5)``. Say ``zero_copy="yes"`` only
    for a decode that returns a view without visiting the values (it is then
    recorded as an ``open``), and ``nesting="flat"`` for a library that holds
    only scalar columns (serbench then sends it no dataset with a list, struct
    or map column).
    """
    out = {"codegen": "no", "reuse": "no", "zero_copy": "no", "time_precision": "us"}
    out.update({k: str(v) for k, v in extra.items()})
    return out


class Bound:
    """A subject bound to one dataset's schema: what every case of that
    dataset calls. Override what your subject needs; the defaults work on the
    native rows.

    Outside timing, a case calls ``prepare`` once and, for ``decode`` and
    ``query``, ``encode`` once to get its input. Timed: ``encode(natives)``
    for an ``encode`` case, ``decode(data)`` for a ``decode`` (the case's codec
    applied around either). Verified: ``rows(decode(encode(natives)))`` is
    digested, outside timing.
    """

    def prepare(self, ds: Dataset) -> Any:
        """The subject's native objects for a dataset, built outside timing:
        the native rows (``ds.rows``) unless overridden (``ds.table`` is the
        dataset as a ``pyarrow.Table``)."""
        return ds.rows

    def encode(self, natives: Any) -> bytes:
        """The native objects, encoded (timed)."""
        raise NotImplementedError

    def decode(self, data: bytes) -> Any:
        """The decoded objects of ``data`` (timed); every object must be built."""
        raise NotImplementedError

    def query(self, data: bytes, proj: Projection) -> Any:
        """The objects a projection selects (timed; only for subjects that
        announce ``query``); ``rows`` turns them into rows of those columns."""
        raise NotImplementedError

    def rows(self, decoded: Any) -> list[Row]:
        """The decoded objects as native rows, for the digest (outside
        timing): ``decoded`` itself unless overridden."""
        return decoded

    # The optional file ops (protocol §10), for subjects announcing
    # "export" and "import": the file framing of the subject's format.

    def write_file(self, natives: Any, path: str) -> None:
        """Writes the native objects to ``path`` as the format's file (§10.3)."""
        raise NotImplementedError

    def read_file(self, path: str) -> Any:
        """Reads the format's file at ``path`` (written by any language) into
        the subject's decoded objects (``rows`` turns them into native rows)."""
        raise NotImplementedError

    def prepare_import(self, ds: Dataset) -> None:
        """What ``import`` needs from the dataset besides the file, collected
        before (outside) the timed read. Nothing by default."""


class _Plain(Bound):
    """The Bound of a subject that defines encode and decode: they are its
    own, called with no layer in between."""

    def __init__(self, encode: Callable[[list[Row]], Any], decode: Callable[[bytes], Any]) -> None:
        self.encode = encode  # type: ignore[method-assign]
        self.decode = decode  # type: ignore[method-assign]


class Subject:
    """A serialization library as serbench measures it.

    Declare one by subclassing (class attributes, and methods ``encode`` and
    ``decode``) or by calling ``Subject(name=..., format=..., encode=...,
    decode=...)``; a keyword given to the constructor overrides the class
    attribute of that name.

    Attributes:
        name: unique within the runner; serbench shows ``RUNNER:name``.
        format: the encoding's name (``pickle``, ``json``, ``msgpack``);
            subjects of one format are compared with each other, and the
            file ops exchange files by format.
        library: what does the work: a distribution's name (its installed
            version is reported), an importable module's (its distribution's
            version) or a standard-library module's (Python's version).
        version: the library's version, when it cannot be found that way.
        ops: what the subject measures, of :data:`OPS`.
        codecs: the compressions it is measured with (``"none"``,
            ``"zstd:3"``; a bare ``"zstd"`` is every level); ``None``: every
            codec the kit can apply in this environment.
        labels: serbench's fairness labels, as strings (see :func:`labels`).
        modules: modules imported to decide whether the subject is installed
            here; one that is not is left out of ``hello`` (the reason goes
            to standard error).
        any_schema: ``False`` for a subject bound to the schemas it was built
            for (generated classes): any other dataset fails at setup.
        given: the kind of schema the user gives (``"avro"``, ``"protobuf"``:
            ``serbench run data --avsc``, ``--proto``) that the subject
            measures: serbench sends it only datasets with such a schema,
            and binds it with :meth:`bind_given`; ``""`` (the default): a
            subject of any dataset, bound with :meth:`bind`.
    """

    name: str = ""
    format: str = ""
    library: str = ""
    version: str = ""
    ops: Sequence[str] = ("encode", "decode")
    codecs: Sequence[str] | None = None
    labels: Mapping[str, str] = {}
    modules: Sequence[str] = ()
    any_schema: bool = True
    given: str = ""

    def __init__(
        self,
        *,
        name: str | None = None,
        format: str | None = None,
        library: str | None = None,
        version: str | None = None,
        ops: Sequence[str] | None = None,
        codecs: Sequence[str] | None = None,
        labels: Mapping[str, str] | None = None,
        modules: Sequence[str] | None = None,
        encode: Callable[[list[Row]], Any] | None = None,
        decode: Callable[[bytes], Any] | None = None,
    ) -> None:
        given = {
            "name": name,
            "format": format,
            "library": library,
            "version": version,
            "ops": ops,
            "codecs": codecs,
            "labels": labels,
            "modules": modules,
            "encode": encode,
            "decode": decode,
        }
        for k, v in given.items():
            if v is not None:
                setattr(self, k, v)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, format={self.format!r}, library={self.library!r})"

    def encode(self, rows: list[Row]) -> bytes:
        """The native rows, encoded (timed). Define it, or override ``bind``."""
        raise NotImplementedError(f"subject {self.name}: define encode and decode, or bind")

    def decode(self, data: bytes) -> Any:
        """The rows ``encode`` encoded, decoded (timed). Define it, or override ``bind``."""
        raise NotImplementedError(f"subject {self.name}: define encode and decode, or bind")

    def bind(self, schema: pa.Schema) -> Bound:
        """The subject bound to a dataset's schema, once per case, outside
        timing; an exception is the case's ``setup`` error (say in one line
        which column or type the library cannot hold; raise :class:`CannotHold`
        for what the format has no form for). The default calls this
        subject's ``encode`` and ``decode`` on the native rows."""
        return _Plain(self.encode, self.decode)

    def bind_given(self, schema: pa.Schema, given: Given) -> Bound:
        """The subject bound to a dataset's schema and the schema the user
        gave for its rows (``given.kind`` is this subject's ``given``;
        ``given.path`` the schema file: an ``.avsc``'s JSON, or a serialized
        ``FileDescriptorSet`` with ``given.message`` the rows' message), once
        per case, outside timing. Subjects with ``given`` set define it."""
        raise NotImplementedError(f"subject {self.name}: given={self.given!r} needs bind_given")

    def available(self) -> str | None:
        """``None`` when the subject can run here, else why not (one line).
        The default imports ``modules``."""
        for m in self.modules:
            try:
                __import__(m)
            except ImportError as e:
                return f"{self.name}: {e}"
        return None

    def resolved_version(self) -> str:
        """``version``, or the installed version of ``library``."""
        if self.version:
            return self.version
        from .versions import version

        return version(self.library)

    def describe(self) -> dict[str, Any]:
        """The subject's descriptor in ``hello`` (protocol §3.1)."""
        from . import codecs

        announced = codecs.usable(codecs.ANNOUNCED if self.codecs is None else self.codecs)
        d: dict[str, Any] = {
            "name": self.name,
            "format": self.format,
            "library": self.library,
            "version": self.resolved_version(),
            "ops": list(self.ops),
            "codecs": announced,
        }
        lib = codecs.library(announced)
        if lib:
            d["codec_library"] = lib
        d["labels"] = {str(k): str(v) for k, v in self.labels.items()}
        if self.given:
            d["labels"]["given"] = self.given
        return d


def main(
    *,
    runner: str,
    subjects: Iterable[Subject] | Callable[[], Iterable[Subject]],
    language: str = "python",
    argv: Sequence[str] | None = None,
    exit: bool = True,
) -> int:
    """Runs the runner protocol on the command line serbench gives
    (``hello --protocol 1``, ``run --protocol 1 --work DIR``) and exits with
    its status (0 every case attempted, 1 the runner's own failure or a
    signal, 2 a usage error or another protocol, 3 pyarrow missing).

    Args:
        runner: the runner's name in ``hello`` (serbench names a runner added
            with ``--runner NAME=COMMAND`` by NAME).
        subjects: the subjects, or a function returning them (called after
            the command line is read and pyarrow imported, so the modules
            that define them may import pyarrow or their libraries freely).
            Subjects whose ``available()`` says why not are left out.
        language: the subjects' language in ``hello``.
        argv: the arguments, ``sys.argv[1:]`` when ``None``.
        exit: ``False`` to return the status instead of exiting.
    """
    from .cli import serve

    code = serve(runner=runner, language=language, subjects=subjects, argv=argv)
    if exit:
        raise SystemExit(code)
    return code


def __getattr__(name: str) -> Any:
    # Dataset, Given and Projection import pyarrow: resolved on first use.
    if name in ("Dataset", "Given"):
        from . import dataset

        return getattr(dataset, name)
    if name == "Projection":
        from .projection import Projection

        return Projection
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
