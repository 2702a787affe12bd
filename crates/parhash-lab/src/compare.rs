//! parhash against its peers, like with like: for each piece of work a peer was measured on (an
//! algorithm, a message length, a number of messages, threads and a source), the fastest parhash
//! form measured on exactly that work. The peers table, the summary's headline ratios and the
//! ratio chart all read these comparisons, so they never set a peer against a parhash form doing
//! other work (the batch engine fed one message, say, while a faster form hashed it alone).
//!
//! Where the lab also sampled parhash's forms and a peer alternately (see [`crate::paired`]),
//! the ratio is the median of those per-round ratios, not the ratio of the two cells timed
//! apart, and parhash's form is the paired one with the best ratio against the best peer.

use std::collections::BTreeMap;

use crate::engine::Provider;
use crate::measure::{Measurement, Work};
use crate::paired::PairedRatio;

/// One piece of work measured by parhash and by at least one peer.
#[derive(Clone, Debug)]
pub struct PeerComparison<'a> {
    /// parhash's fastest form on this work: the sweep's, or where several forms were paired
    /// with the peers, the one with the best paired ratio against the best peer.
    pub parhash: &'a Measurement,
    /// Every peer measured on it, fastest first (the lowest [`PeerComparison::ratio`]).
    pub peers: Vec<&'a Measurement>,
    /// The paired ratios of this work against parhash's form (none where it was not paired).
    pub paired: Vec<&'a PairedRatio>,
}

impl<'a> PeerComparison<'a> {
    /// The algorithm compared.
    pub fn algorithm(&self) -> &'a str {
        &self.parhash.algorithm
    }

    /// The message length compared.
    pub fn message_len(&self) -> usize {
        self.parhash.message_len
    }

    /// How many times faster parhash is than `peer` (its time over parhash's; above 1: parhash
    /// faster): the paired ratio's median where there is one, else the ratio of the two cells.
    pub fn ratio(&self, peer: &Measurement) -> f64 {
        match self.paired_with(peer) {
            Some(p) => p.ratio.median,
            None => peer.ns_per_byte / self.parhash.ns_per_byte,
        }
    }

    /// The paired ratio against `peer`, where one was measured.
    pub fn paired_with(&self, peer: &Measurement) -> Option<&'a PairedRatio> {
        self.paired
            .iter()
            .copied()
            .find(|p| p.pairs(self.parhash, peer))
    }

    /// The fastest peer and parhash's ratio against it.
    pub fn best_peer(&self) -> Option<(&'a Measurement, f64)> {
        self.peers.first().map(|p| (*p, self.ratio(p)))
    }

    /// The peer of `provider`, if it measured this work.
    pub fn peer(&self, provider: Provider) -> Option<&'a Measurement> {
        self.peers.iter().copied().find(|p| p.provider == provider)
    }
}

/// A parhash form's paired ratio against the best of `peers` (the lowest of its ratios), or
/// `None` unless `paired` pairs it with every peer.
pub fn paired_against_best_peer(
    form: &Measurement,
    peers: &[&Measurement],
    paired: &[PairedRatio],
) -> Option<f64> {
    peers
        .iter()
        .map(|peer| {
            paired
                .iter()
                .find(|p| p.pairs(form, peer))
                .map(|p| p.ratio.median)
        })
        .try_fold(f64::INFINITY, |worst, r| Some(worst.min(r?)))
}

/// Among parhash's forms `ours` of one piece of work, the one whose paired ratio against the
/// best of `peers` is highest ([`paired_against_best_peer`]); `None` where no form was paired
/// with every peer (then the sweep's fastest stands).
fn best_paired_form<'a>(
    ours: &[&'a Measurement],
    peers: &[&'a Measurement],
    paired: &'a [PairedRatio],
) -> Option<&'a Measurement> {
    ours.iter()
        .filter_map(|form| Some((*form, paired_against_best_peer(form, peers, paired)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(form, _)| form)
}

/// Every piece of work both parhash and a peer measured, in the order the algorithms first
/// appear in `measurements`, then by message length, each with its ratios from `paired` where
/// they pair it (a report's `Report::paired`; empty: every ratio from the cells). Work no
/// parhash form did (the `blake3` anchor beside other algorithms) is not a comparison.
pub fn peer_comparisons<'a>(
    measurements: &'a [Measurement],
    paired: &'a [PairedRatio],
) -> Vec<PeerComparison<'a>> {
    let mut order: Vec<&str> = Vec::new();
    let mut by_work: BTreeMap<Work<'a>, (Vec<&Measurement>, Vec<&Measurement>)> = BTreeMap::new();
    for m in measurements {
        if !order.contains(&m.algorithm.as_str()) {
            order.push(&m.algorithm);
        }
        let entry = by_work.entry(m.work()).or_default();
        if m.provider == Provider::Parhash {
            entry.0.push(m);
        } else {
            entry.1.push(m);
        }
    }
    let fastest_first =
        |a: &&Measurement, b: &&Measurement| a.ns_per_byte.total_cmp(&b.ns_per_byte);
    let mut out: Vec<PeerComparison> = by_work
        .into_values()
        .filter_map(|(mut ours, mut peers)| {
            ours.sort_by(fastest_first);
            peers.sort_by(fastest_first);
            let fastest = *ours.first()?;
            if peers.is_empty() {
                return None;
            }
            // Forms a few per cent apart trade places between sweeps: where several were
            // paired, the best of them against the peers.
            let parhash = best_paired_form(&ours, &peers, paired).unwrap_or(fastest);
            let mut c = PeerComparison {
                parhash,
                peers,
                paired: paired
                    .iter()
                    .filter(|p| p.parhash_variant == parhash.variant)
                    .collect(),
            };
            c.paired
                .retain(|p| c.peers.iter().any(|peer| p.pairs(parhash, peer)));
            if !c.paired.is_empty() {
                let mut peers = std::mem::take(&mut c.peers);
                peers.sort_by(|a, b| c.ratio(a).total_cmp(&c.ratio(b)));
                c.peers = peers;
            }
            Some(c)
        })
        .collect();
    out.sort_by_key(|c| {
        (
            order.iter().position(|a| *a == c.algorithm()),
            c.message_len(),
            c.parhash.messages,
            c.parhash.threads,
            c.parhash.source,
        )
    });
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::source::Source;

    /// A paired ratio of parhash's `form` against `peer` on the peer's work.
    fn paired(form: &str, peer: &Measurement, median: f64) -> PairedRatio {
        PairedRatio {
            algorithm: peer.algorithm.clone(),
            message_len: peer.message_len,
            messages: peer.messages,
            threads: peer.threads,
            source: peer.source,
            parhash_variant: form.into(),
            peer: peer.provider,
            peer_variant: peer.variant.clone(),
            ratio: crate::paired::RatioSpread {
                median,
                ..Default::default()
            },
        }
    }

    /// A measurement of `label` (`provider algorithm/variant`) hashing `len`-byte messages
    /// from memory at `ns_per_byte`.
    pub(crate) fn measured(
        label: &str,
        len: usize,
        messages: usize,
        ns_per_byte: f64,
    ) -> Measurement {
        Measurement::made_up(label, len, messages, Source::Memory, 1, ns_per_byte)
    }

    #[test]
    fn each_peer_meets_parhash_s_fastest_form_on_the_same_work() {
        let ms = vec![
            // The batch engine fed one message is slower than sha-ni hashing it alone.
            measured("parhash sha256/batch", 64, 1, 4.0),
            measured("parhash sha256/sha-ni", 64, 1, 1.6),
            measured("parhash sha256/sequential", 64, 1, 3.0),
            measured("openssl sha256/OpenSSL 3", 64, 1, 4.1),
            measured("rustcrypto sha256/sha2", 64, 1, 1.2),
            // Other work: many messages (no peer), another length, another algorithm.
            measured("parhash sha256/batch", 64, 64, 0.5),
            measured("parhash sha256/sha-ni", 4096, 1, 0.5),
            measured("openssl sha256/OpenSSL 3", 4096, 1, 0.55),
            measured("blake3 blake3/blake3 (1 thread)", 64, 1, 1.0),
        ];
        let cs = peer_comparisons(&ms, &[]);
        assert_eq!(
            cs.len(),
            2,
            "the blake3 anchor and the batch of 64 are no comparison"
        );
        let short = &cs[0];
        assert_eq!(short.parhash.variant, "sha-ni");
        assert_eq!(short.message_len(), 64);
        let (best, ratio) = short.best_peer().unwrap();
        assert_eq!(best.provider, Provider::Rustcrypto);
        assert!((ratio - 1.2 / 1.6).abs() < 1e-12);
        assert!((short.ratio(short.peer(Provider::Openssl).unwrap()) - 4.1 / 1.6).abs() < 1e-12);
        assert_eq!(cs[1].message_len(), 4096);
        assert!(cs[1].peer(Provider::Rustcrypto).is_none());
    }

    #[test]
    fn a_paired_ratio_replaces_the_ratio_of_the_cells() {
        let ms = vec![
            measured("parhash sha256/sha-ni", 64, 1, 1.0),
            measured("openssl sha256/OpenSSL 3", 64, 1, 1.5),
            measured("rustcrypto sha256/sha2", 64, 1, 0.8),
        ];
        // Apart, RustCrypto looked faster (x0.8); paired, it is behind (x1.1), and OpenSSL
        // (x1.05 paired) is the best peer.
        let pairs = vec![
            paired("sha-ni", &ms[2], 1.1),
            paired("sha-ni", &ms[1], 1.05),
        ];
        let cs = peer_comparisons(&ms, &pairs);
        let (best, ratio) = cs[0].best_peer().unwrap();
        assert_eq!((best.provider, ratio), (Provider::Openssl, 1.05));
        assert_eq!(cs[0].ratio(&ms[2]), 1.1);
        assert!(cs[0].paired_with(&ms[2]).is_some());
        // Pairs of another form or work do not apply.
        let other = paired("sequential", &ms[2], 9.0);
        let cs = peer_comparisons(&ms, std::slice::from_ref(&other));
        assert!(cs[0].paired.is_empty());
        assert_eq!(cs[0].best_peer().unwrap().1, 0.8);
    }

    #[test]
    fn of_several_paired_forms_the_best_against_the_best_peer_is_parhash_s() {
        // The sweep put batch 3 % ahead of sha-ni; paired, sha-ni is the faster of the two.
        let ms = vec![
            measured("parhash sha1/batch", 4096, 1, 0.97),
            measured("parhash sha1/sha-ni", 4096, 1, 1.0),
            measured("parhash sha1/sequential", 4096, 1, 3.0),
            measured("openssl sha1/OpenSSL 3", 4096, 1, 1.2),
            measured("rustcrypto sha1/sha1", 4096, 1, 1.0),
        ];
        let pairs = vec![
            paired("batch", &ms[3], 1.10),
            paired("batch", &ms[4], 0.89),
            paired("sha-ni", &ms[3], 1.25),
            paired("sha-ni", &ms[4], 1.01),
            // A form paired with one peer only is not weighed (sequential never ran paired
            // against OpenSSL here).
            paired("sequential", &ms[4], 5.0),
        ];
        let cs = peer_comparisons(&ms, &pairs);
        assert_eq!(cs[0].parhash.variant, "sha-ni");
        let (best, ratio) = cs[0].best_peer().unwrap();
        assert_eq!((best.provider, ratio), (Provider::Rustcrypto, 1.01));
        assert!(cs[0].paired.iter().all(|p| p.parhash_variant == "sha-ni"));
        // Without pairs, the sweep's fastest stands.
        assert_eq!(peer_comparisons(&ms, &[])[0].parhash.variant, "batch");
    }
}
