"""blake3-py's suite with parhash substituted for the `blake3` package (README.md here)."""

import os
import pathlib
import sys

import parhash

SHIM = pathlib.Path(__file__).parent / "shim"

# In this process: `from blake3 import blake3, __version__` is parhash's.
sys.modules["blake3"] = parhash
# In the suite's subprocesses (example.py): the shim module named blake3 imports parhash.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(SHIM), *filter(None, [os.environ.get("PYTHONPATH")])]
)
