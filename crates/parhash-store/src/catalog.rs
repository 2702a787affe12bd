//! The store's checksums written as a checksum list (`parhash store list`, the Python package's
//! `parhash-store list`): one line per object with its strongest checksum in the form the store
//! shows it, which `parhash check` reads back, or a JSON record with everything HeadObject said.
//! No object's bytes are read.

use parhash::multipart::Combine;
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::rules::{Expected, Head};

/// The checksum line of the object named `name` (its key less the prefix):
/// `CRC64NVME (NAME) = BASE64`, `SHA256-COMPOSITE (NAME) = BASE64-N`, `ETAG (NAME) = HEX[-N]`,
/// the name escaped as `parhash sum` escapes names.
pub fn line(exp: &Expected, name: &str) -> Vec<u8> {
    let tag = match (exp.combine, exp.parts) {
        (Combine::Composite(algorithm), None) => algorithm.info().tag.to_string(),
        (combine, _) => parhash_format::multipart::tag(combine),
    };
    let mut out = Vec::with_capacity(tag.len() + name.len() + exp.text.len() + 8);
    parhash_format::line::write_tagged(&mut out, &tag, &exp.text, name.as_bytes(), false);
    out
}

/// What the store says of one object, with its strongest checksum or why there is none.
#[derive(Clone, Debug)]
pub struct Object {
    /// The key.
    pub key: String,
    /// The key less the prefix.
    pub name: String,
    /// Its size, as listed.
    pub size: u64,
    /// HeadObject's answer (and GetObjectAttributes' checksum type where it was asked).
    pub head: Head,
    /// The checksum a verification checks, or why there is none.
    pub expected: Result<Expected, String>,
}

impl Object {
    /// The JSON record (`"type": "store_object"`), one line without its newline.
    pub fn record(&self) -> String {
        let exp = self.expected.as_ref().ok();
        let encryption = [
            &self.head.server_side_encryption,
            &self.head.sse_customer_algorithm,
        ]
        .into_iter()
        .flatten()
        .find(|s| !s.is_empty());
        let record = Record {
            r#type: "store_object",
            path: &self.name,
            key: &self.key,
            size: self.size,
            etag: self.head.etag.trim_matches('"'),
            checksums: Checksums(&self.head),
            checksum_type: self.head.checksum_type.as_deref(),
            server_side_encryption: encryption.map(String::as_str),
            algorithm: exp.map(|e| e.label.as_str()),
            checksum: exp.map(|e| e.text.as_str()),
            reason: self.expected.as_ref().err().map(String::as_str),
        };
        serde_json::to_string(&record).expect("a record serializes")
    }
}

#[derive(serde::Serialize)]
struct Record<'a> {
    r#type: &'static str,
    path: &'a str,
    key: &'a str,
    size: u64,
    etag: &'a str,
    checksums: Checksums<'a>,
    checksum_type: Option<&'a str>,
    server_side_encryption: Option<&'a str>,
    algorithm: Option<&'a str>,
    checksum: Option<&'a str>,
    reason: Option<&'a str>,
}

/// The additional checksums an object has, `{algorithm: value}`, strongest first.
struct Checksums<'a>(&'a Head);

impl Serialize for Checksums<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let present: Vec<_> = (crate::rules::ADDITIONAL.iter())
            .filter_map(|(_, name)| Some((name, self.0.checksum(name)?)))
            .collect();
        let mut map = serializer.serialize_map(Some(present.len()))?;
        for (name, text) in present {
            map.serialize_entry(name, text)?;
        }
        map.end()
    }
}

/// The checksums of every object under a prefix, in key order.
#[cfg(feature = "s3")]
pub use self::from_store::checksums;

#[cfg(feature = "s3")]
mod from_store {
    use std::sync::Arc;

    use aws_sdk_s3::Client;
    use tokio::runtime::Runtime;
    use tokio::sync::{mpsc, Semaphore};
    use tokio::task::JoinHandle;

    use super::Object;
    use crate::rules;
    use crate::s3::{self, Listed, StoreError};

    /// An object's HeadObject under way: None where the object was deleted since the listing.
    type Asked = JoinHandle<Result<Option<Object>, StoreError>>;

    /// Every object under `prefix` with what HeadObject (checksum mode) says of it, handed to
    /// `emit` in key order, up to `threads` requests at once while the listing runs ahead. An
    /// object deleted after the listing is left out, as a later listing would leave it.
    ///
    /// # Errors
    /// The store's refusal or absence, after the objects before it were handed on.
    pub fn checksums(
        runtime: &Runtime,
        client: Client,
        bucket: &str,
        prefix: &str,
        threads: usize,
        page_size: Option<i32>,
        mut emit: impl FnMut(Object),
    ) -> Result<(), StoreError> {
        let (sender, pages) = mpsc::channel(4);
        let listing = runtime.spawn(s3::list(
            client.clone(),
            bucket.to_string(),
            prefix.to_string(),
            None,
            page_size,
            sender,
        ));
        let threads = threads.max(1);
        let (asked, mut answers) = mpsc::channel(4 * threads);
        let asking = runtime.spawn(ask(
            client,
            bucket.to_string(),
            prefix.len(),
            pages,
            Arc::new(Semaphore::new(threads)),
            asked,
        ));
        let outcome = runtime.block_on(async {
            while let Some(next) = answers.recv().await {
                if let Some(object) = next?.await.expect("a request does not panic")? {
                    emit(object);
                }
            }
            Ok(())
        });
        listing.abort();
        asking.abort();
        outcome
    }

    /// Sends a HeadObject for each listed object, in key order as turns come free, and hands
    /// on each one under way (a failure of the listing last).
    async fn ask(
        client: Client,
        bucket: String,
        prefix_len: usize,
        mut pages: mpsc::Receiver<Result<Vec<Listed>, StoreError>>,
        turns: Arc<Semaphore>,
        asked: mpsc::Sender<Result<Asked, StoreError>>,
    ) {
        while let Some(page) = pages.recv().await {
            let page = match page {
                Ok(page) => page,
                Err(err) => {
                    let _ = asked.send(Err(err)).await;
                    return;
                }
            };
            for listed in page {
                let turn = (turns.clone().acquire_owned().await).expect("never closed");
                let (client, bucket) = (client.clone(), bucket.clone());
                let task = tokio::spawn(async move {
                    let head = s3::head(&client, &bucket, &listed.key).await;
                    drop(turn);
                    let head = match head {
                        Ok(head) => head,
                        Err(err) if err.gone => return Ok(None),
                        Err(err) => return Err(err),
                    };
                    Ok(Some(Object {
                        name: listed.key[prefix_len..].to_string(),
                        expected: rules::expected(&head),
                        key: listed.key,
                        size: listed.size,
                        head,
                    }))
                });
                if asked.send(Ok(task)).await.is_err() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{self, tests::head};

    #[test]
    fn lines_name_the_form_the_store_shows() {
        let whole = rules::expected(&head("\"x\"", &[("crc64nvme", "XAj2z9ThTBc=")])).unwrap();
        assert_eq!(
            line(&whole, "a/b.bin"),
            b"CRC64NVME (a/b.bin) = XAj2z9ThTBc=\n"
        );
        let composite = rules::expected(&head(
            "\"144314b767d8e2d81be1e8c659f3f461-3\"",
            &[("sha256", "8H9OTdgUMmQ6/DlkWsluUV4qtMhoTh5qkflpEqnikjA=-3")],
        ))
        .unwrap();
        assert_eq!(
            line(&composite, "big"),
            b"SHA256-COMPOSITE (big) = 8H9OTdgUMmQ6/DlkWsluUV4qtMhoTh5qkflpEqnikjA=-3\n"
        );
        let etag = rules::expected(&head("\"144314b767d8e2d81be1e8c659f3f461-3\"", &[])).unwrap();
        assert_eq!(
            line(&etag, "new\nline"),
            b"\\ETAG (new\\nline) = 144314b767d8e2d81be1e8c659f3f461-3\n"
        );
    }

    #[test]
    fn records_list_every_checksum_strongest_first() {
        let head = head(
            "\"5d41402abc4b2a76b9719d911017c592\"",
            &[
                ("crc32", "NhCmhg=="),
                ("sha256", "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ="),
            ],
        );
        let object = Object {
            key: "p/a".into(),
            name: "a".into(),
            size: 5,
            expected: rules::expected(&head),
            head,
        };
        let record = object.record();
        assert!(record.starts_with(r#"{"type":"store_object","path":"a","key":"p/a","size":5,"etag":"5d41402abc4b2a76b9719d911017c592","checksums":{"sha256":"#));
        let record: serde_json::Value = serde_json::from_str(&record).unwrap();
        assert_eq!(record["algorithm"], "sha256");
        assert_eq!(record["reason"], serde_json::Value::Null);
    }
}
