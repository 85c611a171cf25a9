//! Cases of a profile and running one into records (Section 4.1): every size ×
//! function times the sequential CPU evaluation, the multi-threaded extra column
//! and the GPU strategies (copy in, kernel, copy out) at their best block size,
//! after checking every evaluator against the f64 reference on the case's inputs.
//! Each CPU try is the best of as many executions as the GPU strategies try
//! block sizes; S4's host-side transposition is timed beside each of its tries,
//! into a buffer of its own, so that S4's timed copy reads a pinned buffer
//! written once, as S1's does.

use super::LayoutPaper;
use super::rows::{KERNEL_LOOP, Measured, SEARCH, SizeCase, TIMED, Try};
use crate::error::SpecError;
use crate::experiments::{Case, Footprint, Plan, RunEnv, plan};
use crate::gpu::layout::{LayoutBuffers, Strategy, Timing, launch_config};
use crate::library::nonseparable::{self as ns, Function};
use crate::records::Record;
use crate::records::col;
use crate::spec::{SpecOutline, values};
use anyhow::{Result, bail};
use std::time::Instant;

/// Back-to-back launches of the best configuration timed for the kernel-only rate.
const KERNEL_LOOP_LAUNCHES: usize = 20;

fn ms_since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}

/// S4's host-side transposition of `x` into `t` (milliseconds).
fn timed_transposition(x: &[f32], pop: usize, dim: usize, t: &mut [f32]) -> f64 {
    let t0 = Instant::now();
    ns::transpose_into(x, pop, dim, t);
    std::hint::black_box(&*t);
    ms_since(t0)
}

/// A try's row, status `ok` and what it measured to follow.
fn row(strategy: &str, phase: &str, try_index: usize) -> Record {
    Record::new().with_row(&Try { strategy: strategy.into(), phase: phase.into(), r#try: try_index }).with(col::STATUS, "ok")
}

fn gpu_measured(block: u32, tm: &Timing, ratio: f64) -> Measured {
    Measured {
        block_size: Some(block),
        wall_ms: Some(tm.wall_ms),
        h2d_ms: Some(tm.h2d_ms),
        kernel_ms: Some(tm.kernel_ms),
        d2h_ms: Some(tm.d2h_ms),
        events_ms: Some(tm.events_ms),
        check_ratio: Some(ratio),
        ..Measured::default()
    }
}

impl LayoutPaper {
    /// The population of a size depends only on (seed, pop, dim), so every
    /// function and strategy of one size reads identical inputs (Section 4.1).
    fn seed(&self, pop: usize, dim: usize) -> u64 {
        self.spec.settings.seed ^ ((pop as u64) << 32) ^ (dim as u64).wrapping_mul(0x9E37_79B9)
    }
}

impl Plan for LayoutPaper {
    fn outline(&self) -> &dyn SpecOutline {
        &self.spec
    }

    fn timing(&self) -> plan::Timing {
        plan::Timing { method: Try::strategy, columns: &[Measured::wall_ms], only: Some((Try::phase, TIMED)) }
    }

    fn not_run_column(&self) -> &'static str {
        Try::strategy
    }

    /// The GPU strategies the profile asks for (S1–S4 and S4-split by default).
    fn gpu_methods(&self, _case: &Case, profile: &str) -> Result<Vec<&'static str>> {
        Ok(self.profile(profile)?.strategies().into_iter().map(Strategy::name).collect())
    }

    /// A strategy's timed row (its first try), not run.
    fn not_run_row(&self, strategy: &str, reason: &str) -> Record {
        row(strategy, TIMED, 0).with(col::STATUS, "not_run").with(col::REASON, reason)
    }

    /// One case per size × function of the profile, smallest sizes first.
    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.profile(profile)?;
        let mut cases = Vec::new();
        for (pop, dim) in p.sizes() {
            for f in &p.functions {
                let f = Function::from_name(f).expect("validated");
                cases.push(Case {
                    id: format!("{}/{pop}x{dim}", f.name()),
                    params: Record::new().with_row(&SizeCase {
                        function: f.name().into(),
                        pop,
                        dim,
                        seed: self.seed(pop, dim),
                        tries: *p.tries,
                    }),
                    weight: (pop * dim) as u64 / 1000 + 10,
                });
            }
        }
        Ok(cases)
    }

    /// The population (f32) with its pinned copy and the f64 references on the
    /// host; the population and one more buffer of its size (S1/S2's other
    /// layout) on the device.
    fn footprint(&self, case: &Case) -> Footprint {
        let (pop, dim) = case.params.row::<SizeCase>().map_or((0, 0), |c| (c.pop as u64, c.dim as u64));
        Footprint { host_bytes: pop * dim * 8 + pop * 16, device_bytes: pop * dim * 8 + pop * 4, key: "sizes" }
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let SizeCase { function, pop, dim, seed, tries } = case.row()?;
        let f = Function::from_name(&function).expect("case from spec");
        let x = ns::random_population(pop, dim, seed);
        let refs = ns::references(f, &x, dim);
        let mut rows = Vec::new();
        let mut out = vec![f32::NAN; pop];

        // The block sizes S1, S2 and S4 try at this size: each GPU time is the best of
        // these configurations, so each CPU try is the best of as many executions
        // ("the equal number of executions … retaining the best one", Section 4.1).
        let max_block = (pop.next_power_of_two() as u32).max(32);
        let blocks: Vec<u32> = values(&self.spec.settings.block_sizes).filter(|&b| b <= max_block).collect();
        let best_of = blocks.len().max(1);

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
                let mut best = f64::INFINITY;
                for _ in 0..best_of {
                    let t0 = Instant::now();
                    eval(f, &x, dim, &mut out);
                    std::hint::black_box(&out);
                    best = best.min(ms_since(t0));
                }
                let threads = (name == "cpu_mt").then_some(threads);
                let m = Measured {
                    wall_ms: Some(best),
                    best_of: Some(best_of),
                    check_ratio: Some(check.worst_ratio),
                    threads,
                    ..Measured::default()
                };
                rows.push(row(name, TIMED, t).with_row(&m));
            }
        }

        // GPU strategies S1–S4 (and S4-split), as many as the profile asks for.
        let strategies = self.profile(&env.profile)?.strategies();
        let Some(gpu) = &env.gpu else {
            return Ok(rows);
        };
        let mut xt = ns::transpose(&x, pop, dim);
        let mut bufs = LayoutBuffers::new(gpu, &x, &xt, pop, dim)?;
        let search_tries = *self.spec.settings.block_search_tries;
        for s in strategies {
            let blocks: Vec<u32> = if s.searches_block_size() { blocks.clone() } else { vec![0] };
            // Check every launch configuration, then time each with a few tries.
            let mut best: Option<(f64, u32, cudarc::driver::LaunchConfig, f64)> = None;
            for &block in &blocks {
                let (cfg, threads_per_block) = match launch_config(gpu, f, s, pop, dim, block)? {
                    Ok(c) => c,
                    Err(reason) => {
                        let m = Measured { block_size: Some(block), ..Measured::default() };
                        rows.push(row(s.name(), TIMED, 0).with_row(&m).with(col::STATUS, "cannot_run").with(col::REASON, reason));
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
                    rows.push(row(s.name(), SEARCH, t).with_row(&gpu_measured(threads_per_block, &tm, check.worst_ratio)));
                }
                let med = crate::stats::median(&walls);
                if best.is_none_or(|b| med < b.0) {
                    best = Some((med, threads_per_block, cfg, check.worst_ratio));
                }
            }
            if let Some((_, block, cfg, ratio)) = best {
                for t in 0..tries {
                    // S4's host-side transposition, timed apart (Section 3.2.4) and into
                    // `xt`, not the pinned buffer the copy reads: the wall time stays the
                    // paper's copy in, kernel, copy out, and that buffer is not left
                    // freshly written in the caches for the copy (which slowed it).
                    let transpose_ms = s.dimension_major().then(|| timed_transposition(&x, pop, dim, &mut xt));
                    let tm = bufs.run(gpu, f, s, cfg, false)?;
                    let transpose_threads = transpose_ms.map(|_| threads);
                    let m = Measured { transpose_ms, transpose_threads, ..gpu_measured(block, &tm, ratio) };
                    rows.push(row(s.name(), TIMED, t).with_row(&m));
                }
                // Not in the paper: the kernel alone, launched back to back, as
                // the device-copy ceiling is timed.
                let per_launch = bufs.time_kernel(gpu, f, s, cfg, KERNEL_LOOP_LAUNCHES)?;
                let m = Measured { block_size: Some(block), kernel_ms: Some(per_launch), ..Measured::default() };
                rows.push(row(s.name(), KERNEL_LOOP, 0).with_row(&m));
            }
        }
        Ok(rows)
    }
}
