"""parhash: every parhash algorithm behind hashlib's interface, plus many messages at once,
files and the tree modes' parts.

    >>> import parhash
    >>> parhash.sha256(b"abc").hexdigest()[:16]
    'ba7816bf8f01cfea'
    >>> parhash.new("SHA3-256", b"abc").name
    'sha3_256'

docs/python.md describes everything; ``parhash.algorithms_available`` lists the algorithms
(``parhash list`` on the command line shows their notes and aliases).
"""

from . import _parhash
from ._parhash import (
    Constructor,
    FileChanged,
    FileDigests,
    Hash,
    PartPlan,
    algorithms_available,
    blake3_left_subtree_len,
    blake3_max_subtree_len,
    blake3_merge,
    blake3_root,
    blake3_subtree,
    candidate_part_sizes,
    gpu_device,
    hash_file,
    hash_files,
    hash_many,
    multipart_combine,
    multipart_file,
    multipart_files,
    multipart_value,
    new,
    outboard_file,
    splits,
    takes_tree_params,
    verify_range,
)

__version__ = _parhash.__version__

#: hashlib's guaranteed algorithms, under hashlib's names (``import parhash as hashlib``); every
#: one is built in, as are the others of ``algorithms_available``.
algorithms_guaranteed = frozenset(
    {
        "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
        "blake2b", "blake2s",
        "sha3_224", "sha3_256", "sha3_384", "sha3_512",
        "shake_128", "shake_256",
    }
)  # fmt: skip

# One constructor per algorithm (``sha256``, ``sha3_256``, ``sandstorm512``, ``parsha256``...),
# made by the extension from the library's registry, under hashlib's spelling and parhash's
# (``shake_128`` and ``shake128``).
_constructors = sorted(
    {name.replace("-", "_") for name in algorithms_available}
    | {name for name in dir(_parhash) if isinstance(getattr(_parhash, name), Constructor)}
)
globals().update({name: getattr(_parhash, name) for name in _constructors})

#: hashlib's cache of its built-in constructors (see ``__get_builtin_constructor``).
__builtin_constructor_cache = {}


def __get_builtin_constructor(name):
    """hashlib's private look-up of a built-in constructor by name, for code (and hashlib's own
    test suite) that reaches for it: here every constructor is built in."""
    cache = __builtin_constructor_cache
    constructor = cache.get(name)
    if constructor is not None:
        return constructor
    if not isinstance(name, str):
        raise TypeError(f"algorithm name must be a str, not {type(name).__name__!r}")
    if name.lower() not in algorithms_available:
        raise ValueError("unsupported hash type " + name)
    constructor = globals()[name.lower().replace("-", "_")]
    cache[name] = cache[name.lower()] = constructor
    return constructor


def file_digest(fileobj, digest, /, *, _bufsize=2**18):
    """The hash object of everything ``fileobj`` holds from its current position on, as
    ``hashlib.file_digest``: ``fileobj`` is a file opened in binary mode (or an object with
    ``readinto``/``getbuffer``, such as ``io.BytesIO``), ``digest`` an algorithm name or a
    constructor (``parhash.sha256``, or any callable returning a hash object).

    To hash a file by its path, ``hash_file`` is faster (the GIL is released for the whole
    file).

    ``digest`` may also be a list (or tuple) of names and constructors: the file is then read
    once and a dict of hash objects is returned, keyed by each object's ``name``.
    """
    several = isinstance(digest, (list, tuple))
    makers = list(digest) if several else [digest]
    if several and not makers:
        raise ValueError("no algorithm named")
    objects = [new(d) if isinstance(d, str) else d() for d in makers]
    if hasattr(fileobj, "getbuffer"):
        # io.BytesIO: its buffer at once.
        for digestobj in objects:
            digestobj.update(fileobj.getbuffer())
    elif not (hasattr(fileobj, "readinto") and hasattr(fileobj, "readable") and fileobj.readable()):
        raise ValueError(f"'{fileobj!r}' is not a file-like object in binary reading mode.")
    else:
        # read() hands back immutable bytes, which parhash hashes in place with the GIL
        # released (a reused bytearray would be copied once more: docs/python.md, "Buffers and
        # the GIL").
        read = fileobj.read
        while True:
            chunk = read(_bufsize)
            if not chunk:
                break
            for digestobj in objects:
                digestobj.update(chunk)
    if not several:
        return objects[0]
    named = {digestobj.name: digestobj for digestobj in objects}
    if len(named) != len(objects):
        raise ValueError("an algorithm is named twice")
    return named


__all__ = [
    "Constructor",
    "FileChanged",
    "FileDigests",
    "Hash",
    "PartPlan",
    "algorithms_available",
    "algorithms_guaranteed",
    "blake3_left_subtree_len",
    "blake3_max_subtree_len",
    "blake3_merge",
    "blake3_root",
    "blake3_subtree",
    "candidate_part_sizes",
    "file_digest",
    "gpu_device",
    "hash_file",
    "hash_files",
    "hash_many",
    "multipart_file",
    "multipart_files",
    "multipart_combine",
    "multipart_value",
    "new",
    "outboard_file",
    "splits",
    "takes_tree_params",
    "verify_range",
    *_constructors,
]
