//! Counting the schemata of a group of loci (Section 4.1): the baseline's scan of
//! every row, FastCount (AND/NOT of locus words + unity table), FastCount sharing
//! AND prefixes between schemata, and FastCount of a merge from the two groups'
//! kept trees ([`GroupLeaves`], what single-threaded model building uses).

use super::{LocusPacked, Population};

/// Counts how often each schema over `loci` occurs in a population.
///
/// `counts` has `2^|loci|` entries and is overwritten; bit `j` of a schema's index
/// is its allele at `loci[j]`.
pub trait SchemaCounter: Sync {
    fn name(&self) -> &'static str;
    fn count(&self, pop: &Population, loci: &[usize], counts: &mut [u32]);

    /// The [`FastCount`] whose counts a scorer takes from kept group trees
    /// ([`GroupLeaves`], [`FastCount::count_merge`]): only [`FastCountKept`]'s;
    /// every other counter counts each candidate group afresh, as the paper does.
    fn kept_trees(&self) -> Option<FastCount> {
        None
    }
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
pub(super) static UNITY_TABLE_16: [u8; 1 << 16] = unity_table();

const fn unity_table() -> [u8; 1 << 16] {
    let mut table = [0u8; 1 << 16];
    let mut i = 1;
    while i < table.len() {
        table[i] = table[i >> 1] + (i & 1) as u8;
        i += 1;
    }
    table
}

pub(super) fn unity16_ones(word: u64) -> u32 {
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
    use super::{GroupLeaves, Population, hardware_ones};

    #[target_feature(enable = "popcnt")]
    pub fn fast_count(pop: &Population, loci: &[usize], counts: &mut [u32]) {
        super::fast_count(pop, loci, counts, hardware_ones)
    }

    #[target_feature(enable = "popcnt")]
    pub fn prefix_fast_count(pop: &Population, loci: &[usize], counts: &mut [u32]) {
        super::prefix_fast_count(pop, loci, counts, hardware_ones)
    }

    #[target_feature(enable = "popcnt")]
    pub fn merge_count(a: &GroupLeaves, b: &GroupLeaves, counts: &mut [u32]) {
        super::merge_count(a, b, counts, hardware_ones)
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

/// FastCount with each group's tree kept between the search's steps: a scorer
/// counts a merge from the two groups' trees ([`GroupLeaves`],
/// [`FastCount::count_merge`]), the same counts as [`FastCount`] with far fewer
/// ANDs. Not in the paper (issue #39): the ECGA paper's `fastcount` column stays
/// [`FastCount`], which counts every candidate afresh (Section 4.1).
#[derive(Clone, Copy, Debug)]
pub struct FastCountKept(pub FastCount);

impl SchemaCounter for FastCountKept {
    fn name(&self) -> &'static str {
        match self.0.popcount {
            Popcount::UnityTable16 => "fastcount-kept-table16",
            Popcount::Hardware => "fastcount-kept-popcnt",
        }
    }

    fn count(&self, pop: &Population, loci: &[usize], counts: &mut [u32]) {
        self.0.count(pop, loci, counts)
    }

    fn kept_trees(&self) -> Option<FastCount> {
        Some(self.0)
    }
}

impl FastCount {
    /// The counts of the merged group `a ∪ b` (loci `a`'s then `b`'s, so schema
    /// `u | v << |a|` is `a`'s schema `u` beside `b`'s `v`): per word, the ones of
    /// `mask_u ∧ mask_v` for every pair of the two groups' leaves there — the AND
    /// tree of Section 4.1 over the merged loci, its upper part taken from `a`'s kept
    /// tree and its lower part from `b`'s. Both trees must be of one population.
    pub fn count_merge(&self, a: &GroupLeaves, b: &GroupLeaves, counts: &mut [u32]) {
        assert_eq!(a.start.len(), b.start.len(), "group trees of populations of different sizes");
        match self.popcount {
            Popcount::UnityTable16 => merge_count(a, b, counts, unity16_ones),
            Popcount::Hardware => {
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("popcnt") {
                    // SAFETY: this CPU has POPCNT (checked just above).
                    return unsafe { popcnt::merge_count(a, b, counts) };
                }
                merge_count(a, b, counts, hardware_ones)
            }
        }
    }

    /// The counts of one group from its kept tree: each leaf's ones.
    pub fn count_leaves(&self, group: &GroupLeaves, counts: &mut [u32]) {
        counts.fill(0);
        for leaf in &group.leaves {
            counts[leaf.schema as usize] += match self.popcount {
                Popcount::UnityTable16 => unity16_ones(leaf.mask),
                Popcount::Hardware => hardware_ones(leaf.mask),
            };
        }
    }
}

/// A leaf of a group's FastCount tree in one word: the individuals of that word
/// (`mask`, never 0) that hold schema `schema` of the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Leaf {
    mask: u64,
    schema: u32,
}

/// One group's FastCount tree (Section 4.1) evaluated once and kept: for every
/// word of 64 individuals, the group's schemata `v` that occur there with their
/// masks `∧_j (v_j ? S_j : ¬S_j)`. A node whose mask is 0 is cut with its
/// subtree (its schemata count 0 in that word), so a word keeps at most 64 leaves.
///
/// Model building scores each group against every other (Algorithm 1), and the
/// paper counts every candidate merge from its locus words afresh. With the trees
/// kept, a merge is counted by [`FastCount::count_merge`] with one AND per pair
/// of leaves of a word instead of `|a ∪ b|` ANDs per schema. Not in the paper;
/// the counts are the same integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupLeaves {
    loci: Vec<usize>,
    /// Word `w`'s leaves are `leaves[start[w]..start[w + 1]]`.
    start: Vec<usize>,
    leaves: Vec<Leaf>,
}

impl GroupLeaves {
    pub fn new(packed: &LocusPacked, loci: &[usize]) -> Self {
        let mut tree = GroupLeaves { loci: Vec::new(), start: Vec::new(), leaves: Vec::new() };
        tree.rebuild(packed, loci);
        tree
    }

    /// The tree of `loci` in place of this one (its buffers reused).
    pub fn rebuild(&mut self, packed: &LocusPacked, loci: &[usize]) {
        assert!(loci.len() < 32, "a group of {} loci has too many schemata", loci.len());
        self.loci.clear();
        self.loci.extend_from_slice(loci);
        self.start.clear();
        self.leaves.clear();
        self.start.push(0);
        for w in 0..packed.words_per_locus {
            self.grow(packed, w, 0, 0, packed.valid_mask(w));
            self.start.push(self.leaves.len());
        }
    }

    /// Depth-first below the node of word `w` that fixed loci `..depth` to the
    /// bits of `schema`, with its `mask`: allele 0 of `loci[depth]` first.
    fn grow(&mut self, packed: &LocusPacked, w: usize, depth: usize, schema: u32, mask: u64) {
        if mask == 0 {
            return;
        }
        match self.loci.get(depth) {
            None => self.leaves.push(Leaf { mask, schema }),
            Some(&l) => {
                let x = packed.locus(l)[w];
                self.grow(packed, w, depth + 1, schema, mask & !x);
                self.grow(packed, w, depth + 1, schema | 1 << depth, mask & x);
            }
        }
    }

    /// The group's loci, in schema bit order.
    pub fn loci(&self) -> &[usize] {
        &self.loci
    }

    fn word(&self, w: usize) -> &[Leaf] {
        &self.leaves[self.start[w]..self.start[w + 1]]
    }
}

/// Counts `a ∪ b` from the two trees, word by word. (Skipping the pairs of
/// leaves that share no individual, most of them, did not pay: a branch per pair.)
#[inline(always)]
fn merge_count(a: &GroupLeaves, b: &GroupLeaves, counts: &mut [u32], ones: impl Fn(u64) -> u32) {
    counts.fill(0);
    let shift = a.loci.len();
    for w in 0..a.start.len() - 1 {
        let below = b.word(w);
        for upper in a.word(w) {
            for lower in below {
                counts[(upper.schema | lower.schema << shift) as usize] += ones(upper.mask & lower.mask);
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
