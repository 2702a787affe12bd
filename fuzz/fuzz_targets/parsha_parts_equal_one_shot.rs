//! PARSHA-256 split over parts: every part hashed in place and through a read callback (which
//! must stay within the part's ranges), the states sent as bytes and combined in reverse order,
//! equals one-shot `parsha256`, for tree heights 1..=16, every IV length and 1..=64 parts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parhash::parsha256::{parsha256, parts::Plan};
use parhash::parts::PartState;

fuzz_target!(|input: &[u8]| {
    let [params, parts, data @ ..] = input else {
        return;
    };
    let tree_height = u32::from(params % 16) + 1;
    let iv_bits = [0, 128, 256][usize::from(params / 16 % 3)];
    let want = parsha256(data, tree_height, iv_bits).expect("valid parameters");
    let plan = Plan::new(
        data.len() as u64,
        tree_height,
        iv_bits,
        usize::from(parts % 64) + 1,
    )
    .expect("valid parameters");
    let mut sent = Vec::new();
    for p in (0..plan.parts()).rev() {
        let ranges = plan.ranges(p);
        let state = plan
            .hash_part_from(p, |offset, buf| {
                let end = offset + buf.len() as u64;
                assert!(
                    ranges.iter().any(|r| r.start <= offset && end <= r.end),
                    "part {p} read {offset}..{end} outside its ranges"
                );
                buf.copy_from_slice(&data[offset as usize..end as usize]);
                Ok(())
            })
            .expect("no read errors");
        assert_eq!(state, plan.hash_part(p, data), "part {p}");
        sent.push(state.to_bytes());
    }
    let states: Vec<PartState> = sent
        .iter()
        .map(|bytes| PartState::from_bytes(bytes).expect("intact"))
        .collect();
    assert_eq!(
        plan.combine(&states, data),
        Ok(want),
        "{} parts",
        plan.parts()
    );
});
