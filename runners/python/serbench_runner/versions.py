"""Resolved versions of the installed libraries."""

from __future__ import annotations

import functools
import platform
import sys
from importlib import metadata


@functools.cache
def version(library: str) -> str:
    """The installed version of a distribution (``msgpack``), of the
    distribution of an importable top-level module (``yaml``: PyYAML's), or
    Python's for a standard-library module (``pickle``); else "not installed"."""
    try:
        return metadata.version(library)
    except (metadata.PackageNotFoundError, ValueError):
        pass
    top = library.split(".")[0]
    for dist in metadata.packages_distributions().get(top, ()):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    if top in sys.stdlib_module_names:
        return platform.python_version()
    return "not installed"
