//! `list --json`: one JSON object per algorithm (docs/lists.md, "JSON records"; fields are
//! kept stable: new ones may be added, none renamed or removed).

use parhash::{Algorithm, VariantInfo};
use serde::Serialize;

use super::push_line;

/// `list`: one object per algorithm.
#[derive(Serialize)]
struct AlgorithmRecord {
    name: &'static str,
    tag: &'static str,
    aliases: &'static [&'static str],
    family: &'static str,
    digest_bits: usize,
    digest_size: usize,
    lengths: Option<Lengths>,
    block_size: usize,
    broken: bool,
    cryptographic: bool,
    note: &'static str,
    variants: Vec<Variant>,
    batch: Option<Batch>,
}

/// The digest lengths `-l` can choose, in bits (null where the length is fixed).
#[derive(Serialize)]
struct Lengths {
    min_bits: usize,
    max_bits: usize,
}

#[derive(Serialize)]
struct Variant {
    name: &'static str,
    available: bool,
    default: bool,
    summary: &'static str,
}

impl From<&VariantInfo> for Variant {
    fn from(v: &VariantInfo) -> Variant {
        Variant {
            name: v.name,
            available: v.available,
            default: v.default,
            summary: v.summary,
        }
    }
}

/// How the multi-message engine runs an algorithm on this CPU: `lanes` messages side by side
/// with the `kernel` variant (null: threads only).
#[derive(Serialize)]
struct Batch {
    lanes: usize,
    kernel: &'static str,
}

/// `list --json`: every algorithm, one line each.
pub fn algorithms() -> Vec<u8> {
    let mut out = Vec::new();
    for &alg in Algorithm::ALL {
        let info = alg.info();
        let batch = parhash::batch::lanes_for(alg).map(|lanes| Batch {
            lanes: lanes.lanes,
            kernel: lanes.kernel,
        });
        push_line(
            &mut out,
            &AlgorithmRecord {
                name: info.name,
                tag: info.tag,
                aliases: info.aliases,
                family: info.family.name(),
                digest_bits: info.digest_size * 8,
                digest_size: info.digest_size,
                lengths: info.sizes.is_variable().then_some(Lengths {
                    min_bits: info.sizes.min * 8,
                    max_bits: info.sizes.max * 8,
                }),
                block_size: info.block_size,
                broken: info.broken,
                cryptographic: info.cryptographic,
                note: info.note,
                variants: alg.variants().iter().map(Variant::from).collect(),
                batch,
            },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::parse;
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn every_algorithm_is_one_record() {
        let out = algorithms();
        let records: Vec<Value> = out.split_inclusive(|&b| b == b'\n').map(parse).collect();
        assert_eq!(records.len(), Algorithm::ALL.len());
        for (record, alg) in records.iter().zip(Algorithm::ALL) {
            let info = alg.info();
            assert_eq!(record["name"], info.name);
            assert_eq!(record["digest_size"], info.digest_size);
            assert_eq!(record["digest_bits"], info.digest_size * 8);
            assert_eq!(
                record["lengths"]["max_bits"].as_u64().map(|b| b as usize),
                info.sizes.is_variable().then_some(info.sizes.max * 8),
                "{record}"
            );
            assert_eq!(record["broken"], info.broken);
            assert_eq!(record["cryptographic"], info.cryptographic);
            assert_eq!(record["aliases"], json!(info.aliases));
            assert_eq!(
                record["batch"].is_null(),
                parhash::batch::lanes_for(*alg).is_none(),
                "{record}"
            );
            let variants = record["variants"].as_array().unwrap();
            assert_eq!(variants.len(), alg.variants().len());
        }
    }
}
