//! `_parhash.listing_page(body, timestamp)`: one S3 ListObjectsV2 page read into the dict
//! botocore's parser gives, for `parhash.store`'s client. With ElementTree (a tree of nodes
//! made in the interpreter, then read field by field in Python) a page of 1,000 keys took
//! 6 ms of the interpreter's time, holding its lock, and five times that beside the hashing
//! threads: the listing thread then held up the merge. Here the XML is read by `roxmltree`
//! without the lock, and only the dicts are made with it.
//!
//! The fields are botocore's model of the page (`ListObjectsV2Output`); a page holding any
//! other element gives `None`, and botocore reads that page itself. Dates go through the
//! caller's `timestamp`, so that they are the objects botocore's parser would make.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use roxmltree::{Document, Node};

/// How a field's text is read.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Integer,
    Boolean,
    Date,
    Struct(&'static [Field]),
}

/// A field: its element's name, whether it repeats (a list of values), and its kind.
type Field = (&'static str, bool, Kind);

const OWNER: &[Field] = &[
    ("DisplayName", false, Kind::Text),
    ("ID", false, Kind::Text),
];

const RESTORE: &[Field] = &[
    ("IsRestoreInProgress", false, Kind::Boolean),
    ("RestoreExpiryDate", false, Kind::Date),
];

const OBJECT: &[Field] = &[
    ("Key", false, Kind::Text),
    ("ETag", false, Kind::Text),
    ("ChecksumType", false, Kind::Text),
    ("StorageClass", false, Kind::Text),
    ("Size", false, Kind::Integer),
    ("LastModified", false, Kind::Date),
    ("ChecksumAlgorithm", true, Kind::Text),
    ("Owner", false, Kind::Struct(OWNER)),
    ("RestoreStatus", false, Kind::Struct(RESTORE)),
];

const PREFIX: &[Field] = &[("Prefix", false, Kind::Text)];

const PAGE: &[Field] = &[
    ("Name", false, Kind::Text),
    ("Prefix", false, Kind::Text),
    ("Delimiter", false, Kind::Text),
    ("ContinuationToken", false, Kind::Text),
    ("NextContinuationToken", false, Kind::Text),
    ("StartAfter", false, Kind::Text),
    ("EncodingType", false, Kind::Text),
    ("MaxKeys", false, Kind::Integer),
    ("KeyCount", false, Kind::Integer),
    ("IsTruncated", false, Kind::Boolean),
    ("Contents", true, Kind::Struct(OBJECT)),
    ("CommonPrefixes", true, Kind::Struct(PREFIX)),
];

/// A value read without the interpreter: dates still text.
enum Value<'a> {
    Text(&'a str),
    Integer(i64),
    Boolean(bool),
    Date(&'a str),
    Struct(Vec<(&'static str, bool, Value<'a>)>),
}

/// The children of `node` read by `fields`, in document order; `None` where a child is not
/// named there or cannot be read as its kind.
fn read<'a>(
    node: Node<'a, '_>,
    fields: &'static [Field],
) -> Option<Vec<(&'static str, bool, Value<'a>)>> {
    let mut out = Vec::new();
    for child in node.children().filter(Node::is_element) {
        let name = child.tag_name().name();
        let &(name, repeated, kind) = fields.iter().find(|field| field.0 == name)?;
        // ElementTree's `text` ("" for none) where a value is one piece of text; a value
        // broken by a comment or holding elements is left to botocore.
        let mut inside = child.children();
        let text = match (inside.next(), inside.next()) {
            (None, _) => "",
            (Some(only), None) if only.is_text() => only.text().unwrap_or(""),
            _ if matches!(kind, Kind::Struct(_)) => "",
            _ => return None,
        };
        let value = match kind {
            Kind::Text => Value::Text(text),
            Kind::Integer => Value::Integer(integer(text)?),
            Kind::Boolean => Value::Boolean(text == "true"),
            Kind::Date => Value::Date(text),
            Kind::Struct(inner) => Value::Struct(read(child, inner)?),
        };
        out.push((name, repeated, value));
    }
    Some(out)
}

/// Python's `int(text)`, botocore's reading, where `text` is plain decimal; `None` (botocore
/// reads the page, and refuses an empty number) for anything else.
fn integer(text: &str) -> Option<i64> {
    let digits = text.trim();
    let unsigned = digits.strip_prefix(['+', '-']).unwrap_or(digits);
    if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The dict of a struct's fields (a repeated field: the list of its values).
fn to_dict<'py>(
    py: Python<'py>,
    fields: &[(&'static str, bool, Value<'_>)],
    timestamp: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, repeated, value) in fields {
        let value = match value {
            Value::Text(text) => text.into_pyobject(py)?.into_any(),
            Value::Integer(n) => n.into_pyobject(py)?.into_any(),
            Value::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
            Value::Date(text) => timestamp.call1((text,))?,
            Value::Struct(inner) => to_dict(py, inner, timestamp)?.into_any(),
        };
        if *repeated {
            match dict.get_item(name)? {
                Some(list) => list.cast::<PyList>()?.append(value)?,
                None => dict.set_item(name, PyList::new(py, [value])?)?,
            }
        } else {
            dict.set_item(name, value)?;
        }
    }
    Ok(dict)
}

/// `(tag, page)`: the root element's tag as ElementTree names it (`{namespace}name`, or the
/// name alone) and the page's dict, `None` where the page holds an element outside
/// botocore's model of it or a value that is not of its field's kind. Raises `ValueError`
/// for a body that is not well-formed XML in UTF-8 (or that this reader refuses, such as one
/// with a document type declaration): the caller then leaves the page to botocore.
#[pyfunction]
pub(crate) fn listing_page<'py>(
    py: Python<'py>,
    body: &[u8],
    timestamp: &Bound<'py, PyAny>,
) -> PyResult<(String, Option<Bound<'py, PyDict>>)> {
    let text = std::str::from_utf8(body).map_err(|err| PyValueError::new_err(err.to_string()))?;
    let document = py
        .detach(|| Document::parse(text))
        .map_err(|err| PyValueError::new_err(err.to_string()))?;
    let root = document.root_element();
    let tag = match root.tag_name().namespace() {
        Some(namespace) => format!("{{{namespace}}}{}", root.tag_name().name()),
        None => root.tag_name().name().to_owned(),
    };
    let page = match read(root, PAGE) {
        Some(fields) => Some(to_dict(py, &fields, timestamp)?),
        None => None,
    };
    Ok((tag, page))
}
