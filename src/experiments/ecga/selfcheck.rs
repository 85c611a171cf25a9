//! The GPU self-check of the ecga kernels: `evorepro selfcheck --paper ecga`.

use crate::gpu::{self, Gpu};
use anyhow::Result;

/// gECGA against the CPU scorer and searches (exact equality); returns the failures.
pub fn selfcheck(gpu: &Gpu, small: bool, seed: u64) -> Result<usize> {
    let lines = gpu::ecga::self_check(gpu, seed, &gpu::ecga::self_check_sizes(small))?;
    let mut failed = 0;
    for l in &lines {
        let ok = l.host_search_identical && l.device_search_identical && l.differing_pairs == 0;
        if !ok {
            failed += 1;
        }
        println!(
            "{} ecga n={} ell={} {} {} max_l={}: {} merges, trace identical: host search={} device search={}, group entropies differing {}/{}",
            if ok { "ok  " } else { "FAIL" },
            l.n,
            l.ell,
            l.population,
            l.search,
            l.max_l,
            l.merges,
            l.host_search_identical,
            l.device_search_identical,
            l.differing_pairs,
            l.pairs
        );
    }
    if !lines.iter().any(|l| l.merges > 0) {
        println!("FAIL ecga: no search merged anything, so the check checked nothing");
        failed += 1;
    }
    println!("ecga kernels: {} searches checked, {failed} failed", lines.len());
    Ok(failed)
}
