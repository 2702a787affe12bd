//! The block-interleaved host layout for batched Keccak (seed study 5): lane `w` of padded block
//! `k` of message `i` at `lanes[(k * 17 + w) * count + i]`, so the GPU threads of one warp read
//! neighbouring words. The host pads here (the non-interleaved layout is padded on the GPU).

use crate::pack::{keccak_block_count, keccak_padded_lanes, KECCAK256_RATE};

/// Lanes in one Keccak-256 block.
pub const RATE_LANES: usize = KECCAK256_RATE / 8;

/// A batch in the block-interleaved layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interleaved {
    /// `max_blocks * 17 * count` lanes (at least one, so the device buffer is never empty).
    pub lanes: Vec<u64>,
    /// Padded blocks of each message.
    pub blocks: Vec<u32>,
    /// Messages in the batch.
    pub count: usize,
    /// The longest message's block count: the layout's depth.
    pub max_blocks: usize,
}

/// Where lane `w` of block `blk` of message `i` sits in a batch of `count` messages.
pub fn lane_index(count: usize, blk: usize, w: usize, i: usize) -> usize {
    (blk * RATE_LANES + w) * count + i
}

/// Pads every message (domain byte and pad10*1) and interleaves the blocks.
pub fn interleave(messages: &[&[u8]], domain: u8) -> Interleaved {
    let count = messages.len();
    let blocks: Vec<u32> = messages
        .iter()
        .map(|m| keccak_block_count(m.len() as u64) as u32)
        .collect();
    let max_blocks = blocks.iter().copied().max().unwrap_or(0) as usize;
    let mut lanes = vec![0u64; (max_blocks * RATE_LANES * count).max(1)];
    for (i, m) in messages.iter().enumerate() {
        for blk in 0..blocks[i] as usize {
            for (w, lane) in keccak_padded_lanes(m, blk as u64, domain)
                .into_iter()
                .enumerate()
            {
                lanes[lane_index(count, blk, w, i)] = lane;
            }
        }
    }
    Interleaved {
        lanes,
        blocks,
        count,
        max_blocks,
    }
}

/// Block `blk` of message `i` read back out of the layout (what thread `i` of the kernel reads).
pub fn block_of(layout: &Interleaved, i: usize, blk: usize) -> [u64; RATE_LANES] {
    std::array::from_fn(|w| layout.lanes[lane_index(layout.count, blk, w, i)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::{DOMAIN_KECCAK, DOMAIN_SHA3};
    use sha3::Digest;

    fn absorb_from_layout(layout: &Interleaved, i: usize) -> Vec<u8> {
        crate::pack::tests::absorb(
            (0..layout.blocks[i] as usize).map(|blk| block_of(layout, i, blk)),
        )
    }

    #[test]
    fn every_message_reads_back_to_its_digest() {
        let msgs: Vec<Vec<u8>> = [0usize, 1, 135, 136, 137, 271, 272, 500, 2000]
            .iter()
            .map(|&n| (0..n).map(|i| (i * 13 + 5) as u8).collect())
            .collect();
        let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
        let sha3 = interleave(&refs, DOMAIN_SHA3);
        let keccak = interleave(&refs, DOMAIN_KECCAK);
        assert_eq!(sha3.max_blocks, 2000 / 136 + 1);
        assert_eq!(sha3.lanes.len(), sha3.max_blocks * RATE_LANES * msgs.len());
        for (i, m) in msgs.iter().enumerate() {
            assert_eq!(
                absorb_from_layout(&sha3, i),
                sha3::Sha3_256::digest(m).to_vec()
            );
            assert_eq!(
                absorb_from_layout(&keccak, i),
                sha3::Keccak256::digest(m).to_vec()
            );
        }
    }

    #[test]
    fn neighbouring_messages_are_neighbouring_words() {
        assert_eq!(lane_index(32, 0, 0, 1) - lane_index(32, 0, 0, 0), 1);
        assert_eq!(lane_index(32, 0, 1, 0) - lane_index(32, 0, 0, 0), 32);
        assert_eq!(lane_index(32, 1, 0, 0), RATE_LANES * 32);
    }

    #[test]
    fn an_empty_batch_has_a_buffer() {
        let l = interleave(&[], DOMAIN_SHA3);
        assert_eq!((l.count, l.max_blocks, l.lanes.len()), (0, 0, 1));
    }
}
