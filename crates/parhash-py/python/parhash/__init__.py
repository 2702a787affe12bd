"""parhash: every parhash algorithm behind hashlib's interface, plus many messages at once,
files and the tree modes' parts.

    >>> import parhash
    >>> parhash.sha256(b"abc").hexdigest()[:16]
    'ba7816bf8f01cfea'
    >>> parhash.new("SHA3-256", b"abc").name
    'sha3-256'

The README's "Python" section describes everything; ``parhash.algorithms_available`` lists the
algorithms (``parhash list`` on the command line shows their notes and aliases).
"""

from . import _parhash
from ._parhash import (
    Constructor,
    FileDigests,
    Hash,
    PartPlan,
    algorithms_available,
    hash_file,
    hash_files,
    hash_many,
    new,
)

__version__ = _parhash.__version__

#: Every algorithm is built in: what is available is what is guaranteed.
algorithms_guaranteed = algorithms_available

# One constructor per algorithm (``sha256``, ``sha3_256``, ``sandstorm512``, ``parsha256``...),
# made by the extension from the library's registry.
_constructors = sorted(name.replace("-", "_") for name in algorithms_available)
globals().update({name: getattr(_parhash, name) for name in _constructors})


def file_digest(fileobj, digest, /, *, _bufsize=2**18):
    """The hash object of everything ``fileobj`` holds from its current position on, as
    ``hashlib.file_digest``: ``fileobj`` is a file opened in binary mode (or an object with
    ``readinto``/``getbuffer``, such as ``io.BytesIO``), ``digest`` an algorithm name or a
    constructor (``parhash.sha256``, or any callable returning a hash object).

    To hash a file by its path, ``hash_file`` is faster (the GIL is released for the whole
    file).
    """
    digestobj = new(digest) if isinstance(digest, str) else digest()
    if hasattr(fileobj, "getbuffer"):
        # io.BytesIO: its buffer at once.
        digestobj.update(fileobj.getbuffer())
        return digestobj
    if not (hasattr(fileobj, "readinto") and hasattr(fileobj, "readable") and fileobj.readable()):
        raise ValueError(f"'{fileobj!r}' is not a file-like object in binary reading mode.")
    # read() hands back immutable bytes, which parhash hashes in place with the GIL released
    # (a reused bytearray would be copied once more: see the README on mutable buffers).
    read = fileobj.read
    while True:
        chunk = read(_bufsize)
        if not chunk:
            break
        digestobj.update(chunk)
    return digestobj


__all__ = [
    "Constructor",
    "FileDigests",
    "Hash",
    "PartPlan",
    "algorithms_available",
    "algorithms_guaranteed",
    "file_digest",
    "hash_file",
    "hash_files",
    "hash_many",
    "new",
    *_constructors,
]
