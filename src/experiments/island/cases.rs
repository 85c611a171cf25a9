//! The island paper's cases and how one runs into records.
//!
//! - `grid/i<islands>/n<size>/r<run>`: one run of the island GA (`library::island`)
//!   on the 10,000-item instance, on the GPU where there is one (all islands of
//!   one GPU in the same launches, `gpu::island`), else on all CPU cores: the best
//!   fitness and its gap to the optimum (Figure 4), the time (Figure 5) and the
//!   migration share (Figure 6). Both backends evolve bit-identical populations
//!   from the same seed (counter-based Philox), so Figure 4 does not depend on
//!   the machine.
//! - `full/i<islands>/n<size>/r<run>`: the headline configuration at the paper's
//!   full length (Section VI: 100k generations).
//! - `ring/i<islands>/n<size>`: the multi-GPU version (Section IV): the ring on one
//!   GPU, then split over every GPU of the machine with the emigrants sent over
//!   NCCL (`gpu::island_ring`); both must end with the same statistics.
//! - `speed/n<size>`: one island for a few generations on one CPU thread, all CPU
//!   threads, the profile's `speed_threads` (Figure 7: 6 and 12; method `cpu-<k>t`,
//!   not run where the machine has fewer physical cores), the GPU with the paper's
//!   kernels and with split kernels (`gpu::island::Design`); every backend must end
//!   with the same statistics, and the time per generation gives Figure 7 and
//!   Table I. The GPU's Philox rate is measured there too, the ceiling of genetic
//!   manipulation.
//! - `table/i<islands>/n<size>`: Tables I and II from the same run: the islands for
//!   the same generations on one CPU thread, on all CPU threads (islands and their
//!   offspring spread over rayon's threads) and on the GPU with the paper's kernels;
//!   all must end with the same statistics.
//!
//! Ring, speed and table cases repeat `ring_runs`, `speed_runs` and `table_runs`
//! times (default 1): the first run keeps the case's id, the others add `/r<run>`,
//! so the claims judge a time by its 95% interval over runs.
//!
//! GPU rows carry `operations_per_generation` (`gpu::island::operations_per_generation`),
//! the integer work the paper's sustained rate counts (Section VI).

use super::rows::{FAMILIES, FULL, FamilyCase, FamilyRun, GRID, IslandsCase, RING, RingRow, RunRow, SPEED, SpeedCase, TABLE};
use super::spec::repeats;
use super::{CPU_1T, CPU_MT, CUDA, CUDA_FUSED, CUDA_RING, CUDA_SPLIT, IslandPaper, cpu_threads};
use crate::error::SpecError;
use crate::experiments::{Case, Footprint, Plan, RunEnv};
use crate::gpu::island::Design;
use crate::library::island::{self, Config, RunResult, Threads, Variant};
use crate::library::knapsack::{Certificate, Instance, PisingerKind, certify, pisinger_with_ratio};
use crate::records::Record;
use crate::records::col;
use crate::spec::{Spanned, SpecOutline, values};
use anyhow::{Context, Result};
use itertools::iproduct;

impl IslandPaper {
    pub(super) fn instance(&self) -> Result<Instance> {
        let root = self.file.context.confinement(&self.instance.path);
        Instance::load(&self.instance.path, root).with_context(|| format!("the knapsack instance of {}", self.file.path.display()))
    }

    /// The spec's `optimum` checked against `instance`'s certificate: an error names the spec's file, line and value.
    pub(super) fn check_optimum(&self, instance: &Instance) -> Result<()> {
        let optimum = &self.spec.settings.optimum;
        self.certificate(instance)?.check(**optimum).map_err(|why| {
            let message = format!("{} contradicts the instance {} ({}): {why}", optimum, instance.name, self.instance.label);
            self.file.invalid(optimum, "settings.optimum", message).into()
        })
    }

    /// How the report names the spec's optimum: certified where [`certify`] found the exact optimum, else stated and
    /// not certified (between the greedy solution and Dantzig's bound); an error naming the spec's line where it is
    /// provably wrong.
    pub(super) fn optimum_note(&self) -> Result<String> {
        let stated = *self.spec.settings.optimum;
        match self.instance() {
            Ok(instance) => {
                self.check_optimum(&instance)?;
                Ok(optimum_note(stated, &self.certificate(&instance)?))
            }
            Err(e) => Ok(format!("optimum {stated} (stated, not certified: the instance did not load: {e:#})")),
        }
    }

    /// `instance`'s certificate ([`certify`]), computed once per instance name.
    fn certificate(&self, instance: &Instance) -> Result<Certificate> {
        let cache = || self.certificates.lock().map_err(|_| anyhow::anyhow!("certificate cache poisoned"));
        if let Some(c) = cache()?.get(&instance.name) {
            return Ok(c.clone());
        }
        let c = certify(instance);
        cache()?.insert(instance.name.clone(), c.clone());
        Ok(c)
    }

    /// The spec's optimum as every row with a gap to it records it: "certified" where [`certify`] found the exact
    /// optimum, else "stated, not certified" (between the greedy solution and Dantzig's bound, checked at load).
    fn stated_optimum(&self, instance: &Instance) -> Result<StatedOptimum> {
        let certified = self.certificate(instance)?.optimum.is_ok();
        Ok(StatedOptimum { value: *self.spec.settings.optimum, certified })
    }

    /// Items of the instance (for the counted bytes and Philox calls of the report), if it loads.
    pub(super) fn item_count(&self) -> Option<usize> {
        self.instance().map(|i| i.item_count()).ok()
    }

    fn config(&self, islands: usize, size: usize, generations: u32, seed: u64, threads: Threads) -> Config {
        let s = &self.spec.settings;
        Config {
            crossover_p: *s.crossover,
            mutation_p: *s.mutation,
            migration_interval: *s.migration_interval,
            migration_fraction: *s.migration_fraction,
            threads,
            statistics_interval: generations,
            ..Config::paper(islands, size, generations, seed)
        }
    }
}

impl Plan for IslandPaper {
    fn outline(&self) -> &dyn SpecOutline {
        &self.spec
    }

    /// Table I's speed cases time the three GPU designs, the tables' cases the paper's design, the ring the paper's
    /// design on one GPU and over all of them; the grid and the families fall back to the CPU cores.
    fn gpu_methods(&self, case: &Case, _profile: &str) -> Result<Vec<&'static str>> {
        Ok(match case.params.str(col::FIGURE) {
            SPEED => vec![CUDA, CUDA_SPLIT, CUDA_FUSED],
            TABLE => vec![CUDA],
            RING => vec![CUDA, CUDA_RING],
            _ => Vec::new(),
        })
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.file.profile(&self.spec.profiles, profile)?;
        let seed = self.spec.settings.seed;
        // Islands × size × generations of a case, `per` of them to a unit of weight.
        let weight = |islands: usize, size: usize, gens: u32, per: u64| (islands * size) as u64 * u64::from(gens) / per + 1;
        let run = |islands, island_size, generations, r: usize, seed| IslandsCase { islands, island_size, generations, run: Some(r), seed };
        // Ring and table cases: island counts × sizes × runs, the first run keeping the bare id (`figure/i…/n…`).
        type Axes<'a> = (&'a [Spanned<usize>], &'a [Spanned<usize>], usize);
        let repeated = |cases: &mut Vec<Case>, figure: &str, salt: u64, per: u64, (islands, sizes, runs): Axes, gens: u32| {
            for (i, n, r) in iproduct!(values(islands), values(sizes), 0..runs) {
                let row = run(i, n, gens, r, seed ^ salt ^ ((i as u64) << 32) ^ ((n as u64) << 16) ^ ((r as u64) << 40));
                cases.push(Case::of(figure, Case::repeat_id(format!("{figure}/i{i}/n{n}"), r), &row, weight(i, n, gens, per)));
            }
        };
        let mut cases = Vec::new();
        let gens = *p.generations;
        for (islands, size, r) in iproduct!(values(&p.grid_islands), values(&p.grid_sizes), 0..*p.runs) {
            let row = run(islands, size, gens, r, seed ^ ((islands as u64) << 32) ^ ((size as u64) << 16) ^ r as u64);
            cases.push(Case::of(GRID, format!("grid/i{islands}/n{size}/r{r}"), &row, weight(islands, size, gens, 10_000)));
        }
        if let Some(f) = &p.full_length {
            for r in 0..*f.runs {
                let row = run(
                    f.islands,
                    f.size,
                    f.generations,
                    r,
                    seed ^ 0xF011 ^ ((f.islands as u64) << 32) ^ ((f.size as u64) << 16) ^ r as u64,
                );
                let id = format!("full/i{}/n{}/r{r}", f.islands, f.size);
                cases.push(Case::of(FULL, id, &row, weight(f.islands, f.size, f.generations, 10_000)));
            }
        }
        if let Some(gens) = p.ring_generations.as_deref().copied() {
            repeated(&mut cases, RING, 0x21A6, 5_000, (&p.ring_islands, &p.ring_sizes, repeats(&p.ring_runs)), gens);
        }
        if let Some(f) = &p.families {
            let (islands, size, gens, range) = (*f.islands, *f.size, *f.generations, *f.range);
            for (kind, items, ratio, variant, r) in iproduct!(&f.kinds, values(&f.items), values(&f.ratios), &f.variants, 0..*f.runs) {
                let (kind, variant) = (&**kind, &**variant);
                let family = FamilyCase {
                    kind: kind.clone(),
                    items,
                    capacity_ratio: ratio,
                    range,
                    instance_seed: *f.instance_seed,
                    variant: variant.clone(),
                };
                let id = format!("families/{kind}/n{items}/c{ratio}/{variant}/r{r}");
                let row = run(islands, size, gens, r, seed ^ 0xFA ^ (r as u64) << 8);
                cases.push(Case::of(FAMILIES, id, &family, weight(islands * items, size, gens, 10_000_000)).with_row(&row));
            }
        }
        if let Some(gens) = p.table_generations.as_deref().copied() {
            // One CPU thread evolves every island: its time dominates.
            repeated(&mut cases, TABLE, 0x7AB1E, 100, (&p.table_islands, &p.table_sizes, repeats(&p.table_runs)), gens);
        }
        let gens = *p.speed_generations;
        let threads: Vec<String> = p.speed_threads.iter().map(|t| t.to_string()).collect();
        for (size, r) in iproduct!(values(&p.speed_sizes), 0..repeats(&p.speed_runs)) {
            let row = run(1, size, gens, r, seed ^ size as u64 ^ ((r as u64) << 40));
            let case = Case::of(
                SPEED,
                Case::repeat_id(format!("speed/n{size}"), r),
                &row,
                weight(1, size, gens, 100) * (1 + threads.len() as u64),
            );
            cases.push(case.with_row(&SpeedCase { thread_counts: threads.join("+") }));
        }
        Ok(cases)
    }

    /// Parents and offspring of every island, 32 items a word, with their
    /// fitness: on the host for the CPU backend, on one GPU for the GPU's (the
    /// ring first runs all its islands on one GPU).
    fn footprint(&self, case: &Case) -> Footprint {
        let (islands, size) = case.params.row::<IslandsCase>().map_or((0, 0), |c| (c.islands as u64, c.island_size as u64));
        let items = case.params.row::<FamilyCase>().map_or_else(|_| self.item_count().unwrap_or(0), |f| f.items);
        let words = items.div_ceil(32) as u64;
        let bytes = 2 * islands * size * (4 * words + 8);
        let key = match case.params.str(col::FIGURE) {
            FULL => "full_length",
            FAMILIES => "families",
            RING => "ring_sizes",
            SPEED => "speed_sizes",
            TABLE => "table_sizes",
            _ => "grid_sizes",
        };
        Footprint { host_bytes: bytes, device_bytes: bytes, key }
    }

    /// Every case runs on the instance: it must load, and the spec's optimum must agree with its certificate
    /// (`library::knapsack::certify`: Dantzig's bound, a greedy solution, the exact optimum where it fits).
    fn prepare(&self, cases: &[Case]) -> Result<()> {
        if !cases.is_empty() {
            self.check_optimum(&self.instance()?)?;
        }
        Ok(())
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let p = &case.params;
        let IslandsCase { islands, island_size: size, generations, seed, .. } = case.row()?;
        let instance = self.instance()?;
        let optimum = self.stated_optimum(&instance)?;
        let mut rows = Vec::new();
        if p.str(col::FIGURE) == FAMILIES {
            return self.family_row(case, islands, size, generations, seed, env);
        }
        if p.str(col::FIGURE) == RING {
            return self.ring_rows(&instance, &self.config(islands, size, generations, seed, Threads::Rayon), optimum, env);
        }
        let operations = self.operations(&instance, islands, size);
        if p.str(col::FIGURE) == TABLE {
            return self.table_rows(case, &instance, islands, size, generations, seed, env);
        }
        if p.str(col::FIGURE) != SPEED {
            let cfg = self.config(islands, size, generations, seed, Threads::Rayon);
            let (method, run) = match &env.gpu {
                Some(gpu) => {
                    let r = run_row(&crate::gpu::island::run(gpu, &instance, &cfg, Design::Paper)?, Some(optimum));
                    (CUDA, RunRow { operations_per_generation: Some(operations), ..r })
                }
                None => (CPU_MT, run_row(&island::run(&instance, &cfg)?, Some(optimum))),
            };
            rows.push(Record::ran(method).with_row(&RunRow { threads: Some(rayon::current_num_threads()), ..run }));
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
            rows.push(Record::ran(name).with_row(&RunRow { threads: Some(n_threads), ..run_row(&r, Some(optimum)) }));
        }
        // Figure 7's thread counts, each on a pool of its own, where the machine has the cores.
        let SpeedCase { thread_counts: counts } = case.row()?;
        for k in thread_counts(&counts).with_context(|| format!("case {}", case.id))? {
            let name = cpu_threads(k);
            let cores = env.fingerprint.cpu_physical_cores;
            if k > cores {
                rows.push(self.not_run_row(&name, &format!("{k} threads: this machine has {cores} physical cores")));
                continue;
            }
            let pool = rayon::ThreadPoolBuilder::new().num_threads(k).build()?;
            let r = pool.install(|| island::run(&instance, &self.config(1, size, generations, seed, Threads::Rayon)))?;
            check(&name, &r)?;
            rows.push(Record::ran(&name).with_row(&RunRow { threads: Some(k), ..run_row(&r, Some(optimum)) }));
        }
        if let Some(gpu) = &env.gpu {
            let mut runs = Vec::new();
            for (name, design) in [(CUDA, Design::Paper), (CUDA_SPLIT, Design::Split), (CUDA_FUSED, Design::Fused)] {
                let r = crate::gpu::island::run(gpu, &instance, &self.config(1, size, generations, seed, Threads::Single), design)?;
                check(name, &r)?;
                runs.push((name, RunRow { operations_per_generation: Some(operations), ..run_row(&r, Some(optimum)) }));
            }
            let philox = crate::gpu::island::philox_rate(gpu, 5)?;
            runs.last_mut().context("a GPU row")?.1.philox_calls_per_s = Some(philox);
            rows.extend(runs.iter().map(|(name, run)| Record::ran(name).with_row(run)));
        }
        Ok(rows)
    }
}

impl IslandPaper {
    /// [`crate::gpu::island::operations_per_generation`] of `islands` × `size` on `instance` with the spec's crossover.
    fn operations(&self, instance: &Instance, islands: usize, size: usize) -> f64 {
        crate::gpu::island::operations_per_generation(instance.item_count(), size, islands, *self.spec.settings.crossover)
    }

    /// A `table` case: the same islands and generations on one CPU thread, on all CPU threads and on the GPU (the
    /// paper's kernels, where there is one), which must end with the same statistics.
    #[allow(clippy::too_many_arguments)]
    fn table_rows(
        &self,
        case: &Case,
        instance: &Instance,
        islands: usize,
        size: usize,
        generations: u32,
        seed: u64,
        env: &RunEnv,
    ) -> Result<Vec<Record>> {
        let optimum = self.stated_optimum(instance)?;
        let single = island::run(instance, &self.config(islands, size, generations, seed, Threads::Single))?;
        let mut rows = vec![Record::ran(CPU_1T).with_row(&RunRow { threads: Some(1), ..run_row(&single, Some(optimum)) })];
        let same = |name: &str, r: &RunResult| -> Result<()> {
            let (a, b) = (&single.statistics, &r.statistics);
            anyhow::ensure!(
                a.best == b.best && a.best_chromosome == b.best_chromosome && a.mean.to_bits() == b.mean.to_bits(),
                "{name} evolved a different population than {CPU_1T} in case {} (seed {seed})",
                case.id
            );
            Ok(())
        };
        let all = island::run(instance, &self.config(islands, size, generations, seed, Threads::Rayon))?;
        same(CPU_MT, &all)?;
        rows.push(Record::ran(CPU_MT).with_row(&RunRow { threads: Some(rayon::current_num_threads()), ..run_row(&all, Some(optimum)) }));
        if let Some(gpu) = &env.gpu {
            let config = self.config(islands, size, generations, seed, Threads::Single);
            let r = crate::gpu::island::run(gpu, instance, &config, Design::Paper)?;
            same(CUDA, &r)?;
            let operations = Some(self.operations(instance, islands, size));
            rows.push(Record::ran(CUDA).with_row(&RunRow {
                gpus: Some(1),
                operations_per_generation: operations,
                ..run_row(&r, Some(optimum))
            }));
        }
        Ok(rows)
    }

    /// A `families` case: the instance generated from the case's kind, size, ratio and seed, certified once
    /// (`library::knapsack::certify`, cached), and one run of the case's variant (the paper's GA or a labelled variant) on the
    /// GPU where there is one, else on all CPU cores.
    fn family_row(&self, case: &Case, islands: usize, size: usize, generations: u32, seed: u64, env: &RunEnv) -> Result<Vec<Record>> {
        let f: FamilyCase = case.row()?;
        let kind = PisingerKind::parse(&f.kind).with_context(|| format!("case {}: kind `{}`", case.id, f.kind))?;
        let variant = Variant::parse(&f.variant).with_context(|| format!("case {}: variant `{}`", case.id, f.variant))?;
        let instance = pisinger_with_ratio(kind, f.items, f.range, f.capacity_ratio, f.instance_seed);
        let certificate = self.certificate(&instance)?;
        // Twenty trace points: the first feasible solution's generation to a twentieth of the run.
        let config = Config {
            variant,
            statistics_interval: generations.div_ceil(20),
            ..self.config(islands, size, generations, seed, Threads::Rayon)
        };
        // Every variant on the GPU where there is one (`island_repair`: bit-identical to the CPU in `selfcheck`).
        let (method, r) = match &env.gpu {
            Some(gpu) => (CUDA, crate::gpu::island::run(gpu, &instance, &config, Design::Paper)?),
            None => (CPU_MT, island::run(&instance, &config)?),
        };
        let (reference, reference_kind) = certificate.reference();
        let s = &r.statistics;
        // A gap is taken only for a feasible best solution against a positive reference.
        let gap = (s.best_solution.feasible && reference > 0).then(|| (reference as f64 - s.best_solution.price as f64) / reference as f64);
        let run = RunRow { gap, threads: Some(rayon::current_num_threads()), ..run_row(&r, None) };
        let family = FamilyRun {
            instance: instance.name.clone(),
            capacity: instance.capacity,
            penalty_ratio: instance.penalty_ratio(),
            reference,
            reference_kind: reference_kind.into(),
            bound: certificate.bound,
            greedy: certificate.feasible,
            exact: certificate.optimum.as_ref().map_or_else(|why| why.clone(), |(_, how)| how.to_string()),
        };
        Ok(vec![Record::ran(method).with_row(&run).with_row(&family)])
    }
}

/// The spec's optimum of the paper's instance (checked positive and within the certificate at load), and whether
/// the certificate found it exactly.
#[derive(Clone, Copy, Debug)]
pub(super) struct StatedOptimum {
    pub value: u64,
    pub certified: bool,
}

impl StatedOptimum {
    /// The `optimum_kind` column of the rows whose gap is taken to it.
    pub fn kind(self) -> &'static str {
        if self.certified { "certified" } else { "stated, not certified" }
    }
}

/// One run's result, feasibility and phase times (ms); the gap to `optimum` where given (the paper's instance: the
/// spec's optimum, and whether it is certified).
fn run_row(r: &RunResult, optimum: Option<StatedOptimum>) -> RunRow {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    let t = &r.times;
    let s = &r.statistics;
    let first = r.first_feasible();
    RunRow {
        best: s.best,
        mean: s.mean,
        std_dev: s.std_dev,
        best_island: s.best_island,
        feasible: s.best_solution.feasible,
        gap: optimum.map(|o| (o.value as f64 - s.best as f64) / o.value as f64),
        optimum: optimum.map(|o| o.value),
        optimum_kind: optimum.map(|o| o.kind().into()),
        feasible_individuals: Some(r.feasibility.individual_fraction()),
        feasible_islands: Some(r.feasibility.island_fraction()),
        first_feasible: first,
        first_feasible_after: first.and_then(|g| r.trace.iter().rev().map(|t| t.generation).find(|&t| t < g)),
        manipulation_ms: ms(t.genetic_manipulation),
        evaluation_ms: Some(ms(t.evaluation)),
        replacement_ms: Some(ms(t.replacement)),
        migration_ms: ms(t.migration),
        statistics_ms: Some(ms(t.statistics)),
        outside_phases_ms: Some(ms(t.outside_phases)),
        total_ms: ms(t.total()),
        ..RunRow::default()
    }
}

/// The spec's `stated` optimum as the report names it, given the instance's certificate (which it agrees with).
pub(super) fn optimum_note(stated: u64, c: &Certificate) -> String {
    match &c.optimum {
        Ok((_, how)) => format!("optimum {stated} (certified: {how})"),
        Err(why) => format!(
            "optimum {stated} (stated, not certified: it lies between the greedy solution {} and Dantzig's bound {}; {why})",
            c.feasible, c.bound
        ),
    }
}

/// The CPU thread counts of a speed case's `thread_counts` ("6+12"; empty: none).
fn thread_counts(s: &str) -> Result<Vec<usize>> {
    s.split('+').filter(|t| !t.is_empty()).map(|t| t.parse::<usize>().with_context(|| format!("thread count `{t}`"))).collect()
}

/// Bytes each GPU sends to the next when the ring's link is measured (`link_gb_per_s` of a ring row).
const LINK_BYTES: usize = 64 << 20;

impl IslandPaper {
    /// A `ring` case: the ring on this run's GPU, then split over every GPU of the machine (NCCL between them), which
    /// must end with the same statistics; a `not_run` row where there is one GPU or no NCCL (none where there is no GPU:
    /// the runner records the ring's [`Plan::gpu_methods`] as not run).
    fn ring_rows(&self, instance: &Instance, config: &Config, optimum: StatedOptimum, env: &RunEnv) -> Result<Vec<Record>> {
        use crate::gpu::{self, island_ring};
        let Some(gpu) = &env.gpu else {
            return Ok(Vec::new());
        };
        let one = gpu::island::run(gpu, instance, config, Design::Paper)?;
        let mut rows = vec![Record::ran(CUDA).with_row(&RunRow { gpus: Some(1), ..run_row(&one, Some(optimum)) })];
        let count = gpu::probe()?.min(config.islands);
        if let Err(e) = island_ring::probe(count) {
            let why = match e {
                crate::error::GpuError::Unavailable(why) => why,
                e => e.to_string(),
            };
            rows.push(self.not_run_row(CUDA_RING, &why));
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
        let v = island_ring::nccl_version()?;
        let on_gpus = RingRow {
            split: split.join("+"),
            identical: true,
            nccl_version: Some(format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100)),
            nccl_nvls_enable: Some(std::env::var("NCCL_NVLS_ENABLE").unwrap_or_else(|_| "unset".into())),
            link_gb_per_s: Some(island_ring::link_bandwidth(&gpus, LINK_BYTES, 10)?),
        };
        rows.push(Record::ran(CUDA_RING).with_row(&RunRow { gpus: Some(count), ..run_row(&ring, Some(optimum)) }).with_row(&on_gpus));
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::Paper;
    use crate::library::knapsack::paper_instance;
    use crate::spec::SpecFile;

    const SHIPPED: &str = include_str!("../../../experiments/island.toml");

    fn paper(text: &str) -> Box<dyn Paper> {
        super::super::ISLAND.load(&SpecFile::in_repository("island.toml", text.into())).unwrap()
    }

    // Defect: the spec's optimum, between the greedy solution and Dantzig's bound, was reported as the optimum
    // without saying that certify could not prove it.
    #[test]
    fn the_optimum_is_stated_not_certified_unless_certify_finds_it_and_a_wrong_one_is_an_error() {
        let large = paper_instance("jaros_knap_10000.txt");
        let note = optimum_note(2_839_205, &certify(&large));
        assert!(note.starts_with("optimum 2839205 (stated, not certified: it lies between the greedy solution "), "{note}");
        let small = certify(&paper_instance("jaros_knap_40.txt"));
        let (optimum, _) = small.optimum.clone().unwrap();
        assert!(optimum_note(optimum, &small).starts_with(&format!("optimum {optimum} (certified: ")));
        // The report says so in its method and Figure 4; a provably wrong optimum stays an error naming the line.
        let dir = tempfile::tempdir().unwrap();
        let report = paper(SHIPPED).report(&[], dir.path()).unwrap();
        assert!(report.method.contains("optimum 2839205 (stated, not certified:"), "{}", report.method);
        let wrong = SHIPPED.replacen("optimum = 2839205", "optimum = 3000000", 1);
        let e = paper(&wrong).report(&[], dir.path()).err().unwrap();
        assert!(format!("{e:#}").contains("exceeds Dantzig's linear-relaxation bound"), "{e:#}");
    }

    // Defect: rows recorded a gap to the spec's optimum without saying that certify could not prove it.
    #[test]
    fn rows_with_a_gap_say_whether_the_optimum_is_certified() {
        let tiny = "[profiles.tiny]\ngrid_islands = [1]\ngrid_sizes = [8]\ngenerations = 2\nruns = 1\nspeed_sizes = [8]\nspeed_generations = 1\n\n";
        let p = paper(&SHIPPED.replacen("[profiles.quick]", &format!("{tiny}[profiles.quick]"), 1));
        let env = RunEnv::open(crate::experiments::BackendChoice::Cpu, 0, "tiny").unwrap();
        let case = p.cases("tiny").unwrap().into_iter().find(|c| c.params.str(col::FIGURE) == GRID).unwrap();
        let rows = p.run_case(&case, &env).unwrap();
        assert!(!rows.is_empty());
        for r in &rows {
            let run: RunRow = r.row().unwrap();
            assert_eq!((run.optimum_kind.as_deref(), run.optimum), (Some("stated, not certified"), Some(2_839_205)), "{r:?}");
            assert!(run.gap.is_some(), "{r:?}");
        }
        let certified = StatedOptimum { value: 4068, certified: true };
        assert_eq!(certified.kind(), "certified");
    }

    // The runner, not the paper, records the GPU designs as not run where a run has no GPU, with the run's reason.
    #[test]
    fn a_run_without_a_gpu_records_each_gpu_design_of_a_case_as_not_run() {
        let tiny = "[profiles.tiny]\ngrid_islands = [1]\ngrid_sizes = [8]\ngenerations = 2\nruns = 1\nspeed_sizes = [8]\nspeed_generations = 1\nspeed_threads = []\n\n";
        let p = paper(&SHIPPED.replacen("[profiles.quick]", &format!("{tiny}[profiles.quick]"), 1));
        let env = RunEnv::open(crate::experiments::BackendChoice::Cpu, 0, "tiny").unwrap();
        let cases = p.cases("tiny").unwrap();
        let speed = cases.iter().find(|c| c.params.str(col::FIGURE) == SPEED).unwrap();
        assert!(p.run_case(speed, &env).unwrap().iter().all(|r| r.is_ok()));
        let (rows, _) = crate::experiments::runner::run_one(p.as_ref(), speed, &env).unwrap();
        let not_run: Vec<(&str, &str)> = rows.iter().filter(|r| !r.is_ok()).map(|r| (r.str(col::METHOD), r.str(col::REASON))).collect();
        assert_eq!(not_run, [CUDA, CUDA_SPLIT, CUDA_FUSED].map(|m| (m, "--backend cpu")));
        assert!(rows.iter().any(|r| r.is_ok() && r.str(col::METHOD) == CPU_1T));
        // A grid case falls back to the CPU cores: nothing is left out.
        let grid = cases.iter().find(|c| c.params.str(col::FIGURE) == GRID).unwrap();
        assert!(crate::experiments::runner::run_one(p.as_ref(), grid, &env).unwrap().0.iter().all(|r| r.is_ok()));
    }

    // Defect: threads_scale could not be judged: the speed cases ran one thread and all threads only.
    #[test]
    fn speed_cases_repeat_and_run_figure_sevens_thread_counts_where_the_cores_exist() {
        let p = paper(SHIPPED);
        let ids: Vec<String> = p.cases("speed").unwrap().into_iter().map(|c| c.id).collect();
        assert_eq!(ids.len(), 5 * 20, "five sizes, twenty runs each");
        assert_eq!(&ids[..3], ["speed/n128", "speed/n128/r1", "speed/n128/r2"]);
        let tables: Vec<String> = p.cases("tables").unwrap().into_iter().map(|c| c.id).collect();
        assert!(tables.contains(&"table/i14/n1024/r2".to_owned()) && tables.len() == 25 * 3);
        // The gpu profile keeps its single speed run under the ids its records have.
        assert!(p.cases("gpu").unwrap().iter().any(|c| c.id == "speed/n2048"));
        // On a machine of 2 cores the quick profile's 6 and 12 threads are recorded as not run, with the reason.
        let case = p.cases("quick").unwrap().into_iter().find(|c| c.id == "speed/n128").unwrap();
        assert_eq!(case.params.row::<SpeedCase>().unwrap().thread_counts, "6+12");
        let mut env = crate::experiments::RunEnv::open(crate::experiments::BackendChoice::Cpu, 0, "quick").unwrap();
        env.fingerprint.cpu_physical_cores = 2;
        let rows = p.run_case(&case, &env).unwrap();
        let row = |m: &str| rows.iter().find(|r| r.str(col::METHOD) == m).unwrap();
        assert_eq!(
            (row("cpu-6t").str(col::STATUS), row("cpu-6t").str(col::REASON)),
            ("not_run", "6 threads: this machine has 2 physical cores")
        );
        assert_eq!(row("cpu-12t").str(col::STATUS), "not_run");
        // Where the cores exist, k threads run and evolve the same population as one thread.
        env.fingerprint.cpu_physical_cores = 16;
        let rows = p.run_case(&case, &env).unwrap();
        let row = |m: &str| rows.iter().find(|r| r.str(col::METHOD) == m).unwrap();
        let run = |m: &str| row(m).row::<RunRow>().unwrap();
        assert_eq!((row("cpu-6t").str(col::STATUS), run("cpu-6t").threads), ("ok", Some(6)));
        assert_eq!(run("cpu-12t").best, run("cpu-1t").best);
    }
}
