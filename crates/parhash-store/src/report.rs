//! What a verification says of each object and file: a [`Verdict`] (a line, or a JSON record
//! with `--json`), and the counts of a run ([`Tally`]). The words and fields are those of the
//! Python package's `parhash-store` (docs/object-stores.md).

use serde::Serialize;

use crate::difference::Difference;

/// The verdicts, in the order the counts are given, with the word a line shows for each.
pub const STATUS_WORDS: [(&str, &str); 6] = [
    ("matched", "OK"),
    ("changed", "CHANGED"),
    ("missing", "MISSING"),
    ("new", "NEW"),
    ("unverifiable", "UNVERIFIABLE"),
    ("unreadable", "FAILED open or read"),
];

/// What became of one object or file (`key` None for a new file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// One of [`STATUS_WORDS`]' first column.
    pub status: &'static str,
    /// The file's name below the local folder: the key less the prefix.
    #[serde(rename = "path")]
    pub name: String,
    /// The object's key.
    pub key: Option<String>,
    /// The checksum checked: its label (`etag`, an algorithm, or `ALG-composite`).
    pub algorithm: Option<String>,
    /// The store's value.
    pub expected: Option<String>,
    /// The file's value.
    pub actual: Option<String>,
    /// The part size that gave the store's value, for a multipart form.
    pub part_size: Option<u64>,
    /// Why, in words.
    pub reason: Option<String>,
    /// What a download of a changed object found (`--download-mismatches`).
    pub difference: Option<Difference>,
}

impl Verdict {
    /// A verdict without a checksum: missing, new, unreadable before hashing...
    pub fn bare(status: &'static str, name: &str, key: Option<&str>) -> Verdict {
        Verdict {
            status,
            name: name.to_string(),
            key: key.map(str::to_string),
            algorithm: None,
            expected: None,
            actual: None,
            part_size: None,
            reason: None,
            difference: None,
        }
    }

    /// `self` with `reason`.
    pub fn because(mut self, reason: impl Into<String>) -> Verdict {
        self.reason = Some(reason.into());
        self
    }

    /// `self` (changed) with what a download of its object found, or why there is none, in
    /// its reason too.
    pub fn downloaded(mut self, found: Result<Difference, String>) -> Verdict {
        let said = match &found {
            Ok(difference) => difference.text(),
            Err(why) => format!("not downloaded: {why}"),
        };
        self.reason = Some(match self.reason.take() {
            Some(reason) => format!("{reason}; {said}"),
            None => said,
        });
        self.difference = found.ok();
        self
    }

    /// The line of text: `NAME: WORD`, with the reason in parentheses where there is one to
    /// give.
    pub fn line(&self) -> String {
        let word = word(self.status);
        match &self.reason {
            Some(reason) if self.status != "matched" && self.status != "missing" => {
                format!("{}: {word} ({reason})", self.name)
            }
            _ => format!("{}: {word}", self.name),
        }
    }

    /// The JSON record (`"type": "store"`), one line without its newline.
    pub fn record(&self) -> String {
        #[derive(Serialize)]
        struct Record<'a> {
            r#type: &'static str,
            #[serde(flatten)]
            verdict: &'a Verdict,
        }
        serde_json::to_string(&Record {
            r#type: "store",
            verdict: self,
        })
        .expect("a record serializes")
    }
}

fn word(status: &str) -> &'static str {
    (STATUS_WORDS.iter())
        .find(|(s, _)| *s == status)
        .map_or("?", |(_, word)| word)
}

/// The counts of a run, by verdict.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    counts: [u64; STATUS_WORDS.len()],
}

impl Tally {
    /// Counts `verdict`.
    pub fn add(&mut self, verdict: &Verdict) {
        if let Some(i) = STATUS_WORDS.iter().position(|(s, _)| *s == verdict.status) {
            self.counts[i] += 1;
        }
    }

    /// Every verdict counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Whether every verdict was a match.
    pub fn passed(&self) -> bool {
        self.counts[1..].iter().all(|&n| n == 0)
    }

    /// `N matched, N changed, ...`.
    pub fn summary(&self) -> String {
        (STATUS_WORDS.iter().zip(self.counts))
            .map(|((status, _), n)| format!("{n} {status}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The closing JSON record (`"type": "store_summary"`) of a verification of `store`.
    pub fn record(&self, store: &str) -> String {
        let mut record = serde_json::Map::new();
        record.insert("type".into(), "store_summary".into());
        record.insert("store".into(), store.into());
        for ((status, _), n) in STATUS_WORDS.iter().zip(self.counts) {
            record.insert((*status).into(), n.into());
        }
        record.insert("passed".into(), self.passed().into());
        serde_json::Value::Object(record).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_counts_read_as_the_python_packages() {
        let v =
            Verdict::bare("changed", "a/b", Some("p/a/b")).because("1 bytes here, 2 in the store");
        assert_eq!(v.line(), "a/b: CHANGED (1 bytes here, 2 in the store)");
        assert_eq!(
            Verdict::bare("missing", "x", Some("x")).line(),
            "x: MISSING"
        );
        let mut tally = Tally::default();
        tally.add(&v);
        assert!(!tally.passed());
        assert_eq!(
            tally.summary(),
            "0 matched, 1 changed, 0 missing, 0 new, 0 unverifiable, 0 unreadable"
        );
        let record: serde_json::Value = serde_json::from_str(&v.record()).unwrap();
        assert_eq!(record["type"], "store");
        assert_eq!(record["path"], "a/b");
        assert_eq!(record["difference"], serde_json::Value::Null);
    }
}
