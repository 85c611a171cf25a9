//! Criterion benchmarks of ECGA's CPU hot spots (Shao & Yu, Section 4.1): counting
//! the schemata of one group with each counter; scoring a batch of candidate merges
//! with each scorer, the multi-threaded one included, at ℓ = 100 and 500; one whole
//! greedy model build; and the packing of a selected population by locus that every
//! ECGA and BOA generation pays.

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use evorepro::library::ecga::{
    BaselineCounter, CpuScorer, FastCount, PairScorer, ParallelCpuScorer, Popcount, Population, PrefixFastCount, SchemaCounter, XLogX,
    greedy_search,
};
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

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = schema_counting, pair_scoring, model_building, population_packing
}
criterion_main!(benches);
