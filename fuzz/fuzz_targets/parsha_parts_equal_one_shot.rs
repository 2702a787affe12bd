//! PARSHA-256 split over parts: every part hashed in place and through a read callback (which
//! may read through short gaps between the part's ranges, but never look at those bytes), the
//! states sent as bytes and combined in reverse order,
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
                let inside = |at: u64| ranges.iter().any(|r| r.contains(&at));
                // A read starts and ends in the part's ranges, and reads through gaps of at
                // most 4 KiB between them, whose bytes are never looked at: garbage here.
                assert!(
                    !buf.is_empty() && inside(offset) && inside(end - 1),
                    "part {p} read {offset}..{end} outside its ranges"
                );
                for pair in ranges.windows(2) {
                    if offset < pair[0].end && pair[1].start < end {
                        assert!(
                            pair[1].start - pair[0].end <= 4 << 10,
                            "part {p}: a long gap"
                        );
                    }
                }
                for (at, byte) in (offset..end).zip(buf.iter_mut()) {
                    *byte = if inside(at) { data[at as usize] } else { 0xa5 };
                }
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
