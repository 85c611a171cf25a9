//! Criterion benchmarks of ECGA's CPU hot spots (Shao & Yu, Section 4.1): counting
//! the schemata of one group with each counter; scoring a batch of candidate merges
//! with each scorer, the multi-threaded one included, at ℓ = 100 and 500; the
//! merges of a 5-locus block with every other at ℓ = 100 and 150; one whole greedy
//! model build; the packing of a selected population by locus that every ECGA and
//! BOA generation pays; and whole ECGA runs with single-threaded FastCount at
//! ℓ = 100 and 150.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use evorepro::library::ecga::{
    BaselineCounter, CpuScorer, EcgaConfig, FastCount, FastCountKept, PairScorer, ParallelCpuScorer, Popcount, Population, PrefixFastCount,
    SchemaCounter, Search, XLogX, first_selection, greedy_search, run,
};
use evorepro::library::trap::Trap;
use std::time::Duration;

fn counters() -> Vec<Box<dyn SchemaCounter>> {
    vec![
        Box::new(BaselineCounter),
        Box::new(FastCount { popcount: Popcount::UnityTable16 }),
        Box::new(FastCount { popcount: Popcount::Hardware }),
        Box::new(PrefixFastCount { popcount: Popcount::Hardware }),
    ]
}

/// One group of S loci over the ℓ = 100 population of Table 5 (N = 6670), per counter.
fn schema_counting(c: &mut Criterion) {
    let pop = Population::random(6670, 100, 5).expect("valid sizes");
    let mut g = c.benchmark_group("ecga_count_n6670");
    g.throughput(Throughput::Elements(6670));
    g.sample_size(20).measurement_time(Duration::from_secs(1)).warm_up_time(Duration::from_millis(300));
    for size in [2usize, 5, 10] {
        let loci: Vec<usize> = (0..size).map(|j| j * 7).collect();
        let mut counts = vec![0u32; 1 << size];
        for counter in counters() {
            g.bench_with_input(BenchmarkId::new(counter.name(), size), &size, |b, _| b.iter(|| counter.count(&pop, &loci, &mut counts)));
        }
    }
    g.finish();
}

/// The counting paths as model building uses them: one batch of 256 candidate
/// merges of two single-locus groups (the first generation's pairs), scored with
/// each scorer, at ℓ = 100 (N = 6670, Table 5) and ℓ = 500 (N = 60775, the speed
/// profile's population).
fn pair_scoring(c: &mut Criterion) {
    for (ell, n) in [(100usize, 6670usize), (500, 60775)] {
        let pop = Population::random(n, ell, 9).expect("valid sizes");
        let xlogx = XLogX::new(n);
        let groups: Vec<Vec<usize>> = (0..ell).map(|l| vec![l]).collect();
        let pairs: Vec<(usize, usize)> = (0..ell).flat_map(|a| (a + 1..ell).map(move |b| (a, b))).take(256).collect();
        let mut g = c.benchmark_group(format!("ecga_score_256_pairs_l{ell}_n{n}"));
        g.throughput(Throughput::Elements(pairs.len() as u64));
        g.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(300));
        let scorers: Vec<(&str, Box<dyn PairScorer>)> = vec![
            ("baseline", Box::new(CpuScorer::new(BaselineCounter))),
            ("fastcount-popcnt", Box::new(CpuScorer::new(FastCount { popcount: Popcount::Hardware }))),
            ("prefix-fastcount-popcnt", Box::new(CpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware }))),
            ("prefix-fastcount-popcnt-mt", Box::new(ParallelCpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware }))),
        ];
        let mut out = Vec::new();
        for (name, mut scorer) in scorers {
            scorer.load(&pop, &xlogx).expect("population loads");
            g.bench_function(name, |b| b.iter(|| scorer.score(&groups, &pairs, &mut out).expect("pairs score")));
        }
        g.finish();
    }
}

/// The hot spot of single-threaded model building: after a merge, the merged
/// group is scored against every other live group. Here, on the first selected
/// population of a run at Table 5's ℓ = 100 (N = 6670) and ℓ = 150 (N = 11782),
/// the trap's first 5-locus block merged with each other block (ℓ/5 − 1 pairs of
/// 10 loci, the largest merges MAX_L = 10 lets the search score). Each iteration
/// loads the population afresh, so kept FastCount builds every group's tree anew.
fn merge_scoring(c: &mut Criterion) {
    for (ell, n) in [(100usize, 6670usize), (150, 11782)] {
        let trap = Trap { k: 5, m: ell / 5 };
        let pop = first_selection(&trap, n, 8, 3).expect("valid sizes");
        let xlogx = XLogX::new(n);
        let groups: Vec<Vec<usize>> = (0..trap.m).map(|b| (5 * b..5 * b + 5).collect()).collect();
        let pairs: Vec<(usize, usize)> = (1..trap.m).map(|b| (0, b)).collect();
        let mut g = c.benchmark_group(format!("ecga_score_block_merges_l{ell}_n{n}"));
        g.throughput(Throughput::Elements(pairs.len() as u64));
        g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
        let scorers: Vec<(&str, Box<dyn PairScorer>)> = vec![
            ("fastcount-table16", Box::new(CpuScorer::new(FastCount { popcount: Popcount::UnityTable16 }))),
            ("fastcount-popcnt", Box::new(CpuScorer::new(FastCount { popcount: Popcount::Hardware }))),
            ("fastcount-kept-table16", Box::new(CpuScorer::new(FastCountKept(FastCount { popcount: Popcount::UnityTable16 })))),
            ("fastcount-kept-popcnt", Box::new(CpuScorer::new(FastCountKept(FastCount { popcount: Popcount::Hardware })))),
        ];
        let mut out = Vec::new();
        for (name, mut scorer) in scorers {
            g.bench_function(name, |b| {
                b.iter(|| {
                    scorer.load(&pop, &xlogx).expect("population loads");
                    scorer.score(&groups, &pairs, &mut out).expect("pairs score")
                })
            });
        }
        g.finish();
    }
}

/// One greedy model build on the ℓ = 50 population of Table 5 (N = 2376).
fn model_building(c: &mut Criterion) {
    let pop = Population::random(2376, 50, 6).expect("valid sizes");
    let xlogx = XLogX::new(2376);
    let mut g = c.benchmark_group("ecga_greedy_search_l50_n2376");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    let scorers: Vec<(&str, Box<dyn PairScorer>)> = vec![
        ("baseline", Box::new(CpuScorer::new(BaselineCounter))),
        ("fastcount-table16", Box::new(CpuScorer::new(FastCount { popcount: Popcount::UnityTable16 }))),
        ("prefix-fastcount-popcnt", Box::new(CpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware }))),
        ("prefix-fastcount-popcnt-mt", Box::new(ParallelCpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware }))),
    ];
    for (name, mut scorer) in scorers {
        g.bench_function(name, |b| b.iter(|| greedy_search(&pop, scorer.as_mut(), 10, &xlogx).expect("search runs")));
    }
    g.finish();
}

/// Packing (with validation) of a selected population, once per generation of every
/// method: BOA's at ℓ = 190, the largest size its claims judge (2400 of N = 4800
/// individuals), and ECGA's at ℓ = 500 (N = 60 775, Table 5's fit).
fn population_packing(c: &mut Criterion) {
    for (n, ell) in [(2400, 190), (60_775, 500)] {
        let rows = Population::random(n, ell, 7).expect("valid sizes").rows().to_vec();
        let mut g = c.benchmark_group(format!("population_from_rows_n{n}_l{ell}"));
        g.throughput(Throughput::Bytes(rows.len() as u64));
        g.sample_size(20).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(300));
        g.bench_function("from_rows", |b| {
            b.iter_batched(|| rows.clone(), |r| Population::from_rows(n, ell, r).expect("valid alleles"), BatchSize::LargeInput)
        });
        g.finish();
    }
}

/// One whole ECGA run on the trap-5 (Section 5.2 settings, greedy search, the paper's
/// randomness) with single-threaded FastCount (the `fastcount` column of Figure 5) and
/// with its kept trees (beyond the paper), at Table 5's ℓ = 100 (N = 6670) and ℓ = 150
/// (N = 11782).
fn whole_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("ecga_whole_run");
    g.sample_size(10).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_millis(100));
    for (ell, n) in [(100usize, 6670usize), (150, 11782)] {
        let trap = Trap { k: 5, m: ell / 5 };
        let cfg = EcgaConfig::paper(ell, n, Search::Greedy);
        let fast = FastCount { popcount: Popcount::UnityTable16 };
        let scorers: [(&str, Box<dyn PairScorer>); 2] = [
            ("fastcount-table16", Box::new(CpuScorer::new(fast))),
            ("fastcount-kept-table16", Box::new(CpuScorer::new(FastCountKept(fast)))),
        ];
        for (name, mut scorer) in scorers {
            g.bench_function(BenchmarkId::new(name, format!("l{ell}_n{n}")), |b| {
                b.iter(|| run(&trap, &cfg, 1, scorer.as_mut()).expect("run completes"))
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = schema_counting, pair_scoring, merge_scoring, model_building, population_packing, whole_run
}
criterion_main!(benches);
