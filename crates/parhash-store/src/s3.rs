//! The store's side, through the AWS SDK for Rust: a client made as the AWS tools make one,
//! the listing (ListObjectsV2, page after page, fetched ahead on a task of its own), and an
//! object's checksums (HeadObject with checksum mode; GetObjectAttributes where a multipart
//! CRC's type is not said).

use aws_sdk_s3::config::http::HttpResponse;
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::types::{ChecksumMode, EncodingType, ObjectAttributes};
pub use aws_sdk_s3::Client;
use tokio::sync::mpsc;

use crate::rules::Head;

/// Where the store is and who asks: each None is found as the AWS tools find it (environment,
/// `~/.aws/config` and `credentials`).
#[derive(Clone, Debug, Default)]
pub struct Connection {
    /// An S3-compatible store's URL (MinIO, Ceph, R2...); its buckets are addressed by path.
    pub endpoint_url: Option<String>,
    /// The profile of `~/.aws/config` to use.
    pub profile: Option<String>,
    /// The store's region.
    pub region: Option<String>,
}

/// An S3 client for `connection`.
pub async fn client(connection: &Connection) -> Client {
    let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
    if let Some(profile) = &connection.profile {
        loader = loader.profile_name(profile);
    }
    if let Some(region) = &connection.region {
        loader = loader.region(aws_config::Region::new(region.clone()));
    }
    if let Some(url) = &connection.endpoint_url {
        loader = loader.endpoint_url(url);
    }
    let shared = loader.load().await;
    let mut config = aws_sdk_s3::config::Builder::from(&shared);
    // Another store than AWS's (an endpoint given here or in the environment) is addressed by
    // path: a local server has no names for virtual hosts.
    if shared.endpoint_url().is_some() {
        config = config.force_path_style(true);
    }
    // As botocore does, a store without a region configured is signed for us-east-1.
    if shared.region().is_none() {
        config = config.region(aws_config::Region::from_static("us-east-1"));
    }
    Client::from_conf(config.build())
}

/// One listed object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Its key.
    pub key: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its ETag as listed.
    pub etag: String,
    /// Whether the listing names an additional checksum of it.
    pub checksum_listed: bool,
}

/// A request the store refused or that did not reach it, in words ([`describe`]), with
/// whether it says the object is not there.
#[derive(Debug)]
pub struct StoreError {
    /// What went wrong, in words.
    pub message: String,
    /// The store said there is no such object (HeadObject's bare 404, NoSuchKey).
    pub gone: bool,
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

/// A failed request of `operation` in words: a missing bucket, refused credentials, a store
/// that cannot be reached.
pub fn describe<E>(operation: &str, err: &SdkError<E, HttpResponse>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    let context = chain(err);
    let code = err.code().unwrap_or("");
    let gone = matches!(code, "NoSuchKey" | "NotFound" | "404")
        || matches!(err, SdkError::ServiceError(e) if e.raw().status().as_u16() == 404 && operation != "ListObjectsV2");
    let message = match err {
        SdkError::ServiceError(_) => match code {
            "NoSuchBucket" => "no such bucket".to_string(),
            "InvalidAccessKeyId"
            | "SignatureDoesNotMatch"
            | "AccessDenied"
            | "403"
            | "ExpiredToken"
            | "InvalidToken"
            | "InvalidClientTokenId" => {
                let said = err.message().unwrap_or("");
                format!("the store refused the credentials or the access ({code}: {said})")
            }
            _ => format!("{operation}: {context}"),
        },
        SdkError::DispatchFailure(_) | SdkError::TimeoutError(_) | SdkError::ResponseError(_) => {
            if context.contains("credentials") {
                "no AWS credentials found (environment, ~/.aws/credentials, --profile)".to_string()
            } else {
                format!("the store cannot be reached: {context}")
            }
        }
        _ if context.contains("credentials") => {
            "no AWS credentials found (environment, ~/.aws/credentials, --profile)".to_string()
        }
        _ => format!("{operation}: {context}"),
    };
    StoreError { message, gone }
}

/// An error and its causes, each once, as `a: b: c` (the SDK's own context adds a debug dump).
fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut words: Vec<String> = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !words.iter().any(|w| w.contains(&text)) {
            words.push(text);
        }
        source = cause.source();
    }
    words.join(": ")
}

/// The objects under `prefix` in key order (folder markers left out), sent page by page on
/// `pages` as they come; a failure is sent last. Stops when the receiver is gone.
pub async fn list(
    client: Client,
    bucket: String,
    prefix: String,
    start_after: Option<String>,
    page_size: Option<i32>,
    pages: mpsc::Sender<Result<Vec<Listed>, StoreError>>,
) {
    // Keys come URL-encoded, as botocore asks for them: a key may hold characters XML 1.0
    // cannot carry (control characters), which a page would otherwise not parse.
    let mut paginator = (client.list_objects_v2())
        .bucket(bucket)
        .prefix(prefix)
        .encoding_type(EncodingType::Url)
        .set_start_after(start_after)
        .set_max_keys(page_size)
        .into_paginator()
        .send();
    while let Some(page) = paginator.next().await {
        let page = match page {
            Ok(page) => page,
            Err(err) => {
                let _ = pages.send(Err(describe("ListObjectsV2", &err))).await;
                return;
            }
        };
        let encoded = page.encoding_type() == Some(&EncodingType::Url);
        let objects = (page.contents().iter())
            .filter_map(|obj| {
                let key = match obj.key()? {
                    key if encoded => url_decoded(key)?,
                    key => key.to_string(),
                };
                (!key.ends_with('/')).then(|| Listed {
                    key,
                    size: obj.size().unwrap_or(0).max(0) as u64,
                    etag: obj.e_tag().unwrap_or("").to_string(),
                    checksum_listed: !obj.checksum_algorithm().is_empty(),
                })
            })
            .collect();
        if pages.send(Ok(objects)).await.is_err() {
            return;
        }
    }
}

/// A key as S3 URL-encodes it in a listing (`%XX` for a byte, `+` for a space, as botocore
/// reads it back); None where the bytes are not UTF-8 (no key of S3's is).
fn url_decoded(key: &str) -> Option<String> {
    let bytes = key.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = key.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// What HeadObject (with checksum mode) says of `key`, with the checksum type asked of
/// GetObjectAttributes where [`Head::needs_checksum_type`].
pub async fn head(client: &Client, bucket: &str, key: &str) -> Result<Head, StoreError> {
    let out = (client.head_object())
        .bucket(bucket)
        .key(key)
        .checksum_mode(ChecksumMode::Enabled)
        .send()
        .await
        .map_err(|err| describe("HeadObject", &err))?;
    let fields = [
        ("sha512", out.checksum_sha512()),
        ("sha256", out.checksum_sha256()),
        ("sha1", out.checksum_sha1()),
        ("md5", out.checksum_md5()),
        ("xxh128", out.checksum_xxhash128()),
        ("crc64nvme", out.checksum_crc64_nvme()),
        ("xxh64", out.checksum_xxhash64()),
        ("xxh3", out.checksum_xxhash3()),
        ("crc32c", out.checksum_crc32_c()),
        ("crc32", out.checksum_crc32()),
    ];
    let mut head = Head {
        etag: out.e_tag().unwrap_or("").to_string(),
        checksums: (fields.into_iter())
            .filter_map(|(name, text)| Some((name, text?.to_string())))
            .collect(),
        checksum_type: out.checksum_type().map(|t| t.as_str().to_string()),
        server_side_encryption: out.server_side_encryption().map(|s| s.as_str().to_string()),
        sse_customer_algorithm: out.sse_customer_algorithm().map(str::to_string),
    };
    if head.needs_checksum_type() {
        let asked = (client.get_object_attributes())
            .bucket(bucket)
            .key(key)
            .object_attributes(ObjectAttributes::Checksum)
            .send()
            .await;
        head.checksum_type = match asked {
            Ok(attributes) => (attributes.checksum())
                .and_then(|c| c.checksum_type())
                .map(|t| t.as_str().to_string()),
            Err(err) => match answered_type(&err) {
                Some(kind) => kind,
                None => return Err(describe("GetObjectAttributes", &err)),
            },
        };
    }
    Ok(head)
}

/// `(part size, part count)` of a multipart object, as HeadObject of its first part says
/// (None for one part, or a store without part-numbered requests).
///
/// # Errors
/// Only that the object is gone ([`StoreError::gone`]).
pub async fn parts(
    client: &Client,
    bucket: &str,
    key: &str,
) -> Result<Option<(u64, u64)>, StoreError> {
    let asked = (client.head_object())
        .bucket(bucket)
        .key(key)
        .part_number(1)
        .send()
        .await;
    match asked {
        Ok(first) => {
            let count = u64::try_from(first.parts_count().unwrap_or(0)).unwrap_or(0);
            let size = u64::try_from(first.content_length().unwrap_or(0)).unwrap_or(0);
            Ok((count > 1 && size > 0).then_some((size, count)))
        }
        Err(err) => {
            let err = describe("HeadObject", &err);
            if err.gone {
                return Err(err);
            }
            Ok(None)
        }
    }
}

/// The object's bytes as they come (GetObject), for reading beside a local file.
///
/// # Errors
/// The store's refusal (`gone` where the object was deleted), or its absence.
pub async fn body(
    client: &Client,
    bucket: &str,
    key: &str,
) -> Result<aws_sdk_s3::primitives::ByteStream, StoreError> {
    let got = (client.get_object()).bucket(bucket).key(key).send().await;
    Ok(got.map_err(|err| describe("GetObject", &err))?.body)
}

/// The checksum type in a successful GetObjectAttributes answer that the SDK refused for
/// another part of it (moto before 5.2 sends `Last-Modified` as ISO 8601, which the SDK will
/// not read; botocore does): `Some(type)` from the body, None where the store did not answer
/// with success.
fn answered_type<E>(err: &SdkError<E, HttpResponse>) -> Option<Option<String>> {
    let SdkError::ServiceError(context) = err else {
        return None;
    };
    let raw = context.raw();
    if !raw.status().is_success() {
        return None;
    }
    let body = std::str::from_utf8(raw.body().bytes()?).ok()?;
    let document = roxmltree::Document::parse(body).ok()?;
    let found = (document.descendants())
        .find(|node| node.tag_name().name() == "ChecksumType")
        .and_then(|node| node.text())
        .map(|text| text.trim().to_string());
    Some(found)
}

#[cfg(test)]
mod tests {
    #[test]
    fn listed_keys_are_url_decoded_as_botocore_decodes_them() {
        use super::url_decoded;
        assert_eq!(
            url_decoded("a+b%2Bc%01%C3%A9").as_deref(),
            Some("a b+c\u{1}é")
        );
        assert_eq!(url_decoded("plain/key").as_deref(), Some("plain/key"));
        assert_eq!(url_decoded("bad%4"), None);
        assert_eq!(url_decoded("bad%zz"), None);
        assert_eq!(url_decoded("%FF"), None);
    }
}
