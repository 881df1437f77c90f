"""serbench's built-in Python runner: its subjects (package subjects) through
the kit, as serbench starts it (docs/runner-protocol.md §2):

python -m serbench_runner hello --protocol 1
python -m serbench_runner run --protocol 1 --work WORK
"""

from __future__ import annotations

from collections.abc import Sequence

from . import kit

RUNNER = "python"


def builtin() -> list[kit.Subject]:
    """serbench's Python subjects, in hello order (installed or not)."""
    from . import subjects

    return subjects.builtin()


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the built-in runner on argv (sys.argv[1:] when None); returns the exit status."""
    return kit.main(runner=RUNNER, subjects=builtin, argv=argv, exit=False)
