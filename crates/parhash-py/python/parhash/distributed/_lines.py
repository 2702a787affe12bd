"""Checksum lines byte for byte as ``parhash sum`` and ``parhash check`` write and read them
(coreutils' sha256sum format), so a cluster's output verifies with ``parhash check`` or
``sha256sum -c`` and the other way round. The rules are those of the CLI's ``lines.rs``,
``escape.rs`` and ``check.rs``; the tests compare this module's output with the CLI's.
"""

from __future__ import annotations

import base64
import errno as errno_codes
import json
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Optional, Tuple, Union

import parhash

#: PARSHA-256's tree parameters (T, l) when the defaults are not meant.
TreeParams = Tuple[int, int]

#: PARSHA-256's parameters when none are given (the CLI's and the library's defaults).
DEFAULT_TREE_PARAMS: TreeParams = (13, 256)

# Families whose BSD tags put a hyphen before the digest size in bits (`BLAKE-256`, `JH-224`;
# not BLAKE3).
_HYPHENATED_TAGS = ("simd", "blake", "jh", "groestl")
# Tags that keep a lower-case letter, as b2sum writes them.
_MIXED_CASE_TAGS = {"blake2b": "BLAKE2b", "blake2s": "BLAKE2s"}


@lru_cache(maxsize=None)
def canonical_name(name: str) -> str:
    """The canonical name of an algorithm name or alias (ValueError for an unknown one)."""
    return parhash.new(name).name


@lru_cache(maxsize=None)
def digest_size(algorithm: str) -> int:
    """The default digest size in bytes."""
    return parhash.new(algorithm).digest_size


@lru_cache(maxsize=None)
def digest_sizes(algorithm: str) -> Tuple[int, int]:
    """The digest sizes in bytes `algorithm` can produce, ``(min, max)`` (the library's
    ``Algorithm::digest_sizes``): BLAKE2b 1..64, BLAKE2s 1..32, BLAKE3 and SHAKE 1..1 MiB, the
    others only their own."""
    return parhash._parhash._digest_sizes[algorithm]


#: The longest digest of an extendable-output function (BLAKE3, SHAKE): the library's limit,
#: 1 MiB (``parhash sum -l`` goes up to 8388608 bits).
XOF_MAX_SIZE = max(high for _, high in parhash._parhash._digest_sizes.values())


def is_variable(algorithm: str) -> bool:
    low, high = digest_sizes(algorithm)
    return low != high


def can_produce(algorithm: str, size: int) -> bool:
    low, high = digest_sizes(algorithm)
    return low <= size <= high


def _library_order() -> Tuple[str, ...]:
    """Every algorithm in the library's order (``parhash list``'s), as the CLI lists them."""
    return tuple(parhash._parhash._digest_sizes)


def variable_algorithms() -> str:
    """The algorithms whose length ``-l`` sets, as a phrase: ``blake2b, ... and shake256``."""
    names = [a for a in _library_order() if is_variable(a)]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# --- -l/--length (the CLI's length.rs) ----------------------------------------------------

#: The largest number ``-l`` reads (the CLI's usize).
_MAX_BITS_NUMBER = (1 << 64) - 1


def parse_bits(text: str) -> int:
    """A ``-l`` value: a number of bits, a multiple of 8 (ValueError with the CLI's words)."""
    digits = text[1:] if text.startswith("+") else text
    if not digits or not all(c in "0123456789" for c in digits):
        raise ValueError("a number of bits is needed, such as 256")
    bits = int(digits)
    if bits > _MAX_BITS_NUMBER:
        if digits == text:
            raise ValueError(_too_long(text))
        raise ValueError("a number of bits is needed, such as 256")
    if bits % 8:
        raise ValueError(
            "the number of bits must be a multiple of 8 (-l counts bits, as b2sum and cksum do; "
            "b3sum's --length counts bytes: write 8 times its value)"
        )
    return bits


def _too_long(bits: str) -> str:
    return (f"{bits} bits is too long: digests are at most {XOF_MAX_SIZE * 8} bits "
            f"({XOF_MAX_SIZE >> 20} MiB, for blake3, shake128 and shake256)")


def length_digest_size(algorithm: str, bits: Optional[int]) -> Optional[int]:
    """The digest size in bytes ``-l BITS`` asks of `algorithm`: None for its default (no
    ``-l``, ``-l 0`` or its own length); ValueError (the CLI's words) for one it cannot make."""
    if not bits:
        return None
    size = bits // 8
    low, high = digest_sizes(algorithm)
    if low == high:
        if size == high:
            return None
        raise ValueError(f"invalid length '{bits}': {algorithm} digests are always {high * 8} bits; "
                         f"-l applies to {variable_algorithms()}")
    if not low <= size <= high:
        limit = f" ({high >> 20} MiB)" if high == XOF_MAX_SIZE else ""
        raise ValueError(f"invalid length '{bits}': {algorithm} digests are {low * 8} to {high * 8} bits{limit}")
    return None if size == digest_size(algorithm) else size


def length_error(algorithm: Optional[str], bits: Optional[int], checking: bool) -> Optional[str]:
    """What ``-l BITS`` is wrong about with ``-a`` (None if nothing), as the CLI says it: a
    length the algorithm cannot make, or ``-l`` without ``-a`` when hashing. When checking,
    each line's digest says its length: ``-l`` is accepted and ignored (as by ``b2sum -c``),
    but still checked against ``-a``."""
    if bits is None:
        return None
    if algorithm is None:
        return None if checking else f"-l needs -a: it sets the digest length of {variable_algorithms()}"
    try:
        length_digest_size(algorithm, bits)
    except ValueError as err:
        return str(err)
    return None


def takes_tree_params(algorithm: str) -> bool:
    return algorithm == "parsha256"


def tag(algorithm: str, params: Optional[TreeParams] = None, size: Optional[int] = None) -> str:
    """The BSD tag of `algorithm` (canonical name) for a digest of `size` bytes (None: the
    default), as ``parhash sum --tag`` writes it: ``TAG-BITS`` at a length other than the
    default (``BLAKE2b-256``, ``SHAKE128-512``)."""
    if size is not None and size != digest_size(algorithm) and is_variable(algorithm):
        return f"{tag(algorithm)}-{size * 8}"
    if takes_tree_params(algorithm):
        tree_height, iv_bits = params or DEFAULT_TREE_PARAMS
        return f"PARSHA256-T{tree_height}-IV{iv_bits}"
    if algorithm in _MIXED_CASE_TAGS:
        return _MIXED_CASE_TAGS[algorithm]
    upper = algorithm.upper()
    for family in _HYPHENATED_TAGS:
        size = algorithm[len(family):]
        if algorithm.startswith(family) and size.isdigit() and len(size) == 3:
            return f"{family.upper()}-{algorithm[len(family):]}"
    return upper


@lru_cache(maxsize=None)
def _tags() -> dict:
    return {tag(name): name for name in parhash.algorithms_available}


def from_tag(text: str) -> Optional[Tuple[str, Optional[TreeParams], int]]:
    """The algorithm, PARSHA-256's parameters and the digest size in bytes a BSD tag names
    (``BLAKE2b-256``: 32; a plain tag: the default), or None."""
    found = _from_plain_tag(text)
    if found is not None:
        return found[0], found[1], digest_size(found[0])
    base, dash, bits = text.rpartition("-")
    name = _tags().get(base) if dash else None
    if name is None or not is_variable(name) or not bits or not all(c in "0123456789" for c in bits):
        return None
    size = int(bits) // 8
    return (name, None, size) if int(bits) % 8 == 0 and can_produce(name, size) else None


def _from_plain_tag(text: str) -> Optional[Tuple[str, Optional[TreeParams]]]:
    if text.startswith("PARSHA256-T"):
        height, sep, iv = text[len("PARSHA256-T"):].partition("-IV")

        def number(digits: str) -> bool:
            return 1 <= len(digits) <= 3 and all(c in "0123456789" for c in digits)

        if not (sep and number(height) and number(iv)):
            return None
        params = (int(height), int(iv))
        return ("parsha256", params) if _valid_tree_params(params) else None
    name = _tags().get(text)
    return None if name is None else (name, None)


@lru_cache(maxsize=None)
def _valid_tree_params(params: TreeParams) -> bool:
    try:
        parhash.new("parsha256", tree_height=params[0], iv_bits=params[1])
    except ValueError:
        return False
    return True


def infer_from_digest_size(size: int) -> Optional[str]:
    """The algorithm of a GNU line with a `size`-byte digest: the SHA-2 one where several
    share the size (as ``parhash check``)."""
    candidates = sorted(a for a in parhash.algorithms_available if digest_size(a) == size)
    plain_sha2 = f"sha{size * 8}"
    if plain_sha2 in candidates:
        return plain_sha2
    return candidates[0] if candidates else None


# --- names --------------------------------------------------------------------------------


def sum_needs_escape(name: bytes) -> bool:
    """Whether ``sum`` escapes the name: it holds a newline, backslash or carriage return."""
    return b"\n" in name or b"\\" in name or b"\r" in name


def report_needs_escape(name: bytes) -> bool:
    """Whether ``check`` escapes the name in its report (only names with a newline)."""
    return b"\n" in name


def escape(name: bytes) -> bytes:
    return name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")


def unescape(escaped: bytes) -> Optional[bytes]:
    """Reverses `escape`; None for another escape or a trailing lone backslash."""
    out = bytearray()
    i = 0
    while i < len(escaped):
        b = escaped[i]
        if b == 0x5C:
            if i + 1 >= len(escaped):
                return None
            nxt = escaped[i + 1 : i + 2]
            mapped = {b"\\": b"\\", b"n": b"\n", b"r": b"\r"}.get(nxt)
            if mapped is None:
                return None
            out += mapped
            i += 2
        else:
            out.append(b)
            i += 1
    return bytes(out)


def _is_control(c: str) -> bool:
    return unicodedata.category(c) == "Cc"


def _is_plain(c: str, i: int, byte_len: int) -> bool:
    if c.isascii() and c.isalnum():
        return True
    if c in "%+,-./@]_":
        return True
    if c in "#~":
        return i != 0
    if c in "{}":
        return byte_len > 1
    if c.isascii():
        return False
    return not _is_control(c)


_C_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x0B: "\\v"}


def _c_escape(byte: int) -> str:
    return _C_ESCAPES.get(byte, f"\\{byte:03o}")


def _utf8_chunks(data: bytes):
    """(valid text, invalid bytes) pairs, as Rust's `utf8_chunks` (maximal invalid subparts)."""
    pos = 0
    while pos < len(data):
        try:
            yield data[pos:].decode("utf-8"), b""
            return
        except UnicodeDecodeError as err:
            yield data[pos : pos + err.start].decode("utf-8"), data[pos + err.start : pos + err.end]
            pos += err.end


def quote(name: bytes) -> str:
    """A name quoted for an error message as coreutils' ``quotef`` does (and ``parhash``):
    ``a b`` is ``'a b'``, ``it's`` is ``"it's"``, a newline is ``'a'$'\\n''b'``."""
    try:
        text = name.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        text = name.decode("utf-8", "replace")
        valid = False
    if valid and text and all(_is_plain(c, i, len(name)) for i, c in enumerate(text)):
        return text
    has_unprintable = not valid or any(_is_control(c) for c in text)
    if b"'" in name and not has_unprintable and not any(b in b'\\"$`' for b in name):
        return f'"{text}"'
    out = ["'"]
    for chunk, invalid in _utf8_chunks(name):
        for c in chunk:
            if c == "'":
                out.append("'\\''")
            elif _is_control(c):
                out.append("'$'")
                out.extend(_c_escape(b) for b in c.encode("utf-8"))
                out.append("''")
            else:
                out.append(c)
        if invalid:
            out.append("'$'")
            out.extend(_c_escape(b) for b in invalid)
            out.append("''")
    out.append("'")
    quoted = "".join(out)
    # An escape at the very end leaves an empty '' pair behind; coreutils drops it.
    if len(quoted) > 2 and quoted.endswith("'''"):
        quoted = quoted[:-2]
    return quoted


_BARE_KIND_WORDS = {
    "entity not found": "No such file or directory",
    "permission denied": "Permission denied",
}


def error_text(err: BaseException, name: bytes) -> str:
    """An error worded as ``parhash sum`` words it: the C library's text for a system error
    (``No such file or directory``), otherwise the error's own message."""
    if isinstance(err, OSError) and err.errno is not None and err.strerror:
        return err.strerror
    message = str(err.args[0]) if err.args else str(err)
    prefix = name.decode("utf-8", "replace") + ": "
    if isinstance(err, OSError) and message.startswith(prefix):
        message = message[len(prefix):]
    return _BARE_KIND_WORDS.get(message, message)


def is_not_found(err: BaseException) -> bool:
    return isinstance(err, OSError) and err.errno == errno_codes.ENOENT


# --- sum ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineStyle:
    """How ``sum`` writes a line: ``--tag``, ``-b``, ``-z`` and PARSHA-256's parameters."""

    tag: bool = False
    binary: bool = False
    zero: bool = False
    tree_params: Optional[TreeParams] = None


def sum_line(algorithm: str, digest: bytes, name: bytes, style: LineStyle) -> bytes:
    """One checksum line for `name`, byte for byte as ``parhash sum`` writes it."""
    escaped = not style.zero and sum_needs_escape(name)
    shown = escape(name) if escaped else name
    lead = b"\\" if escaped else b""
    hexdigest = digest.hex().encode()
    end = b"\0" if style.zero else b"\n"
    if style.tag:
        label = tag(algorithm, style.tree_params, len(digest)).encode()
        return lead + label + b" (" + shown + b") = " + hexdigest + end
    return lead + hexdigest + (b" *" if style.binary else b"  ") + shown + end


# --- check --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One parsed checksum line."""

    algorithm: str
    expected: bytes
    name: bytes
    tree_params: Optional[TreeParams] = None
    #: The algorithm was inferred from the digest's length (a GNU line without -a).
    inferred: bool = False


SKIP = "skip"
IMPROPER = "improper"

_BLANKS = b" \t"


def _skip_blanks(data: bytes) -> bytes:
    return data.lstrip(_BLANKS)


def _decode_hex(hex_digits: bytes) -> Optional[bytes]:
    if not hex_digits or len(hex_digits) % 2 or not all(chr(b) in "0123456789abcdefABCDEF" for b in hex_digits):
        return None
    return bytes.fromhex(hex_digits.decode())


class Parser:
    """Parses the records of one checksum list, as ``parhash check`` (a list must not mix the
    marker-less ``HEX NAME`` form with ``HEX  NAME``)."""

    def __init__(self, forced: Optional[str], zero: bool):
        self.forced = forced
        self.zero = zero
        self.without_marker: Optional[bool] = None

    def parse(self, record: bytes):
        """An `Entry`, `SKIP` or `IMPROPER` for one record (with or without its terminator)."""
        if record[:1] == b"#":
            return SKIP
        terminator = b"\0" if self.zero else b"\n"
        line = record[: -1] if record.endswith(terminator) else record
        if not self.zero and line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            return SKIP
        rest = _skip_blanks(line)
        escaped = not self.zero and rest[:1] == b"\\"
        if escaped:
            rest = rest[1:]
        bsd = self._parse_bsd(rest, escaped)
        if bsd is not None:
            return bsd
        return self._parse_gnu(rest, escaped)

    def _parse_bsd(self, line: bytes, escaped: bool):
        word_len = next((i for i, b in enumerate(line) if b in b" ("), None)
        if word_len is None:
            return None
        try:
            word = line[:word_len].decode("utf-8")
        except UnicodeDecodeError:
            return None
        found = from_tag(word)
        if found is None:
            return None
        algorithm, params, size = found
        after = line[word_len:]
        if after[:1] == b" ":
            after = after[1:]
        if after[:1] != b"(":
            return None
        inside = after[1:]
        if self.forced is not None and self.forced != algorithm:
            return IMPROPER
        close = inside.rfind(b")")
        if close < 0:
            return IMPROPER
        raw_name = inside[:close]
        tail = _skip_blanks(inside[close + 1 :])
        if tail[:1] != b"=":
            return IMPROPER
        entry = self._entry(algorithm, size, _skip_blanks(tail[1:]), raw_name, escaped)
        if isinstance(entry, Entry):
            return Entry(entry.algorithm, entry.expected, entry.name, params)
        return entry

    def _parse_gnu(self, line: bytes, escaped: bool):
        hex_len = 0
        while hex_len < len(line) and chr(line[hex_len]) in "0123456789abcdefABCDEF":
            hex_len += 1
        if self.forced is not None:
            # Any length the algorithm can produce (BLAKE2, BLAKE3 and SHAKE have many), as
            # `b2sum -c` reads the length from the digest.
            if hex_len % 2 or not can_produce(self.forced, hex_len // 2):
                return IMPROPER
            algorithm = self.forced
        elif hex_len % 2 == 0:
            algorithm = infer_from_digest_size(hex_len // 2)
            if algorithm is None:
                return IMPROPER
        else:
            return IMPROPER
        if len(line) < hex_len + 2 or line[hex_len] not in _BLANKS:
            return IMPROPER
        name_start = hex_len + 1
        marker = line[name_start]
        if len(line) - name_start == 1 or marker not in b" *":
            if self.without_marker is False:
                return IMPROPER
            self.without_marker = True
        elif self.without_marker is not True:
            self.without_marker = False
            name_start += 1
        entry = self._entry(algorithm, hex_len // 2, line[:hex_len], line[name_start:], escaped)
        if isinstance(entry, Entry) and self.forced is None:
            return Entry(entry.algorithm, entry.expected, entry.name, inferred=True)
        return entry

    @staticmethod
    def _entry(algorithm: str, size: int, hex_digits: bytes, raw_name: bytes, escaped: bool):
        expected = _decode_hex(hex_digits)
        if expected is None or len(expected) != size:
            return IMPROPER
        if escaped:
            name = unescape(raw_name)
            if name is None or b"\0" in name:
                return IMPROPER
        else:
            # A name ends at its first NUL, as C strings do in coreutils.
            name = raw_name.split(b"\0", 1)[0]
        return Entry(algorithm, expected, name)


def inferred_algorithm_note(algorithm: str, mismatched: int) -> Optional[str]:
    """What ``parhash check`` tells about `mismatched` failed lines checked with `algorithm`
    only because their digest has its length: which algorithm was assumed and the others of
    that length (in the library's order, as the CLI lists them); None when there is none."""
    size = digest_size(algorithm)
    others = [name for name in _library_order() if name != algorithm and can_produce(name, size)]
    if not others:
        return None
    lines, have, its = ("1 failed line", "has", "its") if mismatched == 1 else (f"{mismatched} failed lines", "have", "their")
    return (f"note: {lines} {have} no algorithm tag, and {algorithm} was assumed from {its} digest length "
            f"({2 * size} hex digits); if the list was made with another algorithm, name it with -a ALG; "
            f"of that length: {', '.join(others)}")


def report_line(name: bytes, verdict: str, zero: bool) -> bytes:
    """``NAME: VERDICT`` as ``parhash check`` prints it."""
    shown = b"\\" + escape(name) if not zero and report_needs_escape(name) else name
    return shown + b": " + verdict.encode() + (b"\0" if zero else b"\n")


# --- --json (the CLI's json.rs) -----------------------------------------------------------
# JSON Lines as serde_json writes them: no blanks between tokens, keys in the CLI's order,
# text other than `"`, `\` and control characters (escaped as `\n`, `\u001f`) written as UTF-8.


def _json_line(record: Dict[str, Union[str, int, bool, None]]) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _json_name(key: str, name: bytes) -> Dict[str, str]:
    """``{key: NAME}``, the name as UTF-8; a name that is not UTF-8 has its invalid bytes
    replaced by U+FFFD there (as Rust's ``from_utf8_lossy``) and comes exactly as ``key_bytes``
    (base64, padded)."""
    try:
        return {key: name.decode("utf-8")}
    except UnicodeDecodeError:
        return {key: name.decode("utf-8", "replace"), f"{key}_bytes": base64.b64encode(name).decode("ascii")}


def _json_tree(algorithm: str, params: Optional[TreeParams]) -> Dict[str, int]:
    """PARSHA-256's parameters, which its digest depends on (nothing for other algorithms)."""
    if not takes_tree_params(algorithm):
        return {}
    tree_height, iv_bits = params or DEFAULT_TREE_PARAMS
    return {"tree_height": tree_height, "iv_bits": iv_bits}


def _json_failure(err: BaseException, name: bytes) -> Dict[str, Union[str, int, None]]:
    """``error`` (the text of the ``NAME: ...`` message) and ``errno`` (null when the error is
    not the OS's)."""
    errno = err.errno if isinstance(err, OSError) and isinstance(err.errno, int) else None
    return {"error": error_text(err, name), "errno": errno}


def sum_json(algorithm: str, result: Union[bytes, BaseException], name: bytes,
             tree_params: Optional[TreeParams]) -> bytes:
    """``parhash sum --json``'s line for `name`: its digest, or why it could not be hashed."""
    record = {**_json_name("path", name), "algorithm": algorithm, **_json_tree(algorithm, tree_params)}
    if isinstance(result, bytes):
        record["digest"] = result.hex()
    else:
        record.update(_json_failure(result, name))
    return _json_line(record)


class CheckJson:
    """``parhash check --json``'s records of one checksum list (`list_name`, ``-`` for
    standard input)."""

    def __init__(self, list_name: bytes):
        self.name = list_name
        self.list = _json_name("list", list_name)

    def improper(self, number: int) -> bytes:
        return _json_line({"type": "line", **self.list, "line": number, "status": "improper"})

    def line(self, number: int, entry: Entry, algorithm_from: str, tree_params: Optional[TreeParams],
             result: Union[bytes, BaseException]) -> bytes:
        """A checked line: ``ok``, ``failed``, ``missing`` or ``unreadable``; `algorithm_from`
        is ``option`` (-a), ``tag`` or ``length``."""
        if isinstance(result, bytes):
            status = "ok" if result == entry.expected else "failed"
        else:
            status = "missing" if is_not_found(result) else "unreadable"
        record = {"type": "line", **self.list, "line": number, "status": status, **_json_name("path", entry.name),
                  "algorithm": entry.algorithm, "algorithm_from": algorithm_from,
                  **_json_tree(entry.algorithm, tree_params), "expected": entry.expected.hex()}
        if isinstance(result, bytes):
            record["actual"] = result.hex()
        else:
            record.update(_json_failure(result, entry.name))
        return _json_line(record)

    def summary(self, counts: Dict[str, int], passed: bool, problem: Union[BaseException, str, None] = None) -> bytes:
        """The list's counts (`counts`: ok, failed, missing, unreadable, improper), whether it
        passed, and why the list failed as a whole, if it did: an error reading it or a
        message (``no properly formatted checksum lines found``)."""
        record = {"type": "summary", **self.list, **{key: counts[key] for key in _COUNTS}, "passed": passed}
        if isinstance(problem, str):
            record.update({"error": problem, "errno": None})
        elif problem is not None:
            record.update(_json_failure(problem, self.name))
        return _json_line(record)


_COUNTS = ("ok", "failed", "missing", "unreadable", "improper")
