//! Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror & Shaw, "Parallel Random Numbers: As Easy as
//! 1, 2, 3" (SC '11), which the island GA uses for all its random numbers (Jaros 2012, Section V.A). A pure function
//! of (counter, key): no state, so every CPU thread and every CUDA thread can draw any number directly.
//!
//! [`philox4x32_10`] is written to be ported line by line to CUDA (`__umulhi` for the high halves);
//! [`philox4x32_10_lanes`] is the same function over `L` independent counters in structure-of-arrays form, which the
//! compiler vectorises on the CPU.

/// Where a run's random numbers come from (ECGA and BOA; the island GA always draws from Philox).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Randomness {
    /// One `StdRng` seeded with the run's seed, drawn in program order: the configuration every recorded run of
    /// the papers' experiments used.
    Paper,
    /// Philox4x32-10 keyed by the seed, one number per counter (generation, stream, individual, locus or round):
    /// any thread can draw any number on its own, so a run on the device draws the same numbers.
    Counter,
}

impl Randomness {
    pub fn name(self) -> &'static str {
        match self {
            Randomness::Paper => "paper",
            Randomness::Counter => "counter",
        }
    }
}

/// Multiplier of counter word 0.
pub const M0: u32 = 0xD251_1F53;
/// Multiplier of counter word 2.
pub const M1: u32 = 0xCD9E_8D57;
/// Weyl increment of key word 0.
pub const W0: u32 = 0x9E37_79B9;
/// Weyl increment of key word 1.
pub const W1: u32 = 0xBB67_AE85;
/// Number of rounds.
pub const ROUNDS: usize = 10;

/// High and low halves of the 64-bit product `a · b`.
#[inline(always)]
fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let product = u64::from(a) * u64::from(b);
    ((product >> 32) as u32, product as u32)
}

/// Philox4x32 with 10 rounds: four 32-bit random words for one counter under one key.
#[inline]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    for round in 0..ROUNDS {
        if round > 0 {
            k0 = k0.wrapping_add(W0);
            k1 = k1.wrapping_add(W1);
        }
        let (hi0, lo0) = mulhilo(M0, c0);
        let (hi1, lo1) = mulhilo(M1, c2);
        (c0, c1, c2, c3) = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0);
    }
    [c0, c1, c2, c3]
}

/// [`philox4x32_10`] for `L` counters at once, structure of arrays: `counters[j][lane]` is word `j` of counter `lane`,
/// and the result is laid out the same way. Identical output to `L` scalar calls; the lane loops vectorise.
#[inline(always)]
pub fn philox4x32_10_lanes<const L: usize>(counters: [[u32; L]; 4], key: [u32; 2]) -> [[u32; L]; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counters;
    let [mut k0, mut k1] = key;
    for round in 0..ROUNDS {
        if round > 0 {
            k0 = k0.wrapping_add(W0);
            k1 = k1.wrapping_add(W1);
        }
        for lane in 0..L {
            let (hi0, lo0) = mulhilo(M0, c0[lane]);
            let (hi1, lo1) = mulhilo(M1, c2[lane]);
            (c0[lane], c1[lane], c2[lane], c3[lane]) = (hi1 ^ c1[lane] ^ k0, lo1, hi0 ^ c3[lane] ^ k1, lo0);
        }
    }
    [c0, c1, c2, c3]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known-answer vectors of Random123 (`kat_vectors`, philox4x32 with 10 rounds).
    const KAT: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
        ([0, 0, 0, 0], [0, 0], [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]),
        ([u32::MAX; 4], [u32::MAX; 2], [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd]),
        (
            [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
            [0xa409_3822, 0x299f_31d0],
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1],
        ),
    ];

    #[test]
    fn random123_known_answers() {
        for (counter, key, expected) in KAT {
            assert_eq!(philox4x32_10(counter, key), expected, "counter {counter:08x?} key {key:08x?}");
        }
    }

    #[test]
    fn lanes_equal_scalar_calls() {
        let key = [0xa409_3822, 0x299f_31d0];
        let mut counters = [[0u32; 8]; 4];
        for lane in 0..8 {
            for (j, word) in counters.iter_mut().enumerate() {
                word[lane] = (lane as u32).wrapping_mul(0x9E37_79B9) ^ (j as u32) << 28;
            }
        }
        counters[0][7] = u32::MAX;
        let batch = philox4x32_10_lanes(counters, key);
        for lane in 0..8 {
            let scalar = philox4x32_10([counters[0][lane], counters[1][lane], counters[2][lane], counters[3][lane]], key);
            assert_eq!(scalar, [batch[0][lane], batch[1][lane], batch[2][lane], batch[3][lane]], "lane {lane}");
        }
        // Every KAT through the batched path too, one lane each.
        for (counter, key, expected) in KAT {
            let out = philox4x32_10_lanes(counter.map(|word| [word]), key);
            assert_eq!(out.map(|[word]| word), expected);
        }
    }
}
