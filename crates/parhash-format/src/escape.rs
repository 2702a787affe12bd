//! File names as bytes, and the three ways coreutils writes them: the checksum-line escape
//! (`\n`, `\\`, `\r` with a leading `\` on the line), its inverse for `check`, and the shell
//! quoting of names inside error messages (`sha256sum: 'a b': No such file or directory`).

use std::borrow::Cow;
use std::ffi::OsStr;
use std::path::PathBuf;

/// The bytes of a command-line name (exact on Unix, where names are bytes).
pub fn os_bytes(name: &OsStr) -> Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Cow::Borrowed(name.as_bytes())
    }
    #[cfg(not(unix))]
    {
        match name.to_string_lossy() {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    }
}

/// The path a name read from a checksum file refers to.
pub fn path_from_bytes(name: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(OsStr::from_bytes(name))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(name).into_owned())
    }
}

/// Whether `sum` must escape this name: it holds a newline, backslash or carriage return
/// (coreutils 9 escapes all three in checksum lines).
pub fn sum_needs_escape(name: &[u8]) -> bool {
    name.iter().any(|&b| matches!(b, b'\n' | b'\\' | b'\r'))
}

/// Whether `check` escapes this name in its `name: OK` report. coreutils (9.1) does so only
/// when the name holds a newline; the escape then covers backslash and carriage return too.
pub fn report_needs_escape(name: &[u8]) -> bool {
    name.contains(&b'\n')
}

/// Appends `name` with `\` as `\\`, newline as `\n` and carriage return as `\r`.
pub fn escape_into(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

/// Reverses [`escape_into`]; `None` for any other escape or a trailing lone backslash, which
/// make a checksum line improperly formatted (as in coreutils).
pub fn unescape(escaped: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(escaped.len());
    let mut bytes = escaped.iter();
    while let Some(&b) = bytes.next() {
        if b == b'\\' {
            match bytes.next()? {
                b'\\' => out.push(b'\\'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                _ => return None,
            }
        } else {
            out.push(b);
        }
    }
    Some(out)
}

/// Quotes a name for an error message the way coreutils' `quotef` does (shell-escape style,
/// colons quoted too): plain names stay as they are, `a b` becomes `'a b'`, `it's` becomes
/// `"it's"`, and control characters or invalid UTF-8 become `'a'$'\n''b'`.
pub fn quote(name: &[u8]) -> String {
    let text = String::from_utf8_lossy(name);
    let valid_utf8 = matches!(text, Cow::Borrowed(_));
    if valid_utf8
        && !text.is_empty()
        && text.chars().enumerate().all(|(i, c)| is_plain(c, i, &text))
    {
        return text.into_owned();
    }
    let has_unprintable = !valid_utf8 || text.chars().any(char::is_control);
    if name.contains(&b'\'')
        && !has_unprintable
        && text.chars().enumerate().all(|(i, c)| double_quotable(c, i))
    {
        return format!("\"{text}\"");
    }
    // Runs of unprintable bytes go into one `$'...'` group each, as GNU writes them.
    let mut quoted = Quoted {
        out: String::from("'"),
        in_escape: false,
    };
    for chunk in name.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                c if c.is_control() => {
                    let mut buf = [0u8; 4];
                    quoted.escape(c.encode_utf8(&mut buf).as_bytes());
                }
                // Right after a `$'...'` group, the `'\''` closes it (no `''` in between).
                '\'' => {
                    quoted.out.push_str("'\\''");
                    quoted.in_escape = false;
                }
                c => quoted.literal(c),
            }
        }
        quoted.escape(chunk.invalid());
    }
    let ends_in_escape = quoted.in_escape;
    let mut out = quoted.out;
    out.push('\'');
    // GNU's quotearg, for a name that holds a quote (not as its first byte) and ends in an
    // escape, puts an empty `''` in front (`'''a'\'''$'\n'` for `a'` and a newline) or, when
    // the name starts with an unprintable byte, writes that first run without its `$`
    // (`'\n'\'''$'\n'`: what md5sum prints, shell-quotable or not).
    if ends_in_escape && name.contains(&b'\'') && name.first() != Some(&b'\'') {
        match out.strip_prefix("''$'") {
            Some(rest) => out = format!("'{rest}"),
            None => out.insert_str(0, "''"),
        }
    }
    out
}

/// A name being written in single quotes, with `$'...'` groups for unprintable bytes.
struct Quoted {
    out: String,
    /// Inside a `$'...'` group.
    in_escape: bool,
}

impl Quoted {
    fn escape(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if !self.in_escape {
            self.out.push_str("'$'");
            self.in_escape = true;
        }
        for &b in bytes {
            push_c_escape(&mut self.out, b);
        }
    }

    fn literal(&mut self, c: char) {
        if self.in_escape {
            self.out.push_str("''");
            self.in_escape = false;
        }
        self.out.push(c);
    }
}

/// Characters GNU's quotearg leaves inside double quotes at position `i` (the others, shell
/// specials, make it quote a name with a `'` the long way: `'a'\''!'`).
fn double_quotable(c: char, i: usize) -> bool {
    match c {
        '!' | '"' | '$' | '&' | '(' | ')' | '*' | ';' | '<' | '=' | '>' | '?' | '[' | '\\'
        | '^' | '`' | '{' | '|' | '}' => false,
        '#' | '~' => i == 0,
        _ => true,
    }
}

/// Characters a shell reads literally at position `i` of `text`.
fn is_plain(c: char, i: usize, text: &str) -> bool {
    match c {
        'a'..='z' | 'A'..='Z' | '0'..='9' => true,
        '%' | '+' | ',' | '-' | '.' | '/' | '@' | ']' | '_' => true,
        '#' | '~' => i != 0,
        '{' | '}' => text.len() > 1,
        c if c.is_ascii() => false,
        c => !c.is_control(),
    }
}

fn push_c_escape(out: &mut String, b: u8) {
    match b {
        0x07 => out.push_str("\\a"),
        0x08 => out.push_str("\\b"),
        0x0c => out.push_str("\\f"),
        b'\n' => out.push_str("\\n"),
        b'\r' => out.push_str("\\r"),
        b'\t' => out.push_str("\\t"),
        0x0b => out.push_str("\\v"),
        b => out.push_str(&format!("\\{b:03o}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_round_trips() {
        for name in [
            &b"plain"[..],
            b"a\nb",
            b"back\\slash",
            b"c\rr",
            b"\\n",
            b"\n\n\\\r",
        ] {
            let mut escaped = Vec::new();
            escape_into(&mut escaped, name);
            assert!(!escaped.contains(&b'\n'));
            assert_eq!(unescape(&escaped).as_deref(), Some(name));
        }
    }

    #[test]
    fn escape_matches_coreutils_spelling() {
        let mut out = Vec::new();
        escape_into(&mut out, b"n\nl\\b\rc");
        assert_eq!(out, b"n\\nl\\\\b\\rc");
        assert!(sum_needs_escape(b"a\rb"));
        assert!(!sum_needs_escape(b"a b*"));
        assert!(report_needs_escape(b"a\nb"));
        assert!(!report_needs_escape(b"a\\b"));
    }

    #[test]
    fn unescape_rejects_unknown_escapes() {
        assert_eq!(unescape(b"a\\tb"), None);
        assert_eq!(unescape(b"trailing\\"), None);
        assert_eq!(unescape(b"ok\\\\"), Some(b"ok\\".to_vec()));
    }

    // Expected spellings are what GNU coreutils 9.1 prints for these names.
    #[test]
    fn quote_follows_coreutils_quotef() {
        let cases: &[(&[u8], &str)] = &[
            (b"missing", "missing"),
            (b"m,x%+@_-./", "m,x%+@_-./"),
            (b"a b", "'a b'"),
            (b"m:x", "'m:x'"),
            (b"it's", "\"it's\""),
            (b"a'b c", "\"a'b c\""),
            (b"~x", "'~x'"),
            (b"x~", "x~"),
            (b"#x", "'#x'"),
            (b"{x", "{x"),
            (b"{", "'{'"),
            (b"\\", "'\\'"),
            ("é".as_bytes(), "é"),
            (b"a\nb", "'a'$'\\n''b'"),
            (b"a\tb", "'a'$'\\t''b'"),
            (b"a\x01b", "'a'$'\\001''b'"),
            (b"\xff", "''$'\\377'"),
            (b"a\xffb c", "'a'$'\\377''b c'"),
            (b"standard input", "'standard input'"),
            // Seen from md5sum (coreutils 9.1): one `$'...'` group per run of unprintable
            // bytes, a quote right after a group, and GNU's leading `''`.
            (b"\xff\xfe", "''$'\\377\\376'"),
            (b"a\xff\xfeb", "'a'$'\\377\\376''b'"),
            (b"a\n\tb", "'a'$'\\n\\t''b'"),
            (b"\n\xff", "''$'\\n\\377'"),
            (b"a\x01\x02", "'a'$'\\001\\002'"),
            (b"\n'", "''$'\\n'\\'''"),
            (b"a\n'b", "'a'$'\\n'\\''b'"),
            (b"a'\n", "'''a'\\'''$'\\n'"),
            (b"'\n", "''\\'''$'\\n'"),
            (b"'a\n", "''\\''a'$'\\n'"),
            (b"a'\n'", "'a'\\'''$'\\n'\\'''"),
            (b"x'y\nz\n", "'''x'\\''y'$'\\n''z'$'\\n'"),
        ];
        for (name, want) in cases {
            assert_eq!(quote(name), *want, "{:?}", String::from_utf8_lossy(name));
        }
    }
}
