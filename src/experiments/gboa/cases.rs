//! gBOA's cases and how one runs: every construction from the same seed.
//!
//! - `table1/l<ℓ>/r<i>`: one BOA run per construction — sBOA (Pelikan's simple
//!   BOA, acyclicity checks), pBOA on one thread and on all cores (Ocenasek's
//!   permutation scheme, Section III), gBOA where there is a GPU — with the time
//!   of every phase (Table I, Figure 7) and the subproblems solved.
//! - `complexity/l<ℓ>` and `complexity/n<N>`: the first generation's network
//!   construction against ℓ (n in the paper) and N (Section V.A).
//!
//! gBOA (Section IV) must reproduce CPU pBOA's run exactly (same permutations,
//! networks and offspring), or the case fails; so must `gboa-paper`, gBOA with the
//! network kernel as the paper describes it (480 threads a block, pattern counts in
//! shared memory; `gpu::boa::Design::Paper`) beside this harness's design (`gboa`),
//! so that the report can split the gap to the paper into design and hardware.
//!
//! Beside the paper's columns, Table I runs `gboa-device` (not a paper method;
//! issue #23, the "future research" of Section V.B): every phase on the GPU with
//! counter-based randomness (`gpu::boa::run_on_device`), which `selfcheck` checks
//! against the CPU's counter-based run generation by generation.

use super::GboaPaper;
use super::rows::{COMPLEXITY, ComplexityCase, RunRow, TABLE1, Table1Case};
use super::spec::Profile;
use crate::error::SpecError;
use crate::experiments::{Case, Footprint, Plan, RunEnv};
use crate::gpu::boa::{GpuFamilyScorer, device_run_bytes, run_on_device};
use crate::library::boa::{self, BoaConfig, BoaResult, Construction, CpuFamilyScorer, FamilyScorer, ParallelFamilyScorer, Randomness};
use crate::library::ecga::{Popcount, PrefixFastCount};
use crate::library::trap::Trap;
use crate::records::Record;
use crate::spec::{SpecOutline, values};
use anyhow::Result;
use itertools::iproduct;

/// Column names, in report order: the paper's three and the multi-threaded extra.
pub const SBOA: &str = "sboa";
pub const PBOA: &str = "pboa";
pub const PBOA_MT: &str = "pboa-mt";
pub const GBOA: &str = "gboa";
/// gBOA with the paper's network kernel (Section IV-A, V).
pub const GBOA_PAPER: &str = "gboa-paper";
/// BOA with every phase on the device (beyond the paper).
pub const GBOA_DEVICE: &str = "gboa-device";
pub const METHODS: [&str; 6] = [SBOA, PBOA, PBOA_MT, GBOA, GBOA_PAPER, GBOA_DEVICE];
/// Repetitions of each complexity case.
const COMPLEXITY_REPEATS: usize = 3;

impl GboaPaper {
    fn profile(&self, name: &str) -> Result<&Profile, SpecError> {
        self.file.profile(&self.spec.profiles, name)
    }

    fn config(&self, n: usize, generations: usize, construction: Construction) -> BoaConfig {
        let s = &self.spec.settings;
        BoaConfig {
            n,
            k: *s.max_parents,
            selection: *s.selection,
            max_generations: generations,
            stop_on_convergence: false,
            construction,
            rng: Randomness::Paper,
        }
    }
}

impl Plan for GboaPaper {
    fn outline(&self) -> &dyn SpecOutline {
        &self.spec
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.profile(profile)?;
        let n = *self.spec.settings.population;
        let seed = self.spec.settings.seed;
        let mut cases = Vec::new();
        let generations = *p.generations;
        for (ell, r) in iproduct!(values(&p.table1_ells), 0..*p.runs) {
            let row = Table1Case { ell, n, run: r, generations, seed: seed ^ ((ell as u64) << 20) ^ r as u64 };
            cases.push(Case::of(TABLE1, format!("table1/l{ell}/r{r}"), &row, (ell * ell * generations) as u64 / 100 + 1));
        }
        let ell = *p.complexity_ell;
        let complexity = values(&p.complexity_ells).map(|e| (e, n, "ell")).chain(values(&p.complexity_pops).map(|pop| (ell, pop, "n")));
        for (ell, n, axis) in complexity {
            let id = if axis == "ell" { format!("complexity/l{ell}") } else { format!("complexity/n{n}") };
            let row = ComplexityCase { axis: axis.into(), ell, n, seed: seed ^ ((ell as u64) << 40) ^ n as u64 };
            cases.push(Case::of(COMPLEXITY, id, &row, (ell * ell * n / 4800) as u64 / 100 + 1));
        }
        Ok(cases)
    }

    /// The population, the selected half and the offspring (a byte per allele)
    /// with the network's ℓ × ℓ table of score gains on the host; on the device the
    /// selected half packed by locus (`gboa`) and a byte per allele (`gboa-paper`,
    /// both scorers alive at once) and the gains, or for Table I the whole
    /// `gboa-device` run ([`device_run_bytes`]) where that is more.
    fn footprint(&self, case: &Case) -> Footprint {
        let network = |n: usize, ell: usize| (n * ell / 8 + n * ell + 8 * ell * ell) as u64;
        let host = |n: usize, ell: usize| (3 * n * ell + 8 * ell * ell) as u64;
        match (case.params.row::<Table1Case>(), case.params.row::<ComplexityCase>()) {
            (Ok(Table1Case { ell, n, generations, .. }), _) => {
                let selected = self.config(n, generations, Construction::Permutation).selected();
                let whole = u64::try_from(device_run_bytes(n, ell, selected, generations)).unwrap_or(u64::MAX);
                Footprint { host_bytes: host(n, ell), device_bytes: network(n, ell).max(whole), key: "table1_ells" }
            }
            (_, Ok(ComplexityCase { axis, ell, n, .. })) => {
                let key = if axis == "ell" { "complexity_ells" } else { "complexity_pops" };
                Footprint { host_bytes: host(n, ell), device_bytes: network(n, ell), key }
            }
            (Err(e), _) => panic!("gBOA case {}: {e}", case.id),
        }
    }

    /// Both GPU scorers; for Table I also the whole run on the device.
    fn gpu_methods(&self, case: &Case, _profile: &str) -> Result<Vec<&'static str>> {
        let table1 = case.params.row::<Table1Case>().is_ok();
        Ok(if table1 { vec![GBOA, GBOA_PAPER, GBOA_DEVICE] } else { vec![GBOA, GBOA_PAPER] })
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        // Table I: the paper's run length; complexity: one generation (one network),
        // repeated, for it takes milliseconds (median in the report).
        let table1 = case.params.row::<Table1Case>().ok();
        let (ell, n, seed, generations, repeats) = match &table1 {
            Some(t) => (t.ell, t.n, t.seed, t.generations, 1),
            None => {
                let c: ComplexityCase = case.row()?;
                (c.ell, c.n, c.seed, 1, COMPLEXITY_REPEATS)
            }
        };
        let trap = Trap { k: *self.spec.settings.k_trap, m: ell / *self.spec.settings.k_trap };
        let mut rows = Vec::new();
        let mut methods: Vec<(&str, Construction, Box<dyn FamilyScorer + '_>)> = cpu_methods();
        if let Some(gpu) = &env.gpu {
            methods.push((GBOA, Construction::Permutation, Box::new(GpuFamilyScorer::new(gpu)?)));
            methods.push((GBOA_PAPER, Construction::Permutation, Box::new(GpuFamilyScorer::new(gpu)?.paper_design())));
            if table1.is_some() {
                let cfg = BoaConfig { rng: Randomness::Counter, ..self.config(n, generations, Construction::Permutation) };
                let d = run_on_device(gpu, &trap, &cfg, seed, None)?;
                let row = RunRow {
                    repeat: Some(0),
                    rng: Some(Randomness::Counter.name().into()),
                    alleles_counted: Some(d.alleles),
                    selected: Some(cfg.selected()),
                    statistics_ms: Some(d.statistics_ms),
                    setup_ms: Some(d.setup_ms),
                    ..run_row(&d.result)
                };
                rows.push(Record::ran(GBOA_DEVICE).with_row(&row));
            }
        }
        let mut pboa: Option<BoaResult> = None;
        for (name, construction, mut scorer) in methods {
            for rep in 0..repeats {
                let before = scorer.device_stats();
                let r = boa::run(&trap, &self.config(n, generations, construction), seed, scorer.as_mut())?;
                let mut row = RunRow { repeat: Some(rep), ..run_row(&r) };
                if let (Some(b), Some(a)) = (before, scorer.device_stats()) {
                    row.kernel_ms = Some(a.kernel_ms - b.kernel_ms);
                    row.device_calls_ms = Some(a.calls_ms - b.calls_ms);
                    row.alleles_counted = Some(a.alleles - b.alleles);
                }
                if construction == Construction::Permutation {
                    // Every pBOA column must make the same run: same networks, same offspring.
                    let reference = pboa.get_or_insert_with(|| r.clone());
                    let identical = same_run(reference, &r);
                    anyhow::ensure!(identical, "{name} diverged from single-threaded pBOA in case {} (seed {seed})", case.id);
                    row.identical = Some(identical);
                }
                rows.push(Record::ran(name).with_row(&row));
            }
        }
        Ok(rows)
    }
}

fn counter() -> PrefixFastCount {
    PrefixFastCount { popcount: Popcount::Hardware }
}

/// The CPU columns: name, construction and scorer.
fn cpu_methods() -> Vec<(&'static str, Construction, Box<dyn FamilyScorer>)> {
    vec![
        (SBOA, Construction::Simple, Box::new(CpuFamilyScorer::new(counter()))),
        (PBOA, Construction::Permutation, Box::new(CpuFamilyScorer::new(counter()))),
        (PBOA_MT, Construction::Permutation, Box::new(ParallelFamilyScorer::new(counter()))),
    ]
}

/// Whether two runs made the same decisions (everything but their times).
fn same_run(a: &BoaResult, b: &BoaResult) -> bool {
    (a.generations, a.best_fitness, a.best_solved, a.converged, a.families_scored)
        == (b.generations, b.best_fitness, b.best_solved, b.converged, b.families_scored)
        && a.history == b.history
}

/// A run's row: its phase times and result, the method's own columns empty.
fn run_row(r: &BoaResult) -> RunRow {
    let t = &r.timings;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    RunRow {
        generations: r.generations,
        selection_ms: ms(t.selection),
        construction_ms: ms(t.construction),
        sampling_ms: ms(t.sampling),
        evaluation_ms: Some(ms(t.evaluation)),
        replacement_ms: ms(t.replacement),
        total_ms: ms(t.total),
        solved_fraction: r.solved_fraction,
        best_fitness: r.best_fitness,
        families_scored: r.families_scored,
        edges: r.history.last().map_or(0, |g| g.edges),
        ..RunRow::default()
    }
}
