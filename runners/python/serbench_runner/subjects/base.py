"""What a subject is: a serialization library bound to a dataset's schema."""

from __future__ import annotations

import pyarrow as pa

from ..versions import version


class Bound:
    """A subject bound to one dataset's schema."""

    def prepare(self, ds):
        """The subject's native objects for a dataset.Dataset (outside
        timing): its native rows unless the subject's model differs."""
        return ds.rows

    def encode(self, natives) -> bytes:
        raise NotImplementedError

    def decode(self, data: bytes):
        raise NotImplementedError

    def query(self, data: bytes, proj):
        """The objects a projection selects (only subjects announcing query)."""
        raise NotImplementedError

    def rows(self, decoded) -> list:
        """The decoded objects as native rows for the digest (outside timing)."""
        return decoded

    # The optional file ops (protocol §10), for subjects announcing
    # "export" and "import": the file framing of the subject's format.

    def write_file(self, natives, path: str) -> None:
        """Writes the native objects to path as the format's file."""
        raise NotImplementedError

    def read_file(self, path: str):
        """Reads the format's file at path (written by any language) into
        the subject's decoded objects (rows() turns them into native rows)."""
        raise NotImplementedError

    def prepare_import(self, ds) -> None:
        """What import needs from the dataset.Dataset besides the file,
        collected before (outside) the timed read: protobuf's enum strings."""


class Subject:
    name = ""
    format = ""
    library = ""  # the PyPI distribution, for its version
    ops = ("encode", "decode")
    labels: dict = {}
    modules: tuple = ()  # imported to check the subject is installed
    # False for a subject bound to schemas it was built for (protobuf's
    # generated messages): other datasets fail at setup.
    any_schema = True

    def version(self) -> str:
        return version(self.library)

    def available(self) -> str | None:
        """None, or why the subject cannot run here."""
        for m in self.modules:
            try:
                __import__(m)
            except ImportError as e:
                return f"{self.name}: {e}"
        return None

    def bind(self, schema: pa.Schema) -> Bound:
        raise NotImplementedError


FILE_OPS = ("export", "import")


def labels(**kw) -> dict:
    base = {"codegen": "no", "reuse": "no", "zero_copy": "no", "time_precision": "us"}
    base.update({k: str(v) for k, v in kw.items()})
    return base
