//! The GPU self-check of the gboa kernels: `evorepro selfcheck --paper gboa`.

use crate::gpu::{self, Gpu};
use anyhow::Result;

/// gBOA against the CPU K2 scores and pBOA networks (exact equality); returns the failures.
pub fn selfcheck(gpu: &Gpu, small: bool, seed: u64) -> Result<usize> {
    let lines = gpu::boa::self_check(gpu, seed, &gpu::boa::self_check_sizes(small), 3)?;
    let mut failed = 0;
    for l in &lines {
        let ok = l.identical_network && l.differing == 0;
        failed += usize::from(!ok);
        println!(
            "{} gboa n={} ell={}: network of {} edges identical={}, family scores differing {}/{}",
            if ok { "ok  " } else { "FAIL" },
            l.n,
            l.ell,
            l.edges,
            l.identical_network,
            l.differing,
            l.families
        );
    }
    if !lines.iter().any(|l| l.edges > 0) {
        println!("FAIL gboa: no network had an edge, so the check checked nothing");
        failed += 1;
    }
    println!("gboa kernels: {} populations checked, {failed} failed", lines.len());
    if !small {
        // The block size of the network kernel, measured (docs/gpu-notes.md): one
        // network at the paper's 192 bits (ℓ = 190) and N = 4800 (2400 selected).
        for (shape, ms, d) in gpu::boa::time_shapes(gpu, seed, 2400, 190, 3, 50)? {
            println!(
                "time gboa network n=2400 ell=190 warps={:2} lanes/family={:2}: {ms:.3} ms per network, kernel {:.3} ms, device call {:.3} ms, \
                 {:.2e} alleles",
                shape.warps, shape.group, d.kernel_ms, d.calls_ms, d.alleles
            );
        }
    }
    Ok(failed)
}
