//! The island-GA paper: Jaros, "Multi-GPU Island-Based Genetic Algorithm for
//! Solving the Knapsack Problem" (IEEE CEC 2012).
//!
//! Cases:
//! - `grid/i<islands>/n<size>/r<run>`: one run of the island GA (`library::island`)
//!   on the 10,000-item instance, on the GPU where there is one (all islands of
//!   one GPU in the same launches, `gpu::island`), else on all CPU cores: the best
//!   fitness and its gap to the optimum (Figure 4), the time (Figure 5) and the
//!   migration share (Figure 6). Both backends evolve bit-identical populations
//!   from the same seed (counter-based Philox), so Figure 4 does not depend on
//!   the machine.
//! - `ring/i<islands>/n<size>`: the multi-GPU version (Section IV): the ring on one
//!   GPU, then split over every GPU of the machine with the emigrants sent over
//!   NCCL (`gpu::island_ring`); both must end with the same statistics.
//! - `speed/n<size>`: one island for a few generations on one CPU thread, all CPU
//!   threads, the GPU with the paper's kernels and with split kernels
//!   (`gpu::island::Design`); every backend must end with the same statistics, and
//!   the time per generation gives Figure 7 and Table I. The GPU's Philox rate is
//!   measured there too, the ceiling of genetic manipulation.

pub mod selfcheck;

use super::{Case, Experiment, Paper, RunEnv};
use crate::claims::ClaimResult;
use crate::error::SpecError;
use crate::gpu::island::Design;
use crate::library::island::{self, Config, RunResult, Threads};
use crate::library::knapsack::Instance;
use crate::records::Record;
use crate::report::chart::{self, LineChart};
use crate::report::{MachineRecords, Table, claims_table};
use crate::spec::{ClaimSpec, LegacyVerdict as Verdict, PaperMeta, SpecFile, legacy_outcome};
use crate::stats::Summary;
use anyhow::{Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use toml::Spanned;

pub struct Island;
pub static ISLAND: Island = Island;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IslandSpec {
    paper: PaperMeta,
    settings: Settings,
    profiles: BTreeMap<String, Profile>,
    table1: Table1Paper,
    claims: Vec<ClaimSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    seed: u64,
    instance: PathBuf,
    optimum: u64,
    crossover: Spanned<f64>,
    mutation: Spanned<f64>,
    migration_interval: Spanned<u32>,
    migration_fraction: Spanned<f64>,
    individuals_per_sm: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    grid_islands: Vec<Spanned<usize>>,
    grid_sizes: Vec<Spanned<usize>>,
    generations: Spanned<u32>,
    runs: usize,
    speed_sizes: Vec<Spanned<usize>>,
    speed_generations: Spanned<u32>,
    /// The headline configuration at the paper's full length (Section VI: 100k
    /// generations), where the profile shortens the grid.
    full_length: Option<FullLength>,
    /// The multi-GPU ring (`ring` cases): island counts × sizes, run for `ring_generations`.
    #[serde(default)]
    ring_islands: Vec<Spanned<usize>>,
    #[serde(default)]
    ring_sizes: Vec<Spanned<usize>>,
    #[serde(default)]
    ring_generations: Option<Spanned<u32>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FullLength {
    islands: usize,
    size: usize,
    generations: u32,
    runs: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table1Paper {
    sizes: Vec<usize>,
    rows: Vec<Table1Row>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table1Row {
    config: String,
    speedup: Vec<f64>,
}

impl Table1Paper {
    fn at(&self, config: &str, size: usize) -> Option<f64> {
        let i = self.sizes.iter().position(|&s| s == size)?;
        self.rows.iter().find(|r| r.config == config)?.speedup.get(i).copied()
    }
}

const CHECKS: [&str; 6] =
    ["more_islands_better", "islands_add_no_time", "saturation_knee", "migration_negligible", "threads_scale", "gpu_speedup"];
const CPU_1T: &str = "cpu-1t";
const CPU_MT: &str = "cpu-mt";
const CUDA: &str = "cuda";
/// The GPU with [`crate::gpu::island::Design::Split`] kernels (speed cases only).
const CUDA_SPLIT: &str = "cuda-split";
/// The ring split over every GPU of the machine, NCCL between them (ring cases).
const CUDA_RING: &str = "cuda-nccl";
/// Largest island and island count the harness accepts.
const MAX_SIZE: usize = 1 << 16;
const MAX_ISLANDS: usize = 1024;

impl Experiment for Island {
    fn id(&self) -> &'static str {
        "island"
    }
    fn title(&self) -> &'static str {
        "Island-based GA for the 0/1 knapsack on CPU threads and a GPU (Figures 4–7, Table I)"
    }
    fn embedded_spec(&self) -> &'static str {
        include_str!("../../../experiments/island.toml")
    }
    fn selfcheck(&self, gpu: &crate::gpu::Gpu, small: bool, seed: u64) -> Result<usize> {
        selfcheck::selfcheck(gpu, small, seed)
    }
    fn load(&self, file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
        let spec: IslandSpec = file.parse()?;
        validate(file, &spec)?;
        Ok(Box::new(IslandPaper { spec, file: file.clone() }))
    }
}

fn validate(file: &SpecFile, spec: &IslandSpec) -> Result<(), SpecError> {
    let s = &spec.settings;
    for (key, p) in
        [("settings.crossover", &s.crossover), ("settings.mutation", &s.mutation), ("settings.migration_fraction", &s.migration_fraction)]
    {
        if !(0.0..=1.0).contains(p.get_ref()) {
            return Err(file.invalid(p, key, format!("{} must be a probability in [0, 1]", p.get_ref())));
        }
    }
    if *s.migration_interval.get_ref() == 0 {
        return Err(file.invalid(&s.migration_interval, "settings.migration_interval", "must be at least 1"));
    }
    for (name, p) in &spec.profiles {
        for n in p.grid_sizes.iter().chain(&p.speed_sizes).chain(&p.ring_sizes) {
            if !(4..=MAX_SIZE).contains(n.get_ref()) || n.get_ref() % 2 != 0 {
                return Err(file.invalid(
                    n,
                    &format!("profiles.{name}"),
                    format!("island size {} must be even and in 4..={MAX_SIZE}", n.get_ref()),
                ));
            }
        }
        for i in p.grid_islands.iter().chain(&p.ring_islands) {
            if !(1..=MAX_ISLANDS).contains(i.get_ref()) {
                return Err(file.invalid(i, &format!("profiles.{name}"), format!("{} islands: must be in 1..={MAX_ISLANDS}", i.get_ref())));
            }
        }
        for g in [&p.generations, &p.speed_generations].into_iter().chain(&p.ring_generations) {
            if *g.get_ref() == 0 {
                return Err(file.invalid(g, &format!("profiles.{name}"), "generations must be at least 1"));
            }
        }
    }
    file.check_claims(&spec.claims, &CHECKS)
}

struct IslandPaper {
    spec: IslandSpec,
    file: SpecFile,
}

impl IslandPaper {
    fn instance(&self) -> Result<Instance> {
        let path = &self.spec.settings.instance;
        Instance::load(path).with_context(|| format!("the knapsack instance of {}", self.file.path.display()))
    }

    fn config(&self, islands: usize, size: usize, generations: u32, seed: u64, threads: Threads) -> Config {
        let s = &self.spec.settings;
        Config {
            crossover_p: *s.crossover.get_ref(),
            mutation_p: *s.mutation.get_ref(),
            migration_interval: *s.migration_interval.get_ref(),
            migration_fraction: *s.migration_fraction.get_ref(),
            threads,
            statistics_interval: generations,
            ..Config::paper(islands, size, generations, seed)
        }
    }
}

/// One run's row: method, result, phase times (ms).
fn run_row(method: &str, r: &RunResult, optimum: u64) -> Record {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let t = &r.times;
    let s = &r.statistics;
    Record::new()
        .with("method", method)
        .with("status", "ok")
        .with("best", s.best)
        .with("mean", s.mean)
        .with("std_dev", s.std_dev)
        .with("best_island", s.best_island)
        .with("feasible", s.best_solution.feasible)
        .with("gap", (optimum as f64 - s.best as f64) / optimum as f64)
        .with("manipulation_ms", ms(t.genetic_manipulation))
        .with("evaluation_ms", ms(t.evaluation))
        .with("replacement_ms", ms(t.replacement))
        .with("migration_ms", ms(t.migration))
        .with("statistics_ms", ms(t.statistics))
        .with("total_ms", ms(t.total()))
}

impl Paper for IslandPaper {
    fn meta(&self) -> &PaperMeta {
        &self.spec.paper
    }

    fn profiles(&self) -> Vec<String> {
        self.spec.profiles.keys().cloned().collect()
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.file.profile(&self.spec.profiles, profile)?;
        let seed = self.spec.settings.seed;
        let mut cases = Vec::new();
        let gens = *p.generations.get_ref();
        for islands in p.grid_islands.iter().map(|i| *i.get_ref()) {
            for size in p.grid_sizes.iter().map(|n| *n.get_ref()) {
                for r in 0..p.runs {
                    cases.push(Case {
                        id: format!("grid/i{islands}/n{size}/r{r}"),
                        params: Record::new()
                            .with("figure", "grid")
                            .with("islands", islands)
                            .with("island_size", size)
                            .with("generations", gens)
                            .with("run", r)
                            .with("seed", seed ^ ((islands as u64) << 32) ^ ((size as u64) << 16) ^ r as u64),
                        weight: (islands * size) as u64 * u64::from(gens) / 10_000 + 1,
                    });
                }
            }
        }
        if let Some(f) = &p.full_length {
            for r in 0..f.runs {
                cases.push(Case {
                    id: format!("full/i{}/n{}/r{r}", f.islands, f.size),
                    params: Record::new()
                        .with("figure", "full")
                        .with("islands", f.islands)
                        .with("island_size", f.size)
                        .with("generations", f.generations)
                        .with("run", r)
                        .with("seed", seed ^ 0xF011 ^ ((f.islands as u64) << 32) ^ ((f.size as u64) << 16) ^ r as u64),
                    weight: (f.islands * f.size) as u64 * u64::from(f.generations) / 10_000 + 1,
                });
            }
        }
        if let Some(gens) = p.ring_generations.as_ref().map(|g| *g.get_ref()) {
            for islands in p.ring_islands.iter().map(|i| *i.get_ref()) {
                for size in p.ring_sizes.iter().map(|n| *n.get_ref()) {
                    cases.push(Case {
                        id: format!("ring/i{islands}/n{size}"),
                        params: Record::new()
                            .with("figure", "ring")
                            .with("islands", islands)
                            .with("island_size", size)
                            .with("generations", gens)
                            .with("seed", seed ^ 0x21A6 ^ ((islands as u64) << 32) ^ ((size as u64) << 16)),
                        weight: (islands * size) as u64 * u64::from(gens) / 5_000 + 1,
                    });
                }
            }
        }
        let gens = *p.speed_generations.get_ref();
        for size in p.speed_sizes.iter().map(|n| *n.get_ref()) {
            cases.push(Case {
                id: format!("speed/n{size}"),
                params: Record::new()
                    .with("figure", "speed")
                    .with("islands", 1)
                    .with("island_size", size)
                    .with("generations", gens)
                    .with("seed", seed ^ size as u64),
                weight: size as u64 * u64::from(gens) / 100 + 1,
            });
        }
        Ok(cases)
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let p = &case.params;
        let islands = p.int("islands").expect("islands") as usize;
        let size = p.int("island_size").expect("island_size") as usize;
        let generations = p.int("generations").expect("generations") as u32;
        let seed = p.int("seed").expect("seed") as u64;
        let instance = self.instance()?;
        let optimum = self.spec.settings.optimum;
        let mut rows = Vec::new();
        if p.str("figure") == "ring" {
            return ring_rows(&instance, &self.config(islands, size, generations, seed, Threads::Rayon), optimum, env);
        }
        if p.str("figure") != "speed" {
            let cfg = self.config(islands, size, generations, seed, Threads::Rayon);
            let (method, r) = match &env.gpu {
                Some(gpu) => (CUDA, crate::gpu::island::run(gpu, &instance, &cfg, Design::Paper)?),
                None => (CPU_MT, island::run(&instance, &cfg)?),
            };
            rows.push(run_row(method, &r, optimum).with("threads", rayon::current_num_threads()));
            return Ok(rows);
        }
        let mut reference: Option<RunResult> = None;
        let mut check = |name: &str, r: &RunResult| -> Result<()> {
            let want = reference.get_or_insert_with(|| r.clone());
            anyhow::ensure!(
                want.statistics.best == r.statistics.best
                    && want.statistics.best_chromosome == r.statistics.best_chromosome
                    && want.statistics.mean.to_bits() == r.statistics.mean.to_bits(),
                "{name} evolved a different population than {CPU_1T} in case {} (seed {seed})",
                case.id
            );
            Ok(())
        };
        for (name, threads) in [(CPU_1T, Threads::Single), (CPU_MT, Threads::Rayon)] {
            let r = island::run(&instance, &self.config(1, size, generations, seed, threads))?;
            check(name, &r)?;
            let n_threads = if threads == Threads::Single { 1 } else { rayon::current_num_threads() };
            rows.push(run_row(name, &r, optimum).with("threads", n_threads));
        }
        match &env.gpu {
            Some(gpu) => {
                for (name, design) in [(CUDA, Design::Paper), (CUDA_SPLIT, Design::Split)] {
                    let r = crate::gpu::island::run(gpu, &instance, &self.config(1, size, generations, seed, Threads::Single), design)?;
                    check(name, &r)?;
                    rows.push(run_row(name, &r, optimum));
                }
                let philox = crate::gpu::island::philox_rate(gpu, 5)?;
                rows.last_mut().expect("a GPU row").set("philox_calls_per_s", philox);
            }
            None => {
                for name in [CUDA, CUDA_SPLIT] {
                    rows.push(not_run(name, &env.gpu_absent));
                }
            }
        }
        Ok(rows)
    }

    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<super::PaperReport> {
        Ok(super::PaperReport::legacy(self.render_legacy(machines, dir)?))
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        let mut t = Table::new(&[
            "machine",
            "island size",
            "cpu-1t (ms/gen.)",
            "cpu-mt (ms/gen.)",
            "GPU (ms/gen.)",
            "GPU / 1 thread",
            "paper: 1 GPU / 1 thread",
        ]);
        for m in machines {
            let a = Analysis::of(m);
            for size in a.speed_sizes() {
                let per = |method: &str| a.per_generation(size, method);
                let paper = self.spec.table1.at("1 GPU", size).map_or("—".into(), |v| format!("{v:.1}×"));
                t.row(vec![
                    format!("`{}`", m.hw_id),
                    size.to_string(),
                    fmt_opt(per(CPU_1T), 3),
                    fmt_opt(per(CPU_MT), 3),
                    per(CUDA).map_or_else(|| a.reason(CUDA), |v| format!("{v:.3}")),
                    ratio(per(CPU_1T), per(CUDA)),
                    paper,
                ]);
            }
        }
        t.render()
    }
}

/// The row of a method this machine does not run, with the one-line reason.
fn not_run(method: &str, reason: &str) -> Record {
    Record::new().with("method", method).with("status", "not_run").with("reason", reason)
}

/// A `ring` case: the ring on this run's GPU, then split over every GPU of the machine (NCCL between them), which
/// must end with the same statistics; `not_run` rows where there is no GPU, one GPU or no NCCL.
fn ring_rows(instance: &Instance, config: &Config, optimum: u64, env: &RunEnv) -> Result<Vec<Record>> {
    use crate::gpu::{self, island_ring};
    let Some(gpu) = &env.gpu else {
        return Ok(vec![not_run(CUDA, &env.gpu_absent), not_run(CUDA_RING, &env.gpu_absent)]);
    };
    let one = gpu::island::run(gpu, instance, config, Design::Paper)?;
    let mut rows = vec![run_row(CUDA, &one, optimum).with("gpus", 1)];
    let count = gpu::probe()?.min(config.islands);
    if let Err(why) = island_ring::probe(count) {
        rows.push(not_run(CUDA_RING, &why.to_string()));
        return Ok(rows);
    }
    let gpus = island_ring::open_gpus(count)?;
    let ring = island_ring::run(&gpus, instance, config, Design::Paper)?;
    let (a, b) = (&one.statistics, &ring.statistics);
    anyhow::ensure!(
        a.best == b.best && a.best_chromosome == b.best_chromosome && a.mean.to_bits() == b.mean.to_bits(),
        "the ring over {count} GPUs evolved a different population than one GPU ({} islands × {}, seed {})",
        config.islands,
        config.island_size,
        config.seed
    );
    let split: Vec<String> = island_ring::split(config.islands, count).iter().map(usize::to_string).collect();
    rows.push(run_row(CUDA_RING, &ring, optimum).with("gpus", count).with("split", split.join("+")).with("identical", true));
    Ok(rows)
}

/// The `ring` cases of one machine: the ring on one GPU beside the ring split over its GPUs.
fn ring_section(m: &MachineRecords, a: &Analysis) -> String {
    let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
    let by = |method: &str| -> BTreeMap<(i64, i64), &Record> {
        a.ring
            .iter()
            .filter(|r| r.str("method") == method)
            .map(|r| ((r.int("islands").unwrap_or(0), r.int("island_size").unwrap_or(0)), r))
            .collect()
    };
    let (one, ring) = (by(CUDA), by(CUDA_RING));
    if ring.is_empty() {
        return md
            + &match a.not_run.get(CUDA_RING) {
                Some(why) => format!("Not run here ({why}).\n\n"),
                None => "No ring runs in these records (profile `gpu-multi`).\n\n".into(),
            };
    }
    let mut t = Table::new(&[
        "islands",
        "island size",
        "generations",
        "GPUs (islands each)",
        "one GPU (ms/gen.)",
        "ring (ms/gen.)",
        "one GPU / ring",
        "ring: migration share",
        "same statistics",
    ]);
    let per_gen = |r: &Record| r.float("total_ms").unwrap_or(f64::NAN) / r.int("generations").unwrap_or(1).max(1) as f64;
    for (key, r) in &ring {
        let single = one.get(key).map(|o| per_gen(o));
        t.row(vec![
            key.0.to_string(),
            key.1.to_string(),
            r.int("generations").unwrap_or(0).to_string(),
            format!("{} ({})", r.int("gpus").unwrap_or(0), r.str("split")),
            fmt_opt(single, 4),
            format!("{:.4}", per_gen(r)),
            single.map_or("—".into(), |s| format!("{:.2}×", s / per_gen(r))),
            format!("{:.2}%", 100.0 * r.float("migration_ms").unwrap_or(0.0) / r.float("total_ms").unwrap_or(f64::NAN)),
            (if r.get("identical") == &crate::records::Value::Bool(true) { "yes" } else { "—" }).into(),
        ]);
    }
    md += "The paper's multi-GPU version: each GPU evolves its part of the ring (its islands batched in the same launches) \
           and at migration sends its last island's emigrants to the next GPU (here over NCCL, one process; the paper used \
           MPI between GTX 580s). Times are per generation, each phase timed with CUDA events on every GPU and the slowest \
           GPU's time taken; the ring's migration includes the exchange. Both runs start from the same seed and must end \
           with the same statistics (a case fails otherwise):\n\n";
    md += &t.render();
    md + "\n"
}

fn fmt_opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("—".into(), |v| format!("{v:.digits$}"))
}

fn ratio(num: Option<f64>, den: Option<f64>) -> String {
    num.zip(den).map_or("—".into(), |(n, d)| format!("{:.1}×", n / d))
}

/// A machine's rows: grid runs by (islands, size) and speed runs by (size, method).
#[derive(Default)]
struct Analysis {
    /// (islands, size) → (method, rows).
    grid: BTreeMap<(usize, usize), Vec<Record>>,
    /// Full-length runs (the headline configuration).
    full: Vec<Record>,
    /// Ring runs: one GPU and several.
    ring: Vec<Record>,
    /// (size, method) → (total ms, generations).
    speed: BTreeMap<(usize, String), (f64, u32)>,
    not_run: BTreeMap<String, String>,
    threads: usize,
}

impl Analysis {
    /// Each (figure, islands, island size) from the profile that measured it
    /// last: one run and one code version per mean.
    fn of(m: &MachineRecords) -> Analysis {
        let point = |r: &Record| Some((r.str("figure").to_owned(), r.int("islands"), r.int("island_size")));
        let mut a = Analysis::default();
        for r in m.latest_measurements(point) {
            let method = r.str("method").to_owned();
            if r.str("status") != "ok" {
                a.not_run.insert(method, r.str("reason").to_owned());
                continue;
            }
            let (islands, size) = (r.int("islands").unwrap_or(0) as usize, r.int("island_size").unwrap_or(0) as usize);
            let gens = r.int("generations").unwrap_or(0) as u32;
            if method == CPU_MT {
                a.threads = a.threads.max(r.int("threads").unwrap_or(0) as usize);
            }
            match r.str("figure") {
                "grid" => a.grid.entry((islands, size)).or_default().push(r.clone()),
                "full" => a.full.push(r.clone()),
                "ring" => a.ring.push(r.clone()),
                _ => {
                    a.speed.insert((size, method), (r.float("total_ms").unwrap_or(f64::NAN), gens));
                }
            }
        }
        a
    }

    fn full_values(&self, key: &str) -> Vec<f64> {
        self.full.iter().filter_map(|r| r.float(key)).collect()
    }

    fn reason(&self, method: &str) -> String {
        self.not_run.get(method).map_or("—".into(), |why| format!("not run here ({why})"))
    }

    fn grid_islands(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.grid.keys().map(|k| k.0).collect();
        v.dedup();
        v
    }

    fn grid_sizes(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.grid.keys().map(|k| k.1).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    fn speed_sizes(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.speed.keys().map(|k| k.0).collect();
        v.dedup();
        v
    }

    fn grid_summary(&self, islands: usize, size: usize, key: &str) -> Option<Summary> {
        let xs: Vec<f64> = self.grid.get(&(islands, size))?.iter().filter_map(|r| r.float(key)).collect();
        Summary::of(&xs)
    }

    /// Milliseconds per generation of a grid point.
    fn grid_per_generation(&self, islands: usize, size: usize) -> Option<f64> {
        let rows = self.grid.get(&(islands, size))?;
        let per: Vec<f64> = rows.iter().filter_map(|r| Some(r.float("total_ms")? / r.int("generations")? as f64)).collect();
        Summary::of(&per).map(|s| s.mean)
    }

    fn grid_method(&self) -> Option<String> {
        self.grid.values().flatten().next().map(|r| r.str("method").to_owned())
    }

    fn per_generation(&self, size: usize, method: &str) -> Option<f64> {
        self.speed.get(&(size, method.to_owned())).map(|(ms, g)| ms / f64::from(*g))
    }
}

/// Chart series: (name, points).
type Series = Vec<(String, Vec<(f64, f64)>)>;

/// A grid table (a row per island count, a column per island size, headed by
/// `column(size)`) and one chart series per island count: `cell(islands, size)`
/// gives the cell's text and the point's y value, or None for "—".
fn grid_table(a: &Analysis, column: impl Fn(usize) -> String, cell: impl Fn(usize, usize) -> Option<(String, f64)>) -> (Table, Series) {
    let sizes = a.grid_sizes();
    let mut header = vec!["islands".to_owned()];
    header.extend(sizes.iter().map(|&s| column(s)));
    let mut t = Table::new(&header);
    let mut series = Vec::new();
    for islands in a.grid_islands() {
        let mut cells = vec![islands.to_string()];
        let mut points = Vec::new();
        for &size in &sizes {
            cells.push(match cell(islands, size) {
                Some((text, y)) => {
                    points.push((size as f64, y));
                    text
                }
                None => "—".into(),
            });
        }
        t.row(cells);
        series.push((format!("{islands} islands"), points));
    }
    (t, series)
}

fn fig4(m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
    let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
    if a.grid.is_empty() {
        return Ok(md + "No grid runs in this machine's records.\n\n");
    }
    let (t, series) = grid_table(
        a,
        |size| format!("{size} per island"),
        |islands, size| {
            let (b, g) = (a.grid_summary(islands, size, "best")?, a.grid_summary(islands, size, "gap")?);
            Some((format!("{:.0} ± {:.0} (gap {:.3}%, n = {})", b.mean, b.ci95(), 100.0 * g.mean, b.n), 100.0 * g.mean))
        },
    );
    let _ = writeln!(md, "Best fitness, mean ± 95% CI over runs, and the gap to the optimum ({}).\n", a.grid_method().unwrap_or_default());
    md += &t.render();
    if let (Some(first), Some(best), Some(gap)) = (a.full.first(), Summary::of(&a.full_values("best")), Summary::of(&a.full_values("gap")))
    {
        let _ = writeln!(
            md,
            "\nAt the paper's full length: {} islands × {} for {} generations ({}): best {:.0} ± {:.0} (95% CI, n = {}), gap {:.4}%, \
             {:.1} s per run.",
            first.int("islands").unwrap_or(0),
            first.int("island_size").unwrap_or(0),
            first.int("generations").unwrap_or(0),
            first.str("method"),
            best.mean,
            best.ci95(),
            best.n,
            100.0 * gap.mean,
            Summary::of(&a.full_values("total_ms")).map_or(f64::NAN, |t| t.mean / 1e3)
        );
    }
    let stem = dir.join("figures").join(format!("{}__fig4", m.hw_id));
    let chart = LineChart { title: "Figure 4: gap to the optimum after the run", x_label: "island size", y_label: "gap (%)", series };
    chart::write_lines(&stem, &chart).map_err(|e| anyhow::anyhow!("figure {}: {e}", stem.display()))?;
    let _ = writeln!(md, "\n![Figure 4](figures/{}__fig4.png)\n", m.hw_id);
    Ok(md)
}

/// The GPU grid's bytes per generation (`gpu::island::bytes_per_generation`, a
/// lower bound) over its time per generation, against the device-copy ceiling
/// measured in the same run.
fn performance(m: &MachineRecords, a: &Analysis, items: Option<usize>) -> String {
    let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
    let (Some(items), Some(CUDA)) = (items, a.grid_method().as_deref()) else {
        return md + &format!("{}\n\n", a.reason(CUDA));
    };
    let ceiling = m.ceiling("gpu_d2d");
    let mut t = Table::new(&["islands × size", "MB per generation", "µs per generation", "GB/s", "of the device-copy ceiling"]);
    for &(islands, size) in a.grid.keys() {
        let Some(ms) = a.grid_per_generation(islands, size) else { continue };
        let bytes = crate::gpu::island::bytes_per_generation(items, size, islands) as f64;
        let gbs = bytes / (ms * 1e-3) / 1e9;
        t.row(vec![
            format!("{islands} × {size}"),
            format!("{:.2}", bytes / 1e6),
            format!("{:.1}", ms * 1e3),
            format!("{gbs:.0}"),
            ceiling.map_or("—".into(), |c| format!("{:.1}%", 100.0 * gbs / c)),
        ]);
    }
    md += "Bytes counted: parents read and children written by genetic manipulation, offspring read by evaluation, fitness \
           reads and writes (not the genomes replacement copies, migration or statistics); time per generation includes \
           migration every 100 generations.\n\n";
    md += &t.render();
    md + "\n" + &manipulation_against_philox(m, a, items)
}

/// Genetic manipulation's Philox calls per second (`gpu::island::manipulation_philox_calls`, a lower bound) against
/// the Philox rate measured by `island_philox_rate` in the same run (the speed cases): the integer ceiling that
/// bounds this phase, which draws 16 Philox calls per chromosome word and pair for its mutation masks.
fn manipulation_against_philox(m: &MachineRecords, a: &Analysis, items: usize) -> String {
    let rates: Vec<f64> = m.measurements().filter_map(|r| r.float("philox_calls_per_s")).collect();
    let Some(ceiling) = Summary::of(&rates).map(|s| s.median) else {
        return "No Philox ceiling in this machine's records (measured by the speed cases of the GPU profiles).\n\n".into();
    };
    let mut t = Table::new(&[
        "islands × size",
        "Philox calls per generation",
        "manipulation µs per generation",
        "G calls/s",
        "of the Philox ceiling",
    ]);
    for (&(islands, size), rows) in &a.grid {
        let per: Vec<f64> = rows.iter().filter_map(|r| Some(r.float("manipulation_ms")? / r.int("generations")? as f64)).collect();
        let Some(ms) = Summary::of(&per).map(|s| s.mean) else { continue };
        let calls = crate::gpu::island::manipulation_philox_calls(items, size, islands) as f64;
        let rate = calls / (ms * 1e-3);
        t.row(vec![
            format!("{islands} × {size}"),
            format!("{:.2} M", calls / 1e6),
            format!("{:.1}", ms * 1e3),
            format!("{:.1}", rate / 1e9),
            format!("{:.1}%", 100.0 * rate / ceiling),
        ]);
    }
    format!(
        "\nGenetic manipulation is bound by integer work, not memory: its mutation masks take {} Philox4×32-10 calls per \
         chromosome word and offspring pair (one number per gene, as the paper's per-gene mutation). Measured Philox \
         ceiling (`island_philox_rate`, every SM busy, median of {} measurements): {:.1} G calls/s. Calls counted: \
         tournaments, crossover decision and mutation masks (not the crossover masks).\n\n{}\n",
        crate::gpu::island::MUTATION_CALLS,
        rates.len(),
        ceiling / 1e9,
        t.render()
    )
}

impl IslandPaper {
    fn fig5(&self, m: &MachineRecords, a: &Analysis, dir: &Path) -> Result<String> {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        if a.grid.is_empty() {
            return Ok(md + "No grid runs in this machine's records.\n\n");
        }
        let (t, series) = grid_table(
            a,
            |size| format!("{size}: total (s) / per gen. (ms) / migration"),
            |islands, size| {
                let (total, per) = (a.grid_summary(islands, size, "total_ms")?, a.grid_per_generation(islands, size)?);
                let migration = a.grid_summary(islands, size, "migration_ms");
                let share = migration.map_or("—".into(), |mg| format!("{:.2}%", 100.0 * mg.mean / total.mean));
                Some((format!("{:.2} / {per:.3} / {share}", total.mean / 1e3), total.mean / 1e3))
            },
        );
        let _ = writeln!(
            md,
            "Mean wall time of a run ({}), time per generation, and the migration phase's share of it (Figure 6).\n",
            a.grid_method().unwrap_or_default()
        );
        md += &t.render();
        if let Some((predicted, measured)) = self.knee(m, a) {
            let _ = writeln!(
                md,
                "\nSaturation knee (Section VI: a GTX 580 with 16 SMs saturates at 512 individuals per island, {} individuals per \
                 SM): predicted for {} SMs at {predicted} individuals on the GPU; measured: {}.",
                self.spec.settings.individuals_per_sm,
                m.rows.iter().find_map(|r| r.int("gpu_sms")).unwrap_or(0),
                measured.map_or("no knee inside the grid (time per generation within 1.5× of the smallest)".into(), |k| {
                    format!("time per generation first exceeds 1.5× the smallest at {k} individuals")
                })
            );
        }
        let stem = dir.join("figures").join(format!("{}__fig5", m.hw_id));
        let chart = LineChart { title: "Figure 5: total time of a run", x_label: "island size", y_label: "time (s)", series };
        chart::write_lines(&stem, &chart).map_err(|e| anyhow::anyhow!("figure {}: {e}", stem.display()))?;
        let _ = writeln!(md, "\n![Figure 5](figures/{}__fig5.png)\n", m.hw_id);
        Ok(md)
    }

    /// On a GPU machine: the knee predicted from its SM count (individuals on the
    /// GPU, all islands together), and the smallest total population whose time per
    /// generation exceeds 1.5× the smallest measured one.
    fn knee(&self, m: &MachineRecords, a: &Analysis) -> Option<(usize, Option<usize>)> {
        if a.grid_method().as_deref() != Some(CUDA) {
            return None;
        }
        let sms = m.rows.iter().find_map(|r| r.int("gpu_sms"))? as usize;
        let predicted = sms * self.spec.settings.individuals_per_sm;
        let mut points: Vec<(usize, f64)> = a.grid.keys().filter_map(|&(i, n)| Some((i * n, a.grid_per_generation(i, n)?))).collect();
        points.sort_by_key(|p| p.0);
        let floor = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let measured = points.iter().find(|p| p.1 > 1.5 * floor).map(|p| p.0);
        Some((predicted, measured))
    }

    fn fig7(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        if a.speed.is_empty() {
            return md + "No speed runs in this machine's records.\n\n";
        }
        let mut t = Table::new(&[
            "island size",
            "1 thread (ms/gen.)",
            "all threads (ms/gen.)",
            "GPU (ms/gen.)",
            "GPU, split kernels (ms/gen.)",
            "all threads / 1 thread",
            "paper: 12 CPUs",
            "GPU / 1 thread",
            "GPU, split / 1 thread",
            "paper: 1 GPU",
        ]);
        for size in a.speed_sizes() {
            let per = |method: &str| a.per_generation(size, method);
            let paper = |c: &str| self.spec.table1.at(c, size).map_or("—".into(), |v| format!("{v:.2}×"));
            t.row(vec![
                size.to_string(),
                fmt_opt(per(CPU_1T), 3),
                fmt_opt(per(CPU_MT), 3),
                per(CUDA).map_or_else(|| a.reason(CUDA), |v| format!("{v:.3}")),
                per(CUDA_SPLIT).map_or_else(|| a.reason(CUDA_SPLIT), |v| format!("{v:.3}")),
                ratio(per(CPU_1T), per(CPU_MT)),
                paper("12 CPUs"),
                ratio(per(CPU_1T), per(CUDA)),
                ratio(per(CPU_1T), per(CUDA_SPLIT)),
                paper("1 GPU"),
            ]);
        }
        let _ = writeln!(
            md,
            "One island; all threads = {} threads of this machine. GPU: the paper's warp per offspring pair and per \
             chromosome; split kernels: a warp per 32 words of a pair and up to {} warps per chromosome (same numbers, \
             same population: checked in every speed case).\n",
            a.threads,
            crate::gpu::island::EVALUATE_WARPS
        );
        md += &t.render();
        // Table I for the grid: islands on one GPU against one thread evolving
        // every island in turn (the paper's definition of its speedups).
        if a.grid_method().as_deref() == Some(CUDA) {
            let sizes = a.grid_sizes();
            let mut header = vec!["islands on one GPU".to_owned()];
            header.extend(sizes.iter().map(|s| format!("{s}: here / paper")));
            let mut t = Table::new(&header);
            for islands in a.grid_islands() {
                let mut cells = vec![islands.to_string()];
                for &size in &sizes {
                    let cpu = a.per_generation(size, CPU_1T).map(|t| t * islands as f64);
                    let paper = self.spec.table1.at(&format!("{islands} GPU{}", if islands == 1 { "" } else { "s" }), size);
                    cells.push(format!(
                        "{} / {}",
                        ratio(cpu, a.grid_per_generation(islands, size)),
                        paper.map_or("—".into(), |v| format!("{v:.1}×"))
                    ));
                }
                t.row(cells);
            }
            md += "\nTable I: speedup of I islands on this one GPU over one CPU thread evolving the I islands in turn (time per \
                   generation); the paper's I islands ran on I GTX 580s.\n\n";
            md += &t.render();
        }
        md + "\n"
    }

    fn check_claim(&self, c: &ClaimSpec, m: &MachineRecords, a: &Analysis) -> (Verdict, String) {
        let param = |k: &str| c.param(k).and_then(|v| v.as_float()).unwrap_or(f64::NAN);
        let gpu_only = |a: &Analysis| a.grid_method().as_deref() == Some(CUDA);
        match c.check.get_ref().as_str() {
            "more_islands_better" => {
                let (islands, sizes) = (a.grid_islands(), a.grid_sizes());
                let (Some(&i0), Some(&i1), Some(&n0), Some(&n1)) = (islands.first(), islands.last(), sizes.first(), sizes.last()) else {
                    return (Verdict::NotRun("no grid runs".into()), String::new());
                };
                if i0 == i1 || n0 == n1 {
                    return (Verdict::NotRun("needs at least two island counts and sizes".into()), String::new());
                }
                let best = |i, n| a.grid_summary(i, n, "best").map_or(f64::NAN, |s| s.mean);
                let mut ev = Vec::new();
                let mut ok = true;
                for &n in &sizes {
                    ok &= best(i1, n) > best(i0, n);
                    ev.push(format!("{n}/island: {i0} island {:.0} → {i1} islands {:.0}", best(i0, n), best(i1, n)));
                }
                for &i in &islands {
                    ok &= best(i, n1) > best(i, n0);
                    ev.push(format!("{i} islands: {n0} → {n1} per island {:.0} → {:.0}", best(i, n0), best(i, n1)));
                }
                (if ok { Verdict::Reproduced } else { Verdict::NotReproduced }, ev.join(", "))
            }
            "islands_add_no_time" => {
                if !gpu_only(a) {
                    return (Verdict::NotRun(a.not_run.get(CUDA).cloned().unwrap_or_else(|| "grid ran on the CPU".into())), String::new());
                }
                let (islands, sizes) = (a.grid_islands(), a.grid_sizes());
                let (Some(&i0), Some(&i1)) = (islands.first(), islands.last()) else {
                    return (Verdict::NotRun("no grid runs".into()), String::new());
                };
                let max_ratio = param("max_ratio");
                let mut ev = Vec::new();
                let mut ok = true;
                for &n in &sizes {
                    let (Some(t0), Some(t1)) = (a.grid_per_generation(i0, n), a.grid_per_generation(i1, n)) else { continue };
                    ok &= t1 / t0 <= max_ratio;
                    ev.push(format!("{n}/island: {i1} islands {:.2}× the time of {i0}", t1 / t0));
                }
                let verdict = if ok {
                    Verdict::Reproduced
                } else {
                    Verdict::Differs("all islands share one GPU here; the paper gave each island its own GPU".into())
                };
                (verdict, format!("(want ≤ {max_ratio}×) {}", ev.join(", ")))
            }
            "saturation_knee" => match self.knee(m, a) {
                None => (Verdict::NotRun(a.not_run.get(CUDA).cloned().unwrap_or_else(|| "grid ran on the CPU".into())), String::new()),
                Some((predicted, measured)) => {
                    let ok = measured.is_none_or(|k| k as f64 >= 0.5 * predicted as f64 && k as f64 <= 2.0 * predicted as f64);
                    let ev = format!(
                        "predicted {predicted} individuals on the GPU; measured {}",
                        measured.map_or("no knee inside the grid".into(), |k| k.to_string())
                    );
                    (if ok && measured.is_some() { Verdict::Reproduced } else { Verdict::NotReproduced }, ev)
                }
            },
            "migration_negligible" => {
                let max_share = param("max_share");
                let (Some(&n), islands) = (a.grid_sizes().last(), a.grid_islands()) else {
                    return (Verdict::NotRun("no grid runs".into()), String::new());
                };
                let mut ev = Vec::new();
                let mut ok = true;
                for i in islands.into_iter().filter(|&i| i > 1) {
                    let (Some(mg), Some(tot)) = (a.grid_summary(i, n, "migration_ms"), a.grid_summary(i, n, "total_ms")) else { continue };
                    let share = mg.mean / tot.mean;
                    ok &= share <= max_share;
                    ev.push(format!("{i} islands × {n}: {:.2}%", 100.0 * share));
                }
                if ev.is_empty() {
                    return (Verdict::NotRun("needs grid runs with more than one island".into()), String::new());
                }
                (
                    if ok { Verdict::Reproduced } else { Verdict::NotReproduced },
                    format!("(want ≤ {:.0}%) {}", 100.0 * max_share, ev.join(", ")),
                )
            }
            "threads_scale" => {
                let min_eff = param("min_efficiency");
                let mut ev = Vec::new();
                let mut ok = true;
                for size in a.speed_sizes() {
                    let (Some(t1), Some(tm)) = (a.per_generation(size, CPU_1T), a.per_generation(size, CPU_MT)) else { continue };
                    let eff = t1 / tm / a.threads.max(1) as f64;
                    ok &= eff >= min_eff;
                    ev.push(format!("{size}: {:.2}× on {} threads (efficiency {eff:.2})", t1 / tm, a.threads));
                }
                if ev.is_empty() {
                    return (Verdict::NotRun("no speed runs".into()), String::new());
                }
                (if ok { Verdict::Reproduced } else { Verdict::NotReproduced }, format!("(want efficiency ≥ {min_eff}) {}", ev.join(", ")))
            }
            "gpu_speedup" => {
                let paper = param("paper");
                let best = a
                    .speed_sizes()
                    .into_iter()
                    .filter_map(|n| Some((n, a.per_generation(n, CPU_1T)? / a.per_generation(n, CUDA)?)))
                    .max_by(|x, y| x.1.total_cmp(&y.1));
                match best {
                    None => (Verdict::NotRun(a.not_run.get(CUDA).cloned().unwrap_or_else(|| "no GPU speed runs".into())), String::new()),
                    Some((n, s)) => (
                        if s >= paper { Verdict::Reproduced } else { Verdict::NotReproduced },
                        format!("peak {s:.1}× at {n} per island (paper: {paper}× on a GTX 580 against a Xeon X5650 thread)"),
                    ),
                }
            }
            other => (Verdict::NotRun(format!("no checker `{other}`")), String::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(method: &str, gpus: usize, total_ms: f64, migration_ms: f64) -> Record {
        Record::new()
            .with("record_kind", "measurement")
            .with("figure", "ring")
            .with("profile", "gpu-multi")
            .with("run_id", 1)
            .with("islands", 14)
            .with("island_size", 2048)
            .with("generations", 1000)
            .with("method", method)
            .with("status", "ok")
            .with("gpus", gpus)
            .with("total_ms", total_ms)
            .with("migration_ms", migration_ms)
    }

    #[test]
    fn the_ring_section_sets_several_gpus_beside_one() {
        let rows = vec![ring(CUDA, 1, 300.0, 3.0), ring(CUDA_RING, 2, 150.0, 6.0).with("split", "7+7").with("identical", true)];
        let m = MachineRecords { hw_id: "m".into(), rows };
        let text = ring_section(&m, &Analysis::of(&m));
        // 0.3 ms against 0.15 ms per generation: 2×; migration 6 of 150 ms on the ring.
        assert!(text.contains("| 14 | 2048 | 1000 | 2 (7+7) | 0.3000 | 0.1500 | 2.00× | 4.00% | yes |"), "{text}");
    }

    #[test]
    fn a_ring_not_run_says_why() {
        let rows = vec![
            Record::new()
                .with("record_kind", "measurement")
                .with("figure", "ring")
                .with("islands", 2)
                .with("island_size", 256)
                .with("method", CUDA_RING)
                .with("status", "not_run")
                .with("reason", "1 GPU on this machine"),
        ];
        let m = MachineRecords { hw_id: "m".into(), rows };
        assert!(ring_section(&m, &Analysis::of(&m)).contains("Not run here (1 GPU on this machine)."));
        let empty = MachineRecords { hw_id: "m".into(), rows: vec![] };
        assert!(ring_section(&empty, &Analysis::of(&empty)).contains("No ring runs"));
    }
}

impl IslandPaper {
    fn render_legacy(&self, machines: &[MachineRecords], dir: &Path) -> Result<String> {
        let s = &self.spec.settings;
        let mut md = String::from("## How this was measured\n\n");
        let _ = writeln!(
            md,
            "The paper's GA (Section V) on its 10,000-item instance (`{}`, optimum {}): steady state, binary tournament \
             selection, uniform crossover by 32-bit masks (p = {}), bit-flip mutation by masks ({} per gene), half the island \
             replaced by tournament against random offspring, unidirectional ring migration every {} generations of {:.0}% of \
             the island including its best. Every random number is Philox 4×32-10 keyed by seed and island and counted by \
             generation, purpose, individual and word, so one CPU thread, all CPU threads and the GPU evolve bit-identical \
             populations (checked in every `speed` case). Grid runs (Figures 4–6) use the GPU where there is one, all islands \
             of one GPU batched in the same launches (the paper: one GTX 580 per island, MPI between them), else all CPU cores; \
             the profile sets the generations (the paper: 100k) and runs (the paper: 30). Gap = (optimum − best) / optimum. \
             The same ring also runs with one island per MPI process (`evorepro-island-mpi`, `--features mpi`, checked \
             bit-identical to the in-process ring) and split over several GPUs with NCCL between them (the section \
             *Several GPUs*, profile `gpu-multi`).\n",
            s.instance.display(),
            s.optimum,
            s.crossover.get_ref(),
            s.mutation.get_ref(),
            s.migration_interval.get_ref(),
            100.0 * s.migration_fraction.get_ref(),
        );
        let analyses: Vec<(&MachineRecords, Analysis)> = machines.iter().map(|m| (m, Analysis::of(m))).collect();
        md += "## Figure 4 — best fitness after the run\n\n";
        for (m, a) in &analyses {
            md += &fig4(m, a, dir)?;
        }
        md += "## Figure 5 — total time, and Figure 6 — migration overhead\n\n";
        for (m, a) in &analyses {
            md += &self.fig5(m, a, dir)?;
        }
        md += "## Several GPUs — the ring over NCCL (Section IV)\n\n";
        for (m, a) in &analyses {
            md += &ring_section(m, a);
        }
        md += "## Performance — memory traffic against the measured ceiling\n\n";
        let items = self.instance().map(|i| i.item_count()).ok();
        for (m, a) in &analyses {
            md += &performance(m, a, items);
        }
        md += "## Figure 7 and Table I — speedups over one CPU thread\n\n";
        for (m, a) in &analyses {
            md += &self.fig7(m, a);
        }
        md += "## Claims\n\n";
        let mut claims = Vec::new();
        for (m, a) in &analyses {
            for c in &self.spec.claims {
                claims.push(ClaimResult::of(c, &m.hw_id, legacy_outcome(self.check_claim(c, m, a))));
            }
        }
        md += &claims_table(&claims);
        Ok(md)
    }
}
