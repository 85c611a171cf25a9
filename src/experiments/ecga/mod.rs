//! The ECGA paper: Shao & Yu, "Speeding Up Model Building for ECGA on CUDA
//! Platform" (GECCO 2013).
//!
//! Cases:
//! - `table5/<search>/l<ℓ>/b<i>`: one bisection (Section 5.2) for the smallest
//!   population solving m − 1 subproblems, greedy or GM search.
//! - `fig5/l<ℓ>/r<i>`: one ECGA run at the paper's Table 5 population, repeated
//!   with every scorer from the same seed — the baseline of Lobo et al., FastCount
//!   on one CPU thread (Section 4.1), multi-threaded FastCount (an extra column)
//!   and gECGA (Section 4.2) — timing model building and the whole run; every
//!   scorer must produce the identical run.
//! - `fig6/<search>/n<N>/r<i>`: model quality and ratio of ones per generation on
//!   the (10,5)-trap (Figure 6).
//! - `fig7/l<ℓ>/r<i>`: GM search at its own Table 5 population with the fastest
//!   scorer, for spgm (Figure 7).
//! - `build/l<ℓ>`: one model build of the first generation's selection with every
//!   scorer (the speed goals at ℓ = 500).
//! - `scale/l<ℓ>[/gm]`: one gECGA model build at the paper's scalability point
//!   (Section 5.4).
//! - `count/n<N>`: the counting kernel alone — random merged groups of each size
//!   scored over a population of the scalability point's N, checked against the
//!   CPU and timed (the counting-rate goal where counting dominates).

pub mod selfcheck;

use super::{Case, Experiment, Paper, RunEnv};
use crate::claims::ClaimResult;
use crate::error::SpecError;
use crate::gpu::ecga::GpuScorer;
use crate::library::ecga::{
    self, BaselineCounter, BisectionCriteria, CpuScorer, EcgaConfig, FastCount, PairScorer, ParallelCpuScorer, Popcount, Population,
    PrefixFastCount, RunResult, Search, XLogX,
};
use crate::library::trap::Trap;
use crate::records::Record;
use crate::report::chart::{self, LineChart};
use crate::report::{MachineRecords, Table, claims_table};
use crate::spec::{ClaimSpec, LegacyVerdict as Verdict, PaperMeta, SpecFile, legacy_outcome};
use crate::stats::{self, Summary};
use anyhow::Result;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::time::Instant;
use toml::Spanned;

pub struct Ecga;
pub static ECGA: Ecga = Ecga;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EcgaSpec {
    paper: PaperMeta,
    settings: Settings,
    profiles: BTreeMap<String, Profile>,
    table5: Vec<Table5Row>,
    fig5_paper: Fig5Paper,
    scale_paper: ScalePaper,
    claims: Vec<ClaimSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScalePaper {
    usable_gb: f64,
    ell: usize,
    n: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    seed: u64,
    k: Spanned<usize>,
    tournament: Spanned<usize>,
    max_l: Spanned<usize>,
    bisection_n0: Spanned<usize>,
    bisection_precision: Spanned<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    table5_ells: Vec<Spanned<usize>>,
    table5_bisections: usize,
    fig5_ells: Vec<Spanned<usize>>,
    fig5_runs: usize,
    cpu_1t_max_ell: usize,
    fig6_pops: Vec<Spanned<usize>>,
    fig6_runs: usize,
    fig7_ells: Vec<Spanned<usize>>,
    fig7_runs: usize,
    /// ℓ of single model builds (the first generation's selected population)
    /// timed with every scorer, the baseline included: the speed goal at ℓ =
    /// 500, where a whole baseline run does not fit a GPU-machine command.
    #[serde(default)]
    build_ells: Vec<Spanned<usize>>,
    /// One model build per search (greedy, GM) at the paper's scalability point
    /// (`[scale_paper]`: ℓ and N of Section 5.4) with gECGA, on a planted population.
    #[serde(default)]
    scale_build: bool,
    /// Merged-group sizes L whose scoring the `count` case times alone, at the
    /// scalability point's N (`[scale_paper]`).
    #[serde(default)]
    count_sizes: Vec<Spanned<usize>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table5Row {
    ell: usize,
    greedy: usize,
    gm: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fig5Paper {
    ell: usize,
    spg_m: f64,
    spg_w: f64,
    spcg: f64,
    spgm_w: f64,
}

const CHECKS: [&str; 10] = [
    "scale",
    "gm_population_not_smaller",
    "population_growth",
    "gecga_identical",
    "spg_grows",
    "spc_small",
    "spg_at_500",
    "greedy_quality_higher",
    "greedy_converges_earlier",
    "gm_faster",
];
/// The largest problem the harness accepts (the paper's scalability limit).
const MAX_ELL: usize = 10_000;
/// The `count` case: loci of its planted population (enough that the rows,
/// ℓ·N/8 bytes, outgrow the GPU's L2 cache), random groups scored per size, the
/// first of them checked against multi-threaded FastCount, timed calls per size.
const COUNT_ELL: usize = 1000;
const COUNT_GROUPS: usize = 4096;
const COUNT_CHECKED: usize = 8;
const COUNT_REPS: usize = 3;
/// Scorer names, in report order: the paper's three and the multi-threaded extra.
const BASELINE: &str = "baseline";
const FASTCOUNT: &str = "fastcount";
const CPU_MT: &str = "fastcount-mt";
const GECGA: &str = "gecga";
const SCORERS: [&str; 4] = [BASELINE, FASTCOUNT, CPU_MT, GECGA];
/// The profile whose runs the speed goals are read from, where a machine has them.
const SPEED_PROFILE: &str = "speed";

impl Experiment for Ecga {
    fn id(&self) -> &'static str {
        "ecga"
    }
    fn title(&self) -> &'static str {
        "Speeding up model building for ECGA on CUDA (FastCount, gECGA, GM search; Table 5, Figures 5–7)"
    }
    fn embedded_spec(&self) -> &'static str {
        include_str!("../../../experiments/ecga.toml")
    }
    fn selfcheck(&self, gpu: &crate::gpu::Gpu, small: bool, seed: u64) -> Result<usize> {
        selfcheck::selfcheck(gpu, small, seed)
    }
    fn load(&self, file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
        let spec: EcgaSpec = file.parse()?;
        validate(file, &spec)?;
        Ok(Box::new(EcgaPaper { spec, file: file.clone() }))
    }
}

fn validate(file: &SpecFile, spec: &EcgaSpec) -> Result<(), SpecError> {
    let s = &spec.settings;
    let k = *s.k.get_ref();
    if !(2..=s.max_l.get_ref() / 2).contains(&k) {
        return Err(file.invalid(&s.k, "settings.k", format!("trap order {k} must be in 2..=max_l/2")));
    }
    if !(2..=crate::gpu::ecga::KERNEL_MAX_L).contains(s.max_l.get_ref()) {
        return Err(file.invalid(&s.max_l, "settings.max_l", format!("must be in 2..={}", crate::gpu::ecga::KERNEL_MAX_L)));
    }
    if *s.tournament.get_ref() < 2 {
        return Err(file.invalid(&s.tournament, "settings.tournament", "must be at least 2"));
    }
    if s.bisection_n0.get_ref() < s.tournament.get_ref() {
        return Err(file.invalid(&s.bisection_n0, "settings.bisection_n0", "must be at least the tournament size"));
    }
    if !(*s.bisection_precision.get_ref() > 0.0 && *s.bisection_precision.get_ref() < 1.0) {
        return Err(file.invalid(&s.bisection_precision, "settings.bisection_precision", "must be in (0, 1)"));
    }
    for (name, p) in &spec.profiles {
        for (key, ells) in
            [("table5_ells", &p.table5_ells), ("fig5_ells", &p.fig5_ells), ("fig7_ells", &p.fig7_ells), ("build_ells", &p.build_ells)]
        {
            for ell in ells {
                let v = *ell.get_ref();
                if v == 0 || v % k != 0 || v > MAX_ELL {
                    return Err(file.invalid(
                        ell,
                        &format!("profiles.{name}.{key}"),
                        format!("ℓ = {v} must be a positive multiple of k = {k} and at most {MAX_ELL}"),
                    ));
                }
            }
        }
        for size in &p.count_sizes {
            if !(1..=crate::gpu::ecga::KERNEL_MAX_L).contains(size.get_ref()) {
                return Err(file.invalid(
                    size,
                    &format!("profiles.{name}.count_sizes"),
                    format!("group size {} must be in 1..={}", size.get_ref(), crate::gpu::ecga::KERNEL_MAX_L),
                ));
            }
        }
        for n in &p.fig6_pops {
            if n.get_ref() < s.tournament.get_ref() || *n.get_ref() > 1 << 24 {
                return Err(file.invalid(n, &format!("profiles.{name}.fig6_pops"), "population must be ≥ the tournament size and ≤ 2^24"));
            }
        }
    }
    file.check_claims(&spec.claims, &CHECKS)
}

struct EcgaPaper {
    spec: EcgaSpec,
    file: SpecFile,
}

/// Population-sizing power law n = a·ℓ^b, least squares in log–log space.
fn power_fit(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let (x, y): (Vec<f64>, Vec<f64>) = points.iter().filter(|p| p.0 > 0.0 && p.1 > 0.0).map(|p| (p.0.ln(), p.1.ln())).unzip();
    stats::linear_fit(&x, &y).map(|(b, ln_a)| (ln_a.exp(), b))
}

impl EcgaPaper {
    fn profile(&self, name: &str) -> Result<&Profile, SpecError> {
        self.file.profile(&self.spec.profiles, name)
    }

    /// The population of Figures 5 and 7: the paper's Table 5 where it has ℓ,
    /// else the power law fitted to its Table 5 (the paper used theory past 350).
    fn population(&self, ell: usize, search: Search) -> usize {
        let of = |r: &Table5Row| if search == Search::Greedy { r.greedy } else { r.gm };
        if let Some(r) = self.spec.table5.iter().find(|r| r.ell == ell) {
            return of(r);
        }
        let pts: Vec<(f64, f64)> = self.spec.table5.iter().map(|r| (r.ell as f64, of(r) as f64)).collect();
        let (a, b) = power_fit(&pts).expect("Table 5 has several rows");
        (a * (ell as f64).powf(b)).round() as usize
    }

    fn config(&self, n: usize, ell: usize, search: Search) -> EcgaConfig {
        let s = &self.spec.settings;
        EcgaConfig { n, tournament: *s.tournament.get_ref(), max_l: *s.max_l.get_ref(), max_generations: 4 * ell, search }
    }

    fn seed(&self, case_id: &str) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        case_id.hash(&mut h);
        self.spec.settings.seed ^ h.finish()
    }
}

fn search_of(name: &str) -> Search {
    if name == Search::GreedyMating.name() { Search::GreedyMating } else { Search::Greedy }
}

/// A digest of everything a run decided (not its times): equal digests mean the
/// scorers built the same models and the runs evolved identically.
fn digest(r: &RunResult) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (r.generations, r.best_fitness, r.best_solved, r.consensus_solved, r.converged).hash(&mut h);
    for g in &r.history {
        (g.model_quality.to_bits(), g.ones_ratio.to_bits(), g.pairs_scored, g.model_steps, g.groups, g.ccc.to_bits()).hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

fn run_row(scorer: &str, r: &RunResult, wall_ms: f64) -> Record {
    Record::new()
        .with("scorer", scorer)
        .with("status", "ok")
        .with("model_ms", r.model_building.as_secs_f64() * 1e3)
        .with("total_ms", r.total.as_secs_f64() * 1e3)
        .with("wall_ms", wall_ms)
        .with("generations", r.generations)
        .with("best_solved", r.best_solved)
        .with("converged", r.converged)
        .with("pairs_scored", r.history.iter().map(|g| g.pairs_scored).sum::<u64>())
        .with("digest", digest(r))
}

/// A device scorer's kernel time and the host time of its launching calls.
fn device_times(row: Record, scorer: &dyn PairScorer) -> Record {
    match scorer.device_stats() {
        Some(d) => row.with("kernel_ms", d.kernel_ms).with("device_calls_ms", d.calls_ms).with("alleles_counted", d.alleles),
        None => row,
    }
}

/// The row of a scorer this machine does not run, with the one-line reason.
fn not_run(scorer: &str, reason: &str) -> Record {
    Record::new().with("scorer", scorer).with("status", "not_run").with("reason", reason)
}

/// Every scorer of Figure 5 this machine runs — the single-threaded baseline
/// and FastCount when `single_thread`, multi-threaded FastCount, gECGA where
/// there is a GPU — with a `not_run` row in `rows` for each one left out.
fn every_scorer<'g>(env: &'g RunEnv, single_thread: bool, rows: &mut Vec<Record>) -> Result<Vec<(&'static str, Box<dyn PairScorer + 'g>)>> {
    let mut scorers: Vec<(&'static str, Box<dyn PairScorer + 'g>)> = Vec::new();
    if single_thread {
        scorers.push((BASELINE, Box::new(CpuScorer::new(BaselineCounter))));
        scorers.push((FASTCOUNT, Box::new(CpuScorer::new(FastCount { popcount: Popcount::UnityTable16 }))));
    } else {
        for name in [BASELINE, FASTCOUNT] {
            rows.push(not_run(name, "ℓ beyond the profile's cpu_1t_max_ell"));
        }
    }
    scorers.push((CPU_MT, Box::new(ParallelCpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware }))));
    match &env.gpu {
        Some(gpu) => scorers.push((GECGA, Box::new(GpuScorer::new(gpu)?))),
        None => rows.push(not_run(GECGA, &env.gpu_absent)),
    }
    Ok(scorers)
}

/// The fastest scorer this machine has: gECGA, else multi-threaded FastCount.
fn fastest<'g>(env: &'g RunEnv) -> Result<(&'static str, Box<dyn PairScorer + 'g>)> {
    Ok(match &env.gpu {
        Some(gpu) => (GECGA, Box::new(GpuScorer::new(gpu)?)),
        None => (CPU_MT, Box::new(ParallelCpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware }))),
    })
}

impl Paper for EcgaPaper {
    fn meta(&self) -> &PaperMeta {
        &self.spec.paper
    }

    fn profiles(&self) -> Vec<String> {
        self.spec.profiles.keys().cloned().collect()
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.profile(profile)?;
        let mut cases = Vec::new();
        let mut add = |id: String, params: Record, weight: u64| {
            let seed = self.seed(&id);
            cases.push(Case { params: params.with("seed", seed), id, weight });
        };
        for ell in p.table5_ells.iter().map(|e| *e.get_ref()) {
            for search in [Search::Greedy, Search::GreedyMating] {
                for b in 0..p.table5_bisections {
                    let params = Record::new().with("figure", "table5").with("search", search.name()).with("ell", ell).with("bisection", b);
                    add(format!("table5/{}/l{ell}/b{b}", search.name()), params, (ell * ell) as u64 / 10);
                }
            }
        }
        for n in p.fig6_pops.iter().map(|n| *n.get_ref()) {
            for search in [Search::Greedy, Search::GreedyMating] {
                for r in 0..p.fig6_runs {
                    let params =
                        Record::new().with("figure", "fig6").with("search", search.name()).with("ell", 50).with("n", n).with("run", r);
                    add(format!("fig6/{}/n{n}/r{r}", search.name()), params, n as u64 / 100 + 1);
                }
            }
        }
        for ell in p.fig7_ells.iter().map(|e| *e.get_ref()) {
            let n = self.population(ell, Search::GreedyMating);
            for r in 0..p.fig7_runs {
                let params = Record::new()
                    .with("figure", "fig7")
                    .with("search", Search::GreedyMating.name())
                    .with("ell", ell)
                    .with("n", n)
                    .with("run", r);
                add(format!("fig7/l{ell}/r{r}"), params, (ell * ell * n / 100_000) as u64 + 1);
            }
        }
        for ell in p.fig5_ells.iter().map(|e| *e.get_ref()) {
            let n = self.population(ell, Search::Greedy);
            for r in 0..p.fig5_runs {
                let params = Record::new()
                    .with("figure", "fig5")
                    .with("search", Search::Greedy.name())
                    .with("ell", ell)
                    .with("n", n)
                    .with("run", r)
                    .with("single_thread", ell <= p.cpu_1t_max_ell);
                add(format!("fig5/l{ell}/r{r}"), params, (ell * ell * n / 20_000) as u64 + 1);
            }
        }
        for ell in p.build_ells.iter().map(|e| *e.get_ref()) {
            let n = self.population(ell, Search::Greedy);
            let params = Record::new().with("figure", "build").with("search", Search::Greedy.name()).with("ell", ell).with("n", n);
            add(format!("build/l{ell}"), params, (ell * ell * n / 1_000) as u64 + 1);
        }
        if p.scale_build {
            // Section 5.4: "both of our implementations scale up to 9,800-bit".
            let (ell, n) = (self.spec.scale_paper.ell, self.spec.scale_paper.n);
            for (search, suffix) in [(Search::Greedy, ""), (Search::GreedyMating, "/gm")] {
                let params = Record::new().with("figure", "scale").with("search", search.name()).with("ell", ell).with("n", n);
                add(format!("scale/l{ell}{suffix}"), params, (ell * ell * n / 1_000) as u64 + 1);
            }
        }
        if !p.count_sizes.is_empty() {
            let n = self.spec.scale_paper.n;
            let sizes: Vec<String> = p.count_sizes.iter().map(|s| s.get_ref().to_string()).collect();
            let params = Record::new().with("figure", "count").with("search", "none").with("ell", COUNT_ELL).with("n", n);
            add(format!("count/n{n}"), params.with("sizes", sizes.join(",")), (COUNT_ELL * n / 1_000) as u64 + 1);
        }
        Ok(cases)
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let p = &case.params;
        let ell = p.int("ell").expect("ell") as usize;
        let seed = p.int("seed").expect("seed") as u64;
        let search = search_of(p.str("search"));
        let k = *self.spec.settings.k.get_ref();
        let trap = Trap { k, m: ell / k };
        let mut rows = Vec::new();
        match p.str("figure") {
            "table5" => {
                let criteria = BisectionCriteria {
                    n0: *self.spec.settings.bisection_n0.get_ref(),
                    precision: *self.spec.settings.bisection_precision.get_ref(),
                    ..BisectionCriteria::default()
                };
                let (name, mut scorer) = fastest(env)?;
                let t0 = Instant::now();
                let b = ecga::bisection(&trap, &self.config(0, ell, search), seed, &criteria, scorer.as_mut())?;
                rows.push(
                    Record::new()
                        .with("scorer", name)
                        .with("status", "ok")
                        .with("n_min", b.n)
                        .with("trials", b.trials.len())
                        .with("runs", b.trials.iter().map(|t| t.runs).sum::<usize>())
                        .with("wall_ms", t0.elapsed().as_secs_f64() * 1e3),
                );
            }
            "fig5" => {
                let n = p.int("n").expect("n") as usize;
                let cfg = self.config(n, ell, search);
                let scorers = every_scorer(env, p.get("single_thread") == &crate::records::Value::Bool(true), &mut rows)?;
                // The reference digest is the first scorer's; every other must match.
                let mut reference: Option<String> = None;
                for (name, mut scorer) in scorers {
                    let t0 = Instant::now();
                    let r = ecga::run(&trap, &cfg, seed, scorer.as_mut())?;
                    let row = run_row(name, &r, t0.elapsed().as_secs_f64() * 1e3);
                    let row = device_times(row, scorer.as_ref());
                    let d = row.str("digest").to_owned();
                    let identical = reference.get_or_insert(d.clone()) == &d;
                    rows.push(row.with("identical", identical));
                }
            }
            "build" => {
                let n = p.int("n").expect("n") as usize;
                let selected = ecga::first_selection(&trap, n, *self.spec.settings.tournament.get_ref(), seed)?;
                let xlogx = XLogX::new(n);
                let max_l = *self.spec.settings.max_l.get_ref();
                let scorers = every_scorer(env, true, &mut rows)?;
                let mut reference = None;
                for (name, mut scorer) in scorers {
                    let t0 = Instant::now();
                    let trace = search.build(&selected, scorer.as_mut(), max_l, &xlogx)?;
                    let model_ms = t0.elapsed().as_secs_f64() * 1e3;
                    let identical = *reference.get_or_insert_with(|| trace.clone()) == trace;
                    let row = Record::new()
                        .with("scorer", name)
                        .with("status", "ok")
                        .with("model_ms", model_ms)
                        .with("pairs_scored", trace.pairs_scored)
                        .with("merges", trace.merges.len())
                        .with("identical", identical);
                    rows.push(device_times(row, scorer.as_ref()));
                }
            }
            "scale" => rows.push(self.scale_build(&trap, search, p.int("n").expect("n") as usize, seed, env)?),
            "count" => {
                let sizes = p.str("sizes").split(',').map(str::parse).collect::<Result<Vec<usize>, _>>()?;
                rows.extend(count_rates(&trap, &sizes, p.int("n").expect("n") as usize, seed, env)?);
            }
            "fig6" => {
                let n = p.int("n").expect("n") as usize;
                let (name, mut scorer) = fastest(env)?;
                let r = ecga::run(&trap, &self.config(n, ell, search), seed, scorer.as_mut())?;
                for (g, h) in r.history.iter().enumerate() {
                    rows.push(
                        Record::new()
                            .with("scorer", name)
                            .with("status", "ok")
                            .with("generation", g + 1)
                            .with("generations", r.generations)
                            .with("model_quality", h.model_quality)
                            .with("ones_ratio", h.ones_ratio)
                            .with("best_solved", r.best_solved),
                    );
                }
            }
            "fig7" => {
                let n = p.int("n").expect("n") as usize;
                let (name, mut scorer) = fastest(env)?;
                let t0 = Instant::now();
                let r = ecga::run(&trap, &self.config(n, ell, search), seed, scorer.as_mut())?;
                rows.push(run_row(name, &r, t0.elapsed().as_secs_f64() * 1e3));
            }
            other => anyhow::bail!("unknown figure `{other}` in case {}", case.id),
        }
        Ok(rows)
    }

    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<super::PaperReport> {
        Ok(super::PaperReport::legacy(self.render_legacy(machines, dir)?))
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        let paper = &self.spec.fig5_paper;
        let mut runs = Table::new(&[
            "machine",
            "ℓ",
            "model building: baseline / gECGA (spg m)",
            "whole run (spg w)",
            "spcg (m)",
            "gECGA over fastcount-mt (m)",
        ]);
        let mut builds = Table::new(&[
            "machine",
            "ℓ",
            "N",
            "baseline (ms)",
            "fastcount-mt (ms)",
            "gECGA (ms)",
            "gECGA over baseline",
            "gECGA over fastcount-mt",
        ]);
        for m in machines {
            let a = Analysis::of(m);
            for &ell in a.fig5.keys() {
                let sp = a.speedups(ell);
                let over_mt = a.mean(ell, CPU_MT, true).zip(a.mean(ell, GECGA, true)).map(|(c, g)| c / g);
                runs.row(vec![
                    format!("`{}`", m.hw_id),
                    ell.to_string(),
                    fmt_x(sp.spg_m),
                    fmt_x(sp.spg_w),
                    fmt_x(sp.spcg_m),
                    fmt_x(over_mt),
                ]);
            }
            for (&ell, (n, scorers)) in &a.build {
                let ms = |s: &str| scorers.get(s).and_then(|t| Summary::of(&t.model)).map(|m| m.mean);
                let (base, mt, gpu) = (ms(BASELINE), ms(CPU_MT), ms(GECGA));
                let cell = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.1}"));
                let ratio = |a: Option<f64>| fmt_x(a.zip(gpu).map(|(a, g)| a / g));
                builds.row(vec![
                    format!("`{}`", m.hw_id),
                    ell.to_string(),
                    n.to_string(),
                    cell(base),
                    cell(mt),
                    cell(gpu),
                    ratio(base),
                    ratio(mt),
                ]);
            }
        }
        let mut md = format!(
            "Figure 5's speedups per whole run (means of the runs; — where a scorer did not run at that ℓ). The paper, on a \
             Tesla C2050 against one core of a Xeon W3530 at ℓ = 500: spg(m) {:.0}×, spg(w) {:.0}×, spcg {:.1}×.\n\n{}\n",
            paper.spg_m,
            paper.spg_w,
            paper.spcg,
            runs.render()
        );
        if !builds.is_empty() {
            md += &format!(
                "One greedy model build of the first generation's selection, every scorer on the same machine (the paper \
                 reports no single-build times):\n\n{}\n",
                builds.render()
            );
        }
        md
    }
}

/// Global memory of gECGA in the paper's design, Table 4: population 8·⌈Nℓ/64⌉,
/// model 4ℓ(MAX_L + 1), cache 4ℓ², status ℓ (bytes).
fn table4_bytes(n: usize, ell: usize, max_l: usize) -> f64 {
    8.0 * ((n as f64 * ell as f64) / 64.0).ceil() + 4.0 * (ell * (max_l + 1)) as f64 + 4.0 * (ell as f64).powi(2) + ell as f64
}

/// Device memory of this harness's gECGA (`gpu::ecga`): the population as ℓ rows
/// of ⌈N/64⌉ words, the x·log2(x) table, and the device search's state (per
/// pair an entropy term and a ΔCCC, 16 bytes; per slot its loci and counters).
fn harness_bytes(n: usize, ell: usize) -> f64 {
    8.0 * (ell * n.div_ceil(64)) as f64 + 8.0 * (n + 1) as f64 + crate::gpu::ecga::search_bytes(ell) as f64
}

/// The model builds at the paper's scalability point (`scale` cases), one row per
/// machine that has them.
fn scale_builds(machines: &[MachineRecords], max_l: usize) -> String {
    let mut t = Table::new(&[
        "machine",
        "search",
        "ℓ",
        "N",
        "device data (GB)",
        "population made (s)",
        "model build (s)",
        "device time, events (s)",
        "merges",
        "pairs scored",
        "planted blocks exact",
        "alleles counted per second ÷ int32 rate",
    ]);
    let mut not_run = String::new();
    for m in machines {
        for r in m.measurements().filter(|r| r.str("figure") == "scale") {
            if r.str("status") != "ok" {
                let _ = writeln!(not_run, "`{}`: not run here ({}).", m.hw_id, r.str("reason"));
                continue;
            }
            let (ell, n) = (r.int("ell").unwrap_or(0) as usize, r.int("n").unwrap_or(0) as usize);
            let secs = |k: &str| r.float(k).map_or("—".into(), |v| format!("{:.1}", v / 1e3));
            let rate = scale_rate(m, r)
                .map_or("—".into(), |(per_s, int32)| format!("{per_s:.2e} ÷ {int32:.2e} = {:.0}%", 100.0 * per_s / int32));
            t.row(vec![
                format!("`{}`", m.hw_id),
                r.str("search").to_string(),
                ell.to_string(),
                n.to_string(),
                format!("{:.3}", harness_bytes(n, ell) / 1e9),
                secs("population_ms"),
                secs("model_ms"),
                secs("kernel_ms"),
                r.int("merges").unwrap_or(0).to_string(),
                r.int("pairs_scored").unwrap_or(0).to_string(),
                format!("{:.1}%", 100.0 * r.float("model_quality").unwrap_or(f64::NAN)),
                rate,
            ]);
        }
    }
    if t.is_empty() && not_run.is_empty() {
        return String::new();
    }
    let mut md = format!(
        "One model build with gECGA per search (greedy, and greedy mating: the paper says both scale to this size) at the \
         paper's point (profile `gpu-scale`), MAX_L = {max_l}, on a planted population (every 5-locus block all ones with \
         probability ½, all zeros ¼, else random: the linkage of a converging generation, so that the search makes its ≈ 4ℓ/5 \
         merges; a random first selection stops after a few). *Model build*: upload of the packed population and the whole \
         search on the device; *device data*: this harness's layout (population, x·log2 x table, ΔCCC cache); the counting \
         rate: alleles read by the scoring blocks per second of device time, against the int32 instruction rate measured in \
         the same run.\n\n"
    );
    if !t.is_empty() {
        md += &t.render();
        md += "\n";
    }
    md + &not_run + if not_run.is_empty() { "" } else { "\n" }
}

/// The counting kernel alone (`count` case): for each group size L,
/// `COUNT_GROUPS` random groups of distinct loci of a planted population of N
/// individuals, the first `COUNT_CHECKED` compared bit for bit with
/// multi-threaded FastCount, then `COUNT_REPS` timed calls (CUDA events around
/// each launch): alleles counted and kernel time per call, one row per L.
fn count_rates(trap: &Trap, sizes: &[usize], n: usize, seed: u64, env: &RunEnv) -> Result<Vec<Record>> {
    use rand::{SeedableRng, rngs::StdRng};
    let Some(gpu) = &env.gpu else {
        return Ok(vec![not_run(GECGA, &env.gpu_absent)]);
    };
    population_fits_host(n, trap.ell(), env.fingerprint.mem_gib)?;
    let pop = Population::planted(n, trap.ell(), trap.k, seed)?;
    let xlogx = XLogX::new(n);
    let mut scorer = GpuScorer::new(gpu)?;
    scorer.load(&pop, &xlogx)?;
    let mut cpu = ParallelCpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware });
    cpu.load(&pop, &xlogx)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut gpu_s, mut cpu_s) = (Vec::new(), Vec::new());
    let mut rows = Vec::new();
    for &size in sizes {
        let groups: Vec<Vec<usize>> = (0..COUNT_GROUPS).map(|_| rand::seq::index::sample(&mut rng, trap.ell(), size).into_vec()).collect();
        scorer.score_groups(&groups, &mut gpu_s)?;
        cpu.score_groups(&groups[..COUNT_CHECKED], &mut cpu_s)?;
        let identical = cpu_s.iter().zip(&gpu_s).all(|(c, g)| c.to_bits() == g.to_bits());
        anyhow::ensure!(identical, "gECGA's counts of {size}-locus groups differ from FastCount's (N = {n})");
        let before = scorer.device_stats().expect("gECGA has a device");
        for _ in 0..COUNT_REPS {
            scorer.score_groups(&groups, &mut gpu_s)?;
        }
        let after = scorer.device_stats().expect("gECGA has a device");
        let reps = COUNT_REPS as f64;
        rows.push(
            Record::new()
                .with("scorer", GECGA)
                .with("status", "ok")
                .with("group_size", size)
                .with("counting", if size <= crate::gpu::ecga::FASTCOUNT_MAX_L { "FastCount" } else { "histogram" })
                .with("groups", COUNT_GROUPS)
                .with("identical", identical)
                .with("alleles_counted", (after.alleles - before.alleles) / reps)
                .with("kernel_ms", (after.kernel_ms - before.kernel_ms) / reps),
        );
    }
    Ok(rows)
}

/// A scale build's population lives on the host twice (rows and packed by locus:
/// 9/8 byte per allele); an error naming the sizes where it cannot fit
/// `mem_gib` (0: unknown, not checked).
fn population_fits_host(n: usize, ell: usize, mem_gib: f64) -> Result<()> {
    let need = n.checked_mul(ell).and_then(|a| a.checked_add(a / 8));
    let have = mem_gib * (1u64 << 30) as f64;
    match need {
        Some(bytes) if mem_gib <= 0.0 || bytes as f64 <= have => Ok(()),
        _ => anyhow::bail!(
            "a population of N = {n} × ℓ = {ell} needs {} of host memory (rows and packed by locus); this machine has {mem_gib:.1} GiB",
            need.map_or("more than 2^64 bytes".into(), |b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64))
        ),
    }
}

/// The largest ℓ (a multiple of `k`) whose population N(ℓ) fits in `bytes` by `need`.
fn largest_fitting(k: usize, bytes: f64, pop: impl Fn(usize) -> usize, need: impl Fn(usize, usize) -> f64) -> usize {
    let mut ell = k;
    while need(pop(ell + k), ell + k) <= bytes {
        ell += k;
    }
    ell
}

fn fmt_x(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.1}×"))
}

fn fmt_ms(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| if s.n > 1 { format!("{:.1} ± {:.1}", s.mean, s.sd) } else { format!("{:.1}", s.mean) })
}

/// Mean model-building and whole-run times (ms) of one scorer at one ℓ.
#[derive(Default)]
struct ScorerTimes {
    model: Vec<f64>,
    total: Vec<f64>,
    identical: usize,
    runs: usize,
    not_run: Option<String>,
    pairs: Vec<f64>,
    /// Device kernel time of the runs, and host time of the calls that
    /// launched them (gECGA only).
    kernel: Vec<f64>,
    calls: Vec<f64>,
    /// Alleles the kernels read (Σ loci × N over scored groups).
    alleles: Vec<f64>,
}

#[derive(Default, Clone, Copy)]
struct Speedups {
    spc_m: Option<f64>,
    spc_w: Option<f64>,
    spg_m: Option<f64>,
    spg_w: Option<f64>,
    spcg_m: Option<f64>,
    spcg_w: Option<f64>,
}

/// Generation → (model quality, ratio of ones) over runs (Figure 6).
type PerGeneration = BTreeMap<usize, (Vec<f64>, Vec<f64>)>;

/// One machine's records, indexed for the report.
#[derive(Default)]
struct Analysis {
    /// (search, ℓ) → bisection results.
    table5: BTreeMap<(String, usize), Vec<f64>>,
    /// ℓ → (population, scorer → times).
    fig5: BTreeMap<usize, (usize, BTreeMap<String, ScorerTimes>)>,
    /// (search, n) → generation → (quality, ones ratio) over runs; and run lengths.
    fig6: BTreeMap<(String, usize), PerGeneration>,
    fig6_lengths: BTreeMap<(String, usize), BTreeMap<String, usize>>,
    /// ℓ → (population, scorer, whole-run times).
    fig7: BTreeMap<usize, (usize, String, Vec<f64>)>,
    /// ℓ → (population, scorer → one model build of the first selection).
    build: BTreeMap<usize, (usize, BTreeMap<String, ScorerTimes>)>,
    /// The profile that timed each Figure 5 ℓ (its runs' ceilings apply).
    fig5_profile: BTreeMap<usize, String>,
    /// gECGA's Figure 5 runs identical to the CPU scorer's, of all its runs in
    /// every profile (identity is evidence whichever profile ran it).
    gecga_identical: (usize, usize),
}

impl Analysis {
    /// Timings of one ℓ come from the profile that measured it last, so that
    /// each ratio compares scorers of one run (one kernel version).
    fn of(m: &MachineRecords) -> Analysis {
        let timed = |r: &Record| matches!(r.str("figure"), "fig5" | "build").then(|| (r.str("figure").to_owned(), r.int("ell")));
        let mut a = Analysis::of_rows(m.latest_measurements(timed).into_iter());
        for r in m.measurements().filter(|r| r.str("figure") == "fig5" && r.str("scorer") == GECGA && r.str("status") == "ok") {
            a.gecga_identical.0 += usize::from(r.get("identical") == &crate::records::Value::Bool(true));
            a.gecga_identical.1 += 1;
        }
        a
    }

    fn of_rows<'r>(rows: impl Iterator<Item = &'r Record>) -> Analysis {
        let mut a = Analysis::default();
        for r in rows {
            let ell = r.int("ell").unwrap_or(0) as usize;
            let search = r.str("search").to_owned();
            match r.str("figure") {
                "table5" if r.str("status") == "ok" => {
                    a.table5.entry((search, ell)).or_default().extend(r.float("n_min"));
                }
                "fig5" | "build" => {
                    if r.str("figure") == "fig5" {
                        a.fig5_profile.insert(ell, r.str("profile").to_owned());
                    }
                    let runs = if r.str("figure") == "fig5" { &mut a.fig5 } else { &mut a.build };
                    let entry = runs.entry(ell).or_insert_with(|| (r.int("n").unwrap_or(0) as usize, BTreeMap::new()));
                    let t = entry.1.entry(r.str("scorer").to_owned()).or_default();
                    if r.str("status") == "ok" {
                        t.model.extend(r.float("model_ms"));
                        t.total.extend(r.float("total_ms"));
                        t.pairs.extend(r.float("pairs_scored"));
                        t.kernel.extend(r.float("kernel_ms"));
                        t.calls.extend(r.float("device_calls_ms"));
                        t.alleles.extend(r.float("alleles_counted"));
                        t.runs += 1;
                        t.identical += usize::from(r.get("identical") == &crate::records::Value::Bool(true));
                    } else {
                        t.not_run = Some(r.str("reason").to_owned());
                    }
                }
                "fig6" => {
                    let key = (search, r.int("n").unwrap_or(0) as usize);
                    let g = r.int("generation").unwrap_or(0) as usize;
                    let e = a.fig6.entry(key.clone()).or_default().entry(g).or_default();
                    e.0.extend(r.float("model_quality"));
                    e.1.extend(r.float("ones_ratio"));
                    a.fig6_lengths.entry(key).or_default().insert(r.str("case_id").to_owned(), r.int("generations").unwrap_or(0) as usize);
                }
                "fig7" if r.str("status") == "ok" => {
                    let e = a.fig7.entry(ell).or_insert_with(|| (r.int("n").unwrap_or(0) as usize, r.str("scorer").to_owned(), Vec::new()));
                    e.2.extend(r.float("total_ms"));
                }
                _ => {}
            }
        }
        a
    }

    fn times(&self, ell: usize, scorer: &str) -> Option<&ScorerTimes> {
        self.fig5.get(&ell).and_then(|(_, m)| m.get(scorer)).filter(|t| t.runs > 0)
    }

    fn mean(&self, ell: usize, scorer: &str, model: bool) -> Option<f64> {
        self.times(ell, scorer).and_then(|t| Summary::of(if model { &t.model } else { &t.total })).map(|s| s.mean)
    }

    /// Speedups as the paper defines them (ratios of mean times).
    fn speedups(&self, ell: usize) -> Speedups {
        let ratio = |a: &str, b: &str, model: bool| Some(self.mean(ell, a, model)? / self.mean(ell, b, model)?);
        Speedups {
            spc_m: ratio(BASELINE, FASTCOUNT, true),
            spc_w: ratio(BASELINE, FASTCOUNT, false),
            spg_m: ratio(BASELINE, GECGA, true),
            spg_w: ratio(BASELINE, GECGA, false),
            spcg_m: ratio(FASTCOUNT, GECGA, true),
            spcg_w: ratio(FASTCOUNT, GECGA, false),
        }
    }
}

impl EcgaPaper {
    fn table5(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        if a.table5.is_empty() {
            md += "No bisections in this machine's profile.\n\n";
            return Ok(md);
        }
        let mut t =
            Table::new(&["ℓ", "greedy: paper", "greedy: here (mean ± sd, n)", "ratio", "GM: paper", "GM: here (mean ± sd, n)", "ratio"]);
        let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let ells: std::collections::BTreeSet<usize> = a.table5.keys().map(|k| k.1).collect();
        for &ell in &ells {
            let paper = self.spec.table5.iter().find(|r| r.ell == ell);
            let mut cells = vec![ell.to_string()];
            for (search, pv) in [(Search::Greedy, paper.map(|r| r.greedy)), (Search::GreedyMating, paper.map(|r| r.gm))] {
                let s = a.table5.get(&(search.name().to_owned(), ell)).and_then(|v| Summary::of(v));
                cells.push(pv.map_or("—".into(), |v| v.to_string()));
                cells.push(s.map_or("—".into(), |s| format!("{:.0} ± {:.0} ({})", s.mean, s.sd, s.n)));
                cells.push(match (s, pv) {
                    (Some(s), Some(p)) => format!("{:.2}", s.mean / p as f64),
                    _ => "—".into(),
                });
                if let Some(s) = s {
                    series.entry(format!("{} (here)", search.name())).or_default().push((ell as f64, s.mean));
                }
            }
            t.row(cells);
        }
        md += "Population sizes; *ratio* = here / paper.\n\n";
        md += &t.render();
        for search in [Search::Greedy, Search::GreedyMating] {
            let paper: Vec<(f64, f64)> =
                self.spec.table5.iter().map(|r| (r.ell as f64, if search == Search::Greedy { r.greedy } else { r.gm } as f64)).collect();
            series.insert(format!("{} (paper)", search.name()), paper);
        }
        let fits: Vec<String> =
            series.iter().filter_map(|(name, pts)| power_fit(pts).map(|(a, b)| format!("{name}: n ≈ {a:.1}·ℓ^{b:.2}"))).collect();
        let _ = writeln!(md, "\nPower-law fits (least squares in log–log): {}.\n", fits.join("; "));
        let stem = dir.join("figures").join(format!("{}__table5", m.hw_id));
        let chart = LineChart {
            title: "Table 5: population size to solve m − 1 subproblems",
            x_label: "problem size ℓ",
            y_label: "population size",
            series: series.into_iter().collect(),
        };
        chart::write_lines(&stem, &chart).map_err(|e| anyhow::anyhow!("figure {}: {e}", stem.display()))?;
        let _ = writeln!(md, "![Table 5](figures/{}__table5.png)\n", m.hw_id);
        Ok(md)
    }

    fn fig5(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        if a.fig5.is_empty() {
            md += "No Figure 5 runs in this machine's profile.\n\n";
            return Ok(md);
        }
        let mut header = vec!["ℓ".to_owned(), "N".to_owned()];
        for s in SCORERS {
            header.push(format!("{s}: model / whole (ms)"));
        }
        header.extend(["identical runs".into(), "spc m / w".into(), "spg m / w".into(), "spcg m / w".into()]);
        let mut t = Table::new(&header);
        let mut series: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for (&ell, (n, scorers)) in &a.fig5 {
            let mut cells = vec![ell.to_string(), n.to_string()];
            let (mut identical, mut runs) = (0, 0);
            for s in SCORERS {
                cells.push(match scorers.get(s) {
                    Some(t) if t.runs > 0 => {
                        identical += t.identical;
                        runs += t.runs;
                        format!("{} / {}", fmt_ms(Summary::of(&t.model)), fmt_ms(Summary::of(&t.total)))
                    }
                    Some(t) => format!("not run here ({})", t.not_run.as_deref().unwrap_or("—")),
                    None => "—".into(),
                });
            }
            let sp = a.speedups(ell);
            cells.push(format!("{identical}/{runs}"));
            cells.push(format!("{} / {}", fmt_x(sp.spc_m), fmt_x(sp.spc_w)));
            cells.push(format!("{} / {}", fmt_x(sp.spg_m), fmt_x(sp.spg_w)));
            cells.push(format!("{} / {}", fmt_x(sp.spcg_m), fmt_x(sp.spcg_w)));
            t.row(cells);
            for (name, v) in
                [("spc(m)", sp.spc_m), ("spc(w)", sp.spc_w), ("spg(m)", sp.spg_m), ("spg(w)", sp.spg_w), ("spcg(m)", sp.spcg_m)]
            {
                if let Some(v) = v {
                    series.entry(name).or_default().push((ell as f64, v));
                }
            }
        }
        md += &t.render();
        let p = &self.spec.fig5_paper;
        let _ = writeln!(
            md,
            "\nPaper (Tesla C2050 vs one core of a Xeon W3530), ℓ = {}: spg(m) {:.2}×, spg(w) {:.2}×, spcg {:.2}×.\n",
            p.ell, p.spg_m, p.spg_w, p.spcg
        );
        if !series.is_empty() {
            let stem = dir.join("figures").join(format!("{}__fig5", m.hw_id));
            let chart = LineChart {
                title: "Figure 5: speedups over the baseline",
                x_label: "problem size ℓ",
                y_label: "speedup",
                series: series.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            };
            chart::write_lines(&stem, &chart).map_err(|e| anyhow::anyhow!("figure {}: {e}", stem.display()))?;
            let _ = writeln!(md, "![Figure 5](figures/{}__fig5.png)\n", m.hw_id);
        }
        Ok(md)
    }

    /// Section 5.4 run on this machine: one model build with gECGA and `search` at
    /// the paper's (ℓ, N) on [`Population::planted`] linkage (a random first
    /// selection would stop after a few merges), timed from the packed population
    /// to the MPM.
    fn scale_build(&self, trap: &Trap, search: Search, n: usize, seed: u64, env: &RunEnv) -> Result<Record> {
        let Some(gpu) = &env.gpu else {
            return Ok(not_run(GECGA, &env.gpu_absent));
        };
        population_fits_host(n, trap.ell(), env.fingerprint.mem_gib)?;
        let t0 = Instant::now();
        let pop = Population::planted(n, trap.ell(), trap.k, seed)?;
        let prep_ms = t0.elapsed().as_secs_f64() * 1e3;
        eprintln!("scale build: planted population of {n} × {} made in {:.1} s", trap.ell(), prep_ms / 1e3);
        let xlogx = XLogX::new(n);
        let mut scorer = GpuScorer::new(gpu)?;
        let t1 = Instant::now();
        let trace = search.build(&pop, &mut scorer, *self.spec.settings.max_l.get_ref(), &xlogx)?;
        let row = Record::new()
            .with("scorer", GECGA)
            .with("status", "ok")
            .with("n", n)
            .with("population_ms", prep_ms)
            .with("model_ms", t1.elapsed().as_secs_f64() * 1e3)
            .with("pairs_scored", trace.pairs_scored)
            .with("merges", trace.merges.len())
            .with("model_quality", ecga::model_quality(trap, &trace.mpm));
        Ok(device_times(row, &scorer))
    }

    /// ℓ ↦ N for the scalability estimate: the power law fitted to Table 5.
    fn theory_population(&self, ell: usize) -> usize {
        let pts: Vec<(f64, f64)> = self.spec.table5.iter().map(|r| (r.ell as f64, r.greedy as f64)).collect();
        let (a, b) = power_fit(&pts).expect("Table 5 has several rows");
        (a * (ell as f64).powf(b)).round() as usize
    }

    /// Section 5.4 / Table 4: the largest trap problem whose gECGA data fit in each
    /// machine's device memory (from its fingerprint), and on the paper's C2050.
    fn scale(&self, machines: &[MachineRecords]) -> String {
        let (k, max_l) = (*self.spec.settings.k.get_ref(), *self.spec.settings.max_l.get_ref());
        let p = &self.spec.scale_paper;
        let mut md = String::from(
            "## Scalability — Section 5.4, Table 4

",
        );
        let _ = writeln!(
            md,
            "The paper's point: ℓ = {} at N = {} needs {:.3} GB (10⁹ bytes; {:.3} GiB) by Table 4 against the C2050's {:.3} \
             \"GBs\": it fits only if those are GiB, which the table below assumes not. The theory of its ref. [22] is \
             not in the text, so N(ℓ) here is the power law fitted to Table 5 (N({}) = {}). Memory is the device total from each \
             machine's fingerprint. No model build was run at the memory-limited sizes (hours of device time with this design); \
             the one at the paper's point is timed below.\n",
            p.ell,
            p.n,
            table4_bytes(p.n, p.ell, max_l) / 1e9,
            table4_bytes(p.n, p.ell, max_l) / (1u64 << 30) as f64,
            p.usable_gb,
            p.ell,
            self.theory_population(p.ell)
        );
        let mut t = Table::new(&[
            "device",
            "memory",
            "largest ℓ, paper's Table 4 layout",
            "N there",
            "largest ℓ, this harness's layout",
            "N there",
        ]);
        let mut row = |name: String, bytes: f64| {
            let pop = |ell: usize| self.theory_population(ell);
            let a = largest_fitting(k, bytes, pop, |n, ell| table4_bytes(n, ell, max_l));
            let b = largest_fitting(k, bytes, pop, harness_bytes);
            t.row(vec![name, format!("{:.2} GB", bytes / 1e9), a.to_string(), pop(a).to_string(), b.to_string(), pop(b).to_string()]);
        };
        row(format!("paper: {}", self.spec.paper.hardware.gpu), p.usable_gb * 1e9);
        for m in machines {
            if let Some(gib) = m.rows.iter().find_map(|r| r.float("gpu_mem_gib")) {
                row(format!("`{}`", m.hw_id), gib * (1u64 << 30) as f64);
            }
        }
        md += &t.render();
        md += "\n";
        md += &scale_builds(machines, max_l);
        md
    }

    fn check_scale(&self, m: &MachineRecords) -> (Verdict, String) {
        let (k, max_l) = (*self.spec.settings.k.get_ref(), *self.spec.settings.max_l.get_ref());
        let p = &self.spec.scale_paper;
        let paper_fits = table4_bytes(p.n, p.ell, max_l) <= p.usable_gb * 1e9;
        let Some(gib) = m.rows.iter().find_map(|r| r.float("gpu_mem_gib")) else {
            return (Verdict::NotRun("no GPU on this machine".into()), String::new());
        };
        let pop = |ell: usize| self.theory_population(ell);
        let here = largest_fitting(k, gib * (1u64 << 30) as f64, pop, |n, ell| table4_bytes(n, ell, max_l));
        let ev = format!(
            "Table 4 at the paper's (ℓ, N): {:.3} GB ≤ {} GB (10⁹ bytes): {paper_fits}; with this GPU's {gib} GiB the same layout holds ℓ = {here} \
             (N = {})",
            table4_bytes(p.n, p.ell, max_l) / 1e9,
            p.usable_gb,
            pop(here)
        );
        let builds: Vec<String> = m
            .measurements()
            .filter(|r| r.str("figure") == "scale" && r.str("status") == "ok")
            .map(|r| {
                format!(
                    "{} search in {:.1} s ({} merges, {:.0}% of the planted blocks exact)",
                    r.str("search"),
                    r.float("model_ms").unwrap_or(f64::NAN) / 1e3,
                    r.int("merges").unwrap_or(0),
                    100.0 * r.float("model_quality").unwrap_or(f64::NAN),
                )
            })
            .collect();
        if builds.is_empty() {
            return (Verdict::NotRun("no model build at the paper's point in these records (profile `gpu-scale`)".into()), ev);
        }
        let ev = format!(
            "gECGA built the model at ℓ = {}, N = {} on this GPU: {} (its data take {:.3} GB here); {ev}",
            p.ell,
            p.n,
            builds.join("; "),
            harness_bytes(p.n, p.ell) / 1e9
        );
        (Verdict::Reproduced, ev)
    }

    fn fig7(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        if a.fig7.is_empty() {
            return md + "No Figure 7 runs in this machine's profile.\n\n";
        }
        let mut t = Table::new(&[
            "ℓ",
            "greedy N",
            "GM N",
            "scorer",
            "greedy whole run (ms)",
            "GM whole run (ms)",
            "GM / greedy time",
            "spg (w)",
            "spgm (w)",
        ]);
        for (&ell, (n_gm, scorer, gm)) in &a.fig7 {
            let greedy = a.times(ell, scorer).and_then(|t| Summary::of(&t.total));
            let gm_s = Summary::of(gm);
            let base = a.mean(ell, BASELINE, false);
            t.row(vec![
                ell.to_string(),
                a.fig5.get(&ell).map_or("—".into(), |f| f.0.to_string()),
                n_gm.to_string(),
                scorer.clone(),
                fmt_ms(greedy),
                fmt_ms(gm_s),
                match (greedy, gm_s) {
                    (Some(g), Some(m)) => format!("{:.2}", m.mean / g.mean),
                    _ => "—".into(),
                },
                fmt_x(if scorer == GECGA { a.speedups(ell).spg_w } else { None }),
                fmt_x(if scorer == GECGA { base.zip(gm_s).map(|(b, m)| b / m.mean) } else { None }),
            ]);
        }
        md += &t.render();
        let _ = writeln!(md, "\nPaper: spgm(w) = {:.1}× at ℓ = {} (C2050).\n", self.spec.fig5_paper.spgm_w, self.spec.fig5_paper.ell);
        md
    }

    fn check_claim(&self, c: &ClaimSpec, a: &Analysis) -> (Verdict, String) {
        let num = |k: &str| c.param(k).and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64))).unwrap_or(f64::NAN);
        let verdict = |ok: bool| if ok { Verdict::Reproduced } else { Verdict::NotReproduced };
        let none = |what: &str| (Verdict::NotRun(format!("no {what} in this machine's records")), String::new());
        match c.check.get_ref().as_str() {
            "gm_population_not_smaller" => {
                let mut ev = Vec::new();
                let mut ok = true;
                for ((search, ell), v) in &a.table5 {
                    if search != Search::Greedy.name() {
                        continue;
                    }
                    let (Some(g), Some(m)) =
                        (Summary::of(v), a.table5.get(&(Search::GreedyMating.name().into(), *ell)).and_then(|v| Summary::of(v)))
                    else {
                        continue;
                    };
                    // Not smaller beyond the noise of the means (95% intervals).
                    ok &= m.mean + m.ci95() + g.ci95() >= g.mean;
                    ev.push(format!("ℓ={ell}: GM {:.0} vs greedy {:.0}", m.mean, g.mean));
                }
                if ev.is_empty() { none("Table 5 bisections") } else { (verdict(ok), ev.join("; ")) }
            }
            "population_growth" => {
                let pts: Vec<(f64, f64)> = a
                    .table5
                    .iter()
                    .filter(|(k, _)| k.0 == Search::Greedy.name())
                    .filter_map(|(k, v)| Some((k.1 as f64, Summary::of(v)?.mean)))
                    .collect();
                if pts.len() < 2 {
                    return none("two problem sizes of Table 5");
                }
                let (_, b) = power_fit(&pts).expect("two points");
                (
                    verdict((num("min_exponent")..=num("max_exponent")).contains(&b)),
                    format!("greedy: n ∝ ℓ^{b:.2} over ℓ = {:.0}..{:.0}", pts[0].0, pts[pts.len() - 1].0),
                )
            }
            "gecga_identical" => {
                let (same, runs) = a.gecga_identical;
                if runs == 0 {
                    return (Verdict::NotRun("no gECGA runs (no GPU)".into()), String::new());
                }
                (
                    verdict(same == runs),
                    format!("{same} of {runs} gECGA runs identical to the first CPU scorer's (models, offspring, result)"),
                )
            }
            "spg_grows" => {
                let pts: Vec<(usize, f64)> = a.fig5.keys().filter_map(|&l| Some((l, a.speedups(l).spg_m?))).collect();
                if pts.len() < 2 {
                    return (Verdict::NotRun("needs gECGA and baseline at two ℓ or more".into()), String::new());
                }
                let grows = pts.windows(2).filter(|w| w[1].1 > w[0].1).count();
                let ev = pts.iter().map(|(l, v)| format!("ℓ={l}: {v:.1}×")).collect::<Vec<_>>().join(", ");
                (verdict(pts[pts.len() - 1].1 > pts[0].1 && grows * 2 >= pts.len() - 1), format!("spg(m): {ev}"))
            }
            "spc_small" => {
                let v: Vec<(usize, f64)> = a.fig5.keys().filter_map(|&l| Some((l, a.speedups(l).spc_w?))).collect();
                if v.is_empty() {
                    return none("baseline and FastCount runs");
                }
                let max = v.iter().map(|x| x.1).fold(0.0, f64::max);
                (verdict(max <= num("max_spc")), v.iter().map(|(l, s)| format!("ℓ={l}: spc(w) {s:.2}×")).collect::<Vec<_>>().join(", "))
            }
            "spg_at_500" => {
                let p = &self.spec.fig5_paper;
                let sp = a.speedups(p.ell);
                match (sp.spg_m, sp.spg_w) {
                    (Some(m), Some(w)) => {
                        let ev = format!(
                            "here spg(m) {m:.1}×, spg(w) {w:.1}×, spcg {} vs paper {:.1}×, {:.1}×, {:.1}×",
                            fmt_x(sp.spcg_m),
                            p.spg_m,
                            p.spg_w,
                            p.spcg
                        );
                        if m >= p.spg_m && w >= p.spg_w {
                            (Verdict::Reproduced, ev)
                        } else {
                            (Verdict::Differs("a modern CPU core runs the baseline far faster relative to the GPU than the W3530 did against the C2050".into()), ev)
                        }
                    }
                    _ => (Verdict::NotRun(format!("needs baseline and gECGA at ℓ = {}", p.ell)), String::new()),
                }
            }
            "greedy_quality_higher" => {
                let mut ev = Vec::new();
                let (mut wins, mut total) = (0, 0);
                for ((search, n), gens) in &a.fig6 {
                    if search != Search::Greedy.name() {
                        continue;
                    }
                    let Some(gm) = a.fig6.get(&(Search::GreedyMating.name().into(), *n)) else { continue };
                    // Generations both searches reached, the last one excluded.
                    let common: Vec<usize> = gens.keys().filter(|g| gm.contains_key(g)).copied().collect();
                    for g in common.iter().take(common.len().saturating_sub(1)) {
                        let q = |m: &PerGeneration| Summary::of(&m[g].0).map_or(0.0, |s| s.mean);
                        total += 1;
                        wins += usize::from(q(gens) >= q(gm));
                    }
                    ev.push(format!("N={n}"));
                }
                if total == 0 {
                    return none("Figure 6 runs of both searches");
                }
                (
                    verdict(wins * 4 >= total * 3),
                    format!("greedy ≥ GM in {wins} of {total} (N, generation) points before the last ({})", ev.join(", ")),
                )
            }
            "greedy_converges_earlier" => {
                let mut ev = Vec::new();
                let mut ok = 0;
                let mut total = 0;
                for ((search, n), lens) in &a.fig6_lengths {
                    if search != Search::Greedy.name() {
                        continue;
                    }
                    let Some(gm) = a.fig6_lengths.get(&(Search::GreedyMating.name().into(), *n)) else { continue };
                    let mean = |m: &BTreeMap<String, usize>| m.values().sum::<usize>() as f64 / m.len().max(1) as f64;
                    total += 1;
                    ok += usize::from(mean(lens) <= mean(gm));
                    ev.push(format!("N={n}: greedy {:.1} vs GM {:.1} generations", mean(lens), mean(gm)));
                }
                if total == 0 { none("Figure 6 runs of both searches") } else { (verdict(ok == total), ev.join("; ")) }
            }
            "gm_faster" => {
                let mut ev = Vec::new();
                let (mut ok, mut total) = (0, 0);
                for (&ell, (_, scorer, gm)) in &a.fig7 {
                    let (Some(g), Some(m)) = (a.mean(ell, scorer, false), Summary::of(gm)) else { continue };
                    total += 1;
                    ok += usize::from(m.mean < g);
                    ev.push(format!("ℓ={ell}: GM {:.0} ms vs greedy {g:.0} ms ({scorer})", m.mean));
                }
                if total == 0 { none("Figure 7 runs with matching Figure 5 runs") } else { (verdict(ok == total), ev.join("; ")) }
            }
            other => (Verdict::NotRun(format!("no checker `{other}`")), String::new()),
        }
    }
}

fn fig6(m: &MachineRecords, a: &Analysis) -> String {
    let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
    if a.fig6.is_empty() {
        return md + "No Figure 6 runs in this machine's profile.\n\n";
    }
    md += "Mean over runs of the fraction of the 10 subproblems found exactly as an MPM group, and of the ratio of ones after \
           selection, per generation (a run that converged earlier no longer contributes).\n\n";
    let pops: std::collections::BTreeSet<usize> = a.fig6.keys().map(|k| k.1).collect();
    for n in pops {
        let mut t = Table::new(&["generation", "greedy quality", "GM quality", "greedy ones ratio", "GM ones ratio"]);
        let get = |s: Search| a.fig6.get(&(s.name().to_owned(), n));
        let (g, gm) = (get(Search::Greedy), get(Search::GreedyMating));
        let last = g.into_iter().chain(gm).filter_map(|m| m.keys().last().copied()).max().unwrap_or(0);
        for generation in 1..=last {
            let cell = |m: Option<&PerGeneration>, quality: bool| {
                m.and_then(|m| m.get(&generation))
                    .and_then(|(q, o)| Summary::of(if quality { q } else { o }))
                    .map_or("—".into(), |s| format!("{:.2} ({})", s.mean, s.n))
            };
            t.row(vec![generation.to_string(), cell(g, true), cell(gm, true), cell(g, false), cell(gm, false)]);
        }
        let _ = writeln!(md, "N = {n} (runs per cell in parentheses):\n\n{}", t.render());
    }
    md
}

fn performance(m: &MachineRecords, a: &Analysis) -> String {
    let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
    let mut t = Table::new(&[
        "ℓ",
        "N",
        "scorer",
        "pairs scored per run",
        "model building (ms)",
        "in device calls (ms)",
        "device time, events (ms)",
        "schema-count words per second",
        "pairs per second",
    ]);
    for (&ell, (n, scorers)) in &a.fig5 {
        for s in SCORERS {
            let Some(times) = scorers.get(s).filter(|t| t.runs > 0) else { continue };
            let (Some(pairs), Some(model)) = (Summary::of(&times.pairs), Summary::of(&times.model)) else { continue };
            // Each pair reads at least its group's 2+ locus rows of N/64 words.
            let words = pairs.mean * (n.div_ceil(64) as f64) * 2.0;
            let mut row = time_cells(ell, *n, s, pairs.mean, model.mean, times);
            row.extend([format!("{:.2e}", words / (model.mean * 1e-3)), format!("{:.2e}", pairs.mean / (model.mean * 1e-3))]);
            t.row(row);
        }
    }
    if t.is_empty() {
        return md + "No Figure 5 runs.\n\n";
    }
    md += "Throughput of model building (packing and upload included). The counting reads at least two locus rows of N/64 \
           words per pair; the whole population (ℓ·N/8 bytes) stays in the GPU's L2 cache and the CPU's caches for these sizes, \
           so DRAM bandwidth is not the bound: the ratio to the device-copy ceiling is not meaningful here. *Device time* is \
           measured with CUDA events around each batch of launches: the kernels and the gaps between them (since v5 one batch \
           holds up to 32 search steps).\n\n";
    md += &t.render();
    md += "\n";
    md += &counting_rate(m, a);
    md += &counting_kernel(m);
    md += &builds(a);
    // The goals from the `speed` profile's runs where this machine has them (one
    // build of the code, not a mean over profiles measured by different versions).
    let speed = Analysis::of_rows(m.measurements().filter(|r| r.str("profile") == SPEED_PROFILE));
    md += &if speed.fig5.is_empty() && speed.build.is_empty() {
        speed_goals(a, "")
    } else {
        speed_goals(&speed, &format!(" (the `{SPEED_PROFILE}` profile's runs)"))
    };
    md
}

/// The cells both model-building tables start with: size, scorer, pairs,
/// model building and its device-call and kernel parts (ms).
fn time_cells(ell: usize, n: usize, scorer: &str, pairs: f64, model: f64, times: &ScorerTimes) -> Vec<String> {
    let ms = |v: &[f64]| Summary::of(v).map_or("—".into(), |k| format!("{:.1}", k.mean));
    vec![ell.to_string(), n.to_string(), scorer.into(), format!("{pairs:.0}"), format!("{model:.1}"), ms(&times.calls), ms(&times.kernel)]
}

/// gECGA's counting kernels against the device's int32 instruction rate
/// measured in the same run: alleles read per second of device time.
fn counting_rate(m: &MachineRecords, a: &Analysis) -> String {
    let mut t = Table::new(&[
        "ℓ",
        "N",
        "alleles counted per run",
        "device time (ms)",
        "alleles per second",
        "int32 instructions (10⁹/s)",
        "÷ int32 instructions per second",
    ]);
    for (&ell, (n, scorers)) in &a.fig5 {
        let Some(times) = scorers.get(GECGA) else { continue };
        let Some(ceiling) = a.fig5_profile.get(&ell).and_then(|p| m.ceiling_of_profile("gpu_int32", p)) else { continue };
        let (Some(alleles), Some(kernel)) = (Summary::of(&times.alleles), Summary::of(&times.kernel)) else { continue };
        let rate = alleles.mean / (kernel.mean * 1e-3);
        t.row(vec![
            ell.to_string(),
            n.to_string(),
            format!("{:.2e}", alleles.mean),
            format!("{:.1}", kernel.mean),
            format!("{rate:.2e}"),
            format!("{ceiling:.0}"),
            format!("{:.0}%", 100.0 * rate / (ceiling * 1e9)),
        ]);
    }
    if t.is_empty() {
        return String::new();
    }
    format!(
        "gECGA's counting against the int32 instruction rate measured by the same profile's runs: alleles read \
         (Σ loci × N over the scored groups) per second of device time. FastCount (groups ≤ 6 loci) handles 64 alleles per \
         AND, the histogram (7–12 loci) needs a shift and an AND-OR per allele and an atomic per individual, so \
         the ratio is a rate, not a utilisation:\n\n{}\n{}",
        t.render(),
        scale_rates(m)
    )
}

/// Alleles counted per second of device time in a scale build, and the int32
/// instruction rate (per second) measured in the same profile's runs.
fn scale_rate(m: &MachineRecords, r: &Record) -> Option<(f64, f64)> {
    let per_s = r.float("alleles_counted")? / (r.float("kernel_ms")? * 1e-3);
    Some((per_s, m.ceiling_of_profile("gpu_int32", r.str("profile"))? * 1e9))
}

/// The counting rate where counting dominates: the scale builds' long scoring blocks.
fn scale_rates(m: &MachineRecords) -> String {
    let rates: Vec<String> = m
        .measurements()
        .filter(|r| r.str("figure") == "scale" && r.str("status") == "ok")
        .filter_map(|r| {
            let (per_s, int32) = scale_rate(m, r)?;
            Some(format!("{} {:.0}% (ℓ = {}, N = {})", r.str("search"), 100.0 * per_s / int32, r.int("ell")?, r.int("n")?))
        })
        .collect();
    if rates.is_empty() {
        return String::new();
    }
    format!("Where counting dominates, in the scale builds (Scalability section): {}.\n\n", rates.join(", "))
}

/// The counting kernel alone (`count` rows): per merged-group size, alleles per
/// second of kernel time against the int32 instruction rate, and the locus rows
/// read (N/8 bytes per locus) against the device-copy bandwidth, both measured
/// by the same profile's run.
fn counting_kernel(m: &MachineRecords) -> String {
    let mut t = Table::new(&[
        "group size L",
        "counting",
        "N",
        "alleles per call",
        "kernel (ms)",
        "alleles per second",
        "÷ int32 instructions per second",
        "rows read (GB/s)",
        "÷ device copy",
    ]);
    // The latest run's rows: each run measured one version of the kernel.
    let count_rows = || m.measurements().filter(|r| r.str("figure") == "count" && r.str("status") == "ok");
    let Some(latest) = count_rows().filter_map(|r| r.int("run_id")).max() else { return String::new() };
    let mut commit = String::new();
    for r in count_rows().filter(|r| r.int("run_id") == Some(latest)) {
        commit = r.str("git_commit").to_owned();
        let (Some(size), Some(n), Some(alleles), Some(kernel_ms)) =
            (r.int("group_size"), r.int("n"), r.float("alleles_counted"), r.float("kernel_ms"))
        else {
            continue;
        };
        let per_s = alleles / (kernel_ms * 1e-3);
        let share = |ceiling: &str, v: f64| {
            m.ceiling_of_profile(ceiling, r.str("profile")).map_or("—".into(), |c| format!("{:.0}%", 100.0 * v / (c * 1e9)))
        };
        t.row(vec![
            size.to_string(),
            r.str("counting").to_owned(),
            n.to_string(),
            format!("{alleles:.2e}"),
            format!("{kernel_ms:.2}"),
            format!("{per_s:.2e}"),
            share("gpu_int32", per_s),
            format!("{:.0}", per_s / 8.0 / 1e9),
            share("gpu_d2d", per_s / 8.0),
        ]);
    }
    if t.is_empty() {
        return String::new();
    }
    format!(
        "The counting kernel alone (`count` case, the latest run: code `{commit}`): {COUNT_GROUPS} random groups of L distinct loci of a planted population \
         (ℓ = {COUNT_ELL}: the population, ℓ·N/8 bytes, is larger than the L2 cache, but the groups share its loci, so \
         rows read can exceed the device-copy bandwidth where blocks running together read the same row) scored per call, \
         one block per group, the first {COUNT_CHECKED} checked bit for bit against multi-threaded FastCount; mean of \
         {COUNT_REPS} timed calls (CUDA events). Each allele is one bit of a locus row, so rows read = alleles / 8 \
         bytes:\n\n{}\n",
        t.render()
    )
}

/// gECGA's model building at the largest ℓ against the goals: ≥ 1000× the
/// single-threaded baseline and ≥ 20× multi-threaded FastCount, same machine —
/// over whole runs (Figure 5) and over one model build (the `build` cases).
fn speed_goals(a: &Analysis, source: &str) -> String {
    let mut t = Table::new(&["measured over", "ℓ", "N", "against", "their time (ms)", "gECGA (ms)", "speedup", "goal"]);
    for (what, runs) in [("whole runs (Figure 5)", &a.fig5), ("one model build (first selection)", &a.build)] {
        let Some((&ell, (n, scorers))) = runs.iter().rev().find(|(_, (_, s))| s.get(GECGA).is_some_and(|t| t.runs > 0)) else {
            continue;
        };
        let model = |s: &str| scorers.get(s).and_then(|t| Summary::of(&t.model)).map(|m| m.mean);
        let Some(g) = model(GECGA) else { continue };
        for (other, goal) in [(BASELINE, "≥ 1000×"), (CPU_MT, "≥ 20×")] {
            let (time, speedup) = match model(other) {
                Some(o) => (format!("{o:.0}"), format!("{:.1}×", o / g)),
                None => ("not measured at this ℓ".into(), "—".into()),
            };
            t.row(vec![what.into(), ell.to_string(), n.to_string(), other.into(), time, format!("{g:.0}"), speedup, goal.into()]);
        }
    }
    if t.is_empty() {
        return String::new();
    }
    format!("gECGA model building against the speed goals, at the largest ℓ with a gECGA run{source}:\n\n{}\n", t.render())
}

/// One model build per scorer on the same selected population (`build` cases).
fn builds(a: &Analysis) -> String {
    let mut t = Table::new(&[
        "ℓ",
        "N",
        "scorer",
        "pairs scored",
        "model building (ms)",
        "in device calls (ms)",
        "device time, events (ms)",
        "speedup over baseline",
        "same MPM",
    ]);
    for (&ell, (n, scorers)) in &a.build {
        let base = scorers.get(BASELINE).and_then(|t| Summary::of(&t.model)).map(|m| m.mean);
        for s in SCORERS {
            let Some(times) = scorers.get(s).filter(|t| t.runs > 0) else { continue };
            let (Some(pairs), Some(model)) = (Summary::of(&times.pairs), Summary::of(&times.model)) else { continue };
            let mut row = time_cells(ell, *n, s, pairs.mean, model.mean, times);
            row.extend([
                base.map_or("—".into(), |b| format!("{:.1}×", b / model.mean)),
                if times.identical == times.runs { "yes".into() } else { format!("{} of {}", times.identical, times.runs) },
            ]);
            t.row(row);
        }
    }
    if t.is_empty() {
        return String::new();
    }
    format!(
        "One greedy model build from the first generation's selected population (random individuals after tournament \
         selection, the run's seed), timed with every scorer on the same machine:\n\n{}\n",
        t.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::int32_ceiling;

    fn timed(profile: &str, run_id: u64, ell: usize, model_ms: f64) -> Record {
        Record::new()
            .with("record_kind", "measurement")
            .with("figure", "fig5")
            .with("profile", profile)
            .with("run_id", run_id)
            .with("ell", ell)
            .with("n", 100usize)
            .with("scorer", GECGA)
            .with("status", "ok")
            .with("model_ms", model_ms)
    }

    #[test]
    fn each_ell_is_timed_by_the_profile_that_ran_it_last() {
        let rows = vec![
            timed("gpu", 10, 500, 1200.0),
            timed("speed", 20, 500, 770.0),
            timed("speed", 21, 500, 780.0),
            timed("gpu", 10, 400, 500.0),
        ];
        let a = Analysis::of(&MachineRecords { hw_id: "m".into(), rows });
        assert_eq!(a.mean(500, GECGA, true), Some(775.0), "ℓ = 500: only the later `speed` runs");
        assert_eq!(a.mean(400, GECGA, true), Some(500.0), "ℓ = 400: only `gpu` measured it");
        assert_eq!(a.times(500, GECGA).map(|t| t.runs), Some(2));
    }

    fn scale(search: &str, status: &str, alleles: f64, kernel_ms: f64) -> Record {
        Record::new()
            .with("record_kind", "measurement")
            .with("figure", "scale")
            .with("profile", "gpu-scale")
            .with("search", search)
            .with("status", status)
            .with("ell", 9800usize)
            .with("n", 1_912_315usize)
            .with("alleles_counted", alleles)
            .with("kernel_ms", kernel_ms)
    }

    #[test]
    fn scale_builds_are_rated_against_their_own_profiles_int32_ceiling() {
        let rows = vec![
            int32_ceiling("gpu", 5, 1000.0),
            int32_ceiling("gpu-scale", 3, 2000.0),
            scale("greedy", "ok", 1.0e12, 1000.0),
            scale("gm", "ok", 5.0e11, 1000.0),
            scale("gm", "not_run", 9.0e12, 1000.0),
        ];
        let m = MachineRecords { hw_id: "m".into(), rows };
        let ok: Vec<&Record> = m.measurements().filter(|r| r.str("status") == "ok").collect();
        // 10¹² alleles in 1 s against the gpu-scale run's 2·10¹² int32/s, not the later gpu run's.
        assert_eq!(scale_rate(&m, ok[0]), Some((1.0e12, 2.0e12)));
        let text = scale_rates(&m);
        assert!(text.contains("greedy 50%") && text.contains("gm 25%"), "{text}");
        assert!(!text.contains("450%"), "a build that did not run is not rated: {text}");
        assert!(scale_rates(&MachineRecords { hw_id: "m".into(), rows: vec![int32_ceiling("gpu", 1, 1.0)] }).is_empty());
    }

    fn count(run_id: u64, size: usize, counting: &str, alleles: f64, kernel_ms: f64) -> Record {
        Record::new()
            .with("record_kind", "measurement")
            .with("figure", "count")
            .with("profile", "gpu-count")
            .with("run_id", run_id)
            .with("git_commit", format!("c{run_id}"))
            .with("status", "ok")
            .with("group_size", size)
            .with("counting", counting)
            .with("n", 1000usize)
            .with("alleles_counted", alleles)
            .with("kernel_ms", kernel_ms)
    }

    #[test]
    fn the_counting_kernel_table_shows_the_latest_run_against_its_ceiling() {
        let rows = vec![
            int32_ceiling("gpu-count", 7, 4000.0),
            count(6, 2, "FastCount", 1.0e12, 1000.0),
            count(7, 2, "FastCount", 2.0e12, 1000.0),
            count(7, 7, "histogram", 1.0e12, 1000.0),
        ];
        let text = counting_kernel(&MachineRecords { hw_id: "m".into(), rows });
        // 2·10¹² alleles/s of a 4·10¹² int32/s ceiling; 10¹² / 4·10¹² for the histogram.
        assert!(text.contains("| 2 | FastCount | 1000 | 2.00e12 |") && text.contains("| 50% |"), "{text}");
        assert!(text.contains("| 7 | histogram |") && text.contains("| 25% |"), "{text}");
        assert!(text.contains("code `c7`"), "{text}");
        assert_eq!(text.matches("| 2 |").count(), 1, "only the latest run's rows: {text}");
        assert!(counting_kernel(&MachineRecords { hw_id: "m".into(), rows: vec![] }).is_empty());
    }

    #[test]
    fn a_scale_population_too_large_for_the_host_is_an_error_naming_its_sizes() {
        // The paper's point: 1,912,315 × 9800 alleles ≈ 19.6 GiB with the packed copy.
        assert!(population_fits_host(1_912_315, 9800, 126.0).is_ok());
        let err = population_fits_host(1_912_315, 9800, 16.0).unwrap_err().to_string();
        assert!(err.contains("N = 1912315") && err.contains("ℓ = 9800") && err.contains("19.6 GiB") && err.contains("16.0 GiB"), "{err}");
        let err = population_fits_host(usize::MAX / 2, 9800, 126.0).unwrap_err().to_string();
        assert!(err.contains("more than 2^64 bytes"), "{err}");
        assert!(population_fits_host(1_912_315, 9800, 0.0).is_ok(), "memory unknown: not checked");
    }
}

impl EcgaPaper {
    fn render_legacy(&self, machines: &[MachineRecords], dir: &Path) -> Result<String> {
        let mut md = String::new();
        md += "## How this was measured\n\n";
        let s = &self.spec.settings;
        let _ = writeln!(
            md,
            "Concatenated trap-{k} (Section 5.2), tournament selection without replacement of size {t}, MAX_L = {ml}, full \
             replacement, runs until every locus has converged (guard: 4·ℓ generations). Bisection: start at {n0}, double until \
             a run's best individual solves at least m − 1 subproblems, then bisect until (hi − lo)/lo ≤ {p} (one run per \
             trial; Sastry's bisection, ref. [18] of the paper), with the machine's fastest scorer (gECGA where there is a \
             GPU, else `fastcount-mt`: the scorers build identical models, so the sizes do not depend on it). Figures 5 and 7 run at the paper's Table 5 populations (past \
             ℓ = 350: the power law fitted to Table 5, as the paper used theory there). Every scorer runs the same seed and \
             must reproduce the identical run (same models, same offspring): the *identical* column counts that. Times are \
             host wall-clock: model building (packing the selected population, uploading it for gECGA, the MPM search) and the \
             whole run; where two profiles timed the same ℓ, the tables show the one that ran last (each ratio compares \
             scorers of one run and one kernel version). `fastcount` is the paper's FastCount with its 16-bit unity table on one thread; `fastcount-mt` \
             (prefix-shared AND tree, hardware popcount, all cores) is an extra column the paper lacks.\n",
            k = s.k.get_ref(),
            t = s.tournament.get_ref(),
            ml = s.max_l.get_ref(),
            n0 = s.bisection_n0.get_ref(),
            p = s.bisection_precision.get_ref()
        );
        let analyses: Vec<(&MachineRecords, Analysis)> = machines.iter().map(|m| (m, Analysis::of(m))).collect();
        md += "## Table 5 — population sizing\n\n";
        for (m, a) in &analyses {
            md += &self.table5(m, a, dir)?;
        }
        md += "## Figure 5 — speedups of FastCount and gECGA over the baseline\n\n";
        for (m, a) in &analyses {
            md += &self.fig5(m, a, dir)?;
        }
        md += "## Figure 6 — model-building quality and ratio of ones, (10,5)-trap\n\n";
        for (m, a) in &analyses {
            md += &fig6(m, a);
        }
        md += "## Figure 7 — greedy vs GM search, each at its own population\n\n";
        for (m, a) in &analyses {
            md += &self.fig7(m, a);
        }
        md += &self.scale(machines);
        md += "## Claims\n\n";
        let mut claims = Vec::new();
        for (m, a) in &analyses {
            for c in &self.spec.claims {
                let outcome = if c.check.get_ref() == "scale" { self.check_scale(m) } else { self.check_claim(c, a) };
                claims.push(ClaimResult::of(c, &m.hw_id, legacy_outcome(outcome)));
            }
        }
        md += &claims_table(&claims);
        md += "\n## Performance\n\n";
        for (m, a) in &analyses {
            md += &performance(m, a);
        }
        Ok(md)
    }
}
