//! The gBOA spec (`experiments/gboa.toml`): settings of Section V, the profiles,
//! and validation that names file, line and key.

use crate::claims::judge::Band;
use crate::error::SpecError;
use crate::spec::{ClaimSpec, PaperMeta, Spanned, SpecFile};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GboaSpec {
    pub paper: PaperMeta,
    pub settings: Settings,
    pub stated: Stated,
    pub profiles: BTreeMap<String, Profile>,
    pub claims: Vec<ClaimSpec>,
}

/// Section V: trap order, parents per node, population and truncation share;
/// the range the claims judge (Table I's sizes chosen here, the paper's run length).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub seed: u64,
    pub k_trap: Spanned<usize>,
    pub max_parents: Spanned<usize>,
    pub population: Spanned<usize>,
    pub selection: Spanned<f64>,
    pub judged_ells: Spanned<Band>,
    pub judged_generations: Spanned<usize>,
}

/// What the text states (`[stated]`; Section V.B, Figure 7): gBOA's largest
/// speedups over sBOA and pBOA, and network construction's share of gBOA's run
/// after parallelization (smaller problems, the largest). The claims judge
/// against these and the report shows them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stated {
    pub speedup_over_sboa: Spanned<f64>,
    pub speedup_over_pboa: Spanned<f64>,
    pub construction_share: Spanned<f64>,
    pub construction_share_largest: Spanned<f64>,
}

crate::paper_profile! {
    pub struct Profile {
        pub table1_ells: Vec<Spanned<usize>>,
        pub generations: Spanned<usize>,
        pub runs: Spanned<usize>,
        pub complexity_ells: Vec<Spanned<usize>>,
        pub complexity_pops: Vec<Spanned<usize>>,
        pub complexity_ell: Spanned<usize>,
    }
}

/// Largest problem and population the harness accepts.
pub const MAX_ELL: usize = 4096;
pub const MAX_POP: usize = 1 << 20;
/// The most generations of a run (the paper's runs converge within a few hundred).
pub const MAX_GENERATIONS: usize = 100_000;

crate::paper_spec!(GboaSpec, Profile, validate);

/// Values that parse but cannot be run, with file, line and key.
pub fn validate(file: &SpecFile, spec: &GboaSpec) -> Result<(), SpecError> {
    let s = &spec.settings;
    let k = *s.k_trap;
    file.check_each([&s.k_trap], "settings.k_trap", |k| (2..=8).contains(k), |k| format!("trap order {k} must be in 2..=8"))?;
    file.check_each([&s.max_parents], "settings.max_parents", |m| (1..=8).contains(m), |_| "must be in 1..=8".into())?;
    file.check_each([&s.selection], "settings.selection", |f| *f > 0.0 && *f < 1.0, |_| "must be in (0, 1)".into())?;
    file.check_each([&s.judged_ells], "settings.judged_ells", |b| b.low >= 0.0, |_| "problem sizes must be positive".into())?;
    file.check_each([&s.judged_generations], "settings.judged_generations", |g| *g > 0, |_| "must be at least 1".into())?;
    let t = &spec.stated;
    for (key, v) in [("speedup_over_sboa", &t.speedup_over_sboa), ("speedup_over_pboa", &t.speedup_over_pboa)] {
        file.check_each([v], &format!("stated.{key}"), |v| v.is_finite() && *v > 0.0, |v| format!("a speedup must be positive, not {v}"))?;
    }
    for (key, v) in [("construction_share", &t.construction_share), ("construction_share_largest", &t.construction_share_largest)] {
        file.check_each([v], &format!("stated.{key}"), |v| (0.0..=1.0).contains(v), |v| format!("a share lies in 0..=1, not {v}"))?;
    }
    if *t.construction_share_largest < *t.construction_share {
        let why =
            format!("the largest problems' share {} lies below the smaller ones' {}", t.construction_share_largest, t.construction_share);
        return Err(file.invalid(&t.construction_share_largest, "stated.construction_share_largest", why));
    }
    let pops = spec.profiles.iter().flat_map(|(name, p)| p.complexity_pops.iter().map(move |n| (name, n)));
    for (name, n) in
        pops.map(|(name, n)| (format!("profiles.{name}.complexity_pops"), n)).chain([("settings.population".into(), &s.population)])
    {
        file.check_each([n], &name, |n| (4..=MAX_POP).contains(n), |n| format!("population {n} must be in 4..={MAX_POP}"))?;
    }
    for (name, p) in &spec.profiles {
        file.check_each([&p.generations], &format!("profiles.{name}.generations"), |g| *g > 0, |_| "must be at least 1".into())?;
        // Each generation samples N new strings of ℓ bits (and builds a model over as many).
        let ell = p.table1_ells.iter().chain(&p.complexity_ells).chain([&p.complexity_ell]).map(|e| **e).max().unwrap_or(k);
        let n = *s.population as f64;
        file.check_at_most(&p.generations, &format!("profiles.{name}.generations"), MAX_GENERATIONS as u64, |g| {
            format!("a run of N = {n} at ℓ = {ell} would draw {}", crate::spec::steps_time(g * n * ell as f64))
        })?;
        file.check_repeats(&p.runs, &format!("profiles.{name}.runs"))?;
        let ells = p.table1_ells.iter().map(|e| ("table1_ells", e)).chain(p.complexity_ells.iter().map(|e| ("complexity_ells", e)));
        for (key, ell) in ells.chain([("complexity_ell", &p.complexity_ell)]) {
            let why = |v: &usize| format!("ℓ = {v} must be a positive multiple of k_trap = {k} and at most {MAX_ELL}");
            file.check_each([ell], &format!("profiles.{name}.{key}"), |v| *v > 0 && v % k == 0 && *v <= MAX_ELL, why)?;
        }
    }
    Ok(())
}
