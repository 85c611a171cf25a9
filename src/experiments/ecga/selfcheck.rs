//! The GPU self-check of the ecga kernels: `evorepro selfcheck --paper ecga`.

use crate::gpu::{self, Gpu};
use anyhow::Result;

/// gECGA against the CPU scorer and searches (exact equality), and whole runs
/// on the device against the CPU run ([`whole_runs`]); returns the failures.
pub fn selfcheck(gpu: &Gpu, small: bool, seed: u64, _datasets: &std::path::Path) -> Result<usize> {
    let lines = gpu::gecga::self_check(gpu, seed, &gpu::gecga::self_check_sizes(small))?;
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
    let vacuous = (!lines.iter().any(|l| l.merges > 0)).then_some("no search merged anything, so the check checked nothing");
    let failed = crate::experiments::tally(super::ECGA.id, "ecga kernels", lines.len(), "searches", failed, vacuous);
    Ok(failed + whole_runs(gpu, small, seed)?)
}

/// Whole ECGA runs on the device (`gpu::ecga_run`) against the CPU run with
/// counter-based randomness: every generation's selected population and model,
/// and the result, identical; returns the failures.
fn whole_runs(gpu: &Gpu, small: bool, seed: u64) -> Result<usize> {
    let lines = gpu::ecga_run::self_check(gpu, seed, &gpu::ecga_run::self_check_sizes(small))?;
    let mut failed = 0;
    for l in &lines {
        let ok = l.first_difference.is_none() && l.result_identical && l.generations > 0;
        failed += usize::from(!ok);
        println!(
            "{} ecga whole run n={} ell={} {} seed={}: {} generations, first differing generation {}, result identical {}",
            if ok { "PASS" } else { "FAIL" },
            l.n,
            l.ell,
            l.search,
            l.seed,
            l.generations,
            l.first_difference.map_or("none".to_string(), |g| g.to_string()),
            l.result_identical
        );
    }
    println!("ecga whole runs on the device: {} runs checked, {failed} failed", lines.len());
    Ok(failed)
}
