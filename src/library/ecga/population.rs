//! The selected population in both layouts (Section 4.1): row-major bytes (what
//! the baseline of Lobo et al. scans) and bit-packed by locus (what FastCount reads).

use anyhow::{Result, bail, ensure};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

/// A population bit-packed by locus (Section 4.1): the alleles of locus `l` for
/// individuals `w·64 .. w·64 + 64` are `words[l * words_per_locus + w]`, individual
/// `w·64 + b` at bit `b`. Padding bits past `n` in the last word are zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocusPacked {
    pub n: usize,
    pub ell: usize,
    pub words_per_locus: usize,
    pub words: Vec<u64>,
}

/// Populations of at least this many alleles are validated and packed on all
/// threads (smaller ones cost less than waking the threads; criterion
/// `population_from_rows_*`).
pub(super) const PARALLEL_ALLELES: usize = 1 << 22;

impl LocusPacked {
    /// Packs row-major alleles (each 0 or 1) by locus. A large population is cut into
    /// slabs of whole words, packed on the threads ([`LocusPacked::pack_slab`]), and
    /// each locus row is then joined from the slabs' rows.
    pub(super) fn from_rows(n: usize, ell: usize, rows: &[u8]) -> Self {
        let words_per_locus = n.div_ceil(64);
        let words = if rows.len() < PARALLEL_ALLELES {
            Self::pack_slab(ell, rows)
        } else {
            let slab_words = words_per_locus.div_ceil(4 * rayon::current_num_threads());
            let slabs: Vec<Vec<u64>> = rows.par_chunks(64 * slab_words * ell).map(|slab| Self::pack_slab(ell, slab)).collect();
            let mut words = vec![0u64; ell * words_per_locus];
            words.par_chunks_mut(words_per_locus).enumerate().for_each(|(l, row)| {
                let mut at = 0;
                for slab in &slabs {
                    let w = slab.len() / ell;
                    row[at..at + w].copy_from_slice(&slab[l * w..][..w]);
                    at += w;
                }
            });
            words
        };
        LocusPacked { n, ell, words_per_locus, words }
    }

    /// The locus-major words of one slab of rows, 64 × 64 blocks at a time: each
    /// row's 64 loci of the block become one word ([`row_bits`], or 32 alleles per
    /// AVX2 instruction pair where the CPU has AVX2), and [`transpose64`] turns the
    /// 64 row words into 64 locus words.
    fn pack_slab(ell: usize, rows: &[u8]) -> Vec<u64> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { Self::pack_slab_avx2(ell, rows) };
        }
        Self::pack(ell, rows, row_bits)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn pack_slab_avx2(ell: usize, rows: &[u8]) -> Vec<u64> {
        // SAFETY: this function runs only where AVX2 is enabled.
        Self::pack(ell, rows, |alleles| unsafe { row_bits_avx2(alleles) })
    }

    #[inline(always)]
    fn pack(ell: usize, rows: &[u8], row_bits: impl Fn(&[u8]) -> u64) -> Vec<u64> {
        let words_per_locus = (rows.len() / ell).div_ceil(64);
        let mut words = vec![0u64; ell * words_per_locus];
        let mut block = [0u64; 64];
        for (w, rows64) in rows.chunks(64 * ell).enumerate() {
            for l0 in (0..ell).step_by(64) {
                let width = (ell - l0).min(64);
                block.fill(0);
                for (word, row) in block.iter_mut().zip(rows64.chunks_exact(ell)) {
                    *word = row_bits(&row[l0..l0 + width]);
                }
                transpose64(&mut block);
                for (j, &column) in block[..width].iter().enumerate() {
                    words[(l0 + j) * words_per_locus + w] = column;
                }
            }
        }
        words
    }

    /// The packed alleles of one locus.
    pub fn locus(&self, l: usize) -> &[u64] {
        &self.words[l * self.words_per_locus..][..self.words_per_locus]
    }

    /// Bits of word `w` that hold individuals (all but the padding of the last word).
    pub fn valid_mask(&self, w: usize) -> u64 {
        let filled = self.n - w * 64;
        if filled >= 64 { u64::MAX } else { (1u64 << filled) - 1 }
    }
}

/// Bit j = `alleles[j]` (each 0 or 1, at most 64): eight alleles per step, as
/// little-endian bytes gathered into the top byte by one multiplication.
pub(super) fn row_bits(alleles: &[u8]) -> u64 {
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut chunks = alleles.chunks_exact(8);
    let mut bits = 0u64;
    for (c, chunk) in chunks.by_ref().enumerate() {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        bits |= (x.wrapping_mul(GATHER) >> 56) << (8 * c);
    }
    let done = alleles.len() - chunks.remainder().len();
    for (j, &a) in chunks.remainder().iter().enumerate() {
        bits |= u64::from(a) << (done + j);
    }
    bits
}

/// [`row_bits`] with AVX2: 32 alleles per shift + byte mask (the shift moves each
/// byte's bit 0 to its bit 7; alleles are 0 or 1, so nothing crosses a byte), the
/// remainder as [`row_bits`] does.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn row_bits_avx2(alleles: &[u8]) -> u64 {
    use std::arch::x86_64::{__m256i, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_slli_epi16};
    let mut chunks = alleles.chunks_exact(32);
    let mut bits = 0u64;
    for (c, chunk) in chunks.by_ref().enumerate() {
        // SAFETY: `chunk` holds 32 bytes; the load is unaligned.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
        bits |= u64::from(_mm256_movemask_epi8(_mm256_slli_epi16::<7>(v)) as u32) << (32 * c);
    }
    let done = alleles.len() - chunks.remainder().len();
    bits | (row_bits(chunks.remainder()) << (done % 64))
}

/// Transposes a 64 × 64 bit matrix in place: afterwards bit r of `m[c]` is what
/// bit c of `m[r]` was (swaps of ever smaller blocks, Hacker's Delight 7-3).
fn transpose64(m: &mut [u64; 64]) {
    let mut j = 32;
    let mut mask = 0x0000_0000_FFFF_FFFFu64;
    while j != 0 {
        for k in (0..64).filter(|k| k & j == 0) {
            let t = ((m[k] >> j) ^ m[k + j]) & mask;
            m[k] ^= t << j;
            m[k + j] ^= t;
        }
        j >>= 1;
        mask ^= mask << j;
    }
}

/// `n` individuals of `ell` binary loci, kept in both layouts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Population {
    pub(super) n: usize,
    pub(super) ell: usize,
    pub(super) rows: Vec<u8>,
    pub(super) packed: LocusPacked,
}

impl Population {
    /// From row-major alleles (`rows[i * ell + l]`, each 0 or 1).
    pub fn from_rows(n: usize, ell: usize, rows: Vec<u8>) -> Result<Self> {
        ensure!(n > 0 && ell > 0, "population needs n > 0 and ell > 0 (got n = {n}, ell = {ell})");
        ensure!(rows.len() == n * ell, "{} alleles for n = {n} × ell = {ell}", rows.len());
        // An OR over all alleles (vectorised; `all` with its early exit is not), large populations by chunks over the threads.
        let or = if rows.len() < PARALLEL_ALLELES {
            rows.iter().fold(0u8, |acc, &a| acc | a)
        } else {
            rows.par_chunks(1 << 16).map(|c| c.iter().fold(0u8, |acc, &a| acc | a)).reduce(|| 0, |a, b| a | b)
        };
        ensure!(or <= 1, "alleles must be 0 or 1");
        let packed = LocusPacked::from_rows(n, ell, &rows);
        Ok(Population { n, ell, rows, packed })
    }

    /// Uniformly random alleles from `seed`.
    pub fn random(n: usize, ell: usize, seed: u64) -> Result<Self> {
        Population::from_rows(n, ell, random_rows(n * ell, &mut StdRng::seed_from_u64(seed)))
    }

    /// A population with linkage to find: every k-locus block of every individual
    /// is all ones with probability 1/2, all zeros with 1/4, else uniformly random
    /// (a converging generation's selected population in miniature, so that a model
    /// search makes its ≈ (k − 1)/k · ℓ merges). Rows are drawn in parallel, 4096
    /// individuals per generator seeded from `seed` and the chunk's index.
    pub fn planted(n: usize, ell: usize, k: usize, seed: u64) -> Result<Self> {
        ensure!(k > 0, "planted blocks need k > 0");
        const CHUNK: usize = 4096;
        let Some(len) = n.checked_mul(ell) else { bail!("a population of n = {n} × ell = {ell} alleles is past the address space") };
        let mut rows = vec![0u8; len];
        rows.par_chunks_mut(CHUNK * ell.max(1)).enumerate().for_each(|(c, chunk)| {
            let mut rng = StdRng::seed_from_u64(seed ^ (c as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for block in chunk.chunks_mut(ell.max(1)).flat_map(|row| row.chunks_mut(k)) {
                let r: f64 = rng.random();
                if r < 0.5 {
                    block.fill(1);
                } else if r >= 0.75 {
                    block.iter_mut().for_each(|bit| *bit = rng.random_range(0..2u8));
                }
            }
        });
        Population::from_rows(n, ell, rows)
    }

    pub fn n(&self) -> usize {
        self.n
    }

    pub fn ell(&self) -> usize {
        self.ell
    }

    /// Row-major alleles, `rows()[i * ell + l]`.
    pub fn rows(&self) -> &[u8] {
        &self.rows
    }

    /// Individual `i`.
    pub fn row(&self, i: usize) -> &[u8] {
        &self.rows[i * self.ell..][..self.ell]
    }

    /// The locus-packed layout of Section 4.1.
    pub fn packed(&self) -> &LocusPacked {
        &self.packed
    }
}

pub(super) fn random_rows(len: usize, rng: &mut StdRng) -> Vec<u8> {
    (0..len).map(|_| u8::from(rng.random::<bool>())).collect()
}
