//! Tests of the ECGA reference: packing, schema counting, the CCC, both model
//! searches, whole runs under both randomness sources, and population sizing.

use super::counting::{UNITY_TABLE_16, unity16_ones};
use super::ga::{Draws, sample_mpm, tournament_selection};
use super::population::{PARALLEL_ALLELES, random_rows};
#[cfg(target_arch = "x86_64")]
use super::population::{row_bits, row_bits_avx2};
use super::search::ModelSearch;
use super::*;
use crate::library::trap::Trap;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use std::time::Duration;

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
    assert!(Population::from_rows(PARALLEL_ALLELES / 64 + 1, 64, large).is_err(), "a bad allele in a population checked on the threads");
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

/// Counts by looking at every individual's alleles at `loci` in turn: the
/// definition every counter must meet.
fn plain_count(pop: &Population, loci: &[usize]) -> Vec<u32> {
    let mut counts = vec![0; 1 << loci.len()];
    for i in 0..pop.n() {
        let schema: usize = loci.iter().enumerate().map(|(j, &l)| usize::from(pop.row(i)[l]) << j).sum();
        counts[schema] += 1;
    }
    counts
}

proptest::proptest! {
    /// A merge counted from the two groups' kept FastCount trees, and a group
    /// from its own tree, equal the plain count, on uniform and on planted
    /// (skewed, as a converging run's) populations.
    #[test]
    fn merges_counted_from_kept_trees_equal_the_plain_count(
        n in 1usize..300,
        ell in 1usize..14,
        planted_k in 0usize..6,
        seed in proptest::prelude::any::<u64>(),
        a_size in 0usize..7,
        b_size in 0usize..7,
    ) {
        let pop = if planted_k == 0 { Population::random(n, ell, seed) } else { Population::planted(n, ell, planted_k, seed) }.unwrap();
        let mut loci: Vec<usize> = (0..ell).collect();
        loci.shuffle(&mut StdRng::seed_from_u64(seed));
        let a_size = a_size.min(ell);
        let (a, rest) = loci.split_at(a_size);
        let b = &rest[..b_size.min(rest.len())];
        let (upper, lower) = (GroupLeaves::new(pop.packed(), a), GroupLeaves::new(pop.packed(), b));
        let merged: Vec<usize> = a.iter().chain(b).copied().collect();
        for popcount in [Popcount::UnityTable16, Popcount::Hardware] {
            let fast = FastCount { popcount };
            let mut counts = vec![99; 1 << merged.len()];
            fast.count_merge(&upper, &lower, &mut counts);
            proptest::prop_assert_eq!(&counts, &plain_count(&pop, &merged), "{:?} a = {:?} b = {:?}", popcount, a, b);
            let mut counts = vec![99; 1 << a.len()];
            fast.count_leaves(&upper, &mut counts);
            proptest::prop_assert_eq!(&counts, &plain_count(&pop, a));
        }
    }
}

#[test]
fn a_rebuilt_tree_equals_a_fresh_one() {
    let pop = Population::planted(300, 20, 4, 2).unwrap();
    let mut tree = GroupLeaves::new(pop.packed(), &[3, 7, 1, 19, 0, 12]);
    tree.rebuild(pop.packed(), &[5, 2]);
    assert_eq!(tree, GroupLeaves::new(pop.packed(), &[5, 2]));
    assert_eq!(tree.loci(), [5, 2]);
}

/// Whole runs with FastCount on one thread (kept group trees) build, generation
/// by generation, the baseline's models: the same merges with bit-identical
/// ΔCCC, the same CCC and the same populations.
#[test]
fn fastcount_runs_build_the_baselines_models_every_generation() {
    let trap = Trap { k: 5, m: 8 };
    let traced = |cfg: &EcgaConfig, seed: u64, scorer: &mut dyn PairScorer| {
        let mut models = Vec::new();
        let result =
            run_observed(&trap, cfg, seed, scorer, &mut |pop, trace| models.push((population_hash(&pop.packed().words), trace.clone())));
        (without_durations(result.unwrap()), models)
    };
    for (search, randomness, n) in [
        (Search::Greedy, Randomness::Paper, 900),
        (Search::Greedy, Randomness::Counter, 700),
        (Search::GreedyMating, Randomness::Paper, 800),
    ] {
        let cfg = EcgaConfig { randomness, ..EcgaConfig::paper(trap.ell(), n, search) };
        let (want, want_models) = traced(&cfg, 21, &mut CpuScorer::new(BaselineCounter));
        assert!(want_models.len() > 3 && want_models.iter().any(|(_, t)| t.merges.len() > 20), "{search:?}: too short a run to compare");
        for popcount in [Popcount::UnityTable16, Popcount::Hardware] {
            let (got, got_models) = traced(&cfg, 21, &mut CpuScorer::new(FastCountKept(FastCount { popcount })));
            assert_eq!(got_models, want_models, "{search:?} {randomness:?} {popcount:?}");
            assert_eq!(got, want);
        }
        let (got, got_models) = traced(&cfg, 21, &mut CpuScorer::new(FastCount { popcount: Popcount::UnityTable16 }));
        assert_eq!((got, got_models), (want, want_models), "the paper's FastCount, every candidate counted afresh");
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
        Box::new(CpuScorer::new(FastCountKept(FastCount { popcount: Popcount::UnityTable16 }))),
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
        let result = run_observed(&trap, &cfg, 11, &mut scorer(), &mut |pop, _| hashes.push(population_hash(&pop.packed().words))).unwrap();
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
