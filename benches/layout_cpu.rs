//! Criterion benchmarks of the CPU hot spots of the layout paper: sequential and
//! multi-threaded evaluation of the six functions at a size far beyond the
//! last-level cache (8000 × 2000 f32 = 64 MB), reported as input bytes per second
//! so they read directly against `evorepro hw`'s memory-bandwidth ceiling.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use evorepro::library::nonseparable::{Function, evaluate_parallel, evaluate_sequential, random_population};
use std::time::Duration;

fn layout_cpu(c: &mut Criterion) {
    let (pop, dim) = (8000, 2000);
    let x = random_population(pop, dim, 7);
    let mut out = vec![0.0f32; pop];
    let mut g = c.benchmark_group("layout_cpu_8000x2000");
    g.throughput(Throughput::Bytes((pop * dim * 4) as u64));
    g.sample_size(10).measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    for f in Function::ALL {
        g.bench_function(format!("sequential/{f}"), |b| b.iter(|| evaluate_sequential(f, &x, dim, &mut out)));
        g.bench_function(format!("parallel/{f}"), |b| b.iter(|| evaluate_parallel(f, &x, dim, &mut out)));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().without_plots();
    targets = layout_cpu
}
criterion_main!(benches);
