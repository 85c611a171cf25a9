//! A sixth paper, in the tests only: what adding a paper costs, run end to end
//! through the harness's runner (`reproduce`, then `render` with its verdicts).
//!
//! "OneMax by a small GA": one table (Table 1, evaluations to the optimum by
//! string length ℓ), one figure (Figure 1, the best fitness by generation), one
//! generic claim (`ratio_to_paper` of `claims::generic`: evaluations at ℓ = 32
//! over ℓ = 16 against the paper's 2.5, ℓ log ℓ) and one written here (the
//! best fitness never falls: elitism, read from Figure 1's traces).

use anyhow::Result;
use evorepro::claims::generic::Series;
use evorepro::claims::{Check, ClaimResult, Claims, Ctx, Finding, NoParams, Outcome, VerdictKind};
use evorepro::error::SpecError;
use evorepro::experiments::{
    self, Analyses, BackendChoice, Case, Experiment, Paper, Plan, Render, RunEnv, RunOptions, Section, SpecChoice,
};
use evorepro::records::{MachineRecords, Record, col};
use evorepro::report::{PaperValue, Table, chart};
use evorepro::spec::{ClaimSpec, PaperMeta, SpecFile, SpecOutline};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

const SPEC: &str = r#"
[paper]
id = "onemax"
title = "OneMax by a small GA"
citation = "A test paper of the harness (tests/sixth_paper.rs)."
year = 2026

[paper.hardware]
gpu = "none"
cpu = "any"
cuda = "none"
gpu_bandwidth_gbs = 1.0

[settings]
seed = 7
population = 24

[profiles.quick]
description = "Table 1 and Figure 1 at two lengths"
lengths = [16, 32]
runs = 6

[[claims]]
id = "evaluations_grow_as_l_log_l"
source = "Table 1"
text = "evaluations to the optimum grow as ℓ log ℓ: 2.5× from ℓ = 16 to 32"
provenance = "paper"
quote = "Doubling the length costs two and a half times the evaluations."
check = "ratio_to_paper"
params = { a = "evals_l32", b = "evals_l16", paper = 2.5, band = [0.5, 2.0], min_n = 3 }

[[claims]]
id = "best_never_falls"
source = "Figure 1"
text = "the best fitness never falls from one generation to the next"
provenance = "paper"
quote = "With elitism the best individual is never lost."
check = "best_never_falls"
"#;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OnemaxSpec {
    paper: PaperMeta,
    settings: Settings,
    profiles: BTreeMap<String, Profile>,
    claims: Vec<ClaimSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    seed: u64,
    population: usize,
}

evorepro::paper_profile! {
    struct Profile {
        lengths: Vec<usize>,
        runs: usize,
    }
}

evorepro::paper_spec!(OnemaxSpec, Profile, validate);

fn validate(file: &SpecFile, spec: &OnemaxSpec) -> Result<(), SpecError> {
    match spec.settings.population {
        2..=4096 => Ok(()),
        n => Err(file.invalid_key("settings", "population", format!("{n} must be in 2..=4096"))),
    }
}

evorepro::record_row! {
    /// A Table 1 case: one GA run on OneMax of length `ell`.
    struct OnemaxCase {
        ell: usize,
        run: usize,
    }
}

evorepro::record_row! {
    /// One run: evaluations to the optimum, the best fitness of each generation
    /// (space-separated) and the time it took.
    struct GaRun {
        evaluations: f64,
        best_trace: String,
        total_ms: f64,
    }
}

/// One machine's runs: evaluations to the optimum and best-fitness traces by ℓ.
struct Analysis {
    evaluations: BTreeMap<usize, Vec<f64>>,
    traces: BTreeMap<usize, Vec<Vec<f64>>>,
}

impl Analysis {
    fn of(m: &MachineRecords) -> Analysis {
        let (mut evaluations, mut traces) = (BTreeMap::<usize, Vec<f64>>::new(), BTreeMap::<usize, Vec<Vec<f64>>>::new());
        for r in m.measurements() {
            let (Ok(case), Ok(run)) = (r.row::<OnemaxCase>(), r.row::<GaRun>()) else { continue };
            evaluations.entry(case.ell).or_default().push(run.evaluations);
            traces.entry(case.ell).or_default().push(run.best_trace.split(' ').filter_map(|v| v.parse().ok()).collect());
        }
        Analysis { evaluations, traces }
    }
}

impl Series for Analysis {
    /// Table 1's evaluations at each length the profile runs.
    const NAMES: &'static [&'static str] = &["evals_l16", "evals_l32"];

    fn series(&self, name: &str) -> Option<Vec<f64>> {
        self.evaluations.get(&name.strip_prefix("evals_l")?.parse().ok()?).cloned()
    }
}

/// The hand-written claim: no trace of Figure 1 ever falls.
fn best_never_falls(_: &NoParams, a: &Analysis, _: &Ctx) -> Outcome {
    let traces: Vec<&Vec<f64>> = a.traces.values().flatten().collect();
    if traces.is_empty() {
        return Outcome::not_run("no runs on this machine");
    }
    let falls = traces.iter().filter(|t| t.windows(2).any(|w| w[1] < w[0])).count();
    let finding = if falls == 0 { Finding::Holds } else { Finding::Fails(None) };
    Outcome::decided(finding, traces.len(), format!("{falls} of {} traces fall", traces.len()))
}

/// The paper's own check, beside the generic shapes every paper has.
const CHECKS: &[Check<Analysis>] = &[evorepro::check!("best_never_falls", best_never_falls)];

static ONEMAX: Experiment = Experiment {
    id: "onemax",
    title: "OneMax by a small GA (a test paper)",
    embedded_spec: SPEC,
    load,
    kernels: &[],
    selfcheck: |_, _, _, _| Ok(0),
};

fn load(file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
    let (spec, claims) = experiments::load_spec::<OnemaxSpec, _>(file, ONEMAX.id, CHECKS)?;
    Ok(Box::new(OnemaxPaper { spec, claims }))
}

struct OnemaxPaper {
    spec: OnemaxSpec,
    claims: Claims<Analysis>,
}

impl Plan for OnemaxPaper {
    fn outline(&self) -> &dyn SpecOutline {
        &self.spec
    }
    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = &self.spec.profiles[profile];
        Ok(p.lengths
            .iter()
            .flat_map(|&ell| (0..p.runs).map(move |run| (ell, run)))
            .map(|(ell, run)| Case {
                id: format!("table1/l{ell}/r{run}"),
                params: Record::new().with(col::FIGURE, "table1").with_row(&OnemaxCase { ell, run }),
                weight: ell as u64,
            })
            .collect())
    }
    fn run_case(&self, case: &Case, _: &RunEnv) -> Result<Vec<Record>> {
        let OnemaxCase { ell, run } = case.params.row().map_err(anyhow::Error::msg)?;
        let seed = self.spec.settings.seed ^ (ell as u64) << 32 ^ run as u64;
        let start = std::time::Instant::now();
        let (evaluations, trace) = onemax_ga(ell, self.spec.settings.population, seed);
        let trace: Vec<String> = trace.iter().map(usize::to_string).collect();
        let run = GaRun { evaluations: evaluations as f64, best_trace: trace.join(" "), total_ms: start.elapsed().as_secs_f64() * 1e3 };
        Ok(vec![case.params.clone().with(col::METHOD, "ga").with_row(&run)])
    }
}

impl Render for OnemaxPaper {
    type Analysis = Analysis;
    fn claims(&self) -> &Claims<Analysis> {
        &self.claims
    }
    fn analysis(&self, m: &MachineRecords) -> Result<Analysis> {
        Ok(Analysis::of(m))
    }
    fn method(&self) -> Result<String> {
        Ok("A GA on OneMax.".into())
    }
    fn sections(&self, machines: &[MachineRecords], analyses: &Analyses<Analysis>, dir: &Path) -> Result<Vec<Section>> {
        let table = Section::per_machine("Table 1 — evaluations to the optimum", "", machines, |m| {
            let mut t = Table::new(&["ℓ", "runs", "mean evaluations"]);
            for (ell, e) in &analyses.of(m).evaluations {
                t.row(vec![ell.to_string(), e.len().to_string(), format!("{:.0}", e.iter().sum::<f64>() / e.len() as f64)]);
            }
            Ok(t.render())
        })?;
        let figure = Section::per_machine("Figure 1 — best fitness by generation", "", machines, |m| {
            let series = analyses
                .of(m)
                .traces
                .iter()
                .map(|(ell, t)| (format!("ℓ = {ell}"), t[0].iter().enumerate().map(|(g, &b)| (g as f64 + 1.0, b)).collect()))
                .collect();
            let c = chart::LineChart { title: "Figure 1", x_label: "generation", y_label: "best fitness", series, ..Default::default() };
            let name = format!("figure1__{}", m.hw_id);
            chart::write_lines(&dir.join("figures").join(&name), &c).map_err(anyhow::Error::msg)?;
            Ok(format!("![Figure 1](figures/{name}.svg)\n"))
        })?;
        Ok(vec![table, figure])
    }
    fn compare(&self, _: &[MachineRecords]) -> String {
        String::new()
    }
    fn paper_values(&self) -> (&'static str, Vec<PaperValue>) {
        ("tests/sixth_paper.rs SPEC", vec![PaperValue::new("Table 1", "ga", "ℓ", "32 / 16", 2.5, "×")])
    }
}

/// Steady generations of tournament selection (2), uniform crossover and one
/// bit flip per child, the best kept: (evaluations to the optimum, best by generation).
fn onemax_ga(ell: usize, population: usize, seed: u64) -> (usize, Vec<usize>) {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut pop: Vec<Vec<bool>> = (0..population).map(|_| (0..ell).map(|_| next(2) == 1).collect()).collect();
    let fitness = |x: &Vec<bool>| x.iter().filter(|&&b| b).count();
    let (mut evaluations, mut trace) = (population, Vec::new());
    loop {
        let best = pop.iter().max_by_key(|x| fitness(x)).unwrap().clone();
        trace.push(fitness(&best));
        if fitness(&best) == ell || trace.len() > 50 * ell {
            return (evaluations, trace);
        }
        let mut children = vec![best];
        while children.len() < population {
            let mut pick = || {
                let (a, b) = (&pop[next(population)], &pop[next(population)]);
                if fitness(a) >= fitness(b) { a.clone() } else { b.clone() }
            };
            let (p, q) = (pick(), pick());
            let mut child: Vec<bool> = p.iter().zip(&q).map(|(&x, &y)| if next(2) == 0 { x } else { y }).collect();
            let i = next(ell);
            child[i] = !child[i];
            children.push(child);
        }
        evaluations += population - 1;
        pop = children;
    }
}

#[test]
fn a_sixth_paper_runs_end_to_end_through_the_runner() {
    let out = tempfile::tempdir().unwrap();
    let root: std::path::PathBuf = env!("CARGO_MANIFEST_DIR").into();
    let spec = SpecChoice { file: None, root: root.clone(), allow_outside: false };
    let opts = RunOptions {
        profile: "quick".into(),
        backend: BackendChoice::Cpu,
        device: 0,
        out: out.path().into(),
        resume: false,
        spec: SpecChoice { file: None, root, allow_outside: false },
        shard: None,
        max_cases: None,
    };
    experiments::set_quiet(true);
    experiments::reproduce(&ONEMAX, &opts).unwrap();
    let rendered = experiments::render(&ONEMAX, out.path(), None, &spec).unwrap();
    let report = std::fs::read_to_string(&rendered.report).unwrap();
    for part in ["## At a glance", "Table 1 — evaluations to the optimum", "Figure 1 — best fitness by generation", "## Claims"] {
        assert!(report.contains(part), "{part} missing from\n{report}");
    }
    let figures: Vec<_> = std::fs::read_dir(out.path().join("onemax").join("figures")).unwrap().collect();
    assert_eq!(figures.len(), 2, "one figure as PNG and SVG: {figures:?}");
    assert!(out.path().join("onemax").join("paper_values.csv").exists());
    // Both claims are judged (decided or, for the ratio, undecided with the runs it needs), none "not run here".
    let mine: Vec<&ClaimResult> = rendered.claims.iter().collect();
    assert_eq!(mine.len(), 2, "{mine:?}");
    for c in &mine {
        assert_ne!(c.outcome.verdict.kind(), VerdictKind::NotRun, "{}: {}", c.id, c.outcome.evidence);
    }
    let elitism = mine.iter().find(|c| c.id == "best_never_falls").unwrap();
    assert_eq!(elitism.outcome.verdict.kind(), VerdictKind::Reproduced, "{}", elitism.outcome.evidence);
}
