"""serbench's Python runner, and the kit it is built on.

``python -m serbench_runner`` is the runner serbench starts for its built-in
Python subjects; :mod:`serbench_runner.kit` is the public API for a runner of
your own (declare subjects with encode and decode, call ``kit.main``).
"""

__version__ = "0.2.0"
