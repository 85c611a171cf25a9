//! Criterion benchmarks of the CPU hot spots of the island GA (Jaros, Section V:
//! one generation of one island of 2048 on the 10,000-item instance, one thread and
//! all threads; Philox 4×32-10 alone) and of BioHEL's evaluation (Franco et al.,
//! Section 3: 100 random rules over adult's training set, serial and all threads).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use evorepro::library::biohel::{ParallelEvaluator, RuleEvaluator, SerialEvaluator, random_rule};
use evorepro::library::dataset;
use evorepro::library::island::{Config, Island, Parameters, Threads};
use evorepro::library::knapsack::{Evaluator, Instance};
use evorepro::library::philox::philox4x32_10;
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::hint::black_box;
use std::time::Duration;

/// One generation (genetic manipulation, evaluation, replacement) of one island.
fn island_generation(c: &mut Criterion) {
    let instance = Instance::load("datasets/knapsack/jaros_knap_10000.txt", None).expect("the vendored instance loads");
    let evaluator = Evaluator::new(&instance);
    let mut g = c.benchmark_group("island_generation_2048x10000");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    for (name, threads) in [("1-thread", Threads::Single), ("all-threads", Threads::Rayon)] {
        let config = Config { threads, ..Config::paper(1, 2048, 1_000_000, 7) };
        let parameters = Parameters::new(&instance, &config).expect("valid configuration");
        let mut island = Island::new(&evaluator, parameters, 0, threads);
        let mut generation = 0;
        g.bench_function(name, |b| {
            b.iter(|| {
                island.generation(&evaluator, generation, threads);
                generation += 1;
            })
        });
    }
    g.finish();
}

/// Philox 4×32-10 calls (four 32-bit numbers each), the GA's arithmetic hot spot.
fn philox(c: &mut Criterion) {
    let mut g = c.benchmark_group("philox4x32_10");
    g.throughput(Throughput::Elements(1024));
    g.sample_size(20).measurement_time(Duration::from_secs(1)).warm_up_time(Duration::from_millis(300));
    g.bench_function("1024 calls", |b| {
        b.iter(|| (0..1024u32).fold(0u32, |acc, i| acc ^ philox4x32_10(black_box([i, 1, 2, 3]), [7, 9])[0]))
    });
    g.finish();
}

/// 100 random rules over adult's 48,842 instances (the three counts of Section 3).
fn biohel_evaluation(c: &mut Criterion) {
    let mut data = dataset::load_named(std::path::Path::new("datasets/biohel"), "adu", None).expect("the vendored adult set loads");
    let all: Vec<usize> = (0..data.instances()).collect();
    data.impute_missing(&all);
    let mut rng = StdRng::seed_from_u64(3);
    let rules: Vec<_> = (0..100).map(|_| random_rule(&data, &mut rng, 0.3)).collect();
    let mut g = c.benchmark_group("biohel_eval_adult_100_rules");
    g.throughput(Throughput::Elements((rules.len() * data.instances()) as u64));
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    let evaluators: Vec<(&str, Box<dyn RuleEvaluator>)> =
        vec![("serial", Box::new(SerialEvaluator)), ("all-threads", Box::new(ParallelEvaluator))];
    for (name, mut evaluator) in evaluators {
        let mut out = Vec::new();
        g.bench_function(name, |b| b.iter(|| evaluator.evaluate(&data, 0..data.instances(), &rules, &mut out).expect("valid rules")));
    }
    g.finish();
}

criterion_group!(benches, island_generation, philox, biohel_evaluation);
criterion_main!(benches);
