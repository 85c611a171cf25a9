//! The GPU self-check of the biohel kernels: `evorepro selfcheck --paper biohel`.

use crate::gpu::{self, Gpu};
use anyhow::{Context, Result};
use std::path::Path;

/// BioHEL's evaluation kernels against the serial counts (exact equality), on
/// synthetic mixed sets and, unless `small`, on vendored real sets (under
/// `datasets/biohel`); returns the failures.
pub fn selfcheck(gpu: &Gpu, small: bool, seed: u64, datasets: &Path) -> Result<usize> {
    use crate::library::dataset;
    let mut sets = vec![dataset::scalable(3001, 12, 3, 0.5, seed), dataset::parmx()];
    if !small {
        sets.push(dataset::waveform(20_000, seed));
        let dir = datasets.join("biohel");
        for name in ["adu", "c-4"] {
            let mut d =
                dataset::load_named(&dir, name, datasets.parent()).with_context(|| format!("data set `{name}` under {}", dir.display()))?;
            let all: Vec<usize> = (0..d.instances()).collect();
            d.impute_missing(&all);
            sets.push(d);
        }
    }
    let (windows, rules) = if small { (3, 40) } else { (5, 200) };
    let lines = gpu::biohel::self_check(gpu, seed, &sets, windows, rules)?;
    let mut failed = 0;
    for l in &lines {
        let ok = l.differing == 0;
        failed += usize::from(!ok);
        let budget =
            if l.budget_passes > 0 { format!("forced budget, {} passes per window", l.budget_passes) } else { "device budget".into() };
        println!(
            "{} biohel {} {} ({budget}): {} rules × {} windows, counts differing {}/{}",
            if ok { "ok  " } else { "FAIL" },
            l.design.label(),
            l.dataset,
            l.rules,
            l.windows,
            l.differing,
            l.compared
        );
    }
    let split = lines.iter().any(|l| l.budget_passes > 1);
    let vacuous = (!split).then_some("the forced memory budget never split the work, so the memory plan was not exercised");
    Ok(crate::experiments::tally(super::BIOHEL.id, "biohel kernels", lines.len(), "configurations", failed, vacuous))
}
