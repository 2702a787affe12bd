//! Serialized part states are untrusted input (they come over the network): arbitrary bytes
//! into `PartState::from_bytes` and into `Plan::combine` must never panic, and must never
//! combine into the digest unless every part is intact. Three ways in, chosen by the first
//! byte: the raw bytes as a state; the bytes with a valid checksum appended (past the
//! checksum, into the header checks); and a real state's header with the bytes as payload
//! (past the header, into combine's payload handling). The forged state replaces or joins the
//! intact parts of a small plan, which are then combined.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use parhash::parts::{PartState, Plan};
use parhash::{hash, Algorithm, Output, TreeParams};
use sha2::Digest;

/// A plan, its message, its intact states and its digest.
struct Case {
    plan: Plan,
    message: Vec<u8>,
    states: Vec<PartState>,
    digest: Output,
}

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        // Every algorithm with a tree mode (`Plan::splits`), PARSHA-256 with other tree
        // parameters too (they are in the envelope's header).
        let small_tree = TreeParams::new(2, 0).expect("valid parameters");
        let configs = [
            (Algorithm::Parsha256, None, 5_000, 4),
            (Algorithm::Parsha256, None, 50, 1),
            (Algorithm::Parsha256, Some(small_tree), 3_000, 3),
            (Algorithm::Sandstorm224, None, 1_000, 1),
            (Algorithm::Sandstorm256, None, 200_000, 3),
            (Algorithm::Sandstorm384, None, 300_000, 2),
            (Algorithm::Sandstorm512, None, 300_000, 2),
            (Algorithm::Sandstorm224Ref, None, 100, 1),
            (Algorithm::Sandstorm256Ref, None, 200_000, 2),
        ];
        configs
            .into_iter()
            .map(|(algorithm, params, len, parts)| {
                let message: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
                let mut builder = Plan::builder(algorithm).threads(1);
                if let Some(params) = params {
                    builder = builder.tree_params(params);
                }
                let plan = builder.build(len as u64, parts).expect("a valid plan");
                let states = (0..plan.parts())
                    .map(|i| plan.hash_part(i, &message).expect("hashed"))
                    .collect();
                let digest = match params {
                    Some(params) => {
                        let builder = parhash::Hasher::builder(algorithm).tree_params(params);
                        let mut hasher = builder.build().expect("a hasher");
                        hasher.update(&message);
                        hasher.finalize()
                    }
                    None => hash(algorithm, &message),
                };
                Case {
                    plan,
                    message,
                    states,
                    digest,
                }
            })
            .collect()
    })
}

/// `body` with its checksum (the first 8 bytes of SHA-256) appended.
fn sealed(body: &[u8]) -> Vec<u8> {
    let mut out = body.to_vec();
    out.extend_from_slice(&sha2::Sha256::digest(body)[..8]);
    out
}

/// Bytes of the envelope before the payload (see `parhash::parts`).
const HEADER: usize = 34;

fuzz_target!(|input: &[u8]| {
    let [mode, which, slot, data @ ..] = input else {
        let _ = PartState::from_bytes(input);
        return;
    };
    let case = &cases()[usize::from(*which) % cases().len()];
    let bytes = match mode % 3 {
        0 => data.to_vec(),
        1 => sealed(data),
        _ => {
            let real = case.states[usize::from(*slot) % case.states.len()].to_bytes();
            let mut body = real[..HEADER].to_vec();
            body[30..34].copy_from_slice(&(data.len() as u32).to_le_bytes());
            body.extend_from_slice(data);
            sealed(&body)
        }
    };
    let Ok(forged) = PartState::from_bytes(&bytes) else {
        return;
    };
    // Round trip: what was read is written back the same.
    assert_eq!(
        PartState::from_bytes(&forged.to_bytes()).as_ref(),
        Ok(&forged)
    );
    let mut states = case.states.clone();
    let at = usize::from(*slot);
    if at < states.len() {
        states[at] = forged.clone();
    } else {
        states.push(forged.clone());
    }
    let result = case.plan.combine(&states, &case.message);
    if result.as_ref() == Ok(&case.digest) {
        // Only the intact parts combine into the digest (a part accepted is one of the
        // plan's, so its index is in range). The identity of the message's version it may
        // record says nothing of its contents (the intact parts record none, so it is
        // compared with nothing): the rest must be the intact part's.
        let contents = |state: &PartState| state.clone().with_identity(Vec::new());
        assert_eq!(
            contents(&forged),
            contents(&case.states[forged.index() as usize]),
            "a forged part combined into the intact digest"
        );
    }
});
