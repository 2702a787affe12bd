"""CPython's own hashlib test suite (``Lib/test/test_hashlib.py`` of the interpreter running
this), with parhash substituted for ``hashlib``: ``import parhash as hashlib`` passes it.

The suite is the interpreter's standard-library ``test`` package (pyenv's and python.org's
builds install it; Debian's python3 has it in ``libpython3.N-testsuite``), imported while
``sys.modules["hashlib"]`` is parhash, so every ``hashlib.`` in it is parhash's. Nothing in it is
changed; the tests that are not about hashes or that probe CPython's own modules are skipped,
each with its reason (``SKIPPED`` below). Where the suite adds CPython's own constructors
(``_hashlib.openssl_sha256``, ``_md5.md5``...) beside parhash's, those run too: the same
assertions hold for both.
"""

import importlib
import os
import sys
import unittest

import pytest

import parhash

try:
    import test.support  # noqa: F401  (the standard library's test package)
except ImportError:  # pragma: no cover - depends on how the interpreter was packaged
    if os.environ.get("CI"):
        raise
    pytest.skip("this interpreter has no standard-library test package", allow_module_level=True)

_real_hashlib = sys.modules.get("hashlib") or importlib.import_module("hashlib")
sys.modules["hashlib"] = parhash
try:
    sys.modules.pop("test.test_hashlib", None)
    _suite = importlib.import_module("test.test_hashlib")
finally:
    sys.modules["hashlib"] = _real_hashlib

assert _suite.hashlib is parhash

#: Tests that are not about parhash's hashes, with the reason each is skipped.
SKIPPED = {
    # CPython internals: hashlib's private cache of its C modules' constructors, asserted to be
    # `_md5.md5` itself (parhash provides `__get_builtin_constructor`, answering with its own).
    "test_get_builtin_constructor": "asserts CPython's own _md5.md5 and hashlib's private cache",
    # Key derivation functions, not hashes: pbkdf2_hmac and scrypt run on the real hashlib.
    "test_pbkdf2_hmac_c": "pbkdf2_hmac is a KDF (not a hash): not in parhash",
    "test_pbkdf2_hmac_py": "pbkdf2_hmac is a KDF (not a hash): not in parhash",
    "test_scrypt": "scrypt is a KDF (not a hash): not in parhash",
}


def _skipping(case):
    """A subclass of one of the suite's TestCases with the SKIPPED tests skipped."""
    overrides = {}
    for name, reason in SKIPPED.items():
        if hasattr(case, name):
            overrides[name] = unittest.skip(reason)(getattr(case, name))
    return type(f"TestStdlib{case.__name__}", (case,), overrides)


# Bound to Test* names only (pytest collects every unittest.TestCase in the module's namespace).
TestStdlibHashLibTestCase = _skipping(_suite.HashLibTestCase)
TestStdlibKDFTests = _skipping(_suite.KDFTests)
