//! `parhash store`: a local tree against an object store (S3 and S3-compatible stores).

use clap::{Args, Subcommand};

/// Check a local tree against an S3 bucket/prefix without downloading objects.
///
/// The store's checksums (ETags, additional and composite checksums) are compared with the
/// local files' own; credentials, region and profile are found as the AWS tools find them
/// (environment, ~/.aws/config and credentials). docs/object-stores.md is the guide.
#[derive(Args, Debug)]
pub struct StoreArgs {
    #[command(subcommand)]
    pub command: StoreCommand,
}

/// What `parhash store` does.
#[derive(Subcommand, Debug)]
pub enum StoreCommand {
    Verify(VerifyArgs),
    List(ListArgs),
}

/// How the store is reached, for every `parhash store` command.
#[derive(Args, Debug)]
pub struct StoreFlags {
    /// An S3-compatible store's URL (MinIO, Ceph, R2...), its buckets addressed by path.
    #[arg(long, value_name = "URL")]
    pub endpoint_url: Option<String>,

    /// The AWS profile (~/.aws/config) to use.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,

    /// The store's region (else as the AWS tools find it; us-east-1 where none is set).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,

    /// Requests to the store at once.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: u32,

    /// Keys per listing page (tests).
    #[arg(long, hide = true, value_parser = clap::value_parser!(i32).range(1..))]
    pub page_size: Option<i32>,
}

/// Check LOCAL_DIR against s3://BUCKET/PREFIX, reading no object's bytes.
///
/// Every object under the prefix and every file below LOCAL_DIR (the key less the prefix is
/// the file's name) gets one verdict: matched, changed, missing (an object without its file),
/// new (a file without its object), unverifiable (the store holds no checksum parhash can
/// reproduce, such as the ETag of an SSE-KMS object) or unreadable. The strongest checksum the
/// store has for an object is checked (an additional checksum over the ETag); the part size of
/// a multipart upload is found by trying the sizes that give its part count, from one read of
/// the file. Counts go to standard error. Exit status 0 when all matched, 1 otherwise, 2 when
/// the run could not finish (no bucket, credentials refused, the store gone: the message says
/// how far it got and how to resume).
///
/// The Python package's `parhash-store verify` does the same, and also runs on a Ray cluster
/// (`parhash-dist`).
#[derive(Args, Debug)]
#[command(
    after_help = "Example: parhash store verify ./photos s3://my-bucket/photos \
                        --endpoint-url http://localhost:9000"
)]
pub struct VerifyArgs {
    /// The local folder.
    #[arg(value_name = "LOCAL_DIR")]
    pub local: std::path::PathBuf,

    /// The bucket, and the prefix the folder's files are under.
    #[arg(value_name = "s3://BUCKET/PREFIX")]
    pub url: String,

    #[command(flatten)]
    pub store: StoreFlags,

    /// JSON Lines records, not text lines (fields: docs/object-stores.md).
    #[arg(long)]
    pub json: bool,

    /// No line for matched objects.
    #[arg(short, long)]
    pub quiet: bool,

    /// No progress line on standard error (there is one only when it is a terminal).
    #[arg(long)]
    pub no_progress: bool,

    /// The store's smallest part (all but the last) of a multipart upload.
    ///
    /// Smaller part sizes are not tried (S3: 5 MiB; Ceph's rgw_multipart_min_part_size).
    #[arg(long, value_name = "BYTES", default_value_t = parhash_store::rules::S3_MIN_PART, value_parser = clap::value_parser!(u64).range(1..))]
    pub min_part_size: u64,

    /// Resume after NAME (relative to the prefix), as a cut run says.
    #[arg(long, value_name = "NAME")]
    pub start_after: Option<String>,

    /// Download each changed object (streamed) and say which bytes and parts differ.
    ///
    /// Without it no object's bytes are read. The object is read beside its file, never held
    /// whole; the first 64 differing ranges are found to the byte, later ones to 64 KiB.
    #[arg(long)]
    pub download_mismatches: bool,
}

/// Write the store's checksums of every object under s3://BUCKET/PREFIX as a checksum list.
///
/// One line per object, its name relative to the prefix (escaped as `parhash sum` escapes
/// names), with its strongest checksum in the form the store shows it: `CRC64NVME (NAME) =
/// BASE64`, `SHA256-COMPOSITE (NAME) = BASE64-N`, `ETAG (NAME) = HEX[-N]`. `parhash check`
/// reads the list back against local files, offline (it finds the part size of an ETag or a
/// composite itself; a store with parts under S3's 5 MiB: `check --min-part-size`). An object with no checksum parhash can reproduce (the ETag of an
/// SSE-KMS object) is named on standard error and left out. Exit status 0 when every object
/// is listed, 1 when one was left out, 2 when the run could not finish.
#[derive(Args, Debug)]
#[command(after_help = "Example: parhash store list s3://my-bucket/photos -o photos.sums")]
pub struct ListArgs {
    /// The bucket, and the prefix of the objects.
    #[arg(value_name = "s3://BUCKET/PREFIX")]
    pub url: String,

    /// Write the list to FILE, not standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub store: StoreFlags,

    /// JSON Lines records with every checksum of every object (fields: docs/object-stores.md).
    #[arg(long)]
    pub json: bool,

    /// No progress line on standard error (there is one only when it is a terminal).
    #[arg(long)]
    pub no_progress: bool,
}
