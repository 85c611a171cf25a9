//! The typed spec of the ECGA paper (`experiments/ecga.toml`) and its checks
//! at load: settings of Section 5.2, profiles, the paper's Table 5, its
//! Figure 5 speedups at ℓ = 500 and its scalability point of Section 5.4.

use crate::error::SpecError;
use crate::gpu::gecga::KERNEL_MAX_L;
use crate::hardware::Quantity;
use crate::library::ecga::{EcgaConfig, Randomness, Search};
use crate::spec::{ClaimSpec, MAX_REPEATS, PaperMeta, Spanned, SpecFile};
use crate::stats;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// The largest problem the harness accepts (the paper's scalability limit).
pub const MAX_ELL: usize = 10_000;
/// The most cases a whole run's builds are dealt into.
pub const MAX_WHOLE_CHUNKS: usize = 10_000;
/// The most builds timed at once.
pub const MAX_WHOLE_THREADS: usize = 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcgaSpec {
    pub paper: PaperMeta,
    pub settings: Settings,
    pub profiles: BTreeMap<String, Profile>,
    pub table5: Vec<Table5Row>,
    pub fig5_paper: Fig5Paper,
    pub scale_paper: ScalePaper,
    pub claims: Vec<ClaimSpec>,
}

/// Section 5.4: the largest problem one C2050 holds, by Table 4 at the
/// theoretical population of the paper's ref. [22].
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScalePaper {
    pub ell: usize,
    pub n: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub seed: u64,
    pub k: Spanned<usize>,
    pub tournament: Spanned<usize>,
    pub max_l: Spanned<usize>,
    pub bisection_n0: Spanned<usize>,
    pub bisection_precision: Spanned<f64>,
    /// Figure 6's claims judge only populations at least this large: the paper
    /// gives none for its (10,5)-trap runs, and those its text implies solve the
    /// problem (Table 5's ℓ = 50 size and up).
    pub fig6_paper_min_n: usize,
}

crate::paper_profile! {
    pub struct Profile {
        pub table5_ells: Vec<Spanned<usize>>,
        pub table5_bisections: Spanned<usize>,
        /// Table 5's per-trial rule: runs per population size tried, and the runs
        /// that must succeed for the size to succeed (1 of 1 without them).
        #[serde(default = "one")]
        pub table5_runs_per_trial: Spanned<usize>,
        #[serde(default = "one")]
        pub table5_successes: Spanned<usize>,
        /// The random numbers of Table 5's runs: `paper` (the default) or
        /// `counter`, whose runs go wholly on the device where there is a GPU.
        #[serde(default = "paper_randomness")]
        pub table5_randomness: Spanned<String>,
        pub fig5_ells: Vec<Spanned<usize>>,
        pub fig5_runs: Spanned<usize>,
        pub cpu_1t_max_ell: usize,
        pub fig6_pops: Vec<Spanned<usize>>,
        pub fig6_runs: Spanned<usize>,
        pub fig7_ells: Vec<Spanned<usize>>,
        pub fig7_runs: Spanned<usize>,
        /// ℓ of single model builds (the first generation's selected population)
        /// timed with every scorer, the baseline included: the speed goal at ℓ =
        /// 500, where a whole baseline run does not fit a GPU-machine command.
        #[serde(default)]
        pub build_ells: Vec<Spanned<usize>>,
        /// Times the `build` case's selection is built by each multi-threaded or
        /// GPU scorer, for the spread of its time (the single-threaded scorers
        /// build it once: the baseline's build at ℓ = 500 takes about 3 minutes).
        #[serde(default = "one")]
        pub build_repeats: Spanned<usize>,
        /// Builds of each ℓ, each a case of its own on its own selection
        /// (`build/l<ℓ>/r<k>`; one: `build/l<ℓ>`), for the spread of the
        /// single-threaded scorers' times a case builds once.
        #[serde(default = "one")]
        pub build_runs: Spanned<usize>,
        /// One model build per search (greedy, GM) at the paper's scalability point
        /// (`[scale_paper]`: ℓ and N of Section 5.4) with gECGA, on a planted population.
        #[serde(default)]
        pub scale_build: bool,
        /// Merged-group sizes L whose scoring the `count` case times alone, at the
        /// scalability point's N (`[scale_paper]`).
        #[serde(default)]
        pub count_sizes: Vec<Spanned<usize>>,
        /// ℓ of whole runs timed against the single-threaded scorers as Section 5.3
        /// times them, where a whole baseline run outlasts a GPU-machine command: a
        /// run with counter-based randomness keeps each generation's selected
        /// population, and the baseline and FastCount build each generation's model,
        /// one build per timing, `whole_threads` builds at once, beside the `build`
        /// case's selection, whose lone time checks that sharing the host's cores
        /// costs a build under 5%.
        #[serde(default)]
        pub whole_ells: Vec<Spanned<usize>>,
        /// Whole runs (seeds) per ℓ of `whole_ells`.
        #[serde(default)]
        pub whole_runs: usize,
        /// Cases each whole run's builds are dealt into (generation g to case g mod this).
        #[serde(default)]
        pub whole_chunks: usize,
        /// Builds at once (0: the host's physical cores).
        #[serde(default)]
        pub whole_threads: usize,
    }
}

fn one() -> Spanned<usize> {
    Spanned::new(0..0, 1)
}

fn paper_randomness() -> Spanned<String> {
    Spanned::new(0..0, Randomness::Paper.name().to_owned())
}

impl Profile {
    /// Table 5's randomness (checked at load).
    pub fn table5_randomness(&self) -> Randomness {
        if *self.table5_randomness == Randomness::Counter.name() { Randomness::Counter } else { Randomness::Paper }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table5Row {
    pub ell: usize,
    pub greedy: usize,
    pub gm: usize,
}

/// Sections 5.3 and 5.5: the speedups at ℓ = 500 on the C2050.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fig5Paper {
    pub ell: usize,
    pub spg_m: f64,
    pub spg_w: f64,
    pub spcg: f64,
    pub spgm_w: f64,
}

/// What the paper published that the checks set measurements against.
#[derive(Clone, Debug)]
pub struct Published {
    pub fig5: Fig5Paper,
    pub scale: ScalePaper,
    /// MAX_L of Section 5.2 (Table 4's model matrix has ℓ(MAX_L + 1) entries).
    pub max_l: usize,
}

impl EcgaSpec {
    pub fn published(&self) -> Published {
        Published { fig5: self.fig5_paper.clone(), scale: self.scale_paper.clone(), max_l: *self.settings.max_l }
    }

    /// The population of Figures 5 and 7: the paper's Table 5 where it has ℓ,
    /// else the power law fitted to its Table 5 (the paper used theory past 350).
    pub fn population(&self, ell: usize, search: Search) -> usize {
        let of = |r: &Table5Row| if search == Search::Greedy { r.greedy } else { r.gm };
        if let Some(r) = self.table5.iter().find(|r| r.ell == ell) {
            return of(r);
        }
        self.fitted_population(ell, search)
    }

    /// ℓ ↦ N by the power law fitted to the paper's Table 5 for `search` (the
    /// theory of its ref. [22] is not in its text).
    pub fn fitted_population(&self, ell: usize, search: Search) -> usize {
        let of = |r: &Table5Row| if search == Search::Greedy { r.greedy } else { r.gm };
        let pts: Vec<(f64, f64)> = self.table5.iter().map(|r| (r.ell as f64, of(r) as f64)).collect();
        let (a, b) = power_fit(&pts).expect("Table 5 has several rows (checked at load)");
        (a * (ell as f64).powf(b)).round() as usize
    }

    pub fn config(&self, n: usize, ell: usize, search: Search) -> EcgaConfig {
        let s = &self.settings;
        EcgaConfig { n, tournament: *s.tournament, max_l: *s.max_l, max_generations: 4 * ell, search, randomness: Randomness::Paper }
    }

    pub fn seed(&self, case_id: &str) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        case_id.hash(&mut h);
        self.settings.seed ^ h.finish()
    }
}

/// Population-sizing power law n = a·ℓ^b, least squares in log–log space.
pub fn power_fit(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let (x, y): (Vec<f64>, Vec<f64>) = points.iter().filter(|p| p.0 > 0.0 && p.1 > 0.0).map(|p| (p.0.ln(), p.1.ln())).unzip();
    stats::linear_fit(&x, &y).map(|(b, ln_a)| (ln_a.exp(), b))
}

crate::paper_spec!(EcgaSpec, Profile, validate);

/// Checks what the types cannot: ranges of the settings and sizes, Table 5
/// enough to fit, and the datasheet value the scalability claim needs.
pub fn validate(file: &SpecFile, spec: &EcgaSpec) -> Result<(), SpecError> {
    let s = &spec.settings;
    let k = *s.k;
    let (max_l, tournament) = (*s.max_l, *s.tournament);
    file.check_each([&s.k], "settings.k", |k| (2..=max_l / 2).contains(k), |k| format!("trap order {k} must be in 2..=max_l/2"))?;
    file.check_each([&s.max_l], "settings.max_l", |l| (2..=KERNEL_MAX_L).contains(l), |_| format!("must be in 2..={KERNEL_MAX_L}"))?;
    file.check_each([&s.tournament], "settings.tournament", |t| *t >= 2, |_| "must be at least 2".into())?;
    file.check_each([&s.bisection_n0], "settings.bisection_n0", |n| *n >= tournament, |_| "must be at least the tournament size".into())?;
    let max_n = crate::library::ecga::BisectionCriteria::default().max_n;
    file.check_at_most(&s.bisection_n0, "settings.bisection_n0", max_n as u64, |n| {
        format!(
            "the bisection doubles N up to {max_n}; a population of {n:.0} at ℓ = {MAX_ELL} would hold {}",
            crate::spec::bytes_text(n * MAX_ELL as f64)
        )
    })?;
    file.check_each([&s.bisection_precision], "settings.bisection_precision", |p| *p > 0.0 && *p < 1.0, |_| "must be in (0, 1)".into())?;
    for (name, p) in &spec.profiles {
        for (key, ells) in [
            ("table5_ells", &p.table5_ells),
            ("fig5_ells", &p.fig5_ells),
            ("fig7_ells", &p.fig7_ells),
            ("build_ells", &p.build_ells),
            ("whole_ells", &p.whole_ells),
        ] {
            let why = |v: &usize| format!("ℓ = {v} must be a positive multiple of k = {k} and at most {MAX_ELL}");
            file.check_each(ells, &format!("profiles.{name}.{key}"), |v| *v > 0 && v % k == 0 && *v <= MAX_ELL, why)?;
        }
        let why = |n: &usize| format!("group size {n} must be in 1..={KERNEL_MAX_L}");
        file.check_each(&p.count_sizes, &format!("profiles.{name}.count_sizes"), |n| (1..=KERNEL_MAX_L).contains(n), why)?;
        for ell in &p.whole_ells {
            let why = if p.whole_runs == 0 || p.whole_chunks == 0 {
                "needs whole_runs ≥ 1 and whole_chunks ≥ 1 in the same profile"
            } else if !p.build_ells.iter().any(|b| **b == **ell) {
                "needs the same ℓ in build_ells (its lone builds check the concurrent ones)"
            } else {
                continue;
            };
            return Err(file.invalid(ell, &format!("profiles.{name}.whole_ells"), format!("ℓ = {} {why}", **ell)));
        }
        let runs = *p.table5_runs_per_trial;
        let why = |n: &usize| format!("{n} successes of {runs} runs a trial: need 1 ≤ table5_successes ≤ table5_runs_per_trial");
        file.check_each([&p.table5_successes], &format!("profiles.{name}.table5_successes"), |n| (1..=runs).contains(n), why)?;
        let known = [Randomness::Paper.name(), Randomness::Counter.name()];
        let why = |r: &String| format!("`{r}` is not one of {}", known.join(", "));
        file.check_each([&p.table5_randomness], &format!("profiles.{name}.table5_randomness"), |r| known.contains(&r.as_str()), why)?;
        let why = |n: &usize| format!("population {n} must be ≥ the tournament size ({tournament}) and ≤ 2^24");
        file.check_each(&p.fig6_pops, &format!("profiles.{name}.fig6_pops"), |n| *n >= tournament && *n <= 1 << 24, why)?;
        for (key, n) in [
            ("table5_bisections", &p.table5_bisections),
            ("table5_runs_per_trial", &p.table5_runs_per_trial),
            ("fig5_runs", &p.fig5_runs),
            ("fig6_runs", &p.fig6_runs),
            ("fig7_runs", &p.fig7_runs),
            ("build_repeats", &p.build_repeats),
            ("build_runs", &p.build_runs),
        ] {
            file.check_repeats(n, &format!("profiles.{name}.{key}"))?;
        }
        // Read without spans: the error names the key's line in the profile.
        let table = format!("profiles.{name}");
        for (key, n, max, what) in [
            ("whole_runs", p.whole_runs, MAX_REPEATS, "whole runs, each a case of its own per chunk"),
            ("whole_chunks", p.whole_chunks, MAX_WHOLE_CHUNKS, "chunks, each a case of its own per run"),
            ("whole_threads", p.whole_threads, MAX_WHOLE_THREADS, "builds at once, each holding a selected population"),
        ] {
            if n > max {
                return Err(file.invalid_key(&table, key, format!("{n}: at most {max} ({n} {what})")));
            }
        }
    }
    // Neither table keeps spans: the error names the line where the table starts.
    let invalid = |at: &str, key: &str, message: &str| SpecError::Invalid {
        path: file.path.clone(),
        line: file.text.find(at).map_or(1, |i| file.line_of(i)),
        key: key.into(),
        message: message.into(),
    };
    if spec.table5.iter().filter(|r| r.ell > 0 && r.greedy > 0 && r.gm > 0).count() < 2 {
        return Err(invalid(
            "[[table5]]",
            "table5",
            "needs two rows or more with positive sizes (the populations past ℓ = 350 are fitted to it)",
        ));
    }
    if !spec.paper.hardware.datasheet.contains_key(&Quantity::GpuMemory) {
        return Err(invalid(
            "[paper.hardware.datasheet]",
            "paper.hardware.datasheet.gpu_memory",
            "the scalability claim (Section 5.4) needs the memory a CUDA program may use on the paper's GPU",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn load(edit: impl Fn(String) -> String) -> Result<(), SpecError> {
        let text = edit(include_str!("../../../experiments/ecga.toml").to_owned());
        let file = SpecFile::from_text(Path::new("ecga.toml"), text);
        validate(&file, &file.parse()?)
    }

    #[test]
    fn the_shipped_spec_loads_and_its_datasheet_gives_the_memory_the_scale_claim_needs() {
        load(|t| t).unwrap();
        let e = load(|t| t.lines().filter(|l| !l.starts_with("gpu_memory")).collect::<Vec<_>>().join("\n")).unwrap_err().to_string();
        assert!(e.contains("paper.hardware.datasheet.gpu_memory"), "{e}");
    }

    #[test]
    fn a_table_5_rule_needs_its_successes_among_its_runs_and_a_known_randomness() {
        let e = load(|t| t.replace("table5_runs_per_trial = 5\n", "table5_runs_per_trial = 2\n")).unwrap_err().to_string();
        assert!(e.contains("profiles.gpu-table5.table5_successes") && e.contains("3 successes of 2 runs"), "{e}");
        let e = load(|t| t.replace("table5_randomness = \"counter\"", "table5_randomness = \"philox\"")).unwrap_err().to_string();
        assert!(e.contains("profiles.gpu-table5.table5_randomness") && e.contains("`philox`"), "{e}");
        let file = SpecFile::from_text(Path::new("ecga.toml"), include_str!("../../../experiments/ecga.toml").into());
        let spec: EcgaSpec = file.parse().unwrap();
        let (quick, device) = (&spec.profiles["quick"], &spec.profiles["gpu-table5"]);
        assert_eq!((*quick.table5_runs_per_trial, *quick.table5_successes), (1, 1), "the default: one run of one");
        assert_eq!(quick.table5_randomness(), Randomness::Paper);
        assert_eq!((*device.table5_runs_per_trial, device.table5_randomness()), (5, Randomness::Counter));
    }

    #[test]
    fn populations_past_table_5_follow_its_power_law() {
        let file = SpecFile::from_text(Path::new("ecga.toml"), include_str!("../../../experiments/ecga.toml").into());
        let spec: EcgaSpec = file.parse().unwrap();
        assert_eq!(spec.population(350, Search::Greedy), 36992, "Table 5 itself");
        let n500 = spec.population(500, Search::Greedy);
        assert!((55_000..65_000).contains(&n500), "{n500}");
        assert!(spec.population(500, Search::GreedyMating) > n500);
    }
}
