//! The cases of a profile and running one into records (see the module's
//! documentation for the case ids). Every scorer of a case runs the same seed;
//! each row is one scorer's repetition or its "not run here" row.

use super::analysis::Table5Rule;
use super::rows::{
    BUILD, Bisection, BuildCase, BuildRow, COUNT, CountCase, CountRow, DeviceTimes, FIG5, FIG6, FIG7, Fig5Case, Generation, Phases,
    RunCase, RunRow, SCALE, ScaleRow, Scored, TABLE5, Table5Case, WHOLE, WholeBuild, WholeCase, ran,
};
use super::{BASELINE, CPU_MT, EcgaPaper, FASTCOUNT, FASTCOUNT_KEPT, GECGA, GECGA_DEVICE};
use crate::experiments::{Case, Footprint, Plan, RunEnv, plan};
use crate::gpu::Gpu;
use crate::gpu::gecga::GpuScorer;
use crate::library::ecga::{
    self, BaselineCounter, BisectionCriteria, CpuScorer, FastCount, FastCountKept, PairScorer, ParallelCpuScorer, Popcount, Population,
    PrefixFastCount, RunResult, Search, XLogX,
};
use crate::library::trap::Trap;
use crate::records::{Record, Row, col};
use crate::spec::{SpecOutline, values};
use anyhow::Result;
use itertools::iproduct;
use std::hash::{Hash, Hasher};
use std::time::Instant;

/// The `count` case: loci of its planted population (enough that the rows,
/// ℓ·N/8 bytes, outgrow the GPU's L2 cache), random groups scored per size, the
/// first of them checked against multi-threaded FastCount, timed calls per size.
pub const COUNT_ELL: usize = 1000;
pub const COUNT_GROUPS: usize = 4096;
pub const COUNT_CHECKED: usize = 8;
pub const COUNT_REPS: usize = 3;

impl Plan for EcgaPaper {
    fn outline(&self) -> &dyn SpecOutline {
        &self.spec
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, crate::error::SpecError> {
        let p = self.file.profile(&self.spec.profiles, profile)?;
        let seed = |id: &str| self.spec.seed(id);
        let searches = [Search::Greedy, Search::GreedyMating];
        let mut cases = Vec::new();
        for (ell, search, b) in iproduct!(values(&p.table5_ells), searches, 0..*p.table5_bisections) {
            let id = format!("table5/{}/l{ell}/b{b}", search.name());
            let params = Table5Case {
                search: search.name().into(),
                ell,
                bisection: b,
                runs_per_trial: Some(*p.table5_runs_per_trial),
                required_successes: Some(*p.table5_successes),
                randomness: Some(p.table5_randomness().name().into()),
                seed: seed(&id),
            };
            cases.push(Case::of(TABLE5, id, &params, (ell * ell) as u64 / 10));
        }
        for (n, search, run) in iproduct!(values(&p.fig6_pops), searches, 0..*p.fig6_runs) {
            let id = format!("fig6/{}/n{n}/r{run}", search.name());
            let params = RunCase { search: search.name().into(), ell: 50, n, run, seed: seed(&id) };
            cases.push(Case::of(FIG6, id, &params, n as u64 / 100 + 1));
        }
        for (ell, run) in iproduct!(values(&p.fig7_ells), 0..*p.fig7_runs) {
            let (n, id) = (self.spec.population(ell, Search::GreedyMating), format!("fig7/l{ell}/r{run}"));
            let params = RunCase { search: Search::GreedyMating.name().into(), ell, n, run, seed: seed(&id) };
            cases.push(Case::of(FIG7, id, &params, (ell * ell * n / 100_000) as u64 + 1));
        }
        for (ell, run) in iproduct!(values(&p.fig5_ells), 0..*p.fig5_runs) {
            let (n, id) = (self.spec.population(ell, Search::Greedy), format!("fig5/l{ell}/r{run}"));
            let single_thread = ell <= p.cpu_1t_max_ell;
            let params = Fig5Case { search: Search::Greedy.name().into(), ell, n, run, single_thread, seed: seed(&id) };
            cases.push(Case::of(FIG5, id, &params, (ell * ell * n / 20_000) as u64 + 1));
        }
        let runs = *p.build_runs;
        for (ell, run) in iproduct!(values(&p.build_ells), 0..runs) {
            let n = self.spec.population(ell, Search::Greedy);
            let id = if runs == 1 { format!("build/l{ell}") } else { format!("build/l{ell}/r{run}") };
            let repeats = Some(*p.build_repeats);
            let params = BuildCase { search: Search::Greedy.name().into(), ell, n, seed: seed(&id), repeats };
            cases.push(Case::of(BUILD, id, &params, (ell * ell * n / 1_000) as u64 + 1));
        }
        for (ell, run, chunk) in iproduct!(values(&p.whole_ells), 0..p.whole_runs, 0..p.whole_chunks) {
            let n = self.spec.population(ell, Search::Greedy);
            let id = format!("whole/l{ell}/r{run}/c{chunk}");
            let params = WholeCase {
                search: Search::Greedy.name().into(),
                ell,
                n,
                run,
                chunk,
                chunks: p.whole_chunks,
                threads: p.whole_threads,
                run_seed: seed(&format!("whole/l{ell}/r{run}")),
                calibration_seed: seed(&format!("build/l{ell}")),
                seed: seed(&id),
            };
            cases.push(Case::of(WHOLE, id, &params, (ell * ell * n / 1_000) as u64 + 1));
        }
        if p.scale_build {
            // Section 5.4: "both of our implementations scale up to 9,800-bit".
            let (ell, n) = (self.spec.scale_paper.ell, self.spec.scale_paper.n);
            for (search, suffix) in [(Search::Greedy, ""), (Search::GreedyMating, "/gm")] {
                let id = format!("scale/l{ell}{suffix}");
                let params = BuildCase { search: search.name().into(), ell, n, seed: seed(&id), repeats: None };
                cases.push(Case::of(SCALE, id, &params, (ell * ell * n / 1_000) as u64 + 1));
            }
        }
        if !p.count_sizes.is_empty() {
            let n = self.spec.scale_paper.n;
            let sizes: Vec<String> = p.count_sizes.iter().map(|s| s.to_string()).collect();
            let id = format!("count/n{n}");
            let params = CountCase { search: "none".into(), ell: COUNT_ELL, n, sizes: sizes.join(","), seed: seed(&id) };
            cases.push(Case::of(COUNT, id, &params, (COUNT_ELL * n / 1_000) as u64 + 1));
        }
        Ok(cases)
    }

    /// The population, the selected half and the offspring (a byte per allele,
    /// with the selected ones packed by locus) on the host; the packed
    /// population on the device. A bisection's population is taken as twice
    /// the paper's (it brackets the size from above).
    fn footprint(&self, case: &Case) -> Footprint {
        fn of<R: Row>(case: &Case) -> R {
            case.row().unwrap_or_else(|e| panic!("{e}"))
        }
        // ℓ, N, the profile's key and, for a whole case, its chunks.
        let (ell, n, key, chunks) = match case.params.str(col::FIGURE) {
            TABLE5 => {
                let c: Table5Case = of(case);
                (c.ell, 2 * self.spec.population(c.ell, search_of(&c.search)), "table5_ells", None)
            }
            FIG5 => {
                let c: Fig5Case = of(case);
                (c.ell, c.n, "fig5_ells", None)
            }
            figure @ (FIG6 | FIG7) => {
                let c: RunCase = of(case);
                (c.ell, c.n, if figure == FIG6 { "fig6_pops" } else { "fig7_ells" }, None)
            }
            figure @ (BUILD | SCALE) => {
                let c: BuildCase = of(case);
                (c.ell, c.n, if figure == BUILD { "build_ells" } else { "scale_build" }, None)
            }
            WHOLE => {
                let c: WholeCase = of(case);
                (c.ell, c.n, "whole_ells", Some(c.chunks))
            }
            _ => {
                let c: CountCase = of(case);
                (c.ell, c.n, "count_sizes", None)
            }
        };
        let (ell, n) = (ell as u64, n as u64);
        // Figure 5 runs the whole run on the device too (its permutation keys).
        let device_bytes = match key {
            "fig5_ells" | "whole_ells" => {
                let max_l = *self.spec.settings.max_l;
                (n * ell / 8 * 2).max(crate::gpu::ecga_run::run_bytes(n as usize, ell as usize, max_l) as u64)
            }
            _ => n * ell / 8 * 2,
        };
        // A whole case keeps the selected population (rows and packed, 9/8 byte per
        // allele) of every `chunks`-th generation, and the `build` case's selection.
        let kept = chunks.map_or(0, |chunks| (whole_generations(ell).div_ceil(chunks.max(1) as u64) + 1) * (n * ell + n * ell / 8));
        Footprint { host_bytes: n * ell * 3 + n * ell / 8 + kept, device_bytes, key }
    }

    fn not_run_column(&self) -> &'static str {
        Scored::scorer
    }

    /// Figure 5's single-threaded runs (the CPU baselines, `single_thread`) apart
    /// from its others: their time per unit of weight is many times more.
    fn group(&self, case: &Case) -> String {
        let figure = plan::figure(case);
        match case.params.row::<Fig5Case>() {
            Ok(c) if c.single_thread => format!("{figure} (single-threaded)"),
            _ => figure,
        }
    }

    /// Table 5's bisections and Figure 6's runs record results, not times, and
    /// gECGA's are identical to multi-threaded FastCount's (whole device runs
    /// to the host's counter-based ones): any rank runs them, on the GPU where
    /// it has one, else on all its cores. The other cases time gECGA.
    fn resource(&self, case: &Case) -> plan::Resource {
        match case.params.str(col::FIGURE) {
            TABLE5 | FIG6 => plan::Resource::CpuCores,
            _ => plan::Resource::Gpu,
        }
    }

    /// gECGA's scorer in every case that times it, and Figure 5's whole run on the device; Table 5 and Figures 6
    /// and 7 run on the fastest scorer the machine has.
    fn gpu_methods(&self, case: &Case, _profile: &str) -> Result<Vec<&'static str>> {
        Ok(match case.params.str(col::FIGURE) {
            FIG5 => vec![GECGA, GECGA_DEVICE],
            BUILD | WHOLE | SCALE | COUNT => vec![GECGA],
            _ => Vec::new(),
        })
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let k = *self.spec.settings.k;
        let max_l = *self.spec.settings.max_l;
        let tournament = *self.spec.settings.tournament;
        let trap = |ell: usize| Trap { k, m: ell / k };
        let mut rows = Vec::new();
        match case.params.str(col::FIGURE) {
            TABLE5 => {
                let c: Table5Case = case.row()?;
                let rule = Table5Rule::of(&c);
                let criteria = BisectionCriteria {
                    n0: *self.spec.settings.bisection_n0,
                    precision: *self.spec.settings.bisection_precision,
                    runs_per_trial: rule.runs_per_trial,
                    required_successes: rule.required_successes,
                    ..BisectionCriteria::default()
                };
                let randomness =
                    if rule.randomness == ecga::Randomness::Counter.name() { ecga::Randomness::Counter } else { ecga::Randomness::Paper };
                let base = ecga::EcgaConfig { randomness, ..self.spec.config(0, c.ell, search_of(&c.search)) };
                let t0 = Instant::now();
                let (name, b) = table5_bisection(&trap(c.ell), &base, c.seed, &criteria, env)?;
                let runs = b.trials.iter().map(|t| t.runs).sum();
                rows.push(ran(name).with_row(&Bisection { n_min: b.n, trials: b.trials.len(), runs, wall_ms: ms_since(t0) }));
            }
            FIG5 => {
                let c: Fig5Case = case.row()?;
                let (trap, cfg) = (trap(c.ell), self.spec.config(c.n, c.ell, search_of(&c.search)));
                if !c.single_thread {
                    rows.extend(SINGLE_THREADED.map(|s| self.not_run_row(s, "ℓ beyond the profile's cpu_1t_max_ell")));
                }
                let scorers = every_scorer(env, c.single_thread)?;
                // The reference digest is the first scorer's; every other must match.
                let mut reference: Option<String> = None;
                for (name, mut scorer) in scorers {
                    let t0 = Instant::now();
                    let r = ecga::run(&trap, &cfg, c.seed, scorer.as_mut())?;
                    let mut run = run_row(&r, ms_since(t0));
                    run.identical = Some(*reference.get_or_insert_with(|| run.digest.clone()) == run.digest);
                    rows.push(device_times(ran(name).with_row(&run), scorer.as_ref()));
                }
                if let Some(gpu) = &env.gpu {
                    rows.push(device_run(gpu, &trap, &cfg, c.seed)?);
                }
            }
            BUILD => {
                let c: BuildCase = case.row()?;
                let selected = ecga::first_selection(&trap(c.ell), c.n, tournament, c.seed)?;
                let xlogx = XLogX::new(c.n);
                let scorers = every_scorer(env, true)?;
                let mut reference = None;
                for (name, mut scorer) in scorers {
                    let repeats = if SINGLE_THREADED.contains(&name) { 1 } else { c.repeats.unwrap_or(1).max(1) };
                    for _ in 0..repeats {
                        let t0 = Instant::now();
                        let trace = search_of(&c.search).build(&selected, scorer.as_mut(), max_l, &xlogx)?;
                        let model_ms = ms_since(t0);
                        let identical = *reference.get_or_insert_with(|| trace.clone()) == trace;
                        let build = BuildRow { model_ms, pairs_scored: trace.pairs_scored, merges: trace.merges.len(), identical };
                        rows.push(device_times(ran(name).with_row(&build), scorer.as_ref()));
                    }
                }
            }
            WHOLE => {
                let c: WholeCase = case.row()?;
                let trap = trap(c.ell);
                let calibration = ecga::first_selection(&trap, c.n, tournament, c.calibration_seed)?;
                let configs = [Search::Greedy, Search::GreedyMating].map(|s| ecga::EcgaConfig {
                    randomness: ecga::Randomness::Counter,
                    ..self.spec.config(self.spec.population(c.ell, s), c.ell, s)
                });
                let threads = match c.threads {
                    0 => env.fingerprint.cpu_physical_cores.max(1),
                    t => t,
                };
                rows.extend(whole_run(&trap, &configs, c.run_seed, &calibration, (c.chunk, c.chunks), threads, env)?);
            }
            SCALE => {
                let c: BuildCase = case.row()?;
                if let Some(gpu) = &env.gpu {
                    rows.push(scale_build(gpu, &trap(c.ell), search_of(&c.search), c.n, c.seed, max_l, env)?);
                }
            }
            COUNT => {
                let c: CountCase = case.row()?;
                let sizes = c.sizes.split(',').map(str::parse).collect::<Result<Vec<usize>, _>>()?;
                rows.extend(count_rates(&trap(c.ell), &sizes, c.n, c.seed, env)?);
            }
            FIG6 => {
                let c: RunCase = case.row()?;
                let (name, mut scorer) = fastest(env)?;
                let r = ecga::run(&trap(c.ell), &self.spec.config(c.n, c.ell, search_of(&c.search)), c.seed, scorer.as_mut())?;
                for (g, h) in r.history.iter().enumerate() {
                    rows.push(ran(name).with_row(&Generation {
                        generation: g + 1,
                        generations: r.generations,
                        model_quality: h.model_quality,
                        ones_ratio: h.ones_ratio,
                        best_solved: r.best_solved,
                    }));
                }
            }
            FIG7 => {
                let c: RunCase = case.row()?;
                let (name, mut scorer) = fastest(env)?;
                let t0 = Instant::now();
                let r = ecga::run(&trap(c.ell), &self.spec.config(c.n, c.ell, search_of(&c.search)), c.seed, scorer.as_mut())?;
                rows.push(ran(name).with_row(&run_row(&r, ms_since(t0))));
            }
            other => anyhow::bail!("unknown figure `{other}` in case {}", case.id),
        }
        Ok(rows)
    }
}

fn ms_since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}

/// Generations a whole run at ℓ is taken to last for its footprint: ℓ/10 (at
/// least 10), twice the 24–25 the H100 and H200 records measured at ℓ = 500 at the
/// Table 5 population, for margin.
fn whole_generations(ell: u64) -> u64 {
    (ell / 10).max(10)
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

/// A run's row: its times and what it decided, Figure 5's identity and the randomness empty.
fn run_row(r: &RunResult, wall_ms: f64) -> RunRow {
    RunRow {
        model_ms: r.model_building.as_secs_f64() * 1e3,
        total_ms: r.total.as_secs_f64() * 1e3,
        wall_ms,
        generations: r.generations,
        best_solved: r.best_solved,
        converged: r.converged,
        pairs_scored: r.history.iter().map(|g| g.pairs_scored).sum(),
        digest: digest(r),
        ..RunRow::default()
    }
}

/// One Table 5 bisection and the scorer that made its runs: with counter-based
/// randomness each run goes wholly on the device where there is a GPU
/// (`gecga-device`), else on the host with the fastest scorer, the two
/// bit-identical; with the paper's randomness on the host with the fastest scorer.
fn table5_bisection(
    trap: &Trap,
    base: &ecga::EcgaConfig,
    seed: u64,
    criteria: &BisectionCriteria,
    env: &RunEnv,
) -> Result<(&'static str, ecga::BisectionResult)> {
    if let (Some(gpu), ecga::Randomness::Counter) = (&env.gpu, base.randomness) {
        let mut run_one =
            |cfg: &ecga::EcgaConfig, run_seed: u64| Ok(crate::gpu::ecga_run::run(gpu, trap, cfg, run_seed, None)?.result.best_solved);
        return Ok((GECGA_DEVICE, ecga::bisection_with(trap, base, seed, criteria, &mut run_one)?));
    }
    let (name, mut scorer) = fastest(env)?;
    Ok((name, ecga::bisection(trap, base, seed, criteria, scorer.as_mut())?))
}

/// The whole run on the device with counter-based random numbers from the
/// case's seed: its row as [`run_row`] gives it, with the device time of each
/// phase (CUDA events, ms).
fn device_run(gpu: &Gpu, trap: &Trap, cfg: &ecga::EcgaConfig, seed: u64) -> Result<Record> {
    let cfg = ecga::EcgaConfig { randomness: ecga::Randomness::Counter, ..*cfg };
    let t0 = Instant::now();
    let run = crate::gpu::ecga_run::run(gpu, trap, &cfg, seed, None)?;
    let row = RunRow { randomness: Some(cfg.randomness.name().into()), ..run_row(&run.result, ms_since(t0)) };
    let ph = run.phases;
    let phases = Phases {
        init_ms: ph.init_ms,
        convergence_ms: ph.convergence_ms,
        selection_ms: ph.selection_ms,
        model_device_ms: ph.model_ms,
        sampling_ms: ph.sampling_ms,
        evaluation_ms: ph.evaluation_ms,
        setup_ms: Some(run.setup_ms),
    };
    let device = DeviceTimes { alleles_counted: Some(run.alleles), ..DeviceTimes::default() };
    Ok(ran(GECGA_DEVICE).with_row(&row).with_row(&phases).with_row(&device))
}

/// A generation kept for the single-threaded builds: its number (None for the
/// `build` case's selection), selected population and the run's model of it.
type Kept = (Option<usize>, Population, Option<ecga::ModelTrace>);

/// One `whole` case (Section 5.3's whole runs where the baseline's outlast a
/// command): gECGA's whole runs with counter-based randomness under `seed`
/// (greedy and GM, timed alone), the same greedy run on the device, then the
/// greedy run again keeping the selected population and model of each
/// generation g with g mod chunks = chunk. The baseline and FastCount then
/// build each kept generation's model on one core each, `threads` builds at
/// once (baseline first), with the `build` case's selection (`calibration`)
/// among them: its lone time, in the `build` rows, says what sharing the
/// cores cost. Each build is checked against the run's model.
fn whole_run(
    trap: &Trap,
    configs: &[ecga::EcgaConfig; 2],
    seed: u64,
    calibration: &Population,
    (chunk, chunks): (usize, usize),
    threads: usize,
    env: &RunEnv,
) -> Result<Vec<Record>> {
    let Some(gpu) = &env.gpu else {
        return Ok(Vec::new());
    };
    let mut rows = Vec::new();
    let mut scorer = GpuScorer::new(gpu)?;
    for cfg in configs {
        let t0 = Instant::now();
        let r = ecga::run(trap, cfg, seed, &mut scorer)?;
        let run = RunRow { randomness: Some(cfg.randomness.name().into()), ..run_row(&r, ms_since(t0)) };
        // GM's run has its own population: its search and N in place of the case's.
        rows.push(ran(GECGA).with_row(&run).with(WholeCase::search, cfg.search.name()).with(WholeCase::n, cfg.n));
    }
    let greedy = &configs[0];
    rows.push(device_run(gpu, trap, greedy, seed)?);
    let mut kept = Vec::new();
    let mut g = 0;
    ecga::run_observed(trap, greedy, seed, &mut scorer, &mut |pop, trace| {
        if g % chunks == chunk {
            kept.push((Some(g + 1), pop.clone(), Some(trace.clone())));
        }
        g += 1;
    })?;
    kept.insert(0, (None, calibration.clone(), None));
    let jobs: Vec<(&str, &Kept)> = [BASELINE, FASTCOUNT].into_iter().flat_map(|name| kept.iter().map(move |k| (name, k))).collect();
    let xlogx = XLogX::new(greedy.n);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = threads.min(jobs.len()).max(1);
    let built: Vec<Result<Vec<Record>>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| -> Result<Vec<Record>> {
                    let mut out = Vec::new();
                    while let Some(&(name, (generation, pop, expected))) = jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        let mut scorer: Box<dyn PairScorer> = match name {
                            BASELINE => Box::new(CpuScorer::new(BaselineCounter)),
                            _ => Box::new(CpuScorer::new(FastCount { popcount: Popcount::UnityTable16 })),
                        };
                        let t0 = Instant::now();
                        let trace = greedy.search.build(pop, scorer.as_mut(), greedy.max_l, &xlogx)?;
                        let build = WholeBuild {
                            model_ms: ms_since(t0),
                            pairs_scored: trace.pairs_scored,
                            concurrent: threads,
                            calibration: generation.is_none(),
                            generation: *generation,
                            identical: expected.as_ref().map(|t| *t == trace),
                        };
                        out.push(ran(name).with_row(&build));
                    }
                    Ok(out)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a build thread panicked")).collect()
    });
    for b in built {
        rows.extend(b?);
    }
    Ok(rows)
}

/// `row` with a device scorer's kernel time, the host time of its launching calls and the alleles read.
fn device_times(row: Record, scorer: &dyn PairScorer) -> Record {
    match scorer.device_stats() {
        Some(d) => {
            row.with_row(&DeviceTimes { kernel_ms: Some(d.kernel_ms), device_calls_ms: Some(d.calls_ms), alleles_counted: Some(d.alleles) })
        }
        None => row,
    }
}

/// The scorers that run on one thread: the baseline, FastCount and FastCount with kept trees.
const SINGLE_THREADED: [&str; 3] = [BASELINE, FASTCOUNT, FASTCOUNT_KEPT];

/// Every scorer of Figure 5 this machine runs — the single-threaded ones
/// ([`SINGLE_THREADED`]) when `single_thread`, multi-threaded FastCount, gECGA where
/// there is a GPU (the runner records it as not run where there is none).
fn every_scorer<'g>(env: &'g RunEnv, single_thread: bool) -> Result<Vec<(&'static str, Box<dyn PairScorer + 'g>)>> {
    let mut scorers: Vec<(&'static str, Box<dyn PairScorer + 'g>)> = Vec::new();
    if single_thread {
        scorers.push((BASELINE, Box::new(CpuScorer::new(BaselineCounter))));
        scorers.push((FASTCOUNT, Box::new(CpuScorer::new(FastCount { popcount: Popcount::UnityTable16 }))));
        scorers.push((FASTCOUNT_KEPT, Box::new(CpuScorer::new(FastCountKept(FastCount { popcount: Popcount::UnityTable16 })))));
    }
    scorers.push((CPU_MT, Box::new(ParallelCpuScorer::new(PrefixFastCount { popcount: Popcount::Hardware }))));
    if let Some(gpu) = &env.gpu {
        scorers.push((GECGA, Box::new(GpuScorer::new(gpu)?)));
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

/// Section 5.4 run on this machine: one model build with gECGA and `search` at
/// the paper's (ℓ, N) on [`Population::planted`] linkage (a random first
/// selection would stop after a few merges), timed from the packed population
/// to the MPM.
fn scale_build(gpu: &Gpu, trap: &Trap, search: Search, n: usize, seed: u64, max_l: usize, env: &RunEnv) -> Result<Record> {
    population_fits_host(n, trap.ell(), env.fingerprint.mem_gib)?;
    let t0 = Instant::now();
    let pop = Population::planted(n, trap.ell(), trap.k, seed)?;
    let prep_ms = t0.elapsed().as_secs_f64() * 1e3;
    eprintln!("scale build: planted population of {n} × {} made in {:.1} s", trap.ell(), prep_ms / 1e3);
    let xlogx = XLogX::new(n);
    let mut scorer = GpuScorer::new(gpu)?;
    let t1 = Instant::now();
    let trace = search.build(&pop, &mut scorer, max_l, &xlogx)?;
    let row = ScaleRow {
        population_ms: prep_ms,
        model_ms: ms_since(t1),
        pairs_scored: trace.pairs_scored,
        merges: trace.merges.len(),
        model_quality: ecga::model_quality(trap, &trace.mpm),
    };
    Ok(device_times(ran(GECGA).with_row(&row), &scorer))
}

/// The counting kernel alone (`count` case): for each group size L,
/// `COUNT_GROUPS` random groups of distinct loci of a planted population of N
/// individuals, the first `COUNT_CHECKED` compared bit for bit with
/// multi-threaded FastCount, then `COUNT_REPS` timed calls (CUDA events around
/// each launch): alleles counted and kernel time per call, one row per L.
fn count_rates(trap: &Trap, sizes: &[usize], n: usize, seed: u64, env: &RunEnv) -> Result<Vec<Record>> {
    use rand::{SeedableRng, rngs::StdRng};
    let Some(gpu) = &env.gpu else {
        return Ok(Vec::new());
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
        let counting = if size <= crate::gpu::gecga::FASTCOUNT_MAX_L { "FastCount" } else { "histogram" };
        let count = CountRow { group_size: size, counting: Some(counting.into()), groups: COUNT_GROUPS, identical };
        let device = DeviceTimes {
            alleles_counted: Some((after.alleles - before.alleles) / reps),
            kernel_ms: Some((after.kernel_ms - before.kernel_ms) / reps),
            ..DeviceTimes::default()
        };
        rows.push(ran(GECGA).with_row(&count).with_row(&device));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SpecFile;

    fn paper() -> Box<dyn crate::experiments::Paper> {
        let file = SpecFile::from_text(std::path::Path::new("ecga.toml"), include_str!("../../../experiments/ecga.toml").into());
        super::super::ECGA.load(&file).unwrap()
    }

    #[test]
    fn figure_fives_single_threaded_cases_are_a_group_of_their_own() {
        let p = paper();
        let groups: std::collections::BTreeSet<String> =
            p.profiles().iter().flat_map(|profile| p.cases(profile).unwrap()).map(|c| p.group(&c)).collect();
        assert!(groups.contains("fig5") && groups.contains("fig5 (single-threaded)"), "{groups:?}");
        let table5 = p.cases("quick").unwrap().into_iter().find(|c| c.params.str(col::FIGURE) == TABLE5).unwrap();
        assert_eq!(p.group(&table5), crate::experiments::plan::figure(&table5));
    }

    #[test]
    fn table_5_cases_carry_their_profiles_rule_one_bisection_each() {
        let p = paper();
        let cases = p.cases("gpu-table5").unwrap();
        assert_eq!(cases.len(), 7 * 2 * 10);
        let rule = |c: &Case| Table5Rule::of(&c.params.row::<Table5Case>().unwrap());
        let majority = Table5Rule { runs_per_trial: 5, required_successes: 3, randomness: "counter".into() };
        assert!(cases.iter().all(|c| c.id.starts_with("table5/") && rule(c) == majority));
        let quick = p.cases("quick").unwrap();
        let t5 = quick.iter().find(|c| c.params.str(col::FIGURE) == TABLE5).unwrap();
        assert_eq!((rule(t5).runs_per_trial, rule(t5).randomness), (1, "paper".into()), "the default rule");
        let fig6 = p.cases("fig6").unwrap();
        assert_eq!(fig6.len(), 5 * 2 * 30);
        assert!(fig6.iter().all(|c| c.params.str(col::FIGURE) == FIG6));
    }

    #[test]
    fn bisections_and_figure_6_need_no_gpu_the_timed_cases_do() {
        use crate::experiments::plan::Resource;
        let p = paper();
        let resources = |profile: &str| p.cases(profile).unwrap().iter().map(|c| p.resource(c)).collect::<Vec<_>>();
        assert!(resources("gpu-table5").iter().all(|&r| r == Resource::CpuCores));
        assert!(resources("fig6").iter().all(|&r| r == Resource::CpuCores));
        assert!(resources("fig7").iter().all(|&r| r == Resource::Gpu));
        assert!(resources("whole").iter().all(|&r| r == Resource::Gpu));
    }

    #[test]
    fn a_whole_cases_footprint_counts_its_kept_generations() {
        let p = paper();
        let whole = p.cases("whole").unwrap().into_iter().find(|c| c.params.str(col::FIGURE) == WHOLE).unwrap();
        let build = p.cases("speed").unwrap().into_iter().find(|c| c.params.str(col::FIGURE) == BUILD).unwrap();
        let (w, b) = (p.footprint(&whole), p.footprint(&build));
        // ℓ = 500, N = 60,775, 2 chunks: ⌈50/2⌉ kept generations and the `build` selection, 9/8 byte per allele.
        let (n, ell) = (build.params.row::<BuildCase>().unwrap().n as u64, 500u64);
        assert_eq!(w.host_bytes - b.host_bytes, 26 * (n * ell + n * ell / 8));
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
