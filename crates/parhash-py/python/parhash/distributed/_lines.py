"""Checksum lines byte for byte as ``parhash sum`` and ``parhash check`` write and read them
(coreutils' sha256sum format), so a cluster's output verifies with ``parhash check`` or
``sha256sum -c`` and the other way round. The rules are those of the CLI's ``lines.rs``,
``escape.rs`` and ``check.rs``; the tests compare this module's output with the CLI's.
"""

from __future__ import annotations

import errno as errno_codes
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Tuple

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
    return parhash.new(algorithm).digest_size


def takes_tree_params(algorithm: str) -> bool:
    return algorithm == "parsha256"


def tag(algorithm: str, params: Optional[TreeParams] = None) -> str:
    """The BSD tag of `algorithm` (canonical name), as ``parhash sum --tag`` writes it."""
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


def from_tag(text: str) -> Optional[Tuple[str, Optional[TreeParams]]]:
    """The algorithm (and PARSHA-256's parameters) a BSD tag names, or None."""
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
        label = tag(algorithm, style.tree_params).encode()
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
        algorithm, params = found
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
        entry = self._entry(algorithm, _skip_blanks(tail[1:]), raw_name, escaped)
        if isinstance(entry, Entry):
            return Entry(entry.algorithm, entry.expected, entry.name, params)
        return entry

    def _parse_gnu(self, line: bytes, escaped: bool):
        hex_len = 0
        while hex_len < len(line) and chr(line[hex_len]) in "0123456789abcdefABCDEF":
            hex_len += 1
        if self.forced is not None:
            if hex_len != 2 * digest_size(self.forced):
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
        return self._entry(algorithm, line[:hex_len], line[name_start:], escaped)

    @staticmethod
    def _entry(algorithm: str, hex_digits: bytes, raw_name: bytes, escaped: bool):
        expected = _decode_hex(hex_digits)
        if expected is None or len(expected) != digest_size(algorithm):
            return IMPROPER
        if escaped:
            name = unescape(raw_name)
            if name is None or b"\0" in name:
                return IMPROPER
        else:
            # A name ends at its first NUL, as C strings do in coreutils.
            name = raw_name.split(b"\0", 1)[0]
        return Entry(algorithm, expected, name)


def report_line(name: bytes, verdict: str, zero: bool) -> bytes:
    """``NAME: VERDICT`` as ``parhash check`` prints it."""
    shown = b"\\" + escape(name) if not zero and report_needs_escape(name) else name
    return shown + b": " + verdict.encode() + (b"\0" if zero else b"\n")
