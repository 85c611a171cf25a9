//! The extended compact genetic algorithm (ECGA) of Shao & Yu, "Speeding Up Model
//! Building for ECGA on CUDA Platform" (GECCO 2013): the CPU reference that the
//! gECGA kernels are checked against.
//!
//! - [`Population`]: the selected population, row-major bytes (what the baseline of
//!   Lobo et al. scans) and bit-packed by locus (Section 4.1, what FastCount reads).
//! - [`SchemaCounter`]: counting the schemata of a group of loci — [`BaselineCounter`],
//!   [`FastCount`] (Section 4.1, AND/NOT of locus words + unity table) and
//!   [`PrefixFastCount`] (FastCount sharing AND prefixes between schemata).
//! - [`XLogX`] and [`group_cost`]: the combined complexity criterion, equation (1)
//!   of Section 3.1, in one fixed order of floating-point operations.
//! - [`PairScorer`]: the hot spot a GPU replaces (Section 4.2): the entropy term of
//!   every candidate merge.
//! - [`greedy_search`] (Algorithm 1 with the pair cache of Lobo et al.) and
//!   [`greedy_mating_search`] (Section 4.3, GM search), generic over the scorer.
//! - [`run`]: ECGA with the settings of Section 5.2; [`bisection`]: the population
//!   sizing behind Table 5.

use crate::library::trap::Trap;
use anyhow::{Result, bail, ensure};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Population
// ---------------------------------------------------------------------------

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
const PARALLEL_ALLELES: usize = 1 << 22;

impl LocusPacked {
    /// Packs row-major alleles (each 0 or 1) by locus. A large population is cut into
    /// slabs of whole words, packed on the threads ([`LocusPacked::pack_slab`]), and
    /// each locus row is then joined from the slabs' rows.
    fn from_rows(n: usize, ell: usize, rows: &[u8]) -> Self {
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
fn row_bits(alleles: &[u8]) -> u64 {
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
unsafe fn row_bits_avx2(alleles: &[u8]) -> u64 {
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
    n: usize,
    ell: usize,
    rows: Vec<u8>,
    packed: LocusPacked,
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

fn random_rows(len: usize, rng: &mut StdRng) -> Vec<u8> {
    (0..len).map(|_| u8::from(rng.random::<bool>())).collect()
}

// ---------------------------------------------------------------------------
// Schema counting (Section 4.1)
// ---------------------------------------------------------------------------

/// Counts how often each schema over `loci` occurs in a population.
///
/// `counts` has `2^|loci|` entries and is overwritten; bit `j` of a schema's index
/// is its allele at `loci[j]`.
pub trait SchemaCounter: Sync {
    fn name(&self) -> &'static str;
    fn count(&self, pop: &Population, loci: &[usize], counts: &mut [u32]);
}

/// Scans every individual's row and bins its schema index, as the C++ ECGA v1.1 of
/// Lobo, Sastry & Harik (the paper's baseline, Section 5.2) does.
#[derive(Clone, Copy, Debug, Default)]
pub struct BaselineCounter;

impl SchemaCounter for BaselineCounter {
    fn name(&self) -> &'static str {
        "baseline"
    }

    fn count(&self, pop: &Population, loci: &[usize], counts: &mut [u32]) {
        counts.fill(0);
        for row in pop.rows.chunks_exact(pop.ell) {
            let schema = loci.iter().enumerate().fold(0, |v, (j, &l)| v | usize::from(row[l]) << j);
            counts[schema] += 1;
        }
    }
}

/// How FastCount counts the ones of an ANDed word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Popcount {
    /// The paper's CPU unity table for 16-bit strings (Sections 4.1 and 5.2), four
    /// lookups per 64-bit word.
    UnityTable16,
    /// `u64::count_ones` (the POPCNT instruction).
    Hardware,
}

/// Number of ones of every 16-bit string: the unity table of Section 4.1.
static UNITY_TABLE_16: [u8; 1 << 16] = unity_table();

const fn unity_table() -> [u8; 1 << 16] {
    let mut table = [0u8; 1 << 16];
    let mut i = 1;
    while i < table.len() {
        table[i] = table[i >> 1] + (i & 1) as u8;
        i += 1;
    }
    table
}

fn unity16_ones(word: u64) -> u32 {
    (0..4).map(|q| u32::from(UNITY_TABLE_16[(word >> (16 * q)) as usize & 0xffff])).sum()
}

#[inline(always)]
fn hardware_ones(word: u64) -> u32 {
    word.count_ones()
}

/// The FastCount loops compiled with the POPCNT instruction enabled. The crate
/// targets baseline x86-64, where `count_ones` is a bit-twiddling sequence; these
/// are chosen at run time when the CPU has POPCNT.
#[cfg(target_arch = "x86_64")]
mod popcnt {
    use super::{Population, hardware_ones};

    #[target_feature(enable = "popcnt")]
    pub fn fast_count(pop: &Population, loci: &[usize], counts: &mut [u32]) {
        super::fast_count(pop, loci, counts, hardware_ones)
    }

    #[target_feature(enable = "popcnt")]
    pub fn prefix_fast_count(pop: &Population, loci: &[usize], counts: &mut [u32]) {
        super::prefix_fast_count(pop, loci, counts, hardware_ones)
    }
}

/// FastCount of Section 4.1 as the paper states it: schema `v`'s count over 64
/// individuals is the ones of `∧_j (v_j ? S_j : ¬S_j)` over the locus words `S_j`,
/// so `|loci|·2^|loci|` ANDs per word.
#[derive(Clone, Copy, Debug)]
pub struct FastCount {
    pub popcount: Popcount,
}

impl SchemaCounter for FastCount {
    fn name(&self) -> &'static str {
        match self.popcount {
            Popcount::UnityTable16 => "fastcount-table16",
            Popcount::Hardware => "fastcount-popcnt",
        }
    }

    fn count(&self, pop: &Population, loci: &[usize], counts: &mut [u32]) {
        match self.popcount {
            Popcount::UnityTable16 => fast_count(pop, loci, counts, unity16_ones),
            Popcount::Hardware => {
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("popcnt") {
                    // SAFETY: this CPU has POPCNT (checked just above).
                    return unsafe { popcnt::fast_count(pop, loci, counts) };
                }
                fast_count(pop, loci, counts, hardware_ones)
            }
        }
    }
}

/// Words processed together: the masks of one chunk (4,096 individuals per locus)
/// stay in L1 while every schema is counted over them.
const CHUNK_WORDS: usize = 64;

/// `out[i] = base[i] & x[i]` for allele 1, `base[i] & !x[i]` for allele 0.
fn and_allele(out: &mut [u64], base: &[u64], x: &[u64], allele: bool) {
    let flip = if allele { 0 } else { u64::MAX };
    for ((o, &b), &x) in out.iter_mut().zip(base).zip(x) {
        *o = b & (x ^ flip);
    }
}

/// The valid-individual masks of words `w0 .. w0 + out.len()`.
fn chunk_masks(packed: &LocusPacked, w0: usize, out: &mut [u64]) {
    for (i, mask) in out.iter_mut().enumerate() {
        *mask = packed.valid_mask(w0 + i);
    }
}

#[inline(always)]
fn fast_count(pop: &Population, loci: &[usize], counts: &mut [u32], ones: impl Fn(u64) -> u32) {
    counts.fill(0);
    let packed = &pop.packed;
    let (mut masks, mut hits) = ([0u64; CHUNK_WORDS], [0u64; CHUNK_WORDS]);
    for w0 in (0..packed.words_per_locus).step_by(CHUNK_WORDS) {
        let len = CHUNK_WORDS.min(packed.words_per_locus - w0);
        chunk_masks(packed, w0, &mut masks[..len]);
        for (schema, count) in counts.iter_mut().enumerate() {
            hits[..len].copy_from_slice(&masks[..len]);
            for (j, &l) in loci.iter().enumerate() {
                let flip = if schema >> j & 1 == 1 { 0 } else { u64::MAX };
                for (h, &x) in hits[..len].iter_mut().zip(&packed.locus(l)[w0..]) {
                    *h &= x ^ flip;
                }
            }
            *count += hits[..len].iter().map(|&h| ones(h)).sum::<u32>();
        }
    }
}

/// FastCount (Section 4.1) enumerating the schemata depth-first: the tree branches
/// on `loci[S−1]` at the root and on `loci[0]` at the leaves, and each node ANDs one
/// locus word onto its parent's mask, so a word costs about `2·2^S` ANDs instead of
/// `S·2^S`. Not in the paper; an extra CPU column.
#[derive(Clone, Copy, Debug)]
pub struct PrefixFastCount {
    pub popcount: Popcount,
}

impl SchemaCounter for PrefixFastCount {
    fn name(&self) -> &'static str {
        match self.popcount {
            Popcount::UnityTable16 => "prefix-fastcount-table16",
            Popcount::Hardware => "prefix-fastcount-popcnt",
        }
    }

    fn count(&self, pop: &Population, loci: &[usize], counts: &mut [u32]) {
        match self.popcount {
            Popcount::UnityTable16 => prefix_fast_count(pop, loci, counts, unity16_ones),
            Popcount::Hardware => {
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("popcnt") {
                    // SAFETY: this CPU has POPCNT (checked just above).
                    return unsafe { popcnt::prefix_fast_count(pop, loci, counts) };
                }
                prefix_fast_count(pop, loci, counts, hardware_ones)
            }
        }
    }
}

#[inline(always)]
fn prefix_fast_count(pop: &Population, loci: &[usize], counts: &mut [u32], ones: impl Fn(u64) -> u32) {
    counts.fill(0);
    let packed = &pop.packed;
    let s = loci.len();
    // Level d of `prefix` (CHUNK_WORDS words) is the AND of the choices for the
    // loci branched on above depth d; depth d branches on loci[s − 1 − d], i.e.
    // schema bit s − 1 − d.
    let mut prefix = vec![0u64; (s + 1) * CHUNK_WORDS];
    for w0 in (0..packed.words_per_locus).step_by(CHUNK_WORDS) {
        let len = CHUNK_WORDS.min(packed.words_per_locus - w0);
        chunk_masks(packed, w0, &mut prefix[..len]);
        for (schema, count) in counts.iter_mut().enumerate() {
            // From schema − 1 to schema, bits 0..=tz flip: the deepest tz + 1 levels.
            let first = if schema == 0 { 0 } else { s - 1 - schema.trailing_zeros() as usize };
            for d in first..s {
                let (above, below) = prefix.split_at_mut((d + 1) * CHUNK_WORDS);
                let bit = s - 1 - d;
                and_allele(
                    &mut below[..len],
                    &above[d * CHUNK_WORDS..][..len],
                    &packed.locus(loci[bit])[w0..][..len],
                    schema >> bit & 1 == 1,
                );
            }
            *count += prefix[s * CHUNK_WORDS..][..len].iter().map(|&p| ones(p)).sum::<u32>();
        }
    }
}

// ---------------------------------------------------------------------------
// Combined complexity criterion (Section 3.1, equation (1))
// ---------------------------------------------------------------------------

/// The table `t[c] = c·log2(c)` for `c = 0..=n` (`t[0] = 0`).
///
/// A group's entropy term is `s = Σ_v t[counts[v]]`, summed from `0.0` in schema
/// order `v = 0, 1, 2, …`; then `N·Entropy = N·log2 N − s` exactly as equation (1)
/// needs it. A GPU scorer that sums the same table in the same order returns the
/// same `s`, bit for bit.
#[derive(Clone, Debug, PartialEq)]
pub struct XLogX {
    table: Vec<f64>,
}

impl XLogX {
    pub fn new(n: usize) -> Self {
        let table = (0..=n)
            .map(|c| {
                let c = c as f64;
                if c == 0.0 { 0.0 } else { c * c.log2() }
            })
            .collect();
        XLogX { table }
    }

    /// The population size the table was built for.
    pub fn n(&self) -> usize {
        self.table.len() - 1
    }

    /// `t[0..=n]`, e.g. for uploading to a device.
    pub fn table(&self) -> &[f64] {
        &self.table
    }

    /// `s = Σ_v t[counts[v]]` in index order.
    pub fn entropy_term(&self, counts: &[u32]) -> f64 {
        counts.iter().fold(0.0, |s, &c| s + self.table[c as usize])
    }
}

/// A group's share of equation (1): compressed population complexity plus model
/// complexity, `(n·log2 n − s) + log2(n + 1)·(2^size − 1)`, in bits. Every CCC in
/// this module is a sum of these.
pub fn group_cost(n: usize, s: f64, size: usize) -> f64 {
    let n = n as f64;
    (n * n.log2() - s) + (n + 1.0).log2() * ((1u64 << size) - 1) as f64
}

// ---------------------------------------------------------------------------
// Pair scoring (the hot spot of Section 4.2)
// ---------------------------------------------------------------------------

/// Computes entropy terms `s` (see [`XLogX`]) of candidate groups: the part of model
/// building a GPU replaces (gECGA, Section 4.2).
/// Work and time of a device scorer, summed over its calls.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeviceStats {
    /// Kernel time (CUDA events), ms.
    pub kernel_ms: f64,
    /// Host wall time of the calls that launched kernels (staging, copies,
    /// launches and the kernels), ms.
    pub calls_ms: f64,
    /// Alleles the kernels read: Σ over scored groups of (loci × N).
    pub alleles: f64,
}

pub trait PairScorer {
    fn name(&self) -> String;

    /// Takes the selected population (and the table for its size) for the scoring
    /// calls that follow.
    fn load(&mut self, pop: &Population, xlogx: &XLogX) -> Result<()>;

    /// `out[i]` = `s` of `groups[a] ∪ groups[b]` for `pairs[i] = (a, b)`, loci in the
    /// order `groups[a]` then `groups[b]`. `out` is overwritten.
    fn score(&mut self, groups: &[Vec<usize>], pairs: &[(usize, usize)], out: &mut Vec<f64>) -> Result<()>;

    /// `out[g]` = `s` of `groups[g]`. `out` is overwritten.
    fn score_groups(&mut self, groups: &[Vec<usize>], out: &mut Vec<f64>) -> Result<()>;

    /// What the scorer's device did since it was made (None for scorers
    /// without a device), so a report can split model building into kernel
    /// time, the rest of the device calls, and the host.
    fn device_stats(&self) -> Option<DeviceStats> {
        None
    }

    /// The whole model search on the scorer's device, for scorers that have
    /// one (gECGA: cache, choice of merges and merges on the GPU); `None` means
    /// the host runs [`greedy_search`] or [`greedy_mating_search`] with
    /// [`PairScorer::score`]. It must give the host search's trace exactly.
    fn device_search(&mut self, _search: Search, _pop: &Population, _max_l: usize, _xlogx: &XLogX) -> Option<Result<ModelTrace>> {
        None
    }
}

/// What a CPU scorer keeps between `load` and `score`.
#[derive(Clone, Debug)]
struct Loaded {
    pop: Population,
    xlogx: XLogX,
}

impl Loaded {
    fn new(pop: &Population, xlogx: &XLogX) -> Result<Self> {
        ensure!(xlogx.n() == pop.n, "x·log2(x) table built for n = {} but the population has n = {}", xlogx.n(), pop.n);
        Ok(Loaded { pop: pop.clone(), xlogx: xlogx.clone() })
    }

    /// `s` of the concatenation of `parts`, using the caller's buffers.
    fn entropy_term<C: SchemaCounter>(&self, counter: &C, parts: &[&[usize]], loci: &mut Vec<usize>, counts: &mut Vec<u32>) -> f64 {
        loci.clear();
        parts.iter().for_each(|part| loci.extend_from_slice(part));
        counts.resize(1 << loci.len(), 0);
        counter.count(&self.pop, loci, counts);
        self.xlogx.entropy_term(counts)
    }
}

fn loaded(state: &Option<Loaded>) -> Result<&Loaded> {
    match state {
        Some(loaded) => Ok(loaded),
        None => bail!("scorer used before load()"),
    }
}

/// Single-threaded CPU scoring with any [`SchemaCounter`]: the paper's baseline
/// (with [`BaselineCounter`]) and FastCount CPU (with [`FastCount`]) columns.
#[derive(Clone, Debug)]
pub struct CpuScorer<C: SchemaCounter> {
    pub counter: C,
    state: Option<Loaded>,
    loci: Vec<usize>,
    counts: Vec<u32>,
}

impl<C: SchemaCounter> CpuScorer<C> {
    pub fn new(counter: C) -> Self {
        CpuScorer { counter, state: None, loci: Vec::new(), counts: Vec::new() }
    }
}

impl<C: SchemaCounter> PairScorer for CpuScorer<C> {
    fn name(&self) -> String {
        format!("cpu-{}", self.counter.name())
    }

    fn load(&mut self, pop: &Population, xlogx: &XLogX) -> Result<()> {
        self.state = Some(Loaded::new(pop, xlogx)?);
        Ok(())
    }

    fn score(&mut self, groups: &[Vec<usize>], pairs: &[(usize, usize)], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        out.clear();
        for &(a, b) in pairs {
            out.push(state.entropy_term(&self.counter, &[&groups[a], &groups[b]], &mut self.loci, &mut self.counts));
        }
        Ok(())
    }

    fn score_groups(&mut self, groups: &[Vec<usize>], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        out.clear();
        for group in groups {
            out.push(state.entropy_term(&self.counter, &[group], &mut self.loci, &mut self.counts));
        }
        Ok(())
    }
}

/// Multi-threaded CPU scoring: rayon over the candidate pairs. Not in the paper
/// (its CPU columns are single-threaded); an extra column.
#[derive(Clone, Debug)]
pub struct ParallelCpuScorer<C: SchemaCounter> {
    pub counter: C,
    state: Option<Loaded>,
}

impl<C: SchemaCounter> ParallelCpuScorer<C> {
    pub fn new(counter: C) -> Self {
        ParallelCpuScorer { counter, state: None }
    }
}

impl<C: SchemaCounter> PairScorer for ParallelCpuScorer<C> {
    fn name(&self) -> String {
        format!("cpu-mt-{}", self.counter.name())
    }

    fn load(&mut self, pop: &Population, xlogx: &XLogX) -> Result<()> {
        self.state = Some(Loaded::new(pop, xlogx)?);
        Ok(())
    }

    fn score(&mut self, groups: &[Vec<usize>], pairs: &[(usize, usize)], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        let counter = &self.counter;
        pairs
            .par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(loci, counts), &(a, b)| state.entropy_term(counter, &[&groups[a], &groups[b]], loci, counts),
            )
            .collect_into_vec(out);
        Ok(())
    }

    fn score_groups(&mut self, groups: &[Vec<usize>], out: &mut Vec<f64>) -> Result<()> {
        let state = loaded(&self.state)?;
        let counter = &self.counter;
        groups
            .par_iter()
            .map_init(|| (Vec::new(), Vec::new()), |(loci, counts), group| state.entropy_term(counter, &[group], loci, counts))
            .collect_into_vec(out);
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Model building (Algorithm 1, Section 4.3)
// ---------------------------------------------------------------------------

/// A marginal product model: a partition of the loci into groups (Section 3.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mpm {
    pub groups: Vec<Vec<usize>>,
}

/// The outcome of one model build.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelTrace {
    pub mpm: Mpm,
    /// Each merge in order: the two groups as they were, and its ΔCCC.
    pub merges: Vec<(Vec<usize>, Vec<usize>, f64)>,
    /// CCC of the final model, equation (1).
    pub ccc: f64,
    /// Candidate merges scored (the CCC evaluations the paper counts).
    pub pairs_scored: u64,
    /// Model-searching steps (Section 4.2.3): one per merge for greedy search, one
    /// per round of simultaneous merges for GM search.
    pub steps: usize,
}

/// Which model search ECGA runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// Algorithm 1 with the pair cache: [`greedy_search`].
    Greedy,
    /// Section 4.3: [`greedy_mating_search`].
    GreedyMating,
}

impl Search {
    pub fn name(self) -> &'static str {
        match self {
            Search::Greedy => "greedy",
            Search::GreedyMating => "gm",
        }
    }

    /// The MPM of `pop`: on the scorer's device when it searches there
    /// ([`PairScorer::device_search`]), else on the host.
    pub fn build(self, pop: &Population, scorer: &mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> Result<ModelTrace> {
        if let Some(trace) = scorer.device_search(self, pop, max_l, xlogx) {
            return trace;
        }
        match self {
            Search::Greedy => greedy_search(pop, scorer, max_l, xlogx),
            Search::GreedyMating => greedy_mating_search(pop, scorer, max_l, xlogx),
        }
    }
}

/// Greedy model search, Algorithm 1, with the ΔCCC cache of Lobo et al.
///
/// Starts from ℓ singletons, scores every pair whose merged size is at most
/// `max_l` (MAX_L), then repeatedly merges the pair of smallest ΔCCC = cost(a ∪ b)
/// − cost(a) − cost(b) while it is negative, rescoring only the pairs that touch
/// the merged group.
///
/// Tie rule: among exactly equal ΔCCC (f64 `==`) the lexicographically smallest
/// `(a, b)`, `a < b`, in the current group order wins. The merged group takes a's
/// place with loci a's then b's; b is removed and the other groups keep their order.
pub fn greedy_search(pop: &Population, scorer: &mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> Result<ModelTrace> {
    let mut search = ModelSearch::start(pop, scorer, max_l, xlogx)?;
    let mut rows = RowBest::of(&search);
    while let Some((a, b)) = rows.best_pair(&search) {
        #[cfg(debug_assertions)]
        assert_eq!(Some((a, b)), search.best_pair_by_scan());
        search.merge(a, b);
        search.rescore_touching(&[a])?;
        rows.after_merge(&search, a, b);
        search.steps += 1;
    }
    Ok(search.finish())
}

/// Greedy mating (GM) search, Section 4.3.
///
/// Each step every group records its best partner: the smallest negative ΔCCC
/// among its pairs, ties going to the lexicographically smallest pair as in
/// [`greedy_search`]. Every mutually best pair merges in that step (so at most half
/// the groups merge), then only pairs touching a merged group are rescored; the
/// search stops when no pair has ΔCCC < 0. Within a step the merges are applied
/// (and recorded) in increasing order of their first group; each merged group takes
/// its first group's place (loci first group's then second's), the second groups
/// are removed and every other group keeps its order — the same result as applying
/// the step's merges one by one with [`greedy_search`]'s rule.
pub fn greedy_mating_search(pop: &Population, scorer: &mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> Result<ModelTrace> {
    let mut search = ModelSearch::start(pop, scorer, max_l, xlogx)?;
    loop {
        let mates = search.mutual_best_pairs();
        if mates.is_empty() {
            break;
        }
        for &(a, b) in &mates {
            search.merge(a, b);
        }
        let merged: Vec<usize> = mates.iter().map(|&(a, _)| a).collect();
        search.rescore_touching(&merged)?;
        search.steps += 1;
    }
    Ok(search.finish())
}

/// State shared by both searches. Groups live in slots `0..ℓ` (slot `l` starts as
/// `{l}`); a merged group keeps its first group's slot and the second slot is
/// emptied, so the current group order is the order of the live slots and pairs are
/// passed to the scorer as slot indices (`a < b`).
struct ModelSearch<'s> {
    n: usize,
    max_l: usize,
    scorer: &'s mut dyn PairScorer,
    groups: Vec<Vec<usize>>,
    live: Vec<usize>,
    cost: Vec<f64>,
    /// `s` and ΔCCC of pair `(a, b)`, `a < b`, at [`pair_index`]; ΔCCC is +∞ for
    /// pairs larger than `max_l`.
    pair_s: Vec<f64>,
    delta: Vec<f64>,
    merges: Vec<(Vec<usize>, Vec<usize>, f64)>,
    pairs_scored: u64,
    steps: usize,
    batch: Vec<(usize, usize)>,
    scores: Vec<f64>,
}

fn pair_index(a: usize, b: usize) -> usize {
    debug_assert!(a < b);
    b * (b - 1) / 2 + a
}

impl<'s> ModelSearch<'s> {
    fn start(pop: &Population, scorer: &'s mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> Result<Self> {
        let (n, ell) = (pop.n, pop.ell);
        scorer.load(pop, xlogx)?;
        let groups: Vec<Vec<usize>> = (0..ell).map(|l| vec![l]).collect();
        let mut scores = Vec::new();
        scorer.score_groups(&groups, &mut scores)?;
        ensure!(scores.len() == ell, "scorer {} returned {} group scores for {ell} groups", scorer.name(), scores.len());
        let cost = scores.iter().map(|&s| group_cost(n, s, 1)).collect();
        let pairs = ell * ell.saturating_sub(1) / 2;
        let mut search = ModelSearch {
            n,
            max_l,
            scorer,
            groups,
            live: (0..ell).collect(),
            cost,
            pair_s: vec![f64::NAN; pairs],
            delta: vec![f64::INFINITY; pairs],
            merges: Vec::new(),
            pairs_scored: 0,
            steps: 0,
            batch: Vec::new(),
            scores,
        };
        search.rescore((0..ell).flat_map(|a| (a + 1..ell).map(move |b| (a, b))))?;
        Ok(search)
    }

    /// Scores `pairs` (each `a < b`) in one batch and caches their ΔCCC.
    fn rescore(&mut self, pairs: impl Iterator<Item = (usize, usize)>) -> Result<()> {
        self.batch.clear();
        for (a, b) in pairs {
            if self.groups[a].len() + self.groups[b].len() <= self.max_l {
                self.batch.push((a, b));
            } else {
                self.delta[pair_index(a, b)] = f64::INFINITY;
            }
        }
        if self.batch.is_empty() {
            return Ok(());
        }
        self.scorer.score(&self.groups, &self.batch, &mut self.scores)?;
        ensure!(
            self.scores.len() == self.batch.len(),
            "scorer {} returned {} scores for {} pairs",
            self.scorer.name(),
            self.scores.len(),
            self.batch.len()
        );
        for (&(a, b), &s) in self.batch.iter().zip(&self.scores) {
            let at = pair_index(a, b);
            self.pair_s[at] = s;
            self.delta[at] = group_cost(self.n, s, self.groups[a].len() + self.groups[b].len()) - self.cost[a] - self.cost[b];
        }
        self.pairs_scored += self.batch.len() as u64;
        Ok(())
    }

    /// Rescores every live pair touching a group in `merged` (ascending), once each.
    fn rescore_touching(&mut self, merged: &[usize]) -> Result<()> {
        let live = std::mem::take(&mut self.live);
        let pairs = merged.iter().flat_map(|&m| {
            live.iter().filter(move |&&x| x != m && !(x < m && merged.binary_search(&x).is_ok())).map(move |&x| (m.min(x), m.max(x)))
        });
        let result = self.rescore(pairs);
        self.live = live;
        result
    }

    /// The live pairs `(a, b)`, `a < b`, in lexicographic order, with their ΔCCC.
    fn live_pairs(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.live.iter().enumerate().flat_map(move |(i, &a)| self.live[i + 1..].iter().map(move |&b| (a, b, self.delta[pair_index(a, b)])))
    }

    /// The pair of smallest negative ΔCCC; exact ties to the lexicographically
    /// first (what [`RowBest`] keeps without the scan; checked in debug builds).
    #[cfg(any(test, debug_assertions))]
    fn best_pair_by_scan(&self) -> Option<(usize, usize)> {
        let mut best = None;
        let mut best_delta = 0.0;
        for (a, b, delta) in self.live_pairs() {
            if delta < best_delta {
                (best, best_delta) = (Some((a, b)), delta);
            }
        }
        best
    }

    /// Pairs that are each other's best partner (Section 4.3), by increasing `a`.
    fn mutual_best_pairs(&self) -> Vec<(usize, usize)> {
        // Pairs arrive in lexicographic order, so for a fixed group its pairs arrive
        // in lexicographic order too and a strict `<` keeps the first of equal ΔCCC.
        let mut partner: Vec<Option<(f64, usize)>> = vec![None; self.groups.len()];
        let mut offer = |g: usize, mate: usize, delta: f64| {
            if partner[g].is_none_or(|(best, _)| delta < best) {
                partner[g] = Some((delta, mate));
            }
        };
        for (a, b, delta) in self.live_pairs() {
            if delta < 0.0 {
                offer(a, b, delta);
                offer(b, a, delta);
            }
        }
        self.live
            .iter()
            .filter_map(|&a| match partner[a] {
                Some((_, b)) if b > a && partner[b].is_some_and(|(_, m)| m == a) => Some((a, b)),
                _ => None,
            })
            .collect()
    }

    fn merge(&mut self, a: usize, b: usize) {
        let at = pair_index(a, b);
        let second = std::mem::take(&mut self.groups[b]);
        self.merges.push((self.groups[a].clone(), second.clone(), self.delta[at]));
        self.groups[a].extend(second);
        self.cost[a] = group_cost(self.n, self.pair_s[at], self.groups[a].len());
        self.live.retain(|&g| g != b);
    }

    fn finish(self) -> ModelTrace {
        let ccc = self.live.iter().fold(0.0, |sum, &g| sum + self.cost[g]);
        let groups = self.live.iter().map(|&g| self.groups[g].clone()).collect();
        ModelTrace { mpm: Mpm { groups }, merges: self.merges, ccc, pairs_scored: self.pairs_scored, steps: self.steps }
    }
}

impl ModelTrace {
    /// The trace of a search done elsewhere (on a device) in [`ModelSearch`]'s
    /// slot terms: `merges[i] = (a, b, ΔCCC)` merged slot `b` into slot `a < b`,
    /// and `cost[g]` is the final cost of slot `g`'s group. Replays the merges
    /// on ℓ singleton slots, so the groups, their order and the CCC sum are the
    /// host search's; fails on a merge of an empty slot or one over `max_l`.
    pub fn from_slot_merges(
        ell: usize,
        max_l: usize,
        merges: &[(usize, usize, f64)],
        cost: &[f64],
        pairs_scored: u64,
        steps: usize,
    ) -> Result<ModelTrace> {
        ensure!(cost.len() == ell, "{} slot costs for ℓ = {ell}", cost.len());
        let mut groups: Vec<Vec<usize>> = (0..ell).map(|l| vec![l]).collect();
        let mut recorded = Vec::with_capacity(merges.len());
        for (i, &(a, b, delta)) in merges.iter().enumerate() {
            ensure!(a < b && b < ell, "merge {i}: slots ({a}, {b}) out of order or range for ℓ = {ell}");
            let size = groups[a].len() + groups[b].len();
            ensure!(!groups[a].is_empty() && !groups[b].is_empty() && size <= max_l, "merge {i}: slots ({a}, {b}) empty or over MAX_L");
            let second = std::mem::take(&mut groups[b]);
            recorded.push((groups[a].clone(), second.clone(), delta));
            groups[a].extend(second);
        }
        let live: Vec<usize> = (0..ell).filter(|&g| !groups[g].is_empty()).collect();
        let ccc = live.iter().fold(0.0, |sum, &g| sum + cost[g]);
        let groups = live.iter().map(|&g| std::mem::take(&mut groups[g])).collect();
        Ok(ModelTrace { mpm: Mpm { groups }, merges: recorded, ccc, pairs_scored, steps })
    }
}

/// The best partner of each group among the later live groups — `(ΔCCC, b)`,
/// ties to the smallest `b` — so that greedy search finds the best pair in
/// O(groups) per merge instead of scanning every pair (Lobo et al.'s cache keeps
/// the ΔCCC values; this keeps their row minima). Same pair, same tie rule.
struct RowBest {
    best: Vec<(f64, usize)>,
}

impl RowBest {
    const NONE: (f64, usize) = (f64::INFINITY, usize::MAX);

    fn of(search: &ModelSearch) -> RowBest {
        let mut rows = RowBest { best: vec![Self::NONE; search.groups.len()] };
        for i in 0..search.live.len() {
            rows.recompute(search, i);
        }
        rows
    }

    /// Row of the `i`-th live group, from the cached ΔCCC values.
    fn recompute(&mut self, search: &ModelSearch, i: usize) {
        let a = search.live[i];
        let mut best = Self::NONE;
        for &b in &search.live[i + 1..] {
            let d = search.delta[pair_index(a, b)];
            if d < best.0 {
                best = (d, b);
            }
        }
        self.best[a] = best;
    }

    /// The first live group in order holding the smallest negative row minimum.
    fn best_pair(&self, search: &ModelSearch) -> Option<(usize, usize)> {
        let mut best: Option<(f64, usize, usize)> = None;
        for &a in &search.live {
            let (d, b) = self.best[a];
            if d < best.map_or(0.0, |x| x.0) {
                best = Some((d, a, b));
            }
        }
        best.map(|(_, a, b)| (a, b))
    }

    /// After `b` merged into `a` and every pair touching `a` was rescored: row `a`
    /// is recomputed; an earlier row is recomputed when its partner was `a` or
    /// `b`, else it only compares its new pair with `a`.
    fn after_merge(&mut self, search: &ModelSearch, a: usize, b: usize) {
        self.best[b] = Self::NONE;
        for i in 0..search.live.len() {
            let x = search.live[i];
            if x > b || (x > a && self.best[x].1 != b) {
                continue;
            }
            if x == a || self.best[x].1 == a || self.best[x].1 == b {
                self.recompute(search, i);
            } else if x < a {
                let d = search.delta[pair_index(x, a)];
                if d < self.best[x].0 || (d == self.best[x].0 && a < self.best[x].1) {
                    self.best[x] = (d, a);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// ECGA (Sections 3 and 5.2)
// ---------------------------------------------------------------------------

/// Parameters of one ECGA run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcgaConfig {
    /// Population size N.
    pub n: usize,
    /// Tournament size s (selection pressure; 8 in Section 5.2).
    pub tournament: usize,
    /// MAX_L, the largest group (10 in Section 5.2).
    pub max_l: usize,
    /// Guard on the number of generations; the paper runs until convergence.
    pub max_generations: usize,
    pub search: Search,
    /// Where the run's random numbers come from.
    pub randomness: Randomness,
}

impl EcgaConfig {
    /// The settings of Section 5.2 for a problem of `ell` loci: s = 8, MAX_L = 10,
    /// a guard of 4·ℓ generations, and [`Randomness::Paper`].
    pub fn paper(ell: usize, n: usize, search: Search) -> Self {
        EcgaConfig { n, tournament: 8, max_l: 10, max_generations: 4 * ell, search, randomness: Randomness::Paper }
    }
}

/// The random numbers of an ECGA run: [`Randomness::Counter`] draws one per (generation, stream, individual, round)
/// ([`counter`]), so the whole run on the device (`gpu::ecga_run`) evolves the same populations bit for bit.
pub use super::philox::Randomness;

/// The counter-based draws of [`Randomness::Counter`], the specification the
/// device run (`kernels/ecga_run.cu`) follows bit for bit. Every draw is
/// Philox4x32-10 at counter (generation, stream, individual, round) under the
/// key (seed low word, seed high word).
pub mod counter {
    use crate::library::philox::philox4x32_10;

    /// Counter word 1: what a draw is for.
    pub const STREAM_INIT: u32 = 0;
    pub const STREAM_SELECTION: u32 = 1;
    pub const STREAM_SAMPLING: u32 = 2;

    /// Philox4x32-10 at (generation, stream, individual, round) under `seed`.
    pub fn draw(seed: u64, generation: u32, stream: u32, individual: u32, round: u32) -> [u32; 4] {
        philox4x32_10([generation, stream, individual, round], [seed as u32, (seed >> 32) as u32])
    }

    /// Word `w` of locus `l` of the initial population, packed by locus
    /// (individual 64·w + b at bit b): words 0 and 1 of the draw at
    /// (0, [`STREAM_INIT`], l, w), low then high half. Bits past N are dropped.
    pub fn initial_word(seed: u64, l: usize, w: usize) -> u64 {
        let r = draw(seed, 0, STREAM_INIT, l as u32, w as u32);
        u64::from(r[1]) << 32 | u64::from(r[0])
    }

    /// The sort key of individual `i` in permutation `round` of `stream` in
    /// `generation`: word 0 of its draw above, the index below (so no two keys
    /// are equal and ties go to the lower index).
    pub fn key(seed: u64, generation: u32, stream: u32, i: usize, round: u32) -> u64 {
        u64::from(draw(seed, generation, stream, i as u32, round)[0]) << 32 | i as u64
    }

    /// A permutation of `0..n`: the indices sorted by [`key`].
    pub fn permutation(n: usize, seed: u64, generation: u32, stream: u32, round: u32) -> Vec<u32> {
        let mut keys: Vec<u64> = (0..n).map(|i| key(seed, generation, stream, i, round)).collect();
        keys.sort_unstable();
        keys.into_iter().map(|k| k as u32).collect()
    }

    /// Permutations per generation of tournament selection without
    /// replacement: each gives ⌊N/s⌋ winners, until N are chosen.
    pub fn selection_rounds(n: usize, s: usize) -> usize {
        n.div_ceil(n / s)
    }
}

/// One generation's model and selection statistics (Figure 6).
#[derive(Clone, Debug, PartialEq)]
pub struct GenerationStats {
    /// Fraction of the trap's subproblems found exactly as an MPM group (Section 5.5).
    pub model_quality: f64,
    /// Ratio of ones in the selected population (Figure 6(b)).
    pub ones_ratio: f64,
    pub pairs_scored: u64,
    pub model_steps: usize,
    pub groups: usize,
    pub ccc: f64,
}

/// The outcome of one ECGA run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Generations run (selection, model building and sampling each).
    pub generations: usize,
    /// Fitness of the best individual of the final population (the first on ties).
    pub best_fitness: u32,
    /// Subproblems that best individual solves.
    pub best_solved: usize,
    /// Subproblems the consensus of the final population solves (per-locus majority,
    /// a tie going to 0).
    pub consensus_solved: usize,
    /// Whether every locus had converged (the paper's stopping rule) rather than the
    /// generation guard stopping the run.
    pub converged: bool,
    /// Time in model building: packing the selected population by locus, loading
    /// the scorer and the MPM search.
    pub model_building: Duration,
    pub total: Duration,
    pub history: Vec<GenerationStats>,
}

/// The population ECGA's first model is built from (steps 1–2 of [`run`] with
/// the same seed): N random individuals after tournament selection of size `s`.
pub fn first_selection(trap: &Trap, n: usize, s: usize, seed: u64) -> Result<Population> {
    ensure!(s >= 1 && s <= n, "tournament size {s} needs 1 ≤ s ≤ N = {n}");
    let ell = trap.ell();
    let mut rng = StdRng::seed_from_u64(seed);
    let rows = random_rows(n * ell, &mut rng);
    let fitness = evaluate(trap, &rows);
    Population::from_rows(n, ell, tournament_selection(&rows, &fitness, ell, s, &mut rng))
}

/// Runs ECGA on `trap` (Section 5.2 settings in `cfg`) with all randomness from
/// `seed`:
///
/// 1. a uniformly random initial population;
/// 2. tournament selection without replacement of size s: s rounds, each shuffling
///    the population and taking the fittest of each run of s consecutive
///    individuals (the first of them on ties), until N are selected — with
///    `s | N` exactly s rounds of N/s winners; otherwise the last `N mod s` of each
///    shuffle sit the round out and a further round fills the remainder;
/// 3. the MPM of the selected population by `cfg.search`;
/// 4. N offspring by building-block-wise shuffling: for each MPM group in order,
///    a fresh permutation of the selected individuals, child `j` taking that
///    group's alleles from selected individual `perm[j]` — sampling each group's
///    schemata from its marginal frequencies without replacement, the sampling of
///    the C++ ECGA v1.1 of Lobo et al.;
/// 5. full replacement, until every locus has converged or `cfg.max_generations`.
///
/// With [`Randomness::Counter`] the same steps draw their numbers from
/// [`counter`] instead: the initial population from [`counter::initial_word`];
/// selection round r of generation g (0-based) shuffles by
/// [`counter::permutation`] of [`counter::STREAM_SELECTION`] with round r; MPM
/// group k of generation g by the permutation of [`counter::STREAM_SAMPLING`]
/// with round k.
pub fn run(trap: &Trap, cfg: &EcgaConfig, seed: u64, scorer: &mut dyn PairScorer) -> Result<RunResult> {
    run_observed(trap, cfg, seed, scorer, &mut |_, _| {})
}

/// [`run`], showing `observe` each generation's selected population and the
/// model built from it (what the device run is compared with).
pub fn run_observed(
    trap: &Trap,
    cfg: &EcgaConfig,
    seed: u64,
    scorer: &mut dyn PairScorer,
    observe: &mut dyn FnMut(&Population, &ModelTrace),
) -> Result<RunResult> {
    let start = Instant::now();
    let (n, ell) = (cfg.n, trap.ell());
    ensure!(cfg.tournament >= 1 && cfg.tournament <= n, "tournament size {} needs 1 ≤ s ≤ N = {n}", cfg.tournament);
    ensure!(n > 0 && ell > 0, "empty problem or population");
    ensure!(
        cfg.randomness == Randomness::Paper || (n < 1 << 32 && ell < 1 << 32 && cfg.max_generations < 1 << 32),
        "counter-based randomness takes N, ℓ and the generation guard below 2^32 (N = {n}, ℓ = {ell})"
    );
    let xlogx = XLogX::new(n);
    let mut draws = match cfg.randomness {
        Randomness::Paper => Draws::Paper(Box::new(StdRng::seed_from_u64(seed))),
        Randomness::Counter => Draws::Counter(seed),
    };
    let mut rows = draws.initial(n, ell);
    let mut fitness = evaluate(trap, &rows);
    let mut history = Vec::new();
    let mut model_building = Duration::ZERO;
    let converged = loop {
        if rows.chunks_exact(ell).all(|row| row == &rows[..ell]) {
            break true;
        }
        if history.len() == cfg.max_generations {
            break false;
        }
        let generation = history.len() as u32;
        let selected_rows = draws.select(generation, &rows, &fitness, ell, cfg.tournament);
        let building = Instant::now();
        let selected = Population::from_rows(n, ell, selected_rows)?;
        let trace = cfg.search.build(&selected, scorer, cfg.max_l, &xlogx)?;
        model_building += building.elapsed();
        let ones = selected.rows.iter().map(|&a| a as usize).sum::<usize>();
        history.push(GenerationStats {
            model_quality: model_quality(trap, &trace.mpm),
            ones_ratio: ones as f64 / (n * ell) as f64,
            pairs_scored: trace.pairs_scored,
            model_steps: trace.steps,
            groups: trace.mpm.groups.len(),
            ccc: trace.ccc,
        });
        observe(&selected, &trace);
        rows = draws.sample(generation, &selected, &trace.mpm);
        fitness = evaluate(trap, &rows);
    };
    let best = (0..n).fold(0, |best, i| if fitness[i] > fitness[best] { i } else { best });
    let best_row = &rows[best * ell..][..ell];
    let mut ones = vec![0usize; ell];
    for row in rows.chunks_exact(ell) {
        ones.iter_mut().zip(row).for_each(|(c, &a)| *c += usize::from(a));
    }
    let consensus: Vec<u8> = ones.iter().map(|&c| u8::from(2 * c > n)).collect();
    Ok(RunResult {
        generations: history.len(),
        best_fitness: fitness[best],
        best_solved: trap.solved(best_row),
        consensus_solved: trap.solved(&consensus),
        converged,
        model_building,
        total: start.elapsed(),
        history,
    })
}

/// The random steps of [`run`] under either [`Randomness`].
enum Draws {
    Paper(Box<StdRng>),
    /// The seed.
    Counter(u64),
}

impl Draws {
    /// Step 1: N·ℓ random alleles, row-major.
    fn initial(&mut self, n: usize, ell: usize) -> Vec<u8> {
        match self {
            Draws::Paper(rng) => random_rows(n * ell, rng),
            Draws::Counter(seed) => {
                let words: Vec<u64> = (0..ell)
                    .flat_map(|l| (0..n.div_ceil(64)).map(move |w| (l, w)))
                    .map(|(l, w)| counter::initial_word(*seed, l, w))
                    .collect();
                let wpl = n.div_ceil(64);
                (0..n).flat_map(|i| (0..ell).map(move |l| (i, l))).map(|(i, l)| (words[l * wpl + i / 64] >> (i % 64)) as u8 & 1).collect()
            }
        }
    }

    /// Step 2 for generation `generation` (0-based).
    fn select(&mut self, generation: u32, rows: &[u8], fitness: &[u32], ell: usize, s: usize) -> Vec<u8> {
        match self {
            Draws::Paper(rng) => tournament_selection(rows, fitness, ell, s, rng),
            Draws::Counter(seed) => {
                let n = fitness.len();
                let q = n / s;
                let rounds: Vec<Vec<u32>> = (0..counter::selection_rounds(n, s))
                    .map(|r| counter::permutation(n, *seed, generation, counter::STREAM_SELECTION, r as u32))
                    .collect();
                let mut selected = Vec::with_capacity(n * ell);
                for j in 0..n {
                    let tournament = &rounds[j / q][(j % q) * s..][..s];
                    let winner =
                        tournament[1..].iter().fold(tournament[0], |w, &c| if fitness[c as usize] > fitness[w as usize] { c } else { w });
                    selected.extend_from_slice(&rows[winner as usize * ell..][..ell]);
                }
                selected
            }
        }
    }

    /// Step 4 for generation `generation`.
    fn sample(&mut self, generation: u32, selected: &Population, mpm: &Mpm) -> Vec<u8> {
        match self {
            Draws::Paper(rng) => sample_mpm(selected, mpm, |order| order.shuffle(rng)),
            Draws::Counter(seed) => {
                let mut k = 0u32;
                sample_mpm(selected, mpm, |order| {
                    let perm = counter::permutation(order.len(), *seed, generation, counter::STREAM_SAMPLING, k);
                    order.iter_mut().zip(perm).for_each(|(o, p)| *o = p as usize);
                    k += 1;
                })
            }
        }
    }
}

/// FNV-1a over the words of a population packed by locus: what the device
/// run's check compares generation by generation.
pub fn population_hash(words: &[u64]) -> u64 {
    words.iter().flat_map(|w| w.to_le_bytes()).fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn evaluate(trap: &Trap, rows: &[u8]) -> Vec<u32> {
    rows.chunks_exact(trap.ell()).map(|row| trap.fitness(row)).collect()
}

/// Step 2 of [`run`].
fn tournament_selection(rows: &[u8], fitness: &[u32], ell: usize, s: usize, rng: &mut StdRng) -> Vec<u8> {
    let n = fitness.len();
    let mut order: Vec<usize> = (0..n).collect();
    let mut selected = Vec::with_capacity(n * ell);
    while selected.len() < n * ell {
        order.shuffle(rng);
        for tournament in order.chunks_exact(s) {
            let winner = tournament[1..].iter().fold(tournament[0], |w, &c| if fitness[c] > fitness[w] { c } else { w });
            selected.extend_from_slice(&rows[winner * ell..][..ell]);
            if selected.len() == n * ell {
                break;
            }
        }
    }
    selected
}

/// Step 4 of [`run`]: `shuffle` orders the parents of each group in turn (it
/// is handed the previous group's order).
fn sample_mpm(selected: &Population, mpm: &Mpm, mut shuffle: impl FnMut(&mut [usize])) -> Vec<u8> {
    let ell = selected.ell;
    let mut offspring = vec![0u8; selected.n * ell];
    let mut order: Vec<usize> = (0..selected.n).collect();
    for group in &mpm.groups {
        shuffle(&mut order);
        for (child, &parent) in offspring.chunks_exact_mut(ell).zip(&order) {
            let parent = selected.row(parent);
            for &l in group {
                child[l] = parent[l];
            }
        }
    }
    offspring
}

/// Section 5.5: the fraction of subproblems that appear exactly as an MPM group.
pub fn model_quality(trap: &Trap, mpm: &Mpm) -> f64 {
    let exact = mpm.groups.iter().filter(|g| g.len() == trap.k && g.iter().all(|&l| trap.block_of(l) == trap.block_of(g[0]))).count();
    exact as f64 / trap.m as f64
}

// ---------------------------------------------------------------------------
// Population sizing by bisection (Section 5.2, after Sastry 2002)
// ---------------------------------------------------------------------------

/// When a population size counts as sufficient, and how finely to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BisectionCriteria {
    /// First population size tried.
    pub n0: usize,
    /// Stop when (hi − lo) / lo ≤ precision.
    pub precision: f64,
    /// Runs per population size.
    pub runs_per_trial: usize,
    /// Successful runs needed for the size to succeed; a run succeeds when the best
    /// individual of its final population solves at least m − 1 subproblems.
    pub required_successes: usize,
    /// Give up (error) when doubling passes this.
    pub max_n: usize,
}

impl Default for BisectionCriteria {
    /// n0 = 16, precision 0.1, one successful run of one per size, up to 2^22.
    fn default() -> Self {
        BisectionCriteria { n0: 16, precision: 0.1, runs_per_trial: 1, required_successes: 1, max_n: 1 << 22 }
    }
}

/// One population size tried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trial {
    pub n: usize,
    /// Runs made (a trial stops as soon as its outcome is decided).
    pub runs: usize,
    pub successes: usize,
    pub success: bool,
}

/// The outcome of one bisection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BisectionResult {
    pub seed: u64,
    /// The smallest successful population size found.
    pub n: usize,
    /// Every trial, in the order made.
    pub trials: Vec<Trial>,
}

/// Bisection for the minimum population size (Sastry 2002, as cited in Section 5.2),
/// each run on the host with `scorer` ([`bisection_with`] with [`run`]).
pub fn bisection(
    trap: &Trap,
    base: &EcgaConfig,
    seed: u64,
    criteria: &BisectionCriteria,
    scorer: &mut dyn PairScorer,
) -> Result<BisectionResult> {
    bisection_with(trap, base, seed, criteria, &mut |cfg, run_seed| Ok(run(trap, cfg, run_seed, scorer)?.best_solved))
}

/// Bisection for the minimum population size (Sastry 2002, as cited in Section 5.2),
/// `run_one(config, run seed)` making one run and returning the subproblems its
/// best individual solves (on the host or wholly on the device).
///
/// Tries `n0`; doubles until a size succeeds, or, when `n0` already succeeds,
/// halves until one fails (not below the tournament size). Then bisects between the
/// largest failure `lo` and smallest success `hi` until (hi − lo)/lo ≤ precision and
/// returns `hi`. `base.n` is ignored; run seeds are drawn in order from `seed`.
pub fn bisection_with(
    trap: &Trap,
    base: &EcgaConfig,
    seed: u64,
    criteria: &BisectionCriteria,
    run_one: &mut dyn FnMut(&EcgaConfig, u64) -> Result<usize>,
) -> Result<BisectionResult> {
    ensure!(
        criteria.required_successes >= 1 && criteria.required_successes <= criteria.runs_per_trial,
        "need 1 ≤ required_successes ≤ runs_per_trial"
    );
    ensure!(criteria.n0 >= base.tournament && criteria.precision > 0.0, "need n0 ≥ tournament size and precision > 0");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut trials = Vec::new();
    let mut trial = |n: usize| -> Result<bool> {
        let cfg = EcgaConfig { n, ..*base };
        let (mut runs, mut successes) = (0, 0);
        while successes < criteria.required_successes && runs - successes <= criteria.runs_per_trial - criteria.required_successes {
            runs += 1;
            if run_one(&cfg, rng.random())? + 1 >= trap.m {
                successes += 1;
            }
        }
        let success = successes >= criteria.required_successes;
        trials.push(Trial { n, runs, successes, success });
        Ok(success)
    };
    let (mut lo, mut hi) = (criteria.n0, criteria.n0);
    if trial(criteria.n0)? {
        loop {
            lo = hi / 2;
            if lo < base.tournament {
                return Ok(BisectionResult { seed, n: hi, trials });
            }
            if !trial(lo)? {
                break;
            }
            hi = lo;
        }
    } else {
        loop {
            hi = lo * 2;
            ensure!(hi <= criteria.max_n, "no success up to max_n = {}", criteria.max_n);
            if trial(hi)? {
                break;
            }
            lo = hi;
        }
    }
    while (hi - lo) as f64 / lo as f64 > criteria.precision && hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if trial(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(BisectionResult { seed, n: hi, trials })
}

/// `count` independent bisections in parallel (rayon), the i-th with the i-th seed
/// drawn from `seed` and its own scorer from `make_scorer`.
pub fn bisections<S: PairScorer>(
    trap: &Trap,
    base: &EcgaConfig,
    criteria: &BisectionCriteria,
    count: usize,
    seed: u64,
    make_scorer: impl Fn() -> S + Sync,
) -> Result<Vec<BisectionResult>> {
    let mut rng = StdRng::seed_from_u64(seed);
    let seeds: Vec<u64> = (0..count).map(|_| rng.random()).collect();
    seeds.into_par_iter().map(|seed| bisection(trap, base, seed, criteria, &mut make_scorer())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blockwise_packing_equals_one_allele_at_a_time() {
        let mut rng = StdRng::seed_from_u64(3);
        // The last two are packed in slabs on the threads (≥ PARALLEL_ALLELES), the last slab partial.
        for (n, ell) in [(1, 1), (63, 7), (64, 64), (65, 65), (130, 190), (2400, 200), (100, 9), (4100, 1030), (70_001, 61)] {
            assert_eq!(n * ell >= PARALLEL_ALLELES, n >= 4100, "n = {n}, ell = {ell}");
            let rows = random_rows(n * ell, &mut rng);
            let wpl = n.div_ceil(64);
            let mut want = vec![0u64; ell * wpl];
            for (i, row) in rows.chunks_exact(ell).enumerate() {
                for (l, &allele) in row.iter().enumerate() {
                    want[l * wpl + i / 64] |= u64::from(allele) << (i % 64);
                }
            }
            assert_eq!(LocusPacked::from_rows(n, ell, &rows).words, want, "n = {n}, ell = {ell}");
        }
    }

    #[test]
    fn planted_populations_are_reproducible_and_their_blocks_are_found() {
        let (n, ell) = (5000, 30);
        let pop = Population::planted(n, ell, 5, 9).unwrap();
        assert_eq!(pop, Population::planted(n, ell, 5, 9).unwrap(), "same seed, same population");
        assert_ne!(pop, Population::planted(n, ell, 5, 10).unwrap());
        // Blocks all ones: 1/2 + 1/4 · 2⁻⁵ of them (±5σ).
        let blocks: Vec<&[u8]> = pop.rows().chunks(5).collect();
        let ones = blocks.iter().filter(|b| b.iter().all(|&a| a == 1)).count() as f64 / blocks.len() as f64;
        let p = 0.5 + 0.25 / 32.0;
        assert!((ones - p).abs() < 5.0 * (p * (1.0 - p) / blocks.len() as f64).sqrt(), "share of all-ones blocks {ones}");
        // The linkage is there to find: greedy search recovers every block.
        let trace = greedy_search(&pop, &mut CpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware }), 10, &XLogX::new(n)).unwrap();
        assert_eq!(model_quality(&Trap { k: 5, m: ell / 5 }, &trace.mpm), 1.0, "{:?}", trace.mpm);
        assert_eq!(trace.merges.len(), ell - ell / 5);
        assert!(Population::planted(usize::MAX / 2, 3, 5, 0).is_err(), "sizes past the address space are an error");
    }

    fn counters() -> Vec<Box<dyn SchemaCounter>> {
        let mut all: Vec<Box<dyn SchemaCounter>> = vec![Box::new(BaselineCounter)];
        for popcount in [Popcount::UnityTable16, Popcount::Hardware] {
            all.push(Box::new(FastCount { popcount }));
            all.push(Box::new(PrefixFastCount { popcount }));
        }
        all
    }

    /// n = 2000, (10,5)-trap loci; each block all ones or all zeros at random, so
    /// the blocks are the only linkage.
    fn clean_linkage_population(seed: u64) -> Population {
        let trap = Trap { k: 5, m: 10 };
        let mut rng = StdRng::seed_from_u64(seed);
        let rows = (0..2000)
            .flat_map(|_| (0..trap.m).map(|_| u8::from(rng.random::<bool>())).collect::<Vec<_>>())
            .flat_map(|block| [block; 5])
            .collect();
        Population::from_rows(2000, trap.ell(), rows).unwrap()
    }

    fn sorted_groups(mpm: &Mpm) -> Vec<Vec<usize>> {
        let mut groups: Vec<Vec<usize>> = mpm
            .groups
            .iter()
            .map(|g| {
                let mut g = g.clone();
                g.sort_unstable();
                g
            })
            .collect();
        groups.sort();
        groups
    }

    fn true_blocks(trap: &Trap) -> Vec<Vec<usize>> {
        (0..trap.m).map(|b| trap.block(b).collect()).collect()
    }

    #[test]
    fn unity_table_counts_ones() {
        assert_eq!(UNITY_TABLE_16[0], 0);
        assert_eq!(UNITY_TABLE_16[0xffff], 16);
        assert_eq!(UNITY_TABLE_16[0b1011_0000_0000_0001], 4);
        assert_eq!(unity16_ones(0xf0f0_0000_0000_8001), 10);
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn avx2_row_bits_match_the_portable_gather() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut rng = StdRng::seed_from_u64(11);
        for len in 0..=64 {
            for _ in 0..20 {
                let alleles: Vec<u8> = (0..len).map(|_| u8::from(rng.random::<bool>())).collect();
                // SAFETY: AVX2 checked above.
                assert_eq!(unsafe { row_bits_avx2(&alleles) }, row_bits(&alleles), "{alleles:?}");
            }
        }
    }

    #[test]
    fn packing_matches_rows_with_zero_padding() {
        let pop = Population::random(130, 7, 1).unwrap();
        let packed = pop.packed();
        assert_eq!(packed.words_per_locus, 3);
        for l in 0..7 {
            for i in 0..130 {
                assert_eq!((packed.locus(l)[i / 64] >> (i % 64)) & 1, u64::from(pop.row(i)[l]));
            }
            assert_eq!(packed.locus(l)[2] & !packed.valid_mask(2), 0);
        }
        assert_eq!(packed.valid_mask(1), u64::MAX);
        assert_eq!(packed.valid_mask(2), 0b11);
        assert!(Population::from_rows(2, 2, vec![0, 1, 2, 0]).is_err());
        assert!(Population::from_rows(2, 2, vec![0, 1, 1]).is_err());
        let mut large = vec![1u8; PARALLEL_ALLELES + 64];
        large[PARALLEL_ALLELES - 3] = 2;
        assert!(
            Population::from_rows(PARALLEL_ALLELES / 64 + 1, 64, large).is_err(),
            "a bad allele in a population checked on the threads"
        );
    }

    #[test]
    fn all_counters_agree_on_random_populations() {
        let mut rng = StdRng::seed_from_u64(7);
        for (trial, n) in [1, 63, 64, 65, 200, 1000].into_iter().enumerate() {
            let pop = Population::random(n, 16, trial as u64).unwrap();
            for s in 1..=10 {
                let mut loci: Vec<usize> = (0..16).collect();
                loci.shuffle(&mut rng);
                loci.truncate(s);
                let mut expected = vec![0; 1 << s];
                BaselineCounter.count(&pop, &loci, &mut expected);
                assert_eq!(expected.iter().sum::<u32>() as usize, n);
                for counter in counters() {
                    let mut counts = vec![99; 1 << s];
                    counter.count(&pop, &loci, &mut counts);
                    assert_eq!(counts, expected, "{} n = {n} S = {s}", counter.name());
                }
            }
        }
    }

    #[test]
    fn counts_follow_the_schema_bit_order() {
        // Loci (1, 0): bit 0 of the schema index is locus 1.
        let pop = Population::from_rows(3, 2, vec![0, 1, 0, 1, 1, 1]).unwrap();
        for counter in counters() {
            let mut counts = vec![0; 4];
            counter.count(&pop, &[1, 0], &mut counts);
            assert_eq!(counts, [0, 2, 0, 1], "{}", counter.name());
        }
    }

    #[test]
    fn entropy_and_ccc_of_a_known_population() {
        let xlogx = XLogX::new(8);
        assert_eq!(xlogx.table()[0], 0.0);
        assert_eq!(xlogx.table()[8], 24.0);
        // 6 zeros, 2 ones: N·Entropy = 8·(−¾ log2 ¾ − ¼ log2 ¼).
        let s = xlogx.entropy_term(&[6, 2]);
        let entropy = -(0.75f64 * 0.75f64.log2() + 0.25 * 0.25f64.log2());
        assert!((group_cost(8, s, 1) - (8.0 * entropy + 9f64.log2())).abs() < 1e-12);
        // Four equally likely schemata of two loci: 2 bits each, 3 frequencies.
        let xlogx = XLogX::new(4);
        assert_eq!(xlogx.entropy_term(&[1, 1, 1, 1]), 0.0);
        assert_eq!(group_cost(4, 0.0, 2), 8.0 + 5f64.log2() * 3.0);
    }

    #[test]
    fn greedy_search_recovers_clean_trap_blocks_with_every_scorer() {
        let trap = Trap { k: 5, m: 10 };
        let pop = clean_linkage_population(3);
        let xlogx = XLogX::new(pop.n());
        let popcnt = PrefixFastCount { popcount: Popcount::Hardware };
        let reference = greedy_search(&pop, &mut CpuScorer::new(popcnt), 10, &xlogx).unwrap();
        assert_eq!(sorted_groups(&reference.mpm), true_blocks(&trap));
        assert_eq!(model_quality(&trap, &reference.mpm), 1.0);
        assert_eq!(reference.merges.len(), 40);
        assert_eq!(reference.steps, 40);
        assert!(reference.merges.iter().all(|m| m.2 < 0.0));
        // 1225 initial pairs; merge t then rescores the 48 − t other live groups
        // (no merged pair exceeds MAX_L while groups are at most 5 loci).
        assert_eq!(reference.pairs_scored, 1225 + (0..40).map(|t| 48 - t).sum::<u64>());
        let mut scorers: Vec<Box<dyn PairScorer>> = vec![
            Box::new(CpuScorer::new(BaselineCounter)),
            Box::new(CpuScorer::new(FastCount { popcount: Popcount::UnityTable16 })),
            Box::new(ParallelCpuScorer::new(popcnt)),
            Box::new(ParallelCpuScorer::new(BaselineCounter)),
        ];
        for scorer in &mut scorers {
            let trace = greedy_search(&pop, scorer.as_mut(), 10, &xlogx).unwrap();
            assert_eq!(trace, reference, "{}", scorer.name());
        }
    }

    /// Greedy search choosing each merge by scanning every live pair, the
    /// definition [`RowBest`] must agree with.
    fn greedy_search_by_scan(pop: &Population, scorer: &mut dyn PairScorer, max_l: usize, xlogx: &XLogX) -> ModelTrace {
        let mut search = ModelSearch::start(pop, scorer, max_l, xlogx).unwrap();
        while let Some((a, b)) = search.best_pair_by_scan() {
            search.merge(a, b);
            search.rescore_touching(&[a]).unwrap();
            search.steps += 1;
        }
        search.finish()
    }

    #[test]
    fn row_minima_choose_the_same_merges_as_the_full_scan() {
        // Small populations give many exactly equal ΔCCC values (tie rule), large
        // MAX_L and planted blocks long merge sequences.
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for (n, ell, max_l) in [(6, 20, 10), (16, 30, 4), (40, 25, 10), (200, 40, 10), (1000, 30, 6)] {
            for trial in 0..4u64 {
                let pop = if trial % 2 == 0 {
                    Population::random(n, ell, rng.random()).unwrap()
                } else {
                    Population::planted(n, ell, 5, rng.random()).unwrap()
                };
                let xlogx = XLogX::new(n);
                let mut scorer = CpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware });
                let fast = greedy_search(&pop, &mut scorer, max_l, &xlogx).unwrap();
                let scan = greedy_search_by_scan(&pop, &mut scorer, max_l, &xlogx);
                assert!(trial % 2 == 0 || !scan.merges.is_empty(), "n {n} ℓ {ell}: no merges to compare");
                assert_eq!(fast, scan, "n {n} ℓ {ell} MAX_L {max_l} trial {trial}");
            }
        }
    }

    #[test]
    fn slot_merges_replay_to_the_host_trace() {
        // A slot's group always starts with the slot's own locus (merges append
        // the second group), so a host trace gives the slot merges a device
        // search reports; replaying them must rebuild the trace bit for bit.
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        for (n, ell, max_l) in [(16, 30, 4), (200, 40, 10), (1000, 30, 6)] {
            let pop = Population::planted(n, ell, 5, rng.random()).unwrap();
            let xlogx = XLogX::new(n);
            let mut scorer = scorer();
            for search in [Search::Greedy, Search::GreedyMating] {
                let host = search.build(&pop, &mut scorer, max_l, &xlogx).unwrap();
                let slots: Vec<(usize, usize, f64)> = host.merges.iter().map(|m| (m.0[0], m.1[0], m.2)).collect();
                let mut s = Vec::new();
                scorer.score_groups(&host.mpm.groups, &mut s).unwrap();
                let mut cost = vec![f64::NAN; ell];
                for (g, &s) in host.mpm.groups.iter().zip(&s) {
                    cost[g[0]] = group_cost(n, s, g.len());
                }
                let replayed = ModelTrace::from_slot_merges(ell, max_l, &slots, &cost, host.pairs_scored, host.steps).unwrap();
                assert_eq!(replayed.ccc.to_bits(), host.ccc.to_bits());
                assert_eq!(replayed, host, "n {n} ℓ {ell} {}", search.name());
                // A merge out of order, of an emptied slot or over MAX_L is refused.
                let (a, b, d) = slots[0];
                assert!(ModelTrace::from_slot_merges(ell, max_l, &[(b, a, d)], &cost, 0, 0).is_err());
                assert!(ModelTrace::from_slot_merges(ell, max_l, &[(a, b, d), (a, b, d)], &cost, 0, 0).is_err());
                assert!(ModelTrace::from_slot_merges(ell, 1, &[(a, b, d)], &cost, 0, 0).is_err());
            }
        }
    }

    #[test]
    fn greedy_ccc_is_the_sum_of_group_costs() {
        let pop = clean_linkage_population(4);
        let xlogx = XLogX::new(pop.n());
        let mut scorer = CpuScorer::new(BaselineCounter);
        let trace = greedy_search(&pop, &mut scorer, 10, &xlogx).unwrap();
        let mut s = Vec::new();
        scorer.score_groups(&trace.mpm.groups, &mut s).unwrap();
        let ccc = trace.mpm.groups.iter().zip(&s).fold(0.0, |sum, (g, &s)| sum + group_cost(pop.n(), s, g.len()));
        assert_eq!(trace.ccc, ccc);
        let singletons = (0..pop.ell()).map(|l| vec![l]).collect::<Vec<_>>();
        scorer.score_groups(&singletons, &mut s).unwrap();
        let start = s.iter().fold(0.0, |sum, &s| sum + group_cost(pop.n(), s, 1));
        let gain: f64 = trace.merges.iter().map(|m| m.2).sum();
        assert!((start + gain - trace.ccc).abs() < 1e-6 * start);
    }

    #[test]
    fn tie_rule_merges_the_lexicographically_first_pair() {
        // Four identical columns: all six pairs tie, so (0, 1) merges first. Then
        // ({0,1}, {2}) costs 3·log2(N+1) of model complexity against log2(N+1) for
        // ({2}, {3}), so (2, 3) follows, and last the two pairs.
        let mut rng = StdRng::seed_from_u64(5);
        let rows = (0..500).flat_map(|_| [u8::from(rng.random::<bool>()); 4]).collect();
        let pop = Population::from_rows(500, 4, rows).unwrap();
        let trace = greedy_search(&pop, &mut CpuScorer::new(BaselineCounter), 10, &XLogX::new(500)).unwrap();
        let merged: Vec<(Vec<usize>, Vec<usize>)> = trace.merges.iter().map(|m| (m.0.clone(), m.1.clone())).collect();
        assert_eq!(merged, [(vec![0], vec![1]), (vec![2], vec![3]), (vec![0, 1], vec![2, 3])]);
        assert_eq!(trace.mpm.groups, [vec![0, 1, 2, 3]]);
    }

    #[test]
    fn gm_search_finds_clean_blocks_in_fewer_steps() {
        let trap = Trap { k: 5, m: 10 };
        let pop = clean_linkage_population(3);
        let xlogx = XLogX::new(pop.n());
        let counter = PrefixFastCount { popcount: Popcount::Hardware };
        let greedy = greedy_search(&pop, &mut CpuScorer::new(counter), 10, &xlogx).unwrap();
        let gm = greedy_mating_search(&pop, &mut CpuScorer::new(counter), 10, &xlogx).unwrap();
        assert_eq!(sorted_groups(&gm.mpm), true_blocks(&trap));
        assert_eq!(gm.merges.len(), 40);
        // Ties inside a block: {0,1}; {2,3}; {0,1}+{4}; {0,1,4}+{2,3} in every block.
        assert_eq!(gm.steps, 4);
        assert!(gm.steps < greedy.steps);
        assert!(gm.pairs_scored < greedy.pairs_scored);
        assert_eq!(gm.mpm.groups[0], [0, 1, 4, 2, 3]);
        assert_eq!(gm.ccc, greedy.ccc);
        let parallel = greedy_mating_search(&pop, &mut ParallelCpuScorer::new(BaselineCounter), 10, &xlogx).unwrap();
        assert_eq!(parallel, gm);
    }

    #[test]
    fn max_l_bounds_the_groups() {
        let pop = clean_linkage_population(3);
        let trace = greedy_search(&pop, &mut CpuScorer::new(BaselineCounter), 3, &XLogX::new(pop.n())).unwrap();
        assert!(trace.mpm.groups.iter().all(|g| g.len() <= 3));
        assert!(trace.mpm.groups.iter().any(|g| g.len() == 3));
    }

    #[test]
    fn scorer_rejects_a_table_of_the_wrong_size() {
        let pop = clean_linkage_population(3);
        assert!(greedy_search(&pop, &mut CpuScorer::new(BaselineCounter), 10, &XLogX::new(10)).is_err());
        let mut out = Vec::new();
        assert!(CpuScorer::new(BaselineCounter).score(&[vec![0]], &[], &mut out).is_err());
    }

    fn scorer() -> CpuScorer<PrefixFastCount> {
        CpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware })
    }

    fn without_durations(mut result: RunResult) -> RunResult {
        result.model_building = Duration::ZERO;
        result.total = Duration::ZERO;
        result
    }

    #[test]
    fn ecga_solves_a_4_5_trap_reproducibly() {
        let trap = Trap { k: 5, m: 4 };
        for search in [Search::Greedy, Search::GreedyMating] {
            let cfg = EcgaConfig::paper(trap.ell(), 1000, search);
            let result = run(&trap, &cfg, 11, &mut scorer()).unwrap();
            assert!(result.converged, "{search:?}");
            assert_eq!(result.best_solved, 4, "{search:?}");
            assert_eq!(result.consensus_solved, 4);
            assert_eq!(result.best_fitness, 20);
            assert_eq!(result.history.len(), result.generations);
            assert!(result.model_building <= result.total);
            assert!(result.history.iter().any(|g| g.model_quality == 1.0), "{search:?}");
            assert!(result.history.last().unwrap().ones_ratio > 0.9);
            let again = run(&trap, &cfg, 11, &mut ParallelCpuScorer::new(BaselineCounter)).unwrap();
            assert_eq!(without_durations(again), without_durations(result.clone()));
            let other = run(&trap, &cfg, 12, &mut scorer()).unwrap();
            assert_ne!(without_durations(other).history, without_durations(result).history);
        }
    }

    #[test]
    fn counter_randomness_is_reproducible_and_solves_trap_5() {
        let trap = Trap { k: 5, m: 4 };
        for search in [Search::Greedy, Search::GreedyMating] {
            let paper = EcgaConfig::paper(trap.ell(), 1000, search);
            let cfg = EcgaConfig { randomness: Randomness::Counter, ..paper };
            let mut hashes = Vec::new();
            let result =
                run_observed(&trap, &cfg, 11, &mut scorer(), &mut |pop, _| hashes.push(population_hash(&pop.packed().words))).unwrap();
            assert!(result.converged, "{search:?}");
            assert_eq!(result.best_solved, 4, "{search:?}");
            assert_eq!(result.best_fitness, 20);
            assert_eq!(hashes.len(), result.generations);
            // Same seed, same run on another scorer; another seed or the paper's
            // generator, another run.
            let again = run(&trap, &cfg, 11, &mut ParallelCpuScorer::new(BaselineCounter)).unwrap();
            assert_eq!(without_durations(again), without_durations(result.clone()));
            let other = run(&trap, &cfg, 12, &mut scorer()).unwrap();
            assert_ne!(without_durations(other).history, without_durations(result.clone()).history);
            let paper = run(&trap, &paper, 11, &mut scorer()).unwrap();
            assert_ne!(without_durations(paper).history, without_durations(result).history);
        }
    }

    #[test]
    fn counter_draws_are_permutations_and_initial_alleles_are_balanced() {
        for (n, round) in [(1, 0), (7, 3), (1000, 5)] {
            let mut perm = counter::permutation(n, 9, 2, counter::STREAM_SELECTION, round);
            assert!(n == 1 || perm != counter::permutation(n, 9, 2, counter::STREAM_SAMPLING, round), "streams differ");
            perm.sort_unstable();
            assert_eq!(perm, (0..n as u32).collect::<Vec<_>>());
        }
        assert_eq!(counter::selection_rounds(100, 8), 9, "12 winners a round");
        assert_eq!(counter::selection_rounds(64, 8), 8);
        let n = 20_000;
        let rows = Draws::Counter(3).initial(n, 3);
        let ones = rows.iter().filter(|&&a| a == 1).count() as f64 / rows.len() as f64;
        assert!((ones - 0.5).abs() < 5.0 * (0.25 / rows.len() as f64).sqrt(), "share of ones {ones}");
        // Packing what was drawn by locus gives the drawn words back, past-N bits cleared.
        let pop = Population::from_rows(n, 3, rows).unwrap();
        let last = n.div_ceil(64) - 1;
        assert_eq!(pop.packed().locus(2)[last], counter::initial_word(3, 2, last) & pop.packed().valid_mask(last));
    }

    #[test]
    fn counter_selection_follows_the_permutations() {
        // N = 10, s = 3: three winners per permutation, four permutations, the
        // fittest (first on ties) of each consecutive three.
        let (n, s) = (10, 3);
        let fitness: Vec<u32> = (0..n as u32).map(|i| i % 4).collect();
        let rows: Vec<u8> = (0..n as u8).collect();
        let selected = Draws::Counter(5).select(7, &rows, &fitness, 1, s);
        let mut want = Vec::new();
        for r in 0..4 {
            let perm = counter::permutation(n, 5, 7, counter::STREAM_SELECTION, r);
            for c in perm.chunks_exact(s) {
                let best = c.iter().copied().max_by_key(|&i| (fitness[i as usize], std::cmp::Reverse(i))).unwrap();
                let first_best = c.iter().copied().find(|&i| fitness[i as usize] == fitness[best as usize]).unwrap();
                want.push(first_best as u8);
            }
        }
        want.truncate(n);
        assert_eq!(selected, want);
    }

    #[test]
    fn generation_guard_stops_a_run() {
        let trap = Trap { k: 5, m: 4 };
        let cfg = EcgaConfig { max_generations: 1, ..EcgaConfig::paper(trap.ell(), 200, Search::Greedy) };
        let result = run(&trap, &cfg, 1, &mut scorer()).unwrap();
        assert_eq!(result.generations, 1);
        assert!(!result.converged);
        assert!(run(&trap, &EcgaConfig { n: 4, ..cfg }, 1, &mut scorer()).is_err());
    }

    #[test]
    fn selection_keeps_n_and_favours_the_fit() {
        let n = 100;
        let fitness: Vec<u32> = (0..n as u32).collect();
        let rows: Vec<u8> = (0..n).map(|i| u8::from(i >= 50)).collect();
        for s in [4, 8, 7] {
            let selected = tournament_selection(&rows, &fitness, 1, s, &mut StdRng::seed_from_u64(2));
            assert_eq!(selected.len(), n);
            // Without replacement the best 50 win every tournament but those made
            // only of the worst 50; with s rounds the best individual wins s times.
            assert!(selected.iter().filter(|&&a| a == 1).count() >= 90, "s = {s}");
        }
    }

    #[test]
    fn sampling_preserves_group_marginals() {
        let pop = Population::random(300, 6, 9).unwrap();
        let mpm = Mpm { groups: vec![vec![4, 0], vec![1], vec![2, 3, 5]] };
        let mut rng = StdRng::seed_from_u64(1);
        let offspring = Population::from_rows(300, 6, sample_mpm(&pop, &mpm, |order| order.shuffle(&mut rng))).unwrap();
        for group in &mpm.groups {
            let (mut before, mut after) = (vec![0; 1 << group.len()], vec![0; 1 << group.len()]);
            BaselineCounter.count(&pop, group, &mut before);
            BaselineCounter.count(&offspring, group, &mut after);
            assert_eq!(before, after);
        }
        assert_ne!(offspring.rows(), pop.rows());
    }

    #[test]
    fn bisection_brackets_the_population_size() {
        let trap = Trap { k: 5, m: 4 };
        let base = EcgaConfig::paper(trap.ell(), 0, Search::Greedy);
        let result = bisection(&trap, &base, 21, &BisectionCriteria::default(), &mut scorer()).unwrap();
        let last_success = result.trials.iter().rfind(|t| t.success).unwrap();
        assert_eq!(last_success.n, result.n);
        let lo = result.trials.iter().filter(|t| !t.success && t.n < result.n).map(|t| t.n).max().unwrap();
        assert!((result.n - lo) as f64 / lo as f64 <= 0.1 || result.n - lo == 1, "lo {lo}, n {}", result.n);
        assert!(result.trials.iter().all(|t| t.runs == 1));
        assert_eq!(result.trials[0].n, 16);
        let again = bisection(&trap, &base, 21, &BisectionCriteria::default(), &mut scorer()).unwrap();
        assert_eq!(again, result);
        // Starting above the answer halves down to a failure first.
        let from_above = BisectionCriteria { n0: 2048, ..Default::default() };
        let result = bisection(&trap, &base, 21, &from_above, &mut scorer()).unwrap();
        assert!(result.trials[0].success && result.trials[1].n == 1024);
        assert!(result.n < 2048 && result.trials.iter().any(|t| !t.success));
    }

    #[test]
    fn a_bisection_through_a_closure_equals_the_scorers_and_sees_every_run() {
        // Counter randomness and another scorer in the closure: the runs are the same, so is the bisection.
        let trap = Trap { k: 4, m: 4 };
        let base = EcgaConfig { randomness: Randomness::Counter, ..EcgaConfig::paper(trap.ell(), 0, Search::GreedyMating) };
        let criteria = BisectionCriteria { runs_per_trial: 5, required_successes: 3, ..Default::default() };
        let want = bisection(&trap, &base, 8, &criteria, &mut scorer()).unwrap();
        let mut other = ParallelCpuScorer::new(FastCount { popcount: Popcount::Hardware });
        let mut calls = Vec::new();
        let got = bisection_with(&trap, &base, 8, &criteria, &mut |cfg, run_seed| {
            calls.push(cfg.n);
            Ok(run(&trap, cfg, run_seed, &mut other)?.best_solved)
        })
        .unwrap();
        assert_eq!(got, want);
        assert_eq!(calls.len(), want.trials.iter().map(|t| t.runs).sum::<usize>());
        assert!(want.trials.iter().all(|t| (3..=5).contains(&t.runs) && t.success == (t.successes >= 3)));
        // A run that always solves m − 2 subproblems never succeeds: doubling stops at max_n.
        let few = BisectionCriteria { max_n: 64, ..criteria };
        assert!(bisection_with(&trap, &base, 8, &few, &mut |_, _| Ok(trap.m - 2)).is_err());
    }

    #[test]
    fn parallel_bisections_are_seeded_independently() {
        let trap = Trap { k: 4, m: 3 };
        let base = EcgaConfig::paper(trap.ell(), 0, Search::GreedyMating);
        let criteria = BisectionCriteria { runs_per_trial: 3, required_successes: 3, precision: 0.25, ..Default::default() };
        let results = bisections(&trap, &base, &criteria, 3, 5, scorer).unwrap();
        assert_eq!(results.len(), 3);
        assert!(results[0].seed != results[1].seed && results[1].seed != results[2].seed);
        for r in &results {
            assert!(r.trials.iter().any(|t| t.success && t.n == r.n && t.successes == 3));
            assert!(r.trials.iter().filter(|t| !t.success).all(|t| t.runs - t.successes == 1));
        }
        assert_eq!(bisections(&trap, &base, &criteria, 3, 5, scorer).unwrap(), results);
    }
}
