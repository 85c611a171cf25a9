//! The BioHEL paper: Franco, Krasnogor & Bacardit, "Speeding Up the Evaluation of
//! Evolutionary Learning Systems using GPGPUs" (GECCO 2010) — its evaluation stage.
//!
//! Case `eval/<set>/w<windows>/s<seed>`: the training set of fold 0 (ten-fold
//! stratified cross-validation, missing values imputed as BioHEL does), laid out in
//! ILAS strata (Section 2.2) so a window is a contiguous range (Section 3.3); one
//! simulated GA evaluates fresh random rules on window t mod w at iteration t, with
//! the serial evaluator (the paper's baseline), the multi-threaded one (an extra
//! column) and, where there is a GPU, the paper's two CUDA kernels and the warp-vote
//! design (`gpu::biohel`); every evaluator must give the serial counts exactly.
//! CN, SS and SA are not public: their synthetic stand-ins (`dataset::StandIn`)
//! have Table 1's shapes and are labelled as such.

use super::{Case, Experiment, Paper, RunEnv};
use crate::error::SpecError;
use crate::gpu::biohel::{Design, GpuEvaluator};
use crate::library::biohel::{Counts, ParallelEvaluator, RuleEvaluator, SerialEvaluator, ilas_strata, random_rule, window_range};
use crate::library::dataset::{self, Dataset};
use crate::records::Record;
use crate::report::{ClaimResult, MachineRecords, Table, claims_table};
use crate::spec::{ClaimSpec, PaperMeta, SpecFile, Verdict};
use crate::stats::Summary;
use anyhow::{Context, Result};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use toml::Spanned;

pub struct Biohel;
pub static BIOHEL: Biohel = Biohel;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BiohelSpec {
    paper: PaperMeta,
    settings: Settings,
    profiles: BTreeMap<String, Profile>,
    table2: Vec<Table2Row>,
    table3: Table3Paper,
    claims: Vec<ClaimSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    seed: u64,
    data_dir: PathBuf,
    rules_per_iteration: Spanned<usize>,
    expressed_probability: Spanned<f64>,
    folds: Spanned<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Profile {
    sets: Vec<Spanned<String>>,
    windows: Vec<Spanned<usize>>,
    iterations: Spanned<usize>,
    seeds: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table2Row {
    set: String,
    serial: [f64; 2],
    cuda: [f64; 2],
}

/// The paper's Table 3 (speedups of its CUDA evaluation on a Tesla C1060 over the
/// serial one on a Xeon E5472): per set, the net speedup (same window count) and
/// the total speedup (against serial with 1 window) at each window count.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table3Paper {
    windows: Vec<usize>,
    sets: Vec<Table3Row>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Table3Row {
    set: String,
    net: Vec<f64>,
    total: Vec<f64>,
}

impl Table3Paper {
    /// (net, total) of `set` at `windows`, when the paper has that column.
    fn at(&self, set: &str, windows: usize) -> Option<(f64, f64)> {
        let i = self.windows.iter().position(|&w| w == windows)?;
        let row = self.sets.iter().find(|r| r.set == set)?;
        Some((*row.net.get(i)?, *row.total.get(i)?))
    }
}

const SETS: [&str; 11] = ["sat", "wav", "pen", "cn", "ss", "adu", "par", "kdd", "far", "c-4", "sa"];
const CHECKS: [&str; 3] = ["cuda_speedup", "cuda_variance_smaller", "windows_cut_serial_time"];
const SERIAL: &str = "serial";
const PARALLEL: &str = "cpu-mt";
/// The paper's CUDA design and the warp-vote design (`gpu::biohel::Design`).
const CUDA: &str = "cuda-paper";
const BALLOT: &str = "cuda-ballot";

impl Experiment for Biohel {
    fn id(&self) -> &'static str {
        "biohel"
    }
    fn title(&self) -> &'static str {
        "Speeding up the evaluation of evolutionary learning systems (BioHEL, ILAS; Tables 2–3, evaluation stage)"
    }
    fn embedded_spec(&self) -> &'static str {
        include_str!("../../experiments/biohel.toml")
    }
    fn load(&self, file: &SpecFile) -> Result<Box<dyn Paper>, SpecError> {
        let spec: BiohelSpec = file.parse()?;
        validate(file, &spec)?;
        Ok(Box::new(BiohelPaper { spec, file: file.clone() }))
    }
}

fn validate(file: &SpecFile, spec: &BiohelSpec) -> Result<(), SpecError> {
    let s = &spec.settings;
    if *s.rules_per_iteration.get_ref() == 0 {
        return Err(file.invalid(&s.rules_per_iteration, "settings.rules_per_iteration", "must be at least 1"));
    }
    if !(0.0..=1.0).contains(s.expressed_probability.get_ref()) {
        return Err(file.invalid(&s.expressed_probability, "settings.expressed_probability", "must be in [0, 1]"));
    }
    if *s.folds.get_ref() < 2 {
        return Err(file.invalid(&s.folds, "settings.folds", "must be at least 2"));
    }
    for (name, p) in &spec.profiles {
        for set in &p.sets {
            if !SETS.contains(&set.get_ref().as_str()) {
                return Err(file.invalid(
                    set,
                    &format!("profiles.{name}.sets"),
                    format!("unknown set `{}` (known: {})", set.get_ref(), SETS.join(", ")),
                ));
            }
        }
        for w in &p.windows {
            if !(1..=1000).contains(w.get_ref()) {
                return Err(file.invalid(w, &format!("profiles.{name}.windows"), format!("{} windows: must be in 1..=1000", w.get_ref())));
            }
        }
        if *p.iterations.get_ref() == 0 {
            return Err(file.invalid(&p.iterations, &format!("profiles.{name}.iterations"), "must be at least 1"));
        }
    }
    file.check_claims(&spec.claims, &CHECKS)
}

struct BiohelPaper {
    spec: BiohelSpec,
    file: SpecFile,
}

impl BiohelPaper {
    /// The training set of fold 0 in ILAS order for `windows` strata.
    fn training_set(&self, set: &str, windows: usize, seed: u64) -> Result<Dataset> {
        let dir = &self.spec.settings.data_dir;
        let standin = |kind: dataset::StandIn| dataset::synthetic_standin(kind, kind.paper_shape().instances, self.spec.settings.seed);
        let data = if set == "par" {
            dataset::parmx()
        } else if set == "cn" {
            standin(dataset::StandIn::Cn)
        } else if set == "ss" {
            standin(dataset::StandIn::Ss)
        } else if set == "sa" {
            standin(dataset::StandIn::Sa)
        } else {
            dataset::load_named(dir, set).with_context(|| format!("data set `{set}` under {}", dir.display()))?
        };
        let folds = dataset::stratified_folds(&data.labels, *self.spec.settings.folds.get_ref(), self.spec.settings.seed);
        let train: Vec<usize> = folds[1..].concat();
        let mut train = data.subset(&train);
        let all: Vec<usize> = (0..train.instances()).collect();
        train.impute_missing(&all);
        let order = ilas_strata(&train.labels, windows, seed);
        Ok(train.subset(&order))
    }
}

impl Paper for BiohelPaper {
    fn meta(&self) -> &PaperMeta {
        &self.spec.paper
    }

    fn profiles(&self) -> Vec<String> {
        self.spec.profiles.keys().cloned().collect()
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.file.profile(&self.spec.profiles, profile)?;
        let mut cases = Vec::new();
        for set in &p.sets {
            for w in p.windows.iter().map(|w| *w.get_ref()) {
                for s in 0..p.seeds {
                    let set = set.get_ref().as_str();
                    cases.push(Case {
                        id: format!("eval/{set}/w{w}/s{s}"),
                        params: Record::new()
                            .with("figure", "table3")
                            .with("set", set)
                            .with("windows", w)
                            .with("iterations", *p.iterations.get_ref())
                            .with("seed", self.spec.settings.seed ^ ((s as u64) << 16) ^ w as u64),
                        weight: 10,
                    });
                }
            }
        }
        Ok(cases)
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let p = &case.params;
        let set = p.str("set");
        let windows = p.int("windows").expect("windows") as usize;
        let iterations = p.int("iterations").expect("iterations") as usize;
        let seed = p.int("seed").expect("seed") as u64;
        let data = self.training_set(set, windows, seed)?;
        // Every iteration's rules, drawn before any timing.
        let mut rng = StdRng::seed_from_u64(seed);
        let rules: Vec<Vec<_>> = (0..iterations)
            .map(|_| {
                (0..*self.spec.settings.rules_per_iteration.get_ref())
                    .map(|_| random_rule(&data, &mut rng, *self.spec.settings.expressed_probability.get_ref()))
                    .collect()
            })
            .collect();
        let mut evaluators: Vec<(&str, Box<dyn RuleEvaluator + '_>)> =
            vec![(SERIAL, Box::new(SerialEvaluator)), (PARALLEL, Box::new(ParallelEvaluator))];
        let mut rows = Vec::new();
        match &env.gpu {
            Some(gpu) => {
                evaluators.push((CUDA, Box::new(GpuEvaluator::new(gpu, Design::Paper)?)));
                evaluators.push((BALLOT, Box::new(GpuEvaluator::new(gpu, Design::Ballot)?)));
            }
            None => {
                for method in [CUDA, BALLOT] {
                    rows.push(Record::new().with("method", method).with("status", "not_run").with("reason", env.gpu_absent.as_str()));
                }
            }
        }
        let pairs: usize =
            rules.iter().enumerate().map(|(t, b)| b.len() * window_range(data.instances(), windows, t % windows).len()).sum();
        let mut serial: Option<Vec<Vec<Counts>>> = None;
        for (name, mut evaluator) in evaluators {
            let mut counts = Vec::with_capacity(iterations);
            // The instances are loaded once per GA (the paper's copy to the device)
            // and that copy is part of the evaluation time.
            let t0 = Instant::now();
            evaluator.load(&data)?;
            let load_s = t0.elapsed().as_secs_f64();
            for (t, batch) in rules.iter().enumerate() {
                let mut out = Vec::new();
                evaluator.evaluate(&data, window_range(data.instances(), windows, t % windows), batch, &mut out)?;
                counts.push(out);
            }
            let secs = t0.elapsed().as_secs_f64();
            match &serial {
                None => serial = Some(counts),
                Some(want) => anyhow::ensure!(*want == counts, "{name} counts differ from the serial evaluator's in case {}", case.id),
            }
            rows.push(
                Record::new()
                    .with("method", name)
                    .with("status", "ok")
                    .with("eval_s", secs)
                    .with("load_s", load_s)
                    .with("pairs", pairs)
                    .with("instances", data.instances())
                    .with("attributes", data.attribute_count())
                    .with("threads", if name == PARALLEL { rayon::current_num_threads() } else { 1 }),
            );
        }
        Ok(rows)
    }

    fn render(&self, machines: &[MachineRecords], _dir: &Path) -> Result<String> {
        let s = &self.spec.settings;
        let mut md = String::from("## How this was measured\n\n");
        let _ = writeln!(
            md,
            "The evaluation stage of Section 4 on the training set of one fold of a {}-fold stratified cross-validation \
             (missing values imputed with the training mean or mode, as BioHEL does), in ILAS order so that window i is a \
             contiguous range (Section 3.3). One simulated GA: each iteration t evaluates {} fresh random rules (BioHEL-like \
             initialisation, each attribute expressed with probability {}) on window t mod w; times are the sum over the \
             iterations, host wall-clock, including for CUDA the one upload of the instances per GA. `serial` is the paper's baseline, `cpu-mt` \
             the same counts on all cores (an extra column), `cuda-paper` the paper's kernels 1 and 2 (one thread per rule × \
             instance, 512-instance blocks, three counts reduced in shared memory), `cuda-ballot` warps counting 32 instances \
             per vote instruction over tiles of 32 rules; every evaluator must give the serial counts exactly (a case fails \
             otherwise). CN, SS and SA are synthetic stand-ins with Table 1's shapes (the real sets are not public). The \
             workload is this harness's: compare the paper's seconds with ours as orders of magnitude, its speedups with ours \
             as ratios.\n",
            s.folds.get_ref(),
            s.rules_per_iteration.get_ref(),
            s.expressed_probability.get_ref()
        );
        let analyses: Vec<(&MachineRecords, Analysis)> = machines.iter().map(|m| (m, Analysis::of(m))).collect();
        md += "## Table 2 — evaluation time with 1 window\n\n";
        for (m, a) in &analyses {
            md += &self.table2(m, a);
        }
        md += "## Table 3 — evaluation speedups with ILAS windows\n\n";
        for (m, a) in &analyses {
            md += &self.table3(m, a);
        }
        md += "## Claims\n\n";
        let mut claims = Vec::new();
        for (m, a) in &analyses {
            for c in &self.spec.claims {
                claims.push(ClaimResult::of(c, &m.hw_id, check_claim(c, a)));
            }
        }
        md += &claims_table(&claims);
        Ok(md)
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        let mut t = Table::new(&["machine", "set", "serial, 1 window (s)", "cpu-mt, 1 window (s)", "paper: serial / CUDA (s)"]);
        for m in machines {
            let a = Analysis::of(m);
            for set in SETS {
                let (Some(serial), Some(mt)) = (a.mean(set, 1, SERIAL), a.mean(set, 1, PARALLEL)) else { continue };
                let paper =
                    self.spec.table2.iter().find(|r| r.set == set).map_or("—".into(), |r| format!("{} / {}", r.serial[0], r.cuda[0]));
                t.row(vec![format!("`{}`", m.hw_id), set.into(), format!("{serial:.3}"), format!("{mt:.3}"), paper]);
            }
        }
        t.render()
    }
}

/// (set, windows, method) → evaluation times (s), and the reasons for empty columns.
#[derive(Default)]
struct Analysis {
    times: BTreeMap<(String, usize, String), Vec<f64>>,
    instances: BTreeMap<String, i64>,
    not_run: BTreeMap<String, String>,
}

impl Analysis {
    fn of(m: &MachineRecords) -> Analysis {
        let mut a = Analysis::default();
        for r in m.measurements() {
            let method = r.str("method").to_owned();
            if r.str("status") != "ok" {
                a.not_run.insert(method, r.str("reason").to_owned());
                continue;
            }
            let key = (r.str("set").to_owned(), r.int("windows").unwrap_or(0) as usize, method);
            a.times.entry(key).or_default().extend(r.float("eval_s"));
            if let Some(n) = r.int("instances") {
                a.instances.insert(r.str("set").to_owned(), n);
            }
        }
        a
    }

    fn summary(&self, set: &str, windows: usize, method: &str) -> Option<Summary> {
        Summary::of(self.times.get(&(set.to_owned(), windows, method.to_owned()))?)
    }

    /// Mean ± sd of `method`, or why it did not run on this machine.
    fn cell(&self, set: &str, windows: usize, method: &str) -> String {
        match (self.summary(set, windows, method), self.not_run.get(method)) {
            (Some(s), _) => fmt_s(Some(s)),
            (None, Some(why)) => format!("not run here ({why})"),
            (None, None) => "—".into(),
        }
    }

    fn mean(&self, set: &str, windows: usize, method: &str) -> Option<f64> {
        self.summary(set, windows, method).map(|s| s.mean)
    }

    fn sets(&self) -> Vec<&'static str> {
        SETS.iter().copied().filter(|s| self.times.keys().any(|k| k.0 == *s)).collect()
    }

    fn windows(&self, set: &str) -> Vec<usize> {
        let mut w: Vec<usize> = self.times.keys().filter(|k| k.0 == set).map(|k| k.1).collect();
        w.dedup();
        w
    }
}

fn fmt_s(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| format!("{:.3} ± {:.3}", s.mean, s.sd))
}

impl BiohelPaper {
    fn table2(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        let sets = a.sets();
        if sets.is_empty() {
            return md + "No evaluation runs in this machine's records.\n\n";
        }
        let mut t = Table::new(&[
            "set",
            "training instances",
            "serial: paper (s)",
            "serial: here (s)",
            "cpu-mt: here (s)",
            "CUDA: paper (s)",
            "cuda-paper: here (s)",
            "cuda-ballot: here (s)",
        ]);
        for set in sets {
            let paper = self.spec.table2.iter().find(|r| r.set == set);
            t.row(vec![
                set.into(),
                a.instances.get(set).map_or("—".into(), |n| n.to_string()),
                paper.map_or("—".into(), |r| format!("{} ± {}", r.serial[0], r.serial[1])),
                fmt_s(a.summary(set, 1, SERIAL)),
                fmt_s(a.summary(set, 1, PARALLEL)),
                paper.map_or("—".into(), |r| format!("{} ± {}", r.cuda[0], r.cuda[1])),
                a.cell(set, 1, CUDA),
                a.cell(set, 1, BALLOT),
            ]);
        }
        md += &t.render();
        md + "\n"
    }

    fn table3(&self, m: &MachineRecords, a: &Analysis) -> String {
        let mut md = format!("### `{}` ({})\n\n", m.hw_id, m.label());
        let sets = a.sets();
        if sets.is_empty() {
            return md + "No evaluation runs in this machine's records.\n\n";
        }
        md += "Per set and window count, mean evaluation time (s); *net* = serial / CUDA at the same window count (the \
               paper's first row), *total* = serial with 1 window / CUDA with w windows (its second row), each beside the \
               paper's value (Tesla C1060 against one Xeon E5472 core); *serial 1 / w* = what windowing alone saves.\n\n";
        let mut t = Table::new(&[
            "set",
            "windows",
            "serial (s)",
            "cpu-mt (s)",
            "cuda-paper (s)",
            "cuda-ballot (s)",
            "net: paper / cuda-paper / cuda-ballot",
            "total: paper / cuda-paper / cuda-ballot",
            "serial / cpu-mt",
            "serial 1 / w",
        ]);
        let x = |num: Option<f64>, den: Option<f64>| num.zip(den).map_or("—".into(), |(n, d)| format!("{:.1}×", n / d));
        let paper_x = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.1}×"));
        for set in sets {
            let base = a.mean(set, 1, SERIAL);
            for w in a.windows(set) {
                let serial = a.mean(set, w, SERIAL);
                let paper = self.spec.table3.at(set, w);
                t.row(vec![
                    set.into(),
                    w.to_string(),
                    fmt_s(a.summary(set, w, SERIAL)),
                    fmt_s(a.summary(set, w, PARALLEL)),
                    a.cell(set, w, CUDA),
                    a.cell(set, w, BALLOT),
                    format!(
                        "{} / {} / {}",
                        paper_x(paper.map(|p| p.0)),
                        x(serial, a.mean(set, w, CUDA)),
                        x(serial, a.mean(set, w, BALLOT))
                    ),
                    format!("{} / {} / {}", paper_x(paper.map(|p| p.1)), x(base, a.mean(set, w, CUDA)), x(base, a.mean(set, w, BALLOT))),
                    x(serial, a.mean(set, w, PARALLEL)),
                    x(base, serial),
                ]);
            }
        }
        md += &t.render();
        md + "\n"
    }

    /// The largest net and total speedups of `method` over serial, with where.
    fn best_speedups(a: &Analysis, method: &str) -> Option<((f64, String), (f64, String))> {
        let mut net: Option<(f64, String)> = None;
        let mut total: Option<(f64, String)> = None;
        let keep = |best: &mut Option<(f64, String)>, s: f64, at: String| {
            if best.as_ref().is_none_or(|b| s > b.0) {
                *best = Some((s, at));
            }
        };
        for set in a.sets() {
            let base = a.mean(set, 1, SERIAL);
            for w in a.windows(set) {
                let Some(cuda) = a.mean(set, w, method) else { continue };
                if let Some(serial) = a.mean(set, w, SERIAL) {
                    keep(&mut net, serial / cuda, format!("{set}, {w} windows"));
                }
                if let Some(base) = base {
                    keep(&mut total, base / cuda, format!("{set}, {w} windows"));
                }
            }
        }
        net.zip(total)
    }
}

fn check_claim(c: &ClaimSpec, a: &Analysis) -> (Verdict, String) {
    match c.check.get_ref().as_str() {
        "cuda_speedup" => {
            let param = |k: &str| c.params.get(k).and_then(|v| v.as_float()).unwrap_or(f64::NAN);
            let (paper_net, paper_total) = (param("net"), param("total"));
            let Some(((net, net_at), (total, total_at))) = BiohelPaper::best_speedups(a, CUDA) else {
                return (Verdict::NotRun(a.not_run.get(CUDA).cloned().unwrap_or_else(|| "no CUDA runs".into())), String::new());
            };
            let ballot = BiohelPaper::best_speedups(a, BALLOT)
                .map_or(String::new(), |((n, na), (t, ta))| format!("; cuda-ballot: net {n:.1}× ({na}), total {t:.1}× ({ta})"));
            let ok = net >= paper_net && total >= paper_total;
            (
                if ok { Verdict::Reproduced } else { Verdict::NotReproduced },
                format!(
                    "cuda-paper: best net {net:.1}× ({net_at}), best total {total:.1}× ({total_at}) against the paper's {paper_net}× and \
                     {paper_total}×{ballot}"
                ),
            )
        }
        "cuda_variance_smaller" => {
            let mut ev = Vec::new();
            let mut ok = true;
            for set in a.sets() {
                let (Some(serial), Some(cuda)) = (a.summary(set, 1, SERIAL), a.summary(set, 1, CUDA)) else { continue };
                if serial.n < 2 || cuda.n < 2 {
                    continue;
                }
                ok &= cuda.sd < serial.sd;
                ev.push(format!("{set}: sd {:.4} s (cuda-paper) vs {:.4} s (serial)", cuda.sd, serial.sd));
            }
            if ev.is_empty() {
                let why = a.not_run.get(CUDA).cloned().unwrap_or_else(|| "needs at least 2 seeds per set with CUDA and serial".into());
                return (Verdict::NotRun(why), String::new());
            }
            (if ok { Verdict::Reproduced } else { Verdict::NotReproduced }, ev.join(", "))
        }
        "windows_cut_serial_time" => {
            let min_ratio = c.params.get("min_ratio").and_then(|v| v.as_float()).unwrap_or(f64::NAN);
            let mut ev = Vec::new();
            let mut ok = true;
            for set in a.sets() {
                let Some(base) = a.mean(set, 1, SERIAL) else { continue };
                for w in a.windows(set).into_iter().filter(|&w| w > 1) {
                    let Some(t) = a.mean(set, w, SERIAL) else { continue };
                    let saving = base / t;
                    ok &= saving >= min_ratio * w as f64;
                    ev.push(format!("{set} w={w}: {saving:.1}×"));
                }
            }
            if ev.is_empty() {
                return (Verdict::NotRun("needs runs with 1 and more windows".into()), String::new());
            }
            (
                if ok { Verdict::Reproduced } else { Verdict::NotReproduced },
                format!("serial time with 1 window / with w (want ≥ {min_ratio}·w): {}", ev.join(", ")),
            )
        }
        other => (Verdict::NotRun(format!("no checker `{other}`")), String::new()),
    }
}
