//! The report's content: how it was measured, Tables 2–4 beside the paper's, the
//! whole system against the evaluation (Section 5.2), Figures 4–5
//! ([`super::figures`]), the learned models' accuracy, what lies beyond the paper
//! (the sweep of [`super::scale`], the `speed` profile), the claims of every
//! machine, and the side-by-side of `evorepro compare`.

use super::analysis::{Analysis, AttributeType, Models, fmt_s};
use super::spec::SETS;
use super::{BALLOT, BiohelPaper, CUDA, METHODS, PARALLEL, SERIAL, SPEED_PROFILE, scale};
use crate::claims::Ctx;
use crate::experiments::{PaperReport, Section};
use crate::report::{MachineRecords, PaperValue, Table, write_paper_values};
use crate::stats::Summary;
use anyhow::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

/// The project's goal for the evaluation on the largest sets: CUDA ≥ 300× serial.
const SPEED_GOAL: f64 = 300.0;

/// A Table 2 value as printed: mean ± sd, one decimal.
fn fmt_paper([mean, sd]: [f64; 2]) -> String {
    format!("{mean:.1} ± {sd:.1}")
}

fn fmt_secs(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.3}"))
}

fn fmt_x(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.1}×"))
}

fn fmt_pct(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| format!("{:.1} ± {:.1} %", 100.0 * s.mean, 100.0 * s.sd))
}

/// `num / den` as a speedup cell.
fn x(num: Option<f64>, den: Option<f64>) -> String {
    fmt_x(num.zip(den).map(|(n, d)| n / d))
}

impl BiohelPaper {
    /// Table 2's times (mean and sd over the folds) and Tables 3–4's speedups.
    fn paper_values(&self) -> Vec<PaperValue> {
        let mut values = Vec::new();
        for r in &self.spec.table2 {
            for (series, [mean, sd]) in [
                ("evaluation, serial", *r.evaluation_serial),
                ("evaluation, CUDA", *r.evaluation_cuda),
                ("integration, serial", *r.integration_serial),
                ("integration, CUDA", *r.integration_cuda),
            ] {
                values.push(PaperValue::new("Table 2", &format!("{}: {series}", r.set), "windows", 1, mean, "s").with_sd(sd));
            }
        }
        for (figure, table) in [("Table 3", &self.spec.table3), ("Table 4", &self.spec.table4)] {
            for row in &table.sets {
                for (&w, (net, total)) in table.windows.get_ref().iter().zip(row.net.iter().zip(&row.total)) {
                    values.push(PaperValue::new(figure, &format!("{}: net", row.set), "windows", w, *net, "×"));
                    values.push(PaperValue::new(figure, &format!("{}: total", row.set), "windows", w, *total, "×"));
                }
            }
        }
        values
    }

    pub(super) fn paper_report(&self, machines: &[MachineRecords], dir: &Path) -> Result<PaperReport> {
        let analyses: BTreeMap<&str, Analysis> = machines.iter().map(|m| (m.hw_id.as_str(), Analysis::of(m, &self.tables))).collect();
        let a = |m: &MachineRecords| &analyses[m.hw_id.as_str()];
        let types = self.attribute_types(machines)?;
        write_paper_values(dir, "biohel", "experiments/biohel.toml [[table2]], [table3], [table4]", &self.paper_values())?;
        let mut sections = vec![
            Section::per_machine("Table 2 — evaluation time with 1 window", "", machines, |m| Ok(self.table2(a(m))))?,
            Section::per_machine("Table 2 — integration: whole learning time with 1 window", "", machines, |m| {
                Ok(self.integration(a(m)))
            })?,
            Section::per_machine(
                "Table 3 — evaluation speedups with ILAS windows",
                "Per set and window count, mean evaluation time (s); *net* = serial / CUDA at the same window count (the \
                 paper's first row), *total* = serial with 1 window / CUDA with w windows (its second row), each beside the \
                 paper's value (Tesla C1060 against one Xeon E5472 core); *serial 1 / w* = what windowing alone saves.",
                machines,
                |m| Ok(self.table3(a(m))),
            )?,
            Section::per_machine(
                "Table 4 — speedups of the whole learning system with ILAS windows",
                "Per set and window count, mean whole learning time (s); *same window* = serial / CUDA at the same window \
                 count (the paper's first row), *vs serial 1 window* = serial with 1 window / CUDA with w windows (its \
                 second row), each beside the paper's value (Tesla C1060 against one Xeon E5472 core).",
                machines,
                |m| Ok(self.table4(a(m))),
            )?,
            Section::text(
                "Section 5.2 — the whole system's speedup against the evaluation's",
                self.learning_vs_evaluation(machines, &analyses),
            ),
            Section::per_machine(
                "Figures 4 and 5 — speedup against the training-set size per stratum",
                "The speedup of `cuda-paper` over `serial` at the same window count against T/x, the training instances per \
                 stratum (x windows), on a log axis; one line per set, coloured as in the paper by attribute type (black \
                 continuous, red mixed, blue discrete); shaded: the band of the peak claims.",
                machines,
                |m| self.figures(m, a(m), &types, dir),
            )?,
            Section::per_machine(
                "Accuracy of the learned models",
                "Not reported by the paper (\"both implementations behave identical and obtain the same accuracy\", Section \
                 5); here to show that the learner learns. Accuracy of the rule list (first matching rule, else the default \
                 class) on the training set and on the test fold, mean ± sd over seeds.",
                machines,
                |m| Ok(accuracy_table(a(m))),
            )?,
        ];
        if let Some(s) = scale::section(machines, dir, *self.spec.settings.rules_per_iteration.get_ref())? {
            sections.push(s);
        }
        if analyses.values().any(|a| !a.speed.sets().is_empty()) {
            sections.push(Section::per_machine(
                "Beyond the paper — evaluation speed on the largest sets against the goal",
                format!(
                    "The `{SPEED_PROFILE}` profile, the evaluation stage at 1 window on the largest sets, \
                     timed as Table 2 (the one upload of the instances per GA included); goal: CUDA ≥ {SPEED_GOAL:.0}× serial \
                     (the paper: 52.4× on a C1060). *upload* = the CUDA time spent loading the instances (copy of the rows + \
                     transposition on the device)."
                ),
                machines,
                |m| Ok(speed(m, a(m))),
            )?);
        }
        let mut claims = Vec::new();
        for m in machines {
            claims.extend(self.claims.judge(a(m), &Ctx { machine: m, paper: &self.spec.paper.hardware }));
        }
        Ok(PaperReport { method: self.method(), sections, claims })
    }

    fn method(&self) -> String {
        let s = &self.spec.settings;
        format!(
            "Both stages of Section 4 on fold 0 of a {}-fold stratified cross-validation: training set = the other folds, \
             test set = fold 0, missing values imputed with the training set's mean or mode, as BioHEL does. CN, SS and SA \
             are synthetic stand-ins with Table 1's shapes (the real sets are not public): the paper's values in their rows \
             are the real sets'. Every evaluator must give the serial counts exactly and learn the serial rule list exactly \
             (a case fails otherwise). `serial` is the paper's baseline, `cpu-mt` the same counts on all cores (an extra \
             column), `cuda-paper` the paper's kernels 1 and 2 (one thread per rule × instance, 512-instance blocks, three \
             counts reduced in shared memory), `cuda-ballot` warps counting 32 instances per vote instruction, 128 \
             instances per warp against tiles of 32 rules (its v3: the tiles of a chunk of instances run together, and \
             small windows are split into smaller chunks and rule slices so that every rule gets a warp; every table here \
             was measured with v3, whose one pinned upload of each pass's rules serves both CUDA columns: \
             `docs/gpu-notes.md`). Compare the paper's seconds with ours as orders of magnitude, its speedups with ours as \
             ratios.\n\n\
             *Evaluation stage* (Tables 2–3, Figure 4): the training set in ILAS order so that window i is a contiguous \
             range (Section 3.3). One simulated GA: each iteration t evaluates {} fresh random rules (BioHEL-like \
             initialisation, each attribute expressed with probability {}) on window t mod w; times are the sum over the \
             iterations, host wall-clock, including for CUDA the one upload of the instances per GA. The workload is this \
             harness's.\n\n\
             *Learning stage* (Table 2's integration columns, Table 4, Figure 5): BioHEL as the paper runs it \
             (`library::biohel_learning`: iterative rule learning, the best of two GAs per rule, MDL fitness with Table \
             1's coverage breakpoint, ILAS with per-stratum elitism, the instances loaded once per GA and once per rule \
             check) with each evaluator from the same seed; *learning* = wall time of the whole run, *evaluation share* = \
             the part of it spent in the evaluator. The GA budget (population, iterations, rule limit) is stated per \
             table; a budget below BioHEL's default (population 500, 50 iterations, no rule limit) is a *reduced budget*: \
             its times are what was measured, not extrapolated.\n\n\
             *Claims* judge `cuda-paper` against `serial` on the paper's sets at the window counts of its Tables 3–4 (the \
             learning claims on the largest budget of a machine's records, and only if that is the paper's: learning at a reduced \
             budget is listed beyond the paper), with the band, minimum runs and hardware \
             model of each claim in `experiments/biohel.toml`; `cuda-ballot`, the `speed` profile and the synthetic sweep \
             are beyond the paper.",
            s.folds.get_ref(),
            s.rules_per_iteration.get_ref(),
            s.expressed_probability.get_ref()
        )
    }

    /// The attribute type of every set in the records: from the rows'
    /// `attribute_type`, else (rows written before that column) from the data set.
    fn attribute_types(&self, machines: &[MachineRecords]) -> Result<BTreeMap<String, AttributeType>> {
        let mut types = BTreeMap::new();
        let mut untyped = BTreeSet::new();
        for r in machines.iter().flat_map(|m| m.measurements()) {
            match AttributeType::parse(r.str("attribute_type")) {
                Some(t) => {
                    types.insert(r.str("set").to_owned(), t);
                }
                None if !r.str("set").is_empty() => {
                    untyped.insert(r.str("set").to_owned());
                }
                None => {}
            }
        }
        for set in untyped {
            if let std::collections::btree_map::Entry::Vacant(e) = types.entry(set) {
                let t = AttributeType::of(&self.data_set(e.key())?);
                e.insert(t);
            }
        }
        Ok(types)
    }

    fn table2(&self, a: &Analysis) -> String {
        let sets = a.eval.sets();
        if sets.is_empty() {
            return "No evaluation runs in this machine's records.\n".into();
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
                paper.map_or("—".into(), |r| fmt_paper(*r.evaluation_serial)),
                fmt_s(a.eval.summary(set, 1, SERIAL)),
                fmt_s(a.eval.summary(set, 1, PARALLEL)),
                paper.map_or("—".into(), |r| fmt_paper(*r.evaluation_cuda)),
                a.eval.cell(set, 1, CUDA),
                a.eval.cell(set, 1, BALLOT),
            ]);
        }
        t.render()
    }

    fn integration(&self, a: &Analysis) -> String {
        if a.learning.is_empty() {
            return "No learning runs in this machine's records.\n".into();
        }
        let mut md = String::new();
        for (budget, l) in &a.learning {
            let _ = writeln!(md, "Budget: {}.\n", budget.describe());
            let mut t = Table::new(&[
                "set",
                "training instances",
                "serial: paper (s)",
                "serial: here (s)",
                "cpu-mt: here (s)",
                "CUDA: paper (s)",
                "cuda-paper: here (s)",
                "cuda-ballot: here (s)",
                "evaluation share of serial",
                "rules learned",
            ]);
            for set in l.total.sets().into_iter().filter(|s| l.total.windows(s).contains(&1)) {
                let paper = self.spec.table2.iter().find(|r| r.set == set);
                let rules = l.models.get(&(set.to_owned(), 1)).and_then(|m| Summary::of(&m.rules));
                t.row(vec![
                    set.into(),
                    a.instances.get(set).map_or("—".into(), |n| n.to_string()),
                    paper.map_or("—".into(), |r| fmt_paper(*r.integration_serial)),
                    fmt_s(l.total.summary(set, 1, SERIAL)),
                    fmt_s(l.total.summary(set, 1, PARALLEL)),
                    paper.map_or("—".into(), |r| fmt_paper(*r.integration_cuda)),
                    l.total.cell(set, 1, CUDA),
                    l.total.cell(set, 1, BALLOT),
                    l.evaluation_share(set, 1).map_or("—".into(), |s| format!("{:.0} %", 100.0 * s)),
                    rules.map_or("—".into(), |s| format!("{:.1}", s.mean)),
                ]);
            }
            md += &t.render();
            md += "\n";
        }
        md
    }

    fn table3(&self, a: &Analysis) -> String {
        let sets = a.eval.sets();
        if sets.is_empty() {
            return "No evaluation runs in this machine's records.\n".into();
        }
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
        for set in sets {
            let base = a.eval.mean(set, 1, SERIAL);
            for w in a.eval.windows(set) {
                let serial = a.eval.mean(set, w, SERIAL);
                let paper = self.spec.table3.at(set, w);
                t.row(vec![
                    set.into(),
                    w.to_string(),
                    fmt_s(a.eval.summary(set, w, SERIAL)),
                    fmt_s(a.eval.summary(set, w, PARALLEL)),
                    a.eval.cell(set, w, CUDA),
                    a.eval.cell(set, w, BALLOT),
                    format!(
                        "{} / {} / {}",
                        fmt_x(paper.map(|p| p.0)),
                        x(serial, a.eval.mean(set, w, CUDA)),
                        x(serial, a.eval.mean(set, w, BALLOT))
                    ),
                    format!(
                        "{} / {} / {}",
                        fmt_x(paper.map(|p| p.1)),
                        x(base, a.eval.mean(set, w, CUDA)),
                        x(base, a.eval.mean(set, w, BALLOT))
                    ),
                    x(serial, a.eval.mean(set, w, PARALLEL)),
                    x(base, serial),
                ]);
            }
        }
        t.render()
    }

    fn table4(&self, a: &Analysis) -> String {
        if a.learning.is_empty() {
            return "No learning runs in this machine's records.\n".into();
        }
        let mut md = String::new();
        for (budget, l) in &a.learning {
            let _ = writeln!(md, "Budget: {}.\n", budget.describe());
            let mut t = Table::new(&[
                "set",
                "windows",
                "T/x",
                "serial (s)",
                "cpu-mt (s)",
                "cuda-paper (s)",
                "cuda-ballot (s)",
                "same window: paper / cuda-paper / cuda-ballot",
                "vs serial 1 window: paper / cuda-paper / cuda-ballot",
                "serial / cpu-mt",
                "evaluation share of serial",
                "rules learned",
            ]);
            let st = &l.total;
            for set in st.sets() {
                let base = st.mean(set, 1, SERIAL);
                for w in st.windows(set) {
                    let serial = st.mean(set, w, SERIAL);
                    let paper = self.spec.table4.at(set, w);
                    let rules = l.models.get(&(set.to_owned(), w)).and_then(|m| Summary::of(&m.rules));
                    t.row(vec![
                        set.into(),
                        w.to_string(),
                        a.instances.get(set).map_or("—".into(), |n| format!("{:.0}", *n as f64 / w as f64)),
                        fmt_s(st.summary(set, w, SERIAL)),
                        fmt_s(st.summary(set, w, PARALLEL)),
                        st.cell(set, w, CUDA),
                        st.cell(set, w, BALLOT),
                        format!(
                            "{} / {} / {}",
                            fmt_x(paper.map(|p| p.0)),
                            x(serial, st.mean(set, w, CUDA)),
                            x(serial, st.mean(set, w, BALLOT))
                        ),
                        format!(
                            "{} / {} / {}",
                            fmt_x(paper.map(|p| p.1)),
                            x(base, st.mean(set, w, CUDA)),
                            x(base, st.mean(set, w, BALLOT))
                        ),
                        x(serial, st.mean(set, w, PARALLEL)),
                        l.evaluation_share(set, w).map_or("—".into(), |s| format!("{:.0} %", 100.0 * s)),
                        rules.map_or("—".into(), |s| format!("{:.1}", s.mean)),
                    ]);
                }
            }
            md += &t.render();
            md += "\n";
        }
        md
    }

    /// Section 5.2: with 1 window, the whole system's speedup against the
    /// evaluation's alone, the paper's (Tables 3–4) beside each machine's.
    fn learning_vs_evaluation(&self, machines: &[MachineRecords], analyses: &BTreeMap<&str, Analysis>) -> String {
        let md = String::from(
            "With 1 window, the whole system's speedup against the evaluation's alone, as *evaluation / learning / \
             ratio* (Section 5.2: larger, since the instances are copied once per GA and rule check rather than once per \
             simulated GA, \"but less than twice\"): the paper's from Tables 3 and 4, each machine's of `cuda-paper` from \
             its two stages (means of its runs).\n\n",
        );
        let with_learning: Vec<(&MachineRecords, &Analysis)> =
            machines.iter().map(|m| (m, &analyses[m.hw_id.as_str()])).filter(|(_, a)| a.main_learning().is_some()).collect();
        let mut header = vec!["set".to_owned(), "paper".to_owned()];
        header.extend(with_learning.iter().map(|(m, _)| format!("`{}`", m.hw_id)));
        let mut t = Table::new(&header);
        let fmt = |p: Option<(f64, f64)>| p.map_or("—".into(), |(e, l)| format!("{e:.1}× / {l:.1}× / {:.2}", l / e));
        for set in SETS {
            let paper = self.spec.table3.at(set, 1).zip(self.spec.table4.at(set, 1)).map(|(e, l)| (e.0, l.0));
            let mut row = vec![set.to_owned(), fmt(paper)];
            for (_, a) in &with_learning {
                let learning = a.main_learning().and_then(|(_, l)| l.total.speedup(set, 1, CUDA));
                row.push(fmt(a.eval.speedup(set, 1, CUDA).zip(learning)));
            }
            t.row(row);
        }
        md + &t.render()
    }

    /// `evorepro compare`: every machine's 1-window times beside the paper's Table 2.
    pub(super) fn compare_machines(&self, machines: &[MachineRecords]) -> String {
        let mut t = Table::new(&[
            "machine",
            "set",
            "evaluation: serial, 1 window (s)",
            "evaluation: cpu-mt, 1 window (s)",
            "evaluation: cuda-paper / cuda-ballot, 1 window (s)",
            "paper evaluation: serial / CUDA (s)",
            "learning: serial / cuda-paper, 1 window (s)",
            "paper learning: serial / CUDA (s)",
        ]);
        for m in machines {
            let a = Analysis::of(m, &self.tables);
            let learning = a.main_learning().map(|(_, l)| &l.total);
            for set in SETS {
                let eval = |method| a.eval.mean(set, 1, method);
                let learn = |method| learning.and_then(|st| st.mean(set, 1, method));
                if eval(SERIAL).is_none() && learn(SERIAL).is_none() {
                    continue;
                }
                let paper = self.spec.table2.iter().find(|r| r.set == set);
                t.row(vec![
                    format!("`{}`", m.hw_id),
                    set.into(),
                    fmt_secs(eval(SERIAL)),
                    fmt_secs(eval(PARALLEL)),
                    format!("{} / {}", fmt_secs(eval(CUDA)), fmt_secs(eval(BALLOT))),
                    paper.map_or("—".into(), |r| format!("{:.1} / {:.1}", r.evaluation_serial[0], r.evaluation_cuda[0])),
                    format!("{} / {}", fmt_secs(learn(SERIAL)), fmt_secs(learn(CUDA))),
                    paper.map_or("—".into(), |r| format!("{:.1} / {:.1}", r.integration_serial[0], r.integration_cuda[0])),
                ]);
            }
        }
        t.render()
    }
}

fn accuracy_table(a: &Analysis) -> String {
    if a.learning.is_empty() {
        return "No learning runs in this machine's records.\n".into();
    }
    let mut md = String::new();
    for (budget, l) in &a.learning {
        let _ = writeln!(md, "Budget: {}.\n", budget.describe());
        let mut t = Table::new(&["set", "windows", "runs", "rules learned", "training accuracy", "test accuracy", "same rule list from"]);
        let mut runs: Vec<(&(String, usize), &Models)> = l.models.iter().collect();
        runs.sort_by_key(|((set, w), _)| (SETS.iter().position(|s| s == set), *w));
        for ((set, w), models) in runs {
            t.row(vec![
                set.clone(),
                w.to_string(),
                models.train.len().to_string(),
                Summary::of(&models.rules).map_or("—".into(), |s| format!("{:.1} ± {:.1}", s.mean, s.sd)),
                fmt_pct(Summary::of(&models.train)),
                fmt_pct(Summary::of(&models.test)),
                METHODS.iter().filter(|m| models.methods.contains(**m)).copied().collect::<Vec<_>>().join(", "),
            ]);
        }
        md += &t.render();
        md += "\n";
    }
    md
}

/// The `speed` profile's evaluations on the largest sets against the goal (CUDA
/// ≥ 300× serial at 1 window, the one upload per GA included), with the upload's
/// share, so a result never hides where its time goes. Empty without `speed` runs.
fn speed(m: &MachineRecords, a: &Analysis) -> String {
    let sets = a.speed.sets();
    if sets.is_empty() {
        return String::new();
    }
    // The code versions behind this section and behind Tables 2–4 of the same machine.
    let commits = |speed: bool| {
        let mut c: Vec<&str> =
            m.measurements().filter(|r| (r.str("profile") == SPEED_PROFILE) == speed).map(|r| r.str("git_commit")).collect();
        c.sort_unstable();
        c.dedup();
        c.join(", ")
    };
    let md = format!("Measured at commit {}; this machine's Tables 2–4 and Figures 4–5 at {}.\n\n", commits(true), commits(false));
    let mut t = Table::new(&[
        "set",
        "training instances",
        "serial (s)",
        "cpu-mt (s)",
        "cuda-paper (s)",
        "cuda-ballot (s)",
        "cuda-ballot upload (s)",
        "serial / cuda-paper",
        "serial / cuda-ballot",
        "goal ≥ 300×",
    ]);
    for set in sets {
        let (paper, ballot) = (a.speed.speedup(set, 1, CUDA), a.speed.speedup(set, 1, BALLOT));
        let best = paper.into_iter().chain(ballot).reduce(f64::max);
        t.row(vec![
            set.into(),
            a.instances.get(set).map_or("—".into(), |n| n.to_string()),
            fmt_s(a.speed.summary(set, 1, SERIAL)),
            fmt_s(a.speed.summary(set, 1, PARALLEL)),
            a.speed.cell(set, 1, CUDA),
            a.speed.cell(set, 1, BALLOT),
            fmt_s(a.speed_load.summary(set, 1, BALLOT)),
            fmt_x(paper),
            fmt_x(ballot),
            match best {
                Some(x) if x >= SPEED_GOAL => "met".into(),
                Some(_) => "not met".into(),
                None => format!("not run here ({})", a.speed.reason(BALLOT)),
            },
        ]);
    }
    md + &t.render()
}
