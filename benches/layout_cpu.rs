//! Criterion benchmarks of the CPU hot spots of the layout paper: sequential and
//! multi-threaded evaluation of the six functions at a size far beyond the
//! last-level cache (8000 × 2000 f32 = 64 MB), and the sequential evaluation of
//! the light functions at 16000 × 4000 (256 MB), reported as input bytes per
//! second so they read directly against `evorepro hw`'s memory-bandwidth ceiling;
//! and S4's host-side transposition (Section 3.2.4) at the paper's largest size,
//! an odd shape and 65536 × 4096 (1 GiB), in input bytes per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use evorepro::library::nonseparable::{Function, evaluate_parallel, evaluate_sequential, random_population, transpose_into};
use std::time::Duration;

fn layout_cpu(c: &mut Criterion) {
    // (pop, dim, whether all six functions and the parallel path run at this size)
    for (pop, dim, all) in [(8000, 2000, true), (16000, 4000, false)] {
        let x = random_population(pop, dim, 7);
        let mut out = vec![0.0f32; pop];
        let mut g = c.benchmark_group(format!("layout_cpu_{pop}x{dim}"));
        g.throughput(Throughput::Bytes((pop * dim * 4) as u64));
        g.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
        for f in Function::ALL.into_iter().filter(|f| all || !f.is_heavy()) {
            g.bench_function(format!("sequential/{f}"), |b| b.iter(|| evaluate_sequential(f, &x, dim, &mut out)));
            if all {
                g.bench_function(format!("parallel/{f}"), |b| b.iter(|| evaluate_parallel(f, &x, dim, &mut out)));
            }
        }
        g.finish();
    }
}

/// The population, individual-major, into S4's dimension-major layout.
fn transposition(c: &mut Criterion) {
    let mut g = c.benchmark_group("layout_transpose");
    g.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    for (pop, dim) in [(8000, 2000), (2001, 999), (65536, 4096)] {
        let x = random_population(pop, dim, 7);
        let mut t = vec![0.0f32; pop * dim];
        g.throughput(Throughput::Bytes((pop * dim * 4) as u64));
        g.bench_function(format!("{pop}x{dim}"), |b| b.iter(|| transpose_into(&x, pop, dim, &mut t)));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = layout_cpu, transposition
}
criterion_main!(benches);
