import os
import sys

from .main import main

code = main()
# Every protocol line is written by now. Leave without the interpreter's
# finalization: pyarrow's C++ thread pools can abort the process there
# ("terminate called without an active exception", exit -6) after a run
# that went well.
sys.stdout.flush()
sys.stderr.flush()
os._exit(code if isinstance(code, int) else 1)
