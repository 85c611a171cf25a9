//! The layout paper: Cárdenas-Montes & Vega-Rodríguez, "Effect of Data Layout
//! in the Evaluation Time of Non-Separable Functions on GPU".
//!
//! Cases are (function, population, dimension). Each case times the paper's
//! sequential CPU evaluation (Section 3.3), a multi-threaded CPU evaluation (an
//! extra column), and the GPU strategies S1–S4 (Section 3.2: copy in, kernel,
//! copy out) at their best block size, after checking every evaluator against
//! the f64 reference on the case's fresh random inputs. The report rebuilds
//! Table 1, the LinearSVM decision regions of Figures 1–6 and the claims.

pub mod selfcheck;

use super::{Case, Experiment, Paper, RunEnv};
use crate::claims::ClaimResult;
use crate::error::SpecError;
use crate::gpu::layout::{LayoutBuffers, Strategy, launch_config};
use crate::library::nonseparable::{self as ns, Function};
use crate::records::Record;
use crate::report::chart::{self, LineChart, RegionChart};
use crate::report::{MachineRecords, Table, claims_table};
use crate::spec::{ClaimSpec, LegacyVerdict as Verdict, PaperMeta, SpecFile, legacy_outcome};
use crate::stats::Summary;
use crate::svm::{self, Boundary, Point};
use anyhow::{Result, bail};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;
use std::time::Instant;
use toml::Spanned;

pub struct Layout;
pub static LAYOUT: Layout = Layout;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LayoutSpec {
    paper: PaperMeta,
    settings: Settings,
    profiles: BTreeMap<String, Profile>,
    table1: Vec<Table1Row>,
    figures: Vec<FigureSpec>,
    claims: Vec<ClaimSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    seed: u64,
    block_sizes: Vec<Spanned<u32>>,
    block_search_tries: usize,
    svm_cost: f64,
    table1_unit: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    tries: Spanned<usize>,
    functions: Vec<Spanned<String>>,
    sizes: Vec<Spanned<[i64; 2]>>,
    #[serde(default)]
    grid_pops: Vec<i64>,
    #[serde(default)]
    grid_dims: Vec<i64>,
    max_elements: Option<i64>,
    /// GPU strategies to run (names of `gpu::layout::Strategy`); all when empty.
    #[serde(default)]
    gpu_strategies: Vec<Spanned<String>>,
}

/// A row of the paper's Table 1: (mean, sd) per strategy; None = NAN.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table1Row {
    size: [u64; 2],
    s1: Option<[f64; 2]>,
    s2: Option<[f64; 2]>,
    s3: Option<[f64; 2]>,
    s4: Option<[f64; 2]>,
    sequential: [f64; 2],
}

impl Table1Row {
    fn paper(&self, class: &str) -> Option<[f64; 2]> {
        match class {
            "S1" => self.s1,
            "S2" => self.s2,
            "S3" => self.s3,
            "S4" => self.s4,
            "sequential" => Some(self.sequential),
            _ => None,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FigureSpec {
    figure: String,
    function: Spanned<String>,
    classes: Vec<String>,
    support_vectors: BTreeMap<String, Vec<[u64; 2]>>,
}

/// Back-to-back launches of the best configuration timed for the kernel-only rate.
const KERNEL_LOOP: usize = 20;

/// The largest population the harness accepts (2²⁸ coordinates = 1 GiB of f32).
const MAX_ELEMENTS: i64 = 1 << 28;
/// The strategies the paper compares (the classes of its figures).
const PAPER_CLASSES: [&str; 5] = ["sequential", "S1", "S2", "S3", "S4"];
/// Every column of the report, the multi-threaded CPU included.
/// Every column of the report: the paper's five plus two extras it lacks
/// (multi-threaded CPU, and S4-split for GPUs with far more threads than individuals).
const ALL_CLASSES: [&str; 7] = ["sequential", "cpu_mt", "S1", "S2", "S3", "S4", "S4-split"];
const CHECKS: [&str; 10] = [
    "sequential_wins_below",
    "crossover_elements",
    "winner_above",
    "s3_first_dimension_not_run",
    "winning_classes",
    "support_vectors",
    "sequential_region_order",
    "s3_middle_band",
    "coalesced_beats_strided",
    "s4_near_best_gpu",
];

impl Experiment for Layout {
    fn id(&self) -> &'static str {
        "layout"
    }
    fn title(&self) -> &'static str {
        "Effect of data layout in the evaluation time of non-separable functions on GPU (S1–S4, Table 1, Figures 1–6)"
    }
    fn embedded_spec(&self) -> &'static str {
        include_str!("../../../experiments/layout.toml")
    }
    fn selfcheck(&self, gpu: &crate::gpu::Gpu, small: bool, seed: u64) -> Result<usize> {
        selfcheck::selfcheck(gpu, small, seed)
    }
    fn load(&self, file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
        let spec: LayoutSpec = file.parse()?;
        validate(file, &spec)?;
        Ok(Box::new(LayoutPaper { spec, file: file.clone() }))
    }
}

fn validate(file: &SpecFile, spec: &LayoutSpec) -> Result<(), SpecError> {
    for b in &spec.settings.block_sizes {
        if !(32..=1024).contains(b.get_ref()) || b.get_ref() % 32 != 0 {
            return Err(file.invalid(b, "settings.block_sizes", format!("{} is not a multiple of 32 in 32..=1024", b.get_ref())));
        }
    }
    for (name, p) in &spec.profiles {
        let key = |k: &str| format!("profiles.{name}.{k}");
        if *p.tries.get_ref() == 0 {
            return Err(file.invalid(&p.tries, &key("tries"), "must be at least 1"));
        }
        for f in &p.functions {
            if Function::from_name(f.get_ref()).is_none() {
                let known: Vec<&str> = Function::ALL.iter().map(|f| f.name()).collect();
                return Err(file.invalid(
                    f,
                    &key("functions"),
                    format!("unknown function `{}` (known: {})", f.get_ref(), known.join(", ")),
                ));
            }
        }
        for s in &p.gpu_strategies {
            if Strategy::from_name(s.get_ref()).is_none() {
                let known: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                return Err(file.invalid(
                    s,
                    &key("gpu_strategies"),
                    format!("unknown strategy `{}` (known: {})", s.get_ref(), known.join(", ")),
                ));
            }
        }
        for s in &p.sizes {
            let [pop, dim] = *s.get_ref();
            if pop < 1 || dim < 4 {
                return Err(file.invalid(s, &key("sizes"), format!("{pop}×{dim}: population must be ≥ 1 and dimension ≥ 4")));
            }
            if pop.saturating_mul(dim) > MAX_ELEMENTS {
                return Err(file.invalid(
                    s,
                    &key("sizes"),
                    format!("{pop}×{dim} = {} coordinates exceeds the limit of {MAX_ELEMENTS}", pop * dim),
                ));
            }
        }
    }
    for f in &spec.figures {
        if Function::from_name(f.function.get_ref()).is_none() {
            return Err(file.invalid(&f.function, "figures.function", format!("unknown function `{}`", f.function.get_ref())));
        }
    }
    file.check_claims(&spec.claims, &CHECKS)
}

struct LayoutPaper {
    spec: LayoutSpec,
    file: SpecFile,
}

impl LayoutPaper {
    fn profile(&self, name: &str) -> Result<&Profile, SpecError> {
        self.file.profile(&self.spec.profiles, name)
    }

    /// Sizes of a profile: the explicit ones plus the grid, deduplicated, by size.
    fn sizes(p: &Profile) -> Vec<(usize, usize)> {
        let mut set = BTreeSet::new();
        for s in &p.sizes {
            set.insert((s.get_ref()[0] as usize, s.get_ref()[1] as usize));
        }
        let cap = p.max_elements.unwrap_or(MAX_ELEMENTS).min(MAX_ELEMENTS);
        for &pop in &p.grid_pops {
            for &dim in &p.grid_dims {
                if pop >= 1 && dim >= 4 && pop * dim <= cap {
                    set.insert((pop as usize, dim as usize));
                }
            }
        }
        let mut v: Vec<_> = set.into_iter().collect();
        v.sort_by_key(|&(p, d)| (p * d, p));
        v
    }

    /// The GPU strategies a profile runs.
    fn strategies(p: &Profile) -> Vec<Strategy> {
        if p.gpu_strategies.is_empty() {
            return Strategy::ALL.to_vec();
        }
        p.gpu_strategies.iter().map(|s| Strategy::from_name(s.get_ref()).expect("validated")).collect()
    }

    fn seed(&self, pop: usize, dim: usize) -> u64 {
        self.spec.settings.seed ^ ((pop as u64) << 32) ^ (dim as u64).wrapping_mul(0x9E37_79B9)
    }
}

fn ms_since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}

fn row(strategy: &str, phase: &str, try_index: usize) -> Record {
    Record::new().with("strategy", strategy).with("phase", phase).with("try", try_index).with("status", "ok")
}

impl Paper for LayoutPaper {
    fn meta(&self) -> &PaperMeta {
        &self.spec.paper
    }

    fn profiles(&self) -> Vec<String> {
        self.spec.profiles.keys().cloned().collect()
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.profile(profile)?;
        let mut cases = Vec::new();
        for (pop, dim) in Self::sizes(p) {
            for f in &p.functions {
                let f = Function::from_name(f.get_ref()).expect("validated");
                cases.push(Case {
                    id: format!("{}/{pop}x{dim}", f.name()),
                    params: Record::new()
                        .with("function", f.name())
                        .with("pop", pop)
                        .with("dim", dim)
                        .with("seed", self.seed(pop, dim))
                        .with("tries", *p.tries.get_ref()),
                    weight: (pop * dim) as u64 / 1000 + 10,
                });
            }
        }
        Ok(cases)
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let f = Function::from_name(case.params.str("function")).expect("case from spec");
        let pop = case.params.int("pop").expect("pop") as usize;
        let dim = case.params.int("dim").expect("dim") as usize;
        let tries = case.params.int("tries").expect("tries") as usize;
        let x = ns::random_population(pop, dim, case.params.int("seed").expect("seed") as u64);
        let refs = ns::references(f, &x, dim);
        let mut rows = Vec::new();
        let mut out = vec![f32::NAN; pop];

        // CPU: the paper's sequential evaluation and the multi-threaded extra column.
        let threads = rayon::current_num_threads();
        type Eval = fn(Function, &[f32], usize, &mut [f32]);
        for (name, eval) in [("sequential", ns::evaluate_sequential as Eval), ("cpu_mt", ns::evaluate_parallel as Eval)] {
            out.fill(f32::NAN);
            eval(f, &x, dim, &mut out);
            let check = ns::check(&out, &refs);
            if !check.passed() {
                bail!("{name} {f} {pop}×{dim} disagrees with the f64 reference: {check:?}");
            }
            for t in 0..tries {
                let t0 = Instant::now();
                eval(f, &x, dim, &mut out);
                std::hint::black_box(&out);
                let r = row(name, "timed", t).with("wall_ms", ms_since(t0)).with("check_ratio", check.worst_ratio);
                rows.push(if name == "cpu_mt" { r.with("threads", threads) } else { r });
            }
        }

        // GPU strategies S1–S4 (and S4-split), as many as the profile asks for.
        let strategies = Self::strategies(self.profile(&env.profile)?);
        let Some(gpu) = &env.gpu else {
            for &s in &strategies {
                rows.push(row(s.name(), "timed", 0).with("status", "not_run").with("reason", env.gpu_absent.as_str()));
            }
            return Ok(rows);
        };
        let xt = ns::transpose(&x, pop, dim);
        let mut bufs = LayoutBuffers::new(gpu, &x, &xt, pop, dim)?;
        let search_tries = self.spec.settings.block_search_tries;
        let max_block = (pop.next_power_of_two() as u32).max(32);
        for s in strategies {
            let blocks: Vec<u32> = if s.searches_block_size() {
                self.spec.settings.block_sizes.iter().map(|b| *b.get_ref()).filter(|&b| b <= max_block).collect()
            } else {
                vec![0]
            };
            // Check every launch configuration, then time each with a few tries.
            let mut best: Option<(f64, u32, cudarc::driver::LaunchConfig, f64)> = None;
            for &block in &blocks {
                let (cfg, threads_per_block) = match launch_config(gpu, f, s, pop, dim, block)? {
                    Ok(c) => c,
                    Err(reason) => {
                        rows.push(row(s.name(), "timed", 0).with("block_size", block).with("status", "cannot_run").with("reason", reason));
                        continue;
                    }
                };
                bufs.run(gpu, f, s, cfg, true)?;
                let check = ns::check(&bufs.output()?, &refs);
                if !check.passed() {
                    bail!("{s} ({f}, {pop}×{dim}, block {threads_per_block}) disagrees with the f64 reference: {check:?}");
                }
                let mut walls = Vec::new();
                for t in 0..search_tries {
                    let tm = bufs.run(gpu, f, s, cfg, false)?;
                    walls.push(tm.wall_ms);
                    rows.push(gpu_row(s, "search", t, threads_per_block, &tm, check.worst_ratio));
                }
                let med = crate::stats::median(&walls);
                if best.is_none_or(|b| med < b.0) {
                    best = Some((med, threads_per_block, cfg, check.worst_ratio));
                }
            }
            if let Some((_, block, cfg, ratio)) = best {
                for t in 0..tries {
                    let tm = bufs.run(gpu, f, s, cfg, false)?;
                    rows.push(gpu_row(s, "timed", t, block, &tm, ratio));
                }
                // Not in the paper: the kernel alone, launched back to back, as
                // the device-copy ceiling is timed.
                let per_launch = bufs.time_kernel(gpu, f, s, cfg, KERNEL_LOOP)?;
                rows.push(row(s.name(), "kernel_loop", 0).with("block_size", block).with("kernel_ms", per_launch));
            }
        }
        Ok(rows)
    }

    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<super::PaperReport> {
        Ok(super::PaperReport::legacy(self.render_legacy(machines, dir)?))
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        let analyses: Vec<(&MachineRecords, Analysis)> = machines.iter().map(|m| (m, Analysis::of(m))).collect();
        let mut md =
            String::from("## Rosenbrock, Table 1 sizes: best time per strategy (ms), and the paper's C2075 time over each machine's\n\n");
        let mut header = vec!["size".to_owned(), "strategy".to_owned(), "paper (C2075 + E5520)".to_owned()];
        header.extend(analyses.iter().map(|(m, _)| format!("`{}`", m.hw_id)));
        let mut t = Table::new(&header);
        for r in &self.spec.table1 {
            let (pop, dim) = (r.size[0] as usize, r.size[1] as usize);
            for class in PAPER_CLASSES {
                let paper = r.paper(class);
                let mut cells = vec![format!("{pop}×{dim}"), class.into(), paper.map_or("NAN".into(), |p| format!("{:.3}", p[0]))];
                for (_, a) in &analyses {
                    cells.push(match a.get(Function::Rosenbrock, pop, dim, class) {
                        Some(Outcome::Ok(s)) => match paper {
                            Some(p) => format!("{:.4} ({:.1}× faster)", s.mean, p[0] / s.mean),
                            None => format!("{:.4} (paper: NAN)", s.mean),
                        },
                        Some(Outcome::CannotRun(_)) => "cannot run".into(),
                        Some(Outcome::NotRun(_)) => "not run here".into(),
                        None => "—".into(),
                    });
                }
                t.row(cells);
            }
        }
        md += &t.render();
        md += "\n## Device bandwidth: datasheet of the paper's GPU vs measured here\n\n";
        let mut t = Table::new(&["machine", "GPU memory bandwidth (GB/s)", "× paper's"]);
        let paper_bw = self.spec.paper.hardware.gpu_bandwidth_gbs;
        t.row(vec!["paper (datasheet)".into(), format!("{paper_bw:.0}"), "1.0".into()]);
        for (m, _) in &analyses {
            match m.ceiling("gpu_d2d") {
                Some(bw) => t.row(vec![format!("`{}` (measured copy)", m.hw_id), format!("{bw:.0}"), format!("{:.1}", bw / paper_bw)]),
                None => t.row(vec![format!("`{}`", m.hw_id), "not run here".into(), "—".into()]),
            }
        }
        md += &t.render();
        md
    }
}

fn gpu_row(s: Strategy, phase: &str, t: usize, block: u32, tm: &crate::gpu::layout::Timing, ratio: f64) -> Record {
    row(s.name(), phase, t)
        .with("block_size", block)
        .with("wall_ms", tm.wall_ms)
        .with("h2d_ms", tm.h2d_ms)
        .with("kernel_ms", tm.kernel_ms)
        .with("d2h_ms", tm.d2h_ms)
        .with("events_ms", tm.events_ms)
        .with("check_ratio", ratio)
}

fn fmt_size(p: f64, d: f64) -> String {
    format!("{p}×{d}")
}

fn fmt_support(items: impl Iterator<Item = (String, Vec<(f64, f64)>)>) -> String {
    items
        .map(|(c, v)| format!("{c}: {}", v.iter().map(|&(p, d)| fmt_size(p, d)).collect::<Vec<_>>().join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Support vectors per class across a figure's boundaries.
fn measured_support(bounds: &[Boundary]) -> impl Iterator<Item = (String, Vec<(f64, f64)>)> {
    let mut by: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for b in bounds {
        for (class, pts) in [(&b.lower, &b.support_lower), (&b.upper, &b.support_upper)] {
            match by.iter_mut().find(|(c, _)| c == class) {
                Some((_, v)) => v.extend(pts.iter().filter(|p| !v.contains(p)).copied().collect::<Vec<_>>()),
                None => by.push((class.clone(), pts.clone())),
            }
        }
    }
    by.into_iter()
}

/// The outcome of one strategy at one size on one machine.
#[derive(Clone, Debug)]
enum Outcome {
    /// Summary of the timed tries (wall ms), with the kernel-only median.
    Ok(Timed),
    CannotRun(String),
    NotRun(String),
}

#[derive(Clone, Debug)]
struct Timed {
    mean: f64,
    sd: f64,
    n: usize,
    median: f64,
    block: Option<i64>,
    kernel_median: Option<f64>,
    events_median: Option<f64>,
    /// Kernel alone, back to back (ms per launch), where recorded.
    kernel_loop: Option<f64>,
}

/// Everything the report needs from one machine's records.
struct Analysis {
    /// The profile whose records these are.
    profile: String,
    cells: BTreeMap<(Function, usize, usize, String), Outcome>,
    gpu_ran: bool,
    gpu_absent: String,
}

impl Analysis {
    /// The paper profile where a machine has one, else the quick one.
    fn of(m: &MachineRecords) -> Analysis {
        let profile = if m.measurements().any(|r| r.str("profile") == "paper") { "paper" } else { "quick" };
        Analysis::of_profile(m, profile)
    }

    fn of_profile(m: &MachineRecords, profile: &str) -> Analysis {
        let mut groups: BTreeMap<(Function, usize, usize, String), Vec<&Record>> = BTreeMap::new();
        for r in m.measurements().filter(|r| r.str("profile") == profile) {
            let Some(f) = Function::from_name(r.str("function")) else { continue };
            let (Some(p), Some(d)) = (r.int("pop"), r.int("dim")) else { continue };
            groups.entry((f, p as usize, d as usize, r.str("strategy").to_owned())).or_default().push(r);
        }
        let mut cells = BTreeMap::new();
        let mut gpu_ran = false;
        let mut gpu_absent = String::new();
        for (key, rows) in groups {
            let timed: Vec<&Record> = rows.iter().copied().filter(|r| r.str("phase") == "timed" && r.str("status") == "ok").collect();
            let outcome = if let Some(s) = Summary::of(&timed.iter().filter_map(|r| r.float("wall_ms")).collect::<Vec<_>>()) {
                let med = |k: &str| {
                    let v: Vec<f64> = timed.iter().filter_map(|r| r.float(k)).collect();
                    (!v.is_empty()).then(|| crate::stats::median(&v))
                };
                Outcome::Ok(Timed {
                    mean: s.mean,
                    sd: s.sd,
                    n: s.n,
                    median: s.median,
                    block: timed[0].int("block_size"),
                    kernel_median: med("kernel_ms"),
                    events_median: med("events_ms"),
                    kernel_loop: rows.iter().find(|r| r.str("phase") == "kernel_loop").and_then(|r| r.float("kernel_ms")),
                })
            } else if let Some(r) = rows.iter().find(|r| r.str("status") == "cannot_run") {
                Outcome::CannotRun(r.str("reason").to_owned())
            } else {
                let reason = rows.first().map_or("", |r| r.str("reason")).to_owned();
                Outcome::NotRun(reason)
            };
            match &outcome {
                Outcome::Ok(_) | Outcome::CannotRun(_) if key.3.starts_with('S') => gpu_ran = true,
                Outcome::NotRun(why) => gpu_absent = why.clone(),
                _ => {}
            }
            cells.insert(key, outcome);
        }
        if gpu_absent.is_empty() {
            gpu_absent = "no GPU records".into();
        }
        Analysis { profile: profile.to_owned(), cells, gpu_ran, gpu_absent }
    }

    fn get(&self, f: Function, pop: usize, dim: usize, class: &str) -> Option<&Outcome> {
        self.cells.get(&(f, pop, dim, class.to_owned()))
    }

    fn time(&self, f: Function, pop: usize, dim: usize, class: &str) -> Option<f64> {
        match self.get(f, pop, dim, class) {
            Some(Outcome::Ok(t)) => Some(t.mean),
            _ => None,
        }
    }

    /// Median kernel-only time (GPU strategies).
    fn kernel_time(&self, f: Function, pop: usize, dim: usize, class: &str) -> Option<f64> {
        match self.get(f, pop, dim, class) {
            Some(Outcome::Ok(t)) => t.kernel_median,
            _ => None,
        }
    }

    /// Share of the end-to-end time spent in copies, for S4 at one size.
    fn copy_share(&self, f: Function, pop: usize, dim: usize) -> Option<f64> {
        match self.get(f, pop, dim, "S4") {
            Some(Outcome::Ok(t)) => Some(1.0 - t.kernel_median? / t.events_median?),
            _ => None,
        }
    }

    fn sizes(&self, f: Function) -> Vec<(usize, usize)> {
        let set: BTreeSet<(usize, usize)> = self.cells.keys().filter(|k| k.0 == f).map(|k| (k.1, k.2)).collect();
        set.into_iter().collect()
    }

    /// The fastest of the paper's five columns; None if a GPU column was not run.
    fn winner(&self, f: Function, pop: usize, dim: usize) -> Option<&'static str> {
        if PAPER_CLASSES.iter().any(|c| matches!(self.get(f, pop, dim, c), Some(Outcome::NotRun(_)) | None)) {
            return None;
        }
        PAPER_CLASSES.iter().filter_map(|&c| self.time(f, pop, dim, c).map(|t| (c, t))).min_by(|a, b| a.1.total_cmp(&b.1)).map(|(c, _)| c)
    }

    fn points(&self, f: Function) -> Vec<Point> {
        self.sizes(f)
            .into_iter()
            .filter_map(|(p, d)| self.winner(f, p, d).map(|c| Point { pop: p as f64, dim: d as f64, class: c.into() }))
            .collect()
    }
}

impl LayoutPaper {
    fn table1(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        let mut header = vec!["pop × dim".to_owned()];
        for c in ALL_CLASSES {
            header.push(if PAPER_CLASSES.contains(&c) { c.to_owned() } else { format!("{c} (extra)") });
        }
        header.extend(["winner (paper)".into(), "winner (here)".into(), "best: paper / here".into()]);
        let mut t = Table::new(&header);
        for r in &self.spec.table1 {
            let (pop, dim) = (r.size[0] as usize, r.size[1] as usize);
            let f = Function::Rosenbrock;
            let mut cells = vec![format!("{pop}×{dim}")];
            for c in ALL_CLASSES {
                let paper = r.paper(c).map_or(if PAPER_CLASSES.contains(&c) { " (paper NAN)".into() } else { String::new() }, |p| {
                    format!(" (paper {:.3} ± {:.3})", p[0], p[1])
                });
                cells.push(match a.get(f, pop, dim, c) {
                    Some(Outcome::Ok(s)) => {
                        let block = s.block.map_or(String::new(), |b| format!(", b{b}"));
                        format!("{:.4} ± {:.4}{block}{paper}", s.mean, s.sd)
                    }
                    Some(Outcome::CannotRun(why)) => format!("cannot run: {why}{paper}"),
                    Some(Outcome::NotRun(_)) => format!("not run here{paper}"),
                    None => format!("—{paper}"),
                });
            }
            let paper_best = PAPER_CLASSES.iter().filter_map(|c| r.paper(c).map(|p| (*c, p[0]))).min_by(|x, y| x.1.total_cmp(&y.1));
            let here = a.winner(f, pop, dim);
            cells.push(paper_best.map_or("—".into(), |b| b.0.to_owned()));
            cells.push(here.map_or("— (GPU not run)".into(), |w| w.to_owned()));
            cells.push(match (paper_best, here.and_then(|w| a.time(f, pop, dim, w))) {
                (Some(p), Some(h)) => format!("{:.1}×", p.1 / h),
                _ => "—".into(),
            });
            t.row(cells);
        }
        let n = a.cells.values().find_map(|o| if let Outcome::Ok(t) = o { Some(t.n) } else { None }).unwrap_or(0);
        md += &format!(
            "Mean ± sd over {n} tries ({}), best block size as `bN`; paper values in parentheses.\n\n",
            self.spec.settings.table1_unit
        );
        md += &t.render();
        // A chart of time against problem size for every strategy.
        let series: Vec<(String, Vec<(f64, f64)>)> = ALL_CLASSES
            .iter()
            .map(|c| {
                let pts = self
                    .spec
                    .table1
                    .iter()
                    .filter_map(|r| {
                        a.time(Function::Rosenbrock, r.size[0] as usize, r.size[1] as usize, c).map(|t| ((r.size[0] * r.size[1]) as f64, t))
                    })
                    .collect::<Vec<_>>();
                (c.to_string(), pts)
            })
            .filter(|s| !s.1.is_empty())
            .collect();
        if !series.is_empty() {
            let name = format!("{}__table1", m.hw_id);
            let title = format!("Rosenbrock, Table 1 sizes — {}", m.label());
            let c = LineChart { title: &title, x_label: "population × dimension", y_label: "time (ms)", series };
            chart::write_lines(&dir.join("figures").join(&name), &c).map_err(anyhow::Error::msg)?;
            md += &format!("\n![Table 1 sizes, time per strategy](figures/{name}.png)\n");
        }
        md += "\n";
        Ok(md)
    }

    fn region_figure(
        &self,
        stem: &Path,
        fig: &FigureSpec,
        f: Function,
        points: &[Point],
        bounds: &[Boundary],
        m: &MachineRecords,
    ) -> Result<(), String> {
        let order = svm::class_order(points);
        let classes: Vec<(String, Vec<(f64, f64)>)> =
            order.iter().map(|c| (c.clone(), points.iter().filter(|p| &p.class == c).map(|p| (p.pop, p.dim)).collect())).collect();
        let lines = bounds.iter().map(|b| (format!("SVM {} | {}", b.lower, b.upper), [b.w[0], b.w[1], b.rho])).collect();
        let rings = bounds.iter().flat_map(|b| b.support_lower.iter().chain(&b.support_upper).copied()).collect();
        let span = |v: Vec<f64>| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            (lo / 1.6, hi * 1.6)
        };
        chart::write_regions(
            stem,
            &RegionChart {
                title: &format!("{} ({}) — {}", fig.figure, f.name(), m.label()),
                x_label: "population",
                y_label: "dimension",
                x_range: span(points.iter().map(|p| p.pop).collect()),
                y_range: span(points.iter().map(|p| p.dim).collect()),
                classes,
                lines,
                rings,
            },
        )
    }

    fn check_claim(
        &self,
        c: &ClaimSpec,
        a: &Analysis,
        regions: &BTreeMap<(String, Function), Vec<Boundary>>,
        hw: &str,
    ) -> (Verdict, String) {
        let func = |k: &str| c.param(k).and_then(|v| v.as_str()).and_then(Function::from_name).unwrap_or(Function::Rosenbrock);
        let num = |k: &str| c.param(k).and_then(|v| v.as_float().or_else(|| v.as_integer().map(|i| i as f64))).unwrap_or(0.0);
        let winners =
            |f: Function| a.sizes(f).into_iter().filter_map(move |(p, d)| a.winner(f, p, d).map(|w| (p, d, w))).collect::<Vec<_>>();
        let verdict = |ok: bool| if ok { Verdict::Reproduced } else { Verdict::NotReproduced };
        match c.check.get_ref().as_str() {
            "sequential_wins_below" => {
                let f = func("function");
                let max = num("max_elements");
                let small: Vec<_> = winners(f).into_iter().filter(|(p, d, _)| (p * d) as f64 <= max).collect();
                let lost: Vec<String> = small.iter().filter(|w| w.2 != "sequential").map(|(p, d, w)| format!("{p}×{d}: {w}")).collect();
                let ev = format!(
                    "{} sizes ≤ {max:.0} coordinates; sequential loses at {}",
                    small.len(),
                    if lost.is_empty() { "none".into() } else { lost.join(", ") }
                );
                (verdict(!small.is_empty() && lost.is_empty()), ev)
            }
            "crossover_elements" => {
                let f = func("function");
                let paper = num("paper_elements");
                let tol = num("tolerance_factor");
                let w = winners(f);
                let last_seq = w.iter().filter(|x| x.2 == "sequential").map(|(p, d, _)| p * d).max();
                let first_gpu = w.iter().filter(|x| x.2 != "sequential").map(|(p, d, _)| p * d).min();
                match (last_seq, first_gpu) {
                    (Some(s), Some(g)) => {
                        let mid = ((s as f64) * (g as f64)).sqrt().min(s as f64).max(g as f64);
                        let ev = format!(
                            "largest size won by sequential: {s} coordinates; smallest won by a GPU strategy: {g}; paper ≈ {paper:.0}"
                        );
                        if mid / paper <= tol && paper / mid <= tol {
                            (Verdict::Reproduced, ev)
                        } else {
                            (
                                Verdict::Differs(format!(
                                    "crossover near {mid:.0} coordinates, {:.1}× the paper's; the host link and CPU of this machine are not the C2075's PCIe 2 and E5520",
                                    mid / paper
                                )),
                                ev,
                            )
                        }
                    }
                    (None, _) => (Verdict::Differs("sequential never wins".into()), "a GPU strategy wins at every size".into()),
                    (_, None) => (Verdict::NotReproduced, "sequential wins at every size".into()),
                }
            }
            "winner_above" => {
                let f = func("function");
                let s = c.param("strategy").and_then(|v| v.as_str()).unwrap_or("S4");
                let min = num("min_elements");
                let big: Vec<_> = winners(f).into_iter().filter(|(p, d, _)| (p * d) as f64 >= min).collect();
                let other: Vec<String> = big.iter().filter(|w| w.2 != s).map(|(p, d, w)| format!("{p}×{d}: {w}")).collect();
                let kernel_wins = big
                    .iter()
                    .filter(|(p, d, _)| {
                        let k = |c: &str| a.kernel_time(f, *p, *d, c).unwrap_or(f64::INFINITY);
                        ["S1", "S2", "S3", "S4"].iter().all(|c| k(s) <= k(c))
                    })
                    .count();
                let ev = format!(
                    "{} sizes ≥ {min:.0} coordinates; won end to end by others: {}; {s} has the fastest kernel at {kernel_wins} of them",
                    big.len(),
                    if other.is_empty() { "none".into() } else { other.join(", ") }
                );
                if !big.is_empty() && other.is_empty() {
                    (Verdict::Reproduced, ev)
                } else if !big.is_empty() && kernel_wins == big.len() {
                    (Verdict::Differs("end-to-end times are bound by the host↔device copies, where S1–S4 are within noise; the S4 kernel is the fastest".into()), ev)
                } else {
                    (Verdict::NotReproduced, ev)
                }
            }
            "s3_first_dimension_not_run" => {
                let paper = num("paper_dimension") as usize;
                let mut ran = BTreeSet::new();
                let mut blocked = BTreeSet::new();
                for ((_, _, d, s), o) in &a.cells {
                    if s == "S3" {
                        match o {
                            Outcome::Ok(_) => {
                                ran.insert(*d);
                            }
                            Outcome::CannotRun(_) => {
                                blocked.insert(*d);
                            }
                            _ => {}
                        }
                    }
                }
                let first = blocked.iter().next().copied();
                let largest_ran = ran.iter().next_back().copied();
                let ev = format!(
                    "largest dimension S3 ran: {}; smallest it could not: {}",
                    largest_ran.map_or("none".into(), |d| d.to_string()),
                    first.map_or("none".into(), |d| d.to_string())
                );
                match first {
                    Some(d) if d == paper => (Verdict::Reproduced, ev),
                    Some(_) | None => (Verdict::Differs("S3 is limited by threads per block (1024 here) and shared memory per block, which have grown since Fermi's 48 KB".into()), ev),
                }
            }
            "winning_classes" => {
                let mut ok = true;
                let mut ev = Vec::new();
                for fig in &self.spec.figures {
                    let f = Function::from_name(fig.function.get_ref()).expect("validated");
                    let measured = svm::class_order(&a.points(f));
                    ok &= measured == fig.classes;
                    ev.push(format!("{}: {}", f.name(), measured.join("→")));
                }
                (
                    if ok {
                        Verdict::Reproduced
                    } else {
                        Verdict::Differs("the balance of host link, CPU and GPU speed moved the boundaries".into())
                    },
                    ev.join("; "),
                )
            }
            "support_vectors" => {
                let mut same = 0;
                let mut ev = Vec::new();
                for fig in &self.spec.figures {
                    let f = Function::from_name(fig.function.get_ref()).expect("validated");
                    let Some(b) = regions.get(&(hw.to_owned(), f)) else { continue };
                    let measured: BTreeSet<(String, u64, u64)> =
                        measured_support(b).flat_map(|(c, v)| v.into_iter().map(move |(p, d)| (c.clone(), p as u64, d as u64))).collect();
                    let paper: BTreeSet<(String, u64, u64)> =
                        fig.support_vectors.iter().flat_map(|(c, v)| v.iter().map(move |s| (c.clone(), s[0], s[1]))).collect();
                    let common = measured.intersection(&paper).count();
                    if measured == paper {
                        same += 1;
                    }
                    ev.push(format!("{}: {common} of the paper's {} found", f.name(), paper.len()));
                }
                let all = same == self.spec.figures.len();
                (
                    if all {
                        Verdict::Reproduced
                    } else {
                        Verdict::Differs("support vectors sit on the class boundaries, which depend on the hardware".into())
                    },
                    ev.join("; "),
                )
            }
            "sequential_region_order" => {
                let share = |f: Function| {
                    let w = winners(f);
                    w.iter().filter(|x| x.2 == "sequential").count() as f64 / w.len().max(1) as f64
                };
                let pairs = c.param("pairs").and_then(|v| v.as_array()).cloned().unwrap_or_default();
                let mut ok = true;
                let mut ev = Vec::new();
                for p in pairs {
                    let names: Vec<Function> =
                        p.as_array().into_iter().flatten().filter_map(|v| v.as_str().and_then(Function::from_name)).collect();
                    if let [light, heavy] = names[..] {
                        let (sl, sh) = (share(light), share(heavy));
                        ok &= sl >= sh;
                        ev.push(format!(
                            "{} {:.0}% ≥ {} {:.0}%: {}",
                            light.name(),
                            100.0 * sl,
                            heavy.name(),
                            100.0 * sh,
                            if sl >= sh { "yes" } else { "no" }
                        ));
                    }
                }
                (verdict(ok), format!("share of sizes won by sequential — {}", ev.join("; ")))
            }
            "s3_middle_band" => {
                let fs: Vec<Function> = c
                    .param("functions")
                    .and_then(|v| v.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_str().and_then(Function::from_name))
                    .collect();
                let mut ok = true;
                let mut ev = Vec::new();
                for f in fs {
                    let order = svm::class_order(&a.points(f));
                    let pos = |c: &str| order.iter().position(|x| x == c);
                    let band = matches!((pos("sequential"), pos("S3"), pos("S4")), (Some(a), Some(b), Some(c)) if a < b && b < c);
                    let wins = winners(f).iter().filter(|w| w.2 == "S3").count();
                    ok &= band;
                    ev.push(format!("{}: S3 wins {wins} sizes, order {}", f.name(), order.join("→")));
                }
                (verdict(ok), ev.join("; "))
            }
            "coalesced_beats_strided" => {
                // End to end (the paper's measure), and on kernel time alone.
                let (mut total, mut bad, mut bad_kernel) = (0, Vec::new(), 0);
                let mut shares = Vec::new();
                for f in Function::ALL {
                    for (p, d) in a.sizes(f) {
                        let best =
                            |cs: &[&str], t: &dyn Fn(&str) -> Option<f64>| cs.iter().filter_map(|c| t(c)).min_by(|x, y| x.total_cmp(y));
                        let wall = |c: &str| a.time(f, p, d, c);
                        let kern = |c: &str| a.kernel_time(f, p, d, c);
                        if let (Some(co), Some(st)) = (best(&["S3", "S4"], &wall), best(&["S1", "S2"], &wall)) {
                            total += 1;
                            if co >= st {
                                bad.push(format!("{} {p}×{d}", f.name()));
                            }
                            if let (Some(kc), Some(ks)) = (best(&["S3", "S4"], &kern), best(&["S1", "S2"], &kern))
                                && kc >= ks
                            {
                                bad_kernel += 1;
                            }
                            shares.extend(a.copy_share(f, p, d));
                        }
                    }
                }
                let share = crate::stats::median(&shares);
                let ev = format!(
                    "end to end: S1/S2 at least as fast in {} of {total} (function, size) pairs{}; kernel time alone: {bad_kernel} of {total}; median share of copies in S4's time: {:.0}%",
                    bad.len(),
                    if bad.is_empty() {
                        String::new()
                    } else {
                        format!(" (e.g. {})", bad.iter().take(4).cloned().collect::<Vec<_>>().join(", "))
                    },
                    100.0 * share
                );
                if total > 0 && bad.is_empty() {
                    (Verdict::Reproduced, ev)
                } else if total > 0 && (bad_kernel as f64) <= 0.1 * total as f64 {
                    (Verdict::Differs("host↔device copies dominate end-to-end time, so the layout barely shows there; on kernel time the coalesced strategies win".into()), ev)
                } else {
                    (Verdict::NotReproduced, ev)
                }
            }
            "s4_near_best_gpu" => {
                let max_ratio = num("max_ratio");
                let mut worst = (0.0f64, String::new());
                for f in Function::ALL {
                    for (p, d) in a.sizes(f) {
                        let best = ["S1", "S2", "S3", "S4"].iter().filter_map(|c| a.time(f, p, d, c)).min_by(|x, y| x.total_cmp(y));
                        if let (Some(b), Some(s4)) = (best, a.time(f, p, d, "S4"))
                            && s4 / b > worst.0
                        {
                            worst = (s4 / b, format!("{} {p}×{d}", f.name()));
                        }
                    }
                }
                (
                    verdict(worst.0 > 0.0 && worst.0 <= max_ratio),
                    format!("worst S4 / best GPU time: {:.2} at {} (allowed {max_ratio})", worst.0, worst.1),
                )
            }
            other => (Verdict::NotRun(format!("no checker `{other}`")), String::new()),
        }
    }
}

/// Kernel, end-to-end and sequential CPU rates against the ceilings measured in
/// the same run, for each profile with sizes of ≥ 16 M coordinates: Rosenbrock
/// (the goal's function) from the paper or quick profile, every light function
/// from the `speed` profile.
fn performance(m: &MachineRecords, analyses: &[&Analysis]) -> String {
    let mut md = format!("### `{}`\n\n", m.hw_id);
    let mut ceilings = String::new();
    let pct = |x: f64, c: Option<f64>| c.map_or("–".to_owned(), |c| format!("{:.0}%", 100.0 * x / c));
    let mut gpu = Table::new(&[
        "profile",
        "function",
        "size",
        "strategy",
        "kernel in sequence: bytes read + written / kernel time",
        "of device copy",
        "kernel alone, back to back",
        "of device copy (alone)",
        "end to end: input bytes / (copy-in + kernel + copy-out)",
        "of pinned host→device",
    ]);
    let mut cpu = Table::new(&["profile", "function", "size", "sequential: input bytes / time", "of 1-thread read"]);
    for a in analyses {
        if a.cells.is_empty() {
            continue;
        }
        let ceiling = |name: &str| m.ceiling_of_profile(name, &a.profile);
        let (d2d, h2d, cpu1) = (ceiling("gpu_d2d"), ceiling("gpu_h2d_pinned"), ceiling("cpu_read_1t"));
        let _ = writeln!(
            ceilings,
            "- {} profile: device copy {}, pinned host→device {}, one CPU thread reading {}.",
            a.profile,
            d2d.map_or("not measured".into(), |c| format!("{c:.0} GB/s")),
            h2d.map_or("not measured".into(), |c| format!("{c:.1} GB/s")),
            cpu1.map_or("not measured".into(), |c| format!("{c:.1} GB/s")),
        );
        let functions: &[Function] =
            if a.profile == "speed" { &[Function::Rosenbrock, Function::F2Light, Function::F4Light] } else { &[Function::Rosenbrock] };
        for &f in functions {
            let mut sizes: Vec<(usize, usize)> = a.sizes(f).into_iter().filter(|(p, d)| p * d >= 16_000_000).collect();
            sizes.sort_by_key(|&(p, d)| (p * d, p));
            for &(p, d) in &sizes {
                for strategy in ["S4", "S4-split"] {
                    let Some(Outcome::Ok(s)) = a.get(f, p, d, strategy) else { continue };
                    let rate = |ms: f64| ((p * d + p) * 4) as f64 / (ms * 1e-3) / 1e9;
                    let kernel = s.kernel_median.map(rate);
                    let alone = s.kernel_loop.map(rate);
                    let e2e = s.events_median.map(|e| (p * d * 4) as f64 / (e * 1e-3) / 1e9);
                    gpu.row(vec![
                        a.profile.clone(),
                        f.name().into(),
                        fmt_size(p as f64, d as f64),
                        strategy.into(),
                        kernel.map_or("–".into(), |g| format!("{g:.0} GB/s")),
                        kernel.map_or("–".into(), |g| pct(g, d2d)),
                        alone.map_or("–".into(), |g| format!("{g:.0} GB/s")),
                        alone.map_or("–".into(), |g| pct(g, d2d)),
                        e2e.map_or("–".into(), |g| format!("{g:.1} GB/s")),
                        e2e.map_or("–".into(), |g| pct(g, h2d)),
                    ]);
                }
            }
            let largest = sizes.iter().max_by_key(|(p, d)| p * d);
            if let Some(&(p, d)) = largest
                && let Some(Outcome::Ok(s)) = a.get(f, p, d, "sequential")
            {
                let bw = (p * d * 4) as f64 / (s.median * 1e-3) / 1e9;
                cpu.row(vec![a.profile.clone(), f.name().into(), fmt_size(p as f64, d as f64), format!("{bw:.1} GB/s"), pct(bw, cpu1)]);
            }
        }
    }
    if gpu.is_empty() && cpu.is_empty() {
        md += "No size large enough (≥ 16 M coordinates) in these records.\n\n";
        return md;
    }
    md += "Ceilings measured by the same profile's runs (each row is compared with its own profile's):\n\n";
    md += &ceilings;
    md += "\n";
    if !gpu.is_empty() {
        md += "Goals: S4 Rosenbrock kernel at 8000×2000 and larger ≥ 80% of the device copy; end to end ≥ 70% of pinned host→device. \
               The kernel is timed twice: inside the paper's copy-in, kernel, copy-out sequence (CUDA events around it), and alone, \
               launched 20 times back to back after the copy, as the device-copy ceiling is timed.\n\n";
        md += &gpu.render();
        md += "\n";
    }
    if !cpu.is_empty() {
        md += "Goal: the light functions' sequential evaluation within 1.5× of the one-thread read bandwidth (≥ 67%), at the largest size.\n\n";
        md += &cpu.render();
        md += "\n";
    }
    md
}

impl LayoutPaper {
    fn render_legacy(&self, machines: &[MachineRecords], dir: &Path) -> Result<String> {
        let mut md = String::new();
        let unit = &self.spec.settings.table1_unit;
        let _ = writeln!(
            md,
            "## How this was measured\n\n\
             Times are end-to-end per population evaluation, in {unit}: for S1–S4 host→device copy, kernel and \
             device→host copy (host clock around the whole; CUDA events split it into copy-in / kernel / copy-out), \
             from pinned host memory; for the CPU columns the evaluation alone. Inputs are uniform in (0, 1), \
             identical for every function and strategy of one size. Each GPU strategy is first run on every block \
             size in `{:?}` (up to the population) and checked against the f64 CPU reference on those inputs \
             (|f32 − ref| ≤ {:.0e}·Σ|term| + {}·(effect of one f32 ulp per input)), then the fastest block size is timed \
             for the profile's tries: cells show mean ± sd over those tries. `sequential` is the paper's single-thread \
             CPU evaluation; `cpu_mt` (all cores, rayon) is an extra column the paper lacks and takes no part in the \
             winner or the SVM figures.\n",
            self.spec.settings.block_sizes.iter().map(|b| *b.get_ref()).collect::<Vec<_>>(),
            ns::ACCUMULATION_RTOL,
            ns::ULP_ALLOWANCE,
        );
        let analyses: Vec<(&MachineRecords, Analysis)> = machines.iter().map(|m| (m, Analysis::of(m))).collect();

        md += "## Table 1 — Rosenbrock\n\n";
        for (m, a) in &analyses {
            md += &self.table1(m, a, dir)?;
        }

        md += "## Figures 1–6 — LinearSVM decision regions of the winning strategy\n\n";
        let _ = writeln!(
            md,
            "Winner = fastest of the paper's five columns (sequential, S1–S4) at each size. Classes are ordered by \
             problem size and each consecutive pair gets its own linear SVM (footnote 7 of the paper) on \
             (log₁₀ population, log₁₀ dimension), cost C = {}. Rings mark support vectors.\n",
            self.spec.settings.svm_cost
        );
        let mut regions: BTreeMap<(String, Function), Vec<Boundary>> = BTreeMap::new();
        for (m, a) in &analyses {
            if !a.gpu_ran {
                let _ = writeln!(md, "### `{}`\n\nNot run here ({}): the figures need the GPU strategies.\n", m.hw_id, a.gpu_absent);
                continue;
            }
            let _ = writeln!(md, "### `{}` ({})\n", m.hw_id, m.label());
            let mut t = Table::new(&[
                "figure",
                "function",
                "paper classes",
                "measured classes",
                "paper support vectors",
                "measured support vectors",
                "misclassified",
            ]);
            for fig in &self.spec.figures {
                let f = Function::from_name(fig.function.get_ref()).expect("validated");
                let points = a.points(f);
                if points.is_empty() {
                    continue;
                }
                let bounds = svm::fit_regions(&points, self.spec.settings.svm_cost).map_err(anyhow::Error::msg)?;
                let stem = dir.join("figures").join(format!("{}__{}", m.hw_id, f.name()));
                self.region_figure(&stem, fig, f, &points, &bounds, m).map_err(anyhow::Error::msg)?;
                let _ = writeln!(md, "![{} — {}](figures/{}__{}.png)\n", fig.figure, f.name(), m.hw_id, f.name());
                t.row(vec![
                    fig.figure.clone(),
                    f.name().into(),
                    fig.classes.join(" → "),
                    svm::class_order(&points).join(" → "),
                    fmt_support(fig.classes.iter().map(|c| {
                        (
                            c.clone(),
                            fig.support_vectors.get(c).cloned().unwrap_or_default().iter().map(|s| (s[0] as f64, s[1] as f64)).collect(),
                        )
                    })),
                    fmt_support(measured_support(&bounds)),
                    bounds.iter().map(|b| b.misclassified.to_string()).collect::<Vec<_>>().join(", "),
                ]);
                regions.insert((m.hw_id.clone(), f), bounds);
            }
            md += &t.render();
            md += "\n";
        }

        md += "## Claims\n\n";
        let mut claims = Vec::new();
        for (m, a) in &analyses {
            for c in &self.spec.claims {
                let outcome = if a.gpu_ran {
                    self.check_claim(c, a, &regions, &m.hw_id)
                } else {
                    (Verdict::NotRun(a.gpu_absent.clone()), "GPU strategies were not run on this machine".into())
                };
                claims.push(ClaimResult::of(c, &m.hw_id, legacy_outcome(outcome)));
            }
        }
        md += &claims_table(&claims);
        md += "\n## Performance against measured ceilings\n\n";
        for (m, a) in &analyses {
            let speed = Analysis::of_profile(m, "speed");
            md += &performance(m, &[a, &speed]);
        }
        Ok(md)
    }
}
