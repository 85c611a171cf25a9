//! Tests of the BOA reference: the K2 metric, the scorers, both constructions,
//! sampling, counter-based randomness and whole runs.

use super::*;
use crate::library::ecga::{BaselineCounter, Popcount, Population, PrefixFastCount, SchemaCounter};
use crate::library::philox::philox4x32_10;
use crate::library::trap::Trap;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};

const POPCNT: PrefixFastCount = PrefixFastCount { popcount: Popcount::Hardware };

/// `copies · 2^m` individuals of `trap`'s loci: every combination of all-ones
/// and all-zeros blocks, `copies` times. The blocks are the only dependencies
/// and any two blocks are exactly independent in the counts.
fn planted_blocks(trap: &Trap, copies: usize) -> Population {
    let n = copies << trap.m;
    let rows = (0..n).flat_map(|r| (0..trap.m).flat_map(move |b| std::iter::repeat_n((r >> b & 1) as u8, trap.k))).collect();
    Population::from_rows(n, trap.ell(), rows).unwrap()
}

/// Blocks of 5 whose last locus is the majority of the first three, flipped with
/// probability 0.1: a node that gains from several parents.
fn majority_blocks(m: usize, n: usize, seed: u64) -> Population {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut rows = Vec::with_capacity(n * m * 5);
    for _ in 0..n * m {
        let block: [bool; 4] = rng.random();
        let majority = u8::from(block[..3].iter().filter(|&&b| b).count() >= 2);
        rows.extend(block.map(u8::from));
        rows.push(majority ^ u8::from(rng.random::<f64>() < 0.1));
    }
    Population::from_rows(n, m * 5, rows).unwrap()
}

/// Checks what every network must satisfy and returns it.
fn check_network<'a>(net: &'a Network, pop: &Population, k: usize) -> &'a Network {
    let table = LnFactorial::new(pop.n());
    let order = net.topological_order();
    let mut position = vec![usize::MAX; pop.ell()];
    for (at, &i) in order.iter().enumerate() {
        position[i] = at;
    }
    let mut rescored = 0.0;
    let mut empty = 0.0;
    for (i, parents) in net.parents.iter().enumerate() {
        assert!(parents.len() <= k, "node {i} has {} parents", parents.len());
        assert!(parents.iter().all(|&p| position[p] < position[i]), "cycle through node {i}");
        let mut counts = vec![0; 2 << parents.len()];
        POPCNT.count(pop, &[&[i][..], parents].concat(), &mut counts);
        rescored += family_score(&counts, &table);
        POPCNT.count(pop, &[i], &mut counts[..2]);
        empty += family_score(&counts[..2], &table);
    }
    assert_eq!(net.score.to_bits(), f64::to_bits(rescored), "score is the sum of the final families' K2");
    assert!(net.edges() == 0 || net.score > empty, "every edge added a positive gain");
    net
}

#[test]
fn ln_factorial_table_holds_known_values() {
    let table = LnFactorial::new(5);
    assert_eq!(table.n(), 5);
    assert_eq!(table.table().len(), 7);
    assert_eq!(table.table()[..2], [0.0, 0.0]);
    for (c, factorial) in [(2, 2.0f64), (3, 6.0), (5, 120.0), (6, 720.0)] {
        assert!((table.table()[c] - factorial.ln()).abs() < 1e-12, "ln {c}!");
    }
    let big = LnFactorial::new(4800);
    // Stirling with the 1/(12c) term, accurate to ~1e-12 relative at c = 4801.
    let c = 4801.0f64;
    let stirling = c * c.ln() - c + 0.5 * (2.0 * std::f64::consts::PI * c).ln() + 1.0 / (12.0 * c);
    assert!((big.table()[4801] - stirling).abs() < 1e-8);
}

#[test]
fn family_score_matches_a_hand_computed_k2() {
    // Rows (x0, x1): (0,0), (0,1), (1,1), (1,1).
    let pop = Population::from_rows(4, 2, vec![0, 0, 0, 1, 1, 1, 1, 1]).unwrap();
    let table = LnFactorial::new(4);
    let mut scorer = CpuFamilyScorer::new(BaselineCounter);
    scorer.load(&pop, &table).unwrap();
    let families = [Family { node: 0, parents: vec![] }, Family { node: 0, parents: vec![1] }, Family { node: 1, parents: vec![0] }];
    let mut out = vec![7.0; 9];
    scorer.score(&families, &mut out).unwrap();
    // No parents: N0 = N1 = 2, ln(2!·2!/5!) = ln(1/30).
    assert!((out[0] - (1.0f64 / 30.0).ln()).abs() < 1e-12);
    // x1 = 0: (N0, N1) = (1, 0) → −ln 2; x1 = 1: (1, 2) → ln(2/4!) = −ln 12.
    assert!((out[1] + 24f64.ln()).abs() < 1e-12);
    // x0 = 0: (1, 1) → −ln 3!; x0 = 1: (0, 2) → ln(2/3!) = −ln 3.
    assert!((out[2] + 18f64.ln()).abs() < 1e-12);
    assert_eq!(out.len(), 3);
    // The documented order of operations, which a device scorer must repeat.
    let table = LnFactorial::new(2400);
    let t = table.table();
    let counts: [usize; 8] = [538, 553, 359, 557, 249, 400, 305, 68];
    let (mut joint, mut parents) = (0.0, 0.0);
    for c in counts {
        joint += t[c];
    }
    for pi in 0..4 {
        parents += t[counts[2 * pi] + counts[2 * pi + 1] + 1];
    }
    assert_eq!(family_score(&counts.map(|c| c as u32), &table).to_bits(), f64::to_bits(joint - parents));
    // Before load and with a bad family the scorer refuses.
    assert!(CpuFamilyScorer::new(POPCNT).score(&families, &mut out).is_err());
    assert!(scorer.score(&[Family { node: 0, parents: vec![0] }], &mut out).is_err());
    assert!(scorer.load(&pop, &LnFactorial::new(5)).is_err());
}

#[test]
fn scorers_are_bit_identical() {
    let pop = Population::random(777, 24, 5).unwrap();
    let table = LnFactorial::new(777);
    let mut rng = StdRng::seed_from_u64(9);
    let families: Vec<Family> = (0..500)
        .map(|f| {
            let mut loci: Vec<usize> = (0..24).collect();
            loci.shuffle(&mut rng);
            Family { node: loci[0], parents: loci[1..=f % 4].to_vec() }
        })
        .collect();
    let mut scorers: Vec<Box<dyn FamilyScorer>> = vec![
        Box::new(CpuFamilyScorer::new(BaselineCounter)),
        Box::new(CpuFamilyScorer::new(POPCNT)),
        Box::new(ParallelFamilyScorer::new(POPCNT)),
        Box::new(ParallelFamilyScorer::new(PrefixFastCount { popcount: Popcount::UnityTable16 })),
    ];
    let mut reference = Vec::new();
    for scorer in &mut scorers {
        scorer.load(&pop, &table).unwrap();
        let mut out = Vec::new();
        scorer.score(&families, &mut out).unwrap();
        let bits: Vec<u64> = out.iter().map(|s| s.to_bits()).collect();
        if reference.is_empty() {
            reference = bits;
        } else {
            assert_eq!(bits, reference, "{}", scorer.name());
        }
    }
}

#[test]
fn both_constructions_find_the_planted_blocks() {
    let trap = Trap { k: 5, m: 8 };
    let pop = planted_blocks(&trap, 4);
    let table = LnFactorial::new(pop.n());
    let perm = random_permutation(trap.ell(), &mut StdRng::seed_from_u64(4));
    let mut scorer = CpuFamilyScorer::new(POPCNT);
    let sboa = build_sboa(&pop, &mut scorer, 3, &table).unwrap();
    let pboa = build_pboa(&pop, &mut scorer, 3, &table, &perm).unwrap();
    for net in [&sboa, &pboa] {
        check_network(net, &pop, 3);
        for (i, parents) in net.parents.iter().enumerate() {
            assert!(parents.iter().all(|&p| trap.block_of(p) == trap.block_of(i)), "node {i} parents {parents:?}");
        }
        // Identical loci: one parent explains a node fully; a second gains exactly 0.
        assert_eq!(net.edges(), 4 * trap.m);
    }
    assert!(pboa.parents.iter().enumerate().all(|(i, ps)| ps.iter().all(|&j| perm[j] < perm[i])));
    // pBOA: one call for the empty network and one per round; sBOA: one per edge.
    assert_eq!(pboa.steps, 2);
    assert_eq!(sboa.steps, 4 * trap.m);
    // Both reach the same per-block optimum, summed in different node orders.
    assert!((sboa.score - pboa.score).abs() < 1e-9 * sboa.score.abs());
    // All in-block candidates tie exactly, so the tie rules decide: sBOA's
    // smallest (i, j) chains each block 4 → 3 → 2 → 1 → 0; pBOA's smallest j
    // (identity permutation) hangs every locus on its block's first.
    let chain: Vec<Vec<usize>> = (0..trap.ell()).map(|i| if i % 5 < 4 { vec![i + 1] } else { vec![] }).collect();
    assert_eq!(sboa.parents, chain);
    let identity: Vec<usize> = (0..trap.ell()).collect();
    let star: Vec<Vec<usize>> = (0..trap.ell()).map(|i| if i % 5 > 0 { vec![i - i % 5] } else { vec![] }).collect();
    assert_eq!(build_pboa(&pop, &mut scorer, 3, &table, &identity).unwrap().parents, star);
}

#[test]
fn parent_limit_and_acyclicity_hold_where_more_parents_would_gain() {
    let pop = majority_blocks(6, 2000, 2);
    let table = LnFactorial::new(pop.n());
    let mut scorer = ParallelFamilyScorer::new(POPCNT);
    let identity: Vec<usize> = (0..30).collect();
    for k in [0, 1, 2, 3] {
        let sboa = build_sboa(&pop, &mut scorer, k, &table).unwrap();
        let pboa = build_pboa(&pop, &mut scorer, k, &table, &identity).unwrap();
        let most = |net: &Network| net.parents.iter().map(Vec::len).max().unwrap();
        assert_eq!(most(check_network(&sboa, &pop, k)), k, "sBOA k = {k}");
        assert_eq!(most(check_network(&pboa, &pop, k)), k, "pBOA k = {k}");
        assert!(pboa.parents.iter().enumerate().all(|(i, ps)| ps.iter().all(|&j| j < i)));
        assert!(pboa.steps <= k, "pBOA scores in at most k rounds after the empty network");
    }
    assert!(build_pboa(&pop, &mut scorer, 3, &table, &[0; 30]).is_err());
    assert!(build_pboa(&pop, &mut scorer, 3, &table, &identity[1..]).is_err());
}

#[test]
fn topological_order_puts_parents_first() {
    let net = Network { parents: vec![vec![2], vec![], vec![1, 3], vec![]], score: 0.0, families_scored: 0, steps: 0 };
    assert_eq!(net.topological_order(), [1, 3, 2, 0]);
    assert_eq!(net.edges(), 3);
}

#[test]
fn sampling_follows_the_conditional_probabilities() {
    // x1 copies x0 in the selected rows; configuration x0 = 1 never occurs.
    let pop = Population::from_rows(4, 2, vec![0, 0, 0, 0, 0, 0, 0, 1]).unwrap();
    let net = Network { parents: vec![vec![], vec![0]], score: 0.0, families_scored: 0, steps: 0 };
    let p_one = conditional_probabilities(&net, &pop).unwrap();
    assert_eq!(p_one, [vec![0.0], vec![0.25, 0.5]]);
    // Planted blocks: every sampled block is again all ones or all zeros.
    let trap = Trap { k: 5, m: 6 };
    let pop = planted_blocks(&trap, 8);
    let net = build_sboa(&pop, &mut CpuFamilyScorer::new(POPCNT), 3, &LnFactorial::new(pop.n())).unwrap();
    let p_one = conditional_probabilities(&net, &pop).unwrap();
    let rows = sample(&net, &p_one, 300, &mut StdRng::seed_from_u64(1));
    let blocks: Vec<&[u8]> = rows.chunks_exact(trap.k).collect();
    assert!(blocks.iter().all(|b| b.iter().all(|&a| a == b[0])));
    let ones = blocks.iter().filter(|b| b[0] == 1).count();
    assert!((700..1100).contains(&ones), "{ones} of 1800 blocks are ones");
}

#[test]
fn boa_solves_a_4x5_trap() {
    let trap = Trap { k: 5, m: 4 };
    for construction in [Construction::Simple, Construction::Permutation] {
        let cfg = BoaConfig { n: 1000, max_generations: 50, stop_on_convergence: true, ..BoaConfig::paper(construction) };
        let result = run(&trap, &cfg, 2024, &mut CpuFamilyScorer::new(POPCNT)).unwrap();
        assert!(result.best_solved + 1 >= trap.m, "{}: {result:?}", construction.name());
        assert_eq!(result.generations, result.history.len());
        assert!(result.generations <= 50 && result.families_scored > 0);
        assert!(result.history.windows(2).all(|w| w[1].best_fitness >= w[0].best_fitness), "the best survive replacement");
        assert_eq!(result.solved_fraction, result.best_solved as f64 / 4.0);
    }
}

#[test]
fn runs_are_deterministic_and_independent_of_the_scorer() {
    let trap = Trap { k: 5, m: 3 };
    let cfg = BoaConfig { n: 400, max_generations: 8, ..BoaConfig::paper(Construction::Permutation) };
    let strip = |mut r: BoaResult| {
        r.timings = PhaseTimes::default();
        r
    };
    let a = strip(run(&trap, &cfg, 7, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
    let b = strip(run(&trap, &cfg, 7, &mut ParallelFamilyScorer::new(BaselineCounter)).unwrap());
    let c = strip(run(&trap, &cfg, 8, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
    assert_eq!(a, b);
    assert_ne!(a.history, c.history);
    assert_eq!(a.generations, 8);
    let bad = BoaConfig { selection: 1.0, ..cfg };
    assert!(run(&trap, &bad, 7, &mut CpuFamilyScorer::new(POPCNT)).is_err());
}

#[test]
fn counter_draws_are_philox_at_the_documented_counter() {
    let rng = CounterRng::new(0x1234_5678_9abc_def0);
    assert_eq!(rng.draw(7, Stream::Sampling, 11, 13), philox4x32_10([7, 2, 11, 13], [0x9abc_def0, 0x1234_5678])[0]);
    assert_eq!(rng.initial_allele(3, 4), (philox4x32_10([0, 0, 3, 4], [0x9abc_def0, 0x1234_5678])[0] >> 31) as u8);
    for ell in [1, 2, 30, 191] {
        let perm = rng.permutation(5, ell);
        let mut sorted = perm.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..ell).collect::<Vec<_>>(), "ℓ = {ell}");
        if ell > 2 {
            assert_ne!(perm, rng.permutation(6, ell), "a fresh permutation each generation");
        }
    }
}

#[test]
fn sampled_one_decides_in_integers() {
    for r in [0, 1, 1 << 31, u32::MAX] {
        assert!(!sampled_one(r, 0, 7), "p = 0 never samples 1");
        assert!(sampled_one(r, 7, 7), "p = 1 always samples 1");
    }
    // Unseen configuration: exactly half of all r.
    assert!(sampled_one((1 << 31) - 1, 0, 0) && !sampled_one(1 << 31, 0, 0));
    // p = 1/3: r / 2³² < 1/3 ⇔ 3r < 2³².
    let third = (1u64 << 32).div_ceil(3) as u32;
    assert!(sampled_one(third - 1, 1, 3) && !sampled_one(third, 1, 3));
}

#[test]
fn counter_sampling_is_independent_of_the_topological_order() {
    let pop = majority_blocks(4, 600, 3);
    let table = LnFactorial::new(pop.n());
    let rng = CounterRng::new(99);
    let perm = rng.permutation(0, pop.ell());
    let net = build_pboa(&pop, &mut CpuFamilyScorer::new(POPCNT), 3, &table, &perm).unwrap();
    assert!(net.edges() > 0);
    let tables = conditional_counts(&net, &pop).unwrap();
    assert!(tables.iter().zip(&net.parents).all(|(t, p)| t.len() == 1 << p.len() && t.iter().map(|c| c.1).sum::<u32>() == 600));
    let rows = sample_counter(&net, &tables, 50, &rng, 4);
    // The device's order: nodes by their position in the permutation.
    let mut by_position = vec![0; pop.ell()];
    for (i, &p) in perm.iter().enumerate() {
        by_position[p] = i;
    }
    assert_ne!(by_position, net.topological_order());
    let mut again = vec![0u8; rows.len()];
    for (c, child) in again.chunks_exact_mut(pop.ell()).enumerate() {
        for &i in &by_position {
            let pi = net.parents[i].iter().enumerate().fold(0, |pi, (b, &p)| pi | usize::from(child[p]) << b);
            let (ones, total) = tables[i][pi];
            child[i] = u8::from(sampled_one(rng.draw(4, Stream::Sampling, c as u32, i as u32), ones, total));
        }
    }
    assert_eq!(rows, again);
    assert_ne!(rows, sample_counter(&net, &tables, 50, &rng, 5), "each generation draws afresh");
}

#[test]
fn counter_runs_are_deterministic_solve_trap5_and_differ_from_the_paper_configuration() {
    let trap = Trap { k: 5, m: 4 };
    let strip = |mut r: BoaResult| {
        r.timings = PhaseTimes::default();
        r
    };
    let cfg = BoaConfig { n: 1000, max_generations: 30, rng: Randomness::Counter, ..BoaConfig::paper(Construction::Permutation) };
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    let a = strip(run_traced(&trap, &cfg, 2024, &mut CpuFamilyScorer::new(POPCNT), Some(&mut ta)).unwrap());
    let b = strip(run_traced(&trap, &cfg, 2024, &mut ParallelFamilyScorer::new(BaselineCounter), Some(&mut tb)).unwrap());
    assert_eq!(a, b);
    assert_eq!(ta, tb);
    assert_eq!(ta.len(), 30);
    assert!(a.best_solved == trap.m, "{a:?}");
    let paper = strip(run(&trap, &BoaConfig { rng: Randomness::Paper, ..cfg }, 2024, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
    assert_ne!(paper.history, a.history);
    let other = strip(run(&trap, &cfg, 2025, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
    assert_ne!(other.history, a.history);
    // sBOA takes its offspring from the counter too.
    let simple = BoaConfig { construction: Construction::Simple, max_generations: 3, ..cfg };
    let s1 = strip(run(&trap, &simple, 1, &mut CpuFamilyScorer::new(POPCNT)).unwrap());
    assert_eq!(s1, strip(run(&trap, &simple, 1, &mut CpuFamilyScorer::new(POPCNT)).unwrap()));
}
