"""Resolved versions of the installed distributions."""

from __future__ import annotations

from importlib import metadata


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"
