//! `sum`'s flags for object stores' multipart checksums (`--etag`, `--composite`,
//! `--part-size`, `--match`) and the combinations refused; what they compute is the
//! command's multipart module.

use clap::Args;
use parhash::multipart::Combine;
use parhash::Algorithm;
use parhash_format::multipart as forms;

use super::{SumArgs, DEFAULT_ALGORITHM};

/// `sum`'s flags for object stores' multipart checksums.
#[derive(Args, Debug, Default, Clone)]
pub struct MultipartArgs {
    /// S3's ETag (an object store's label, not a hash of the file): `ETAG (NAME) = HEX-N`.
    ///
    /// The ETag S3 gives an object uploaded in parts of --part-size: the MD5 of the parts'
    /// MD5s, then `-N`, the number of parts. Without --part-size, the ETag of an object
    /// uploaded in one piece: the file's MD5 (the AWS CLI uploads files under its multipart
    /// threshold, 8 MiB, that way). Objects encrypted with SSE-KMS or SSE-C have ETags that
    /// are no MD5 at all. With --composite too, both from one read.
    #[arg(long, conflicts_with_all = MULTIPART_CONFLICTS)]
    pub etag: bool,

    /// S3 composite checksums of -a's algorithms: `SHA256-COMPOSITE (NAME) = BASE64-N`.
    ///
    /// The checksum S3 gives an object uploaded in parts of --part-size with a composite
    /// checksum: the algorithm's digest of the parts' raw digests, in base64, then `-N`.
    /// For sha1, sha256, crc32 and crc32c (S3's composite algorithms; sha256 without -a);
    /// crc64nvme is full-object only, the whole file's CRC. An object store's label, not a
    /// hash of the file: it depends on the part size.
    #[arg(long, conflicts_with_all = MULTIPART_CONFLICTS)]
    pub composite: bool,

    /// Part size(s) of --etag and --composite: 8MiB; several: 8MiB,16MiB (one read).
    ///
    /// The size of every part but the last, with KiB, MiB or GiB (binary; plain bytes
    /// without a suffix; MB is refused as ambiguous, the AWS CLI reading it as MiB), within
    /// S3's limits: 5 MiB to 5 GiB. Several sizes, separated by commas or in repeated
    /// --part-size, come from one read of each file, a line for each. A file that would need
    /// more than 10,000 parts (S3's most) gets an error for that size. Usual sizes: 8 MiB
    /// (AWS CLI, boto3), 15 MiB (s3cmd), 16 MiB and 64 MiB (other SDKs).
    #[arg(long = "part-size", value_name = "SIZE", value_parser = forms::parse_part_size, action = clap::ArgAction::Append, value_delimiter = ',')]
    pub part_sizes: Vec<u64>,

    /// Check the files against VALUE (as the store shows it, `"HEX-N"`), finding the part size.
    ///
    /// With --etag (an ETag, quotes allowed) or --composite and one -a (a composite value):
    /// the part sizes that give VALUE's N parts for each file (5, 8, 15, 16 and 64 MiB, the
    /// powers of two, and the file's size over N rounded up to a whole MiB or to a byte; the
    /// usual sizes where VALUE has no -N) are tried from one read, and each file is reported
    /// as `check` reports it: `NAME: OK (part size 8 MiB)`, or `NAME: FAILED (tried part
    /// sizes ...)`. An ETag without -N is the MD5 of an object uploaded in one piece.
    #[arg(long = "match", value_name = "VALUE", conflicts_with = "part_sizes")]
    pub expected: Option<String>,
}

/// What the multipart forms do not go with: checking lists, writing lists, walking trees,
/// the GPU, line styles and keys that do not apply.
const MULTIPART_CONFLICTS: [&str; 11] = [
    "check",
    "lists",
    "output_file",
    "resume",
    "update",
    "recursive",
    "binary",
    "text",
    "keyed",
    "derive_key",
    "device",
];

impl MultipartArgs {
    /// Whether a multipart form was asked for.
    pub fn any(&self) -> bool {
        self.etag || self.composite
    }
}

/// The forms `sum` computes, in the order it prints them: the ETag, then each -a's composite.
pub fn forms_of(args: &SumArgs) -> Vec<Combine> {
    let mut forms = Vec::new();
    if args.multipart.etag {
        forms.push(Combine::S3Etag);
    }
    if args.multipart.composite {
        let mut algorithms = args.algorithms();
        if algorithms.is_empty() {
            algorithms.extend(Algorithm::from_name(DEFAULT_ALGORITHM).ok());
        }
        forms.extend(algorithms.into_iter().map(Combine::Composite));
    }
    forms
}

/// Why `sum`'s multipart flags cannot go together, if they cannot.
pub fn refused(args: &SumArgs) -> Option<String> {
    let flags = &args.multipart;
    if !flags.any() {
        return (!flags.part_sizes.is_empty() || flags.expected.is_some())
            .then(|| "--part-size and --match go with --etag or --composite".into());
    }
    if !flags.composite && !args.algorithms.is_empty() {
        return Some("-a names the algorithms of --composite; --etag is MD5's".into());
    }
    let forms = forms_of(args);
    let refusal = forms.iter().find_map(|form| match form {
        Combine::Composite(algorithm) => forms::composite_refusal(*algorithm),
        Combine::S3Etag => None,
    });
    if refusal.is_some() {
        return refusal;
    }
    if flags.expected.is_some() && args.output.json {
        return Some(
            "--json goes with --part-size's values; --match's verdicts are `check`'s: \
             `check --json` a list of the value"
                .into(),
        );
    }
    match (&flags.expected, forms.as_slice()) {
        (Some(value), [form]) => forms::parse_value(*form, value).err(),
        (Some(_), _) => Some("--match checks one form: --etag, or --composite and one -a".into()),
        (None, _) if flags.composite && flags.part_sizes.is_empty() => {
            Some("--composite needs --part-size (or --match)".into())
        }
        (None, _) => None,
    }
}
