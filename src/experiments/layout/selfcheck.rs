//! The GPU self-check of the layout kernels: `evorepro selfcheck --paper layout`.

use crate::gpu::{self, Gpu};
use anyhow::Result;

/// Layout kernels S1–S4 against the f64 CPU reference; returns the failures.
pub fn selfcheck(gpu: &Gpu, small: bool, seed: u64, _datasets: &std::path::Path) -> Result<usize> {
    let blocks = if small { vec![32, 256] } else { vec![32, 64, 128, 256, 512, 1024] };
    let lines = gpu::layout::self_check(gpu, seed, &gpu::layout::self_check_sizes(small), &blocks)?;
    let mut failed = 0;
    let (mut ran, mut cannot) = (0, 0);
    for l in &lines {
        match &l.outcome {
            Ok(c) => {
                ran += 1;
                if !l.passed() {
                    failed += 1;
                    println!(
                        "FAIL layout {} {} {}x{} block {}: {c:?} repeatable={}",
                        l.strategy, l.function, l.pop, l.dim, l.block, l.repeatable
                    );
                }
            }
            Err(_) => cannot += 1,
        }
    }
    let worst = lines.iter().filter_map(|l| l.outcome.as_ref().ok()).map(|c| c.worst_ratio).fold(0.0, f64::max);
    println!(
        "layout kernels: {ran} configurations checked, {cannot} cannot run (S3 beyond its limits), {failed} failed; worst error / tolerance = {worst:.3}"
    );
    Ok(failed)
}
