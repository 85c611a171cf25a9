//! The report's content: how it was measured, Tables 2–4 beside the paper's, the
//! whole system against the evaluation (Section 5.2), Figures 4–5
//! ([`super::figures`]), the learned models' accuracy, what lies beyond the paper
//! (the sweep of [`super::scale`], the `speed` profile), the claims of every
//! machine, and the side-by-side of `evorepro compare`.

use super::analysis::{Analysis, AttributeType, Budget, Chance, Learning, Models, Stage, fmt_s};
use super::rows::{SetCase, TrainingSet};
use super::spec::{Column, SETS, set_label, stand_in};
use super::{BALLOT, BiohelPaper, CUDA, METHODS, PARALLEL, SERIAL, SPEED_PROFILE, scale};
use crate::claims::Claims;
use crate::experiments::{Analyses, Part, Render, Section};
use crate::fmt;
use crate::records::MachineRecords;
use crate::records::col;
use crate::report::{PaperValue, Table};
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

fn fmt_pct(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| format!("{:.1} ± {:.1} %", 100.0 * s.mean, 100.0 * s.sd))
}

impl Render for BiohelPaper {
    type Analysis = Analysis;

    fn claims(&self) -> &Claims<Analysis> {
        &self.claims
    }

    fn analysis(&self, machine: &MachineRecords) -> Result<Analysis> {
        Ok(Analysis::of(machine, &self.tables))
    }

    fn method(&self) -> Result<String> {
        let s = &self.spec.settings;
        Ok(format!(
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
             *Claims* judge `cuda-paper` against `serial` on the paper's public sets at the window counts of its Tables \
             3–4 (the stand-ins' numbers are shown beyond the paper, and a claim that needs them is not run here; the \
             learning claims on the runs of Table 4 — the paper's budget where a machine has it, else the budget with the \
             most points; the whole system against the evaluation only on learning runs whose population equals the \
             evaluation's {} rules per GA iteration, so that every evaluator call evaluates as many rules in both stages), \
             with the band, minimum runs and hardware model of each claim in `experiments/biohel.toml`. Each claim states \
             its GA budget: below the paper's (the evaluation's 50-iteration GA, BioHEL's default for learning) it is not \
             run here unless its spec entry says the claim survives it, and then its verdict says \"reduced budget\". \
             `windows_cut_serial_time` is the harness's own check of ILAS, not a claim of the paper; `cuda-ballot`, the \
             `speed` profile and the synthetic sweep are beyond the paper. CN, SS and SA are marked *(stand-in)* in every \
             row; where two profiles measured the same point, the later one's runs are used.",
            s.folds.get_ref(),
            s.rules_per_iteration.get_ref(),
            s.expressed_probability.get_ref(),
            s.rules_per_iteration.get_ref()
        ))
    }

    fn sections(&self, machines: &[MachineRecords], analyses: &Analyses<Analysis>, dir: &Path) -> Result<Vec<Section>> {
        let a = |m: &MachineRecords| analyses.of(m);
        let types = self.attribute_types(machines)?;
        let mut sections = vec![
            Section::per_machine("Table 2 — evaluation time with 1 window", "", machines, |m| Ok(evaluated(a(m), || self.table2(a(m)))))?,
            Section::per_machine("Table 2 — integration: whole learning time with 1 window", "", machines, |m| {
                Ok(learned(a(m), || self.integration(a(m))))
            })?,
            Section::per_machine(
                "Table 3 — evaluation speedups with ILAS windows",
                "Per set and window count, mean evaluation time (s); *net* = serial / CUDA at the same window count (the \
                 paper's first row), *total* = serial with 1 window / CUDA with w windows (its second row), each beside the \
                 paper's value (Tesla C1060 against one Xeon E5472 core); *serial 1 / w* = what windowing alone saves.",
                machines,
                |m| Ok(evaluated(a(m), || self.table3(a(m)))),
            )?,
            Section::per_machine(
                "Table 4 — speedups of the whole learning system with ILAS windows",
                "Per set and window count, mean whole learning time (s); *same window* = serial / CUDA at the same window \
                 count (the paper's first row), *vs serial 1 window* = serial with 1 window / CUDA with w windows (its \
                 second row), each beside the paper's value (Tesla C1060 against one Xeon E5472 core).",
                machines,
                |m| Ok(learned(a(m), || self.table4(a(m)))),
            )?,
            Section::text(
                "Section 5.2 — the whole system's speedup against the evaluation's",
                self.learning_vs_evaluation(machines, analyses),
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
                |m| Ok(learned(a(m), || accuracy_table(a(m)))),
            )?,
        ];
        sections.push(Section::per_machine(
            "Not run here — the points of Tables 3–4 this machine lacks",
            "The sets and window counts of the paper's Tables 3 and 4 that no profile run on a machine measured, the \
             profiles that plan them, and why the profiles run there leave them out.",
            machines,
            |m| Ok(self.not_measured(m, a(m))),
        )?);
        if let Some(s) = scale::section(machines, dir, *self.spec.settings.rules_per_iteration.get_ref())? {
            sections.push(s);
        }
        if analyses.iter().any(|(_, a)| !a.speed.sets().is_empty()) {
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
        Ok(sections)
    }

    fn paper_values(&self) -> (&'static str, Vec<PaperValue>) {
        ("experiments/biohel.toml [[table2]], [table3], [table4]", self.stated_values())
    }

    fn compare(&self, machines: &[MachineRecords]) -> String {
        self.compare_machines(machines)
    }
}

impl BiohelPaper {
    /// Table 2's times (mean and sd over the folds) and Tables 3–4's speedups.
    fn stated_values(&self) -> Vec<PaperValue> {
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

    /// The attribute type of every set in the records: from the rows'
    /// `attribute_type`, else (rows written before that column) from the data set.
    fn attribute_types(&self, machines: &[MachineRecords]) -> Result<BTreeMap<String, AttributeType>> {
        let mut types = BTreeMap::new();
        let mut untyped = BTreeSet::new();
        for r in machines.iter().flat_map(|m| m.measurements()) {
            let Ok(case) = r.row::<SetCase>() else { continue };
            match r.row::<TrainingSet>().ok().and_then(|t| AttributeType::parse(t.attribute_type.as_deref()?)) {
                Some(t) => {
                    types.insert(case.set, t);
                }
                None => {
                    untyped.insert(case.set);
                }
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
                set_label(set),
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
                    set_label(set),
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
            md += &stand_in_note(a, l);
        }
        md
    }

    /// A speedup of the paper's Tables 3–4, with the note of its text where the two disagree.
    fn paper_cell(&self, table: &str, set: &str, windows: usize, column: Column, value: Option<f64>) -> String {
        match self.spec.text_note(table, set, windows, column) {
            Some(note) if value.is_some() => format!("{} ({note})", fmt::times(value, 1)),
            _ => fmt::times(value, 1),
        }
    }

    fn table3(&self, a: &Analysis) -> String {
        let sets = a.eval.sets();
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
                    set_label(set),
                    w.to_string(),
                    fmt_s(a.eval.summary(set, w, SERIAL)),
                    fmt_s(a.eval.summary(set, w, PARALLEL)),
                    a.eval.cell(set, w, CUDA),
                    a.eval.cell(set, w, BALLOT),
                    format!(
                        "{} / {} / {}",
                        self.paper_cell("table3", set, w, Column::Net, paper.map(|p| p.0)),
                        fmt::quotient(serial, a.eval.mean(set, w, CUDA), 1),
                        fmt::quotient(serial, a.eval.mean(set, w, BALLOT), 1)
                    ),
                    format!(
                        "{} / {} / {}",
                        self.paper_cell("table3", set, w, Column::Total, paper.map(|p| p.1)),
                        fmt::quotient(base, a.eval.mean(set, w, CUDA), 1),
                        fmt::quotient(base, a.eval.mean(set, w, BALLOT), 1)
                    ),
                    fmt::quotient(serial, a.eval.mean(set, w, PARALLEL), 1),
                    fmt::quotient(base, serial, 1),
                ]);
            }
        }
        t.render()
    }

    fn table4(&self, a: &Analysis) -> String {
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
                        set_label(set),
                        w.to_string(),
                        a.instances.get(set).map_or("—".into(), |n| format!("{:.0}", *n as f64 / w as f64)),
                        fmt_s(st.summary(set, w, SERIAL)),
                        fmt_s(st.summary(set, w, PARALLEL)),
                        st.cell(set, w, CUDA),
                        st.cell(set, w, BALLOT),
                        format!(
                            "{} / {} / {}",
                            self.paper_cell("table4", set, w, Column::Net, paper.map(|p| p.0)),
                            fmt::quotient(serial, st.mean(set, w, CUDA), 1),
                            fmt::quotient(serial, st.mean(set, w, BALLOT), 1)
                        ),
                        format!(
                            "{} / {} / {}",
                            self.paper_cell("table4", set, w, Column::Total, paper.map(|p| p.1)),
                            fmt::quotient(base, st.mean(set, w, CUDA), 1),
                            fmt::quotient(base, st.mean(set, w, BALLOT), 1)
                        ),
                        fmt::quotient(serial, st.mean(set, w, PARALLEL), 1),
                        l.evaluation_share(set, w).map_or("—".into(), |s| format!("{:.0} %", 100.0 * s)),
                        rules.map_or("—".into(), |s| format!("{:.1}", s.mean)),
                    ]);
                }
            }
            md += &t.render();
            md += "\n";
            md += &stand_in_note(a, l);
        }
        md
    }

    /// Section 5.2: with 1 window, the whole system's speedup against the
    /// evaluation's alone, the paper's (Tables 3–4) beside each machine's.
    fn learning_vs_evaluation(&self, machines: &[MachineRecords], analyses: &Analyses<Analysis>) -> String {
        let md = String::from(
            "With 1 window, the whole system's speedup against the evaluation's alone, as *evaluation / learning / \
             ratio* (Section 5.2: larger, since the instances are copied once per GA and rule check rather than once per \
             simulated GA, \"but less than twice\"): the paper's from Tables 3 and 4, each machine's of `cuda-paper` from \
             its two stages (means of its runs), its learning runs on equal terms with the evaluation (a population of \
             the evaluation's rules per GA iteration) where it has them, else those of its Table 4; the header names \
             the learning budget.\n\n",
        );
        let with_learning: Vec<(&MachineRecords, &Analysis)> =
            machines.iter().map(|m| (m, analyses.of(m))).filter(|(_, a)| learning_of(a).is_some()).collect();
        let mut header = vec!["set".to_owned(), "paper".to_owned()];
        header.extend(with_learning.iter().filter_map(|(m, a)| {
            let (b, _) = learning_of(a)?;
            Some(format!("`{}` (learning: {})", m.hw_id, b.describe().replace("**", "")))
        }));
        let mut t = Table::new(&header);
        let fmt = |p: Option<(f64, f64)>| p.map_or("—".into(), |(e, l)| format!("{e:.1}× / {l:.1}× / {:.2}", l / e));
        // The paper's own ratio at twice or more contradicts its "in all datasets less than twice".
        let paper_fmt = |p: Option<(f64, f64)>| match p {
            Some((e, l)) if l / e >= 2.0 => format!("{} (against the text's \"in all datasets less than twice\")", fmt(p)),
            _ => fmt(p),
        };
        for set in SETS {
            let paper = self.spec.table3.at(set, 1).zip(self.spec.table4.at(set, 1)).map(|(e, l)| (e.0, l.0));
            let mut row = vec![set_label(set), paper_fmt(paper)];
            for (_, a) in &with_learning {
                let learning = learning_of(a).and_then(|(_, st)| st.speedup(set, 1, CUDA));
                row.push(fmt(a.eval.speedup(set, 1, CUDA).zip(learning)));
            }
            t.row(row);
        }
        md + &t.render()
    }

    /// The sets and window counts of Tables 3–4 that no profile run on this
    /// machine measured (Table 4: at the budget of its table here), with the
    /// profiles of the spec that plan them and the `left_out` of those run here.
    fn not_measured(&self, m: &MachineRecords, a: &Analysis) -> String {
        // The `speed` profile's runs stay out of Tables 2–3: it plans none of their points.
        let profiles: BTreeMap<&String, &super::spec::Profile> = self.spec.profiles.iter().filter(|(n, _)| *n != SPEED_PROFILE).collect();
        let mut run: Vec<&str> = m
            .measurements()
            .filter(|r| [super::EVAL_FIGURE, super::LEARN_FIGURE].contains(&r.str(col::FIGURE)) && r.str(col::PROFILE) != SPEED_PROFILE)
            .map(|r| r.str(col::PROFILE))
            .collect();
        run.sort_unstable();
        run.dedup();
        let list = |xs: Vec<String>| xs.join(", ");
        let quoted = |ps: Vec<String>| if ps.is_empty() { "none".into() } else { list(ps.iter().map(|p| format!("`{p}`")).collect()) };
        let mut t = Table::new(&["table", "not measured here", "planned by"]);
        let table3_sets: Vec<&str> = SETS.iter().copied().filter(|s| self.spec.table3.at(s, 1).is_some()).collect();
        let eval_windows: BTreeSet<usize> = a.eval.sets().iter().flat_map(|s| a.eval.windows(s)).collect();
        let missing_sets: Vec<&str> = table3_sets.iter().copied().filter(|s| !a.eval.sets().contains(s)).collect();
        if !missing_sets.is_empty() {
            let by = profiles
                .iter()
                .filter(|(_, p)| p.sets.iter().any(|s| missing_sets.contains(&s.get_ref().as_str())))
                .map(|(n, _)| n.to_string());
            t.row(vec![
                "Table 3".into(),
                format!("sets {}", list(missing_sets.iter().map(|s| set_label(s)).collect())),
                quoted(by.collect()),
            ]);
        }
        let missing: Vec<usize> = self.spec.table3.windows.get_ref().iter().copied().filter(|w| !eval_windows.contains(w)).collect();
        if !missing.is_empty() {
            let by = profiles.iter().filter(|(_, p)| !p.sets.is_empty() && p.windows.iter().any(|w| missing.contains(w.get_ref())));
            t.row(vec![
                "Table 3".into(),
                format!("window counts {}", list(missing.iter().map(|w| w.to_string()).collect())),
                quoted(by.map(|(n, _)| n.to_string()).collect()),
            ]);
        }
        let (sets4, windows4, budget) = match a.main_learning() {
            Some((b, l)) => (l.total.sets(), l.total.sets().iter().flat_map(|s| l.total.windows(s)).collect::<BTreeSet<usize>>(), Some(b)),
            None => (Vec::new(), BTreeSet::new(), None),
        };
        let missing_sets: Vec<&str> = SETS.iter().copied().filter(|s| self.spec.table4.at(s, 1).is_some() && !sets4.contains(s)).collect();
        if !missing_sets.is_empty() {
            let by = profiles
                .iter()
                .filter(|(_, p)| p.learn.as_ref().is_some_and(|l| l.sets.iter().any(|s| missing_sets.contains(&s.get_ref().as_str()))));
            t.row(vec![
                "Table 4".into(),
                format!("sets {}", list(missing_sets.iter().map(|s| set_label(s)).collect())),
                quoted(by.map(|(n, _)| n.to_string()).collect()),
            ]);
        }
        let missing: Vec<usize> = self.spec.table4.windows.get_ref().iter().copied().filter(|w| !windows4.contains(w)).collect();
        if !missing.is_empty() {
            let by =
                profiles.iter().filter(|(_, p)| p.learn.as_ref().is_some_and(|l| l.windows.iter().any(|w| missing.contains(w.get_ref()))));
            t.row(vec![
                "Table 4".into(),
                format!("window counts {}", list(missing.iter().map(|w| w.to_string()).collect())),
                quoted(by.map(|(n, _)| n.to_string()).collect()),
            ]);
        }
        if let Some(b) = budget.filter(|b| !b.is_paper()) {
            let d = crate::library::biohel_learning::LearningConfig::default();
            let paper = |l: &super::spec::LearnProfile| {
                *l.population.get_ref() == d.population && *l.iterations.get_ref() == d.iterations && l.max_rules.is_none()
            };
            let by = profiles.iter().filter(|(_, p)| p.learn.as_ref().is_some_and(paper));
            t.row(vec![
                "Table 4".into(),
                format!("every point at the paper's budget (its table here: {})", b.describe().replace("**", "")),
                quoted(by.map(|(n, _)| n.to_string()).collect()),
            ]);
        }
        if t.is_empty() {
            return String::new();
        }
        let why: Vec<String> = run
            .iter()
            .map(|p| match self.spec.profiles.get(*p).and_then(|q| q.left_out.as_deref()) {
                Some(why) => format!("`{p}`: {why}"),
                None => format!("`{p}`"),
            })
            .collect();
        format!("Profiles run here: {}.\n\n{}", if why.is_empty() { "none".into() } else { why.join("; ") }, t.render())
    }

    /// `evorepro compare`: every machine's 1-window times beside the paper's Table 2.
    fn compare_machines(&self, machines: &[MachineRecords]) -> String {
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
                    set_label(set),
                    fmt::opt(eval(SERIAL), 3),
                    fmt::opt(eval(PARALLEL), 3),
                    format!("{} / {}", fmt::opt(eval(CUDA), 3), fmt::opt(eval(BALLOT), 3)),
                    paper.map_or("—".into(), |r| format!("{:.1} / {:.1}", r.evaluation_serial[0], r.evaluation_cuda[0])),
                    format!("{} / {}", fmt::opt(learn(SERIAL), 3), fmt::opt(learn(CUDA), 3)),
                    paper.map_or("—".into(), |r| format!("{:.1} / {:.1}", r.integration_serial[0], r.integration_cuda[0])),
                ]);
            }
        }
        t.render()
    }
}

/// The learning runs Section 5.2 sets against the evaluation: on equal terms where
/// a machine has them, else those of its Table 4.
fn learning_of(a: &Analysis) -> Option<(Budget, &Stage)> {
    a.like_for_like_learning().or_else(|| a.main_learning()).map(|(b, l)| (*b, &l.total))
}

/// A test accuracy against the majority-class rate of its set.
fn fmt_chance(c: Option<Chance>) -> String {
    match c {
        None => "—".into(),
        Some(c) if c.at_chance() => format!("at chance (majority class {:.1} %)", 100.0 * c.majority),
        Some(c) => format!("{:+.1} points over the majority class ({:.1} %)", 100.0 * (c.test - c.majority), 100.0 * c.majority),
    }
}

/// The learning runs of one budget, sorted in Table 1's order and by window count.
fn sorted_models(l: &Learning) -> Vec<(&(String, usize), &Models)> {
    let mut runs: Vec<(&(String, usize), &Models)> = l.models.iter().collect();
    runs.sort_by_key(|((set, w), _)| (SETS.iter().position(|s| s == set), *w));
    runs
}

/// Under a learning table with stand-in rows: what a stand-in can and cannot show,
/// and what its runs learned (from the records: rules learned, test accuracy
/// against the majority-class rate). Empty without stand-in rows.
fn stand_in_note(a: &Analysis, l: &Learning) -> String {
    let mut found = Vec::new();
    let mut sets: Vec<&str> = Vec::new();
    for ((set, _), _) in sorted_models(l).into_iter().filter(|((set, _), _)| stand_in(set).is_some()) {
        if !sets.contains(&set.as_str()) {
            sets.push(set);
        }
    }
    if sets.is_empty() {
        return String::new();
    }
    for set in &sets {
        let runs: Vec<(usize, &Models)> = sorted_models(l).into_iter().filter(|((s, _), _)| s == set).map(|((_, w), m)| (*w, m)).collect();
        let windows = |ws: Vec<usize>| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(", ");
        let none: Vec<usize> = runs.iter().filter(|(_, m)| Summary::of(&m.rules).is_some_and(|s| s.mean == 0.0)).map(|(w, _)| *w).collect();
        let chances: Vec<(usize, Chance)> =
            runs.iter().filter_map(|(w, m)| Some((*w, Chance::of(m, a.majority.get(*set).copied())?))).collect();
        let at: Vec<usize> = chances.iter().filter(|(_, c)| c.at_chance()).map(|(w, _)| *w).collect();
        let mut parts = Vec::new();
        if !none.is_empty() {
            parts.push(format!("learned no rule at {} window(s)", windows(none)));
        }
        match (chances.first(), at.len()) {
            (None, _) => parts.push("its majority-class rate is not in the records (accuracy against chance unknown)".into()),
            (Some((_, c)), n) => {
                let (lo, hi) = chances.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), (_, c)| (lo.min(c.test), hi.max(c.test)));
                let where_ = if n == chances.len() { "at every window count".to_owned() } else { format!("at {} window(s)", windows(at)) };
                parts.push(format!(
                    "test accuracy {:.1}–{:.1} % against the majority-class rate {:.1} %: at chance {where_} (within 1.96 standard errors over {} test instances)",
                    100.0 * lo,
                    100.0 * hi,
                    100.0 * c.majority,
                    runs.iter().find_map(|(_, m)| m.test_instances).unwrap_or(0)
                ));
            }
        }
        found.push(format!("{set} {}", parts.join("; ")));
    }
    format!(
        "Stand-ins ({}): synthetic sets with Table 1's instances, attributes and classes. They can show what evaluating and \
         learning on a set of that shape costs; they cannot show the real set's rules, rule count or accuracy, nor therefore \
         its learning time, which depends on how many rules are learned and how many instances each removes (their class is \
         the sum of two attributes' bins modulo the classes, which no single attribute's interval separates). Here: {}.\n\n",
        sets.join(", "),
        found.join("; ")
    )
}

/// A machine's part of a section on the evaluation stage (Tables 2–3), or why it has none.
fn evaluated(a: &Analysis, body: impl FnOnce() -> String) -> Part {
    Part::of_runs(!a.eval.sets().is_empty(), "evaluation", body)
}

/// A machine's part of a section on the learning runs (Tables 2 and 4, the accuracy), or why it has none.
fn learned(a: &Analysis, body: impl FnOnce() -> String) -> Part {
    Part::of_runs(!a.learning.is_empty(), "learning", body)
}

fn accuracy_table(a: &Analysis) -> String {
    let mut md = String::new();
    for (budget, l) in &a.learning {
        let _ = writeln!(md, "Budget: {}.\n", budget.describe());
        let mut t = Table::new(&[
            "set",
            "windows",
            "runs",
            "rules learned",
            "training accuracy",
            "test accuracy",
            "test accuracy against chance",
            "same rule list from",
        ]);
        for ((set, w), models) in sorted_models(l) {
            t.row(vec![
                set_label(set),
                w.to_string(),
                models.train.len().to_string(),
                Summary::of(&models.rules).map_or("—".into(), |s| format!("{:.1} ± {:.1}", s.mean, s.sd)),
                fmt_pct(Summary::of(&models.train)),
                fmt_pct(Summary::of(&models.test)),
                fmt_chance(Chance::of(models, a.majority.get(set).copied())),
                METHODS.iter().filter(|m| models.methods.contains(**m)).copied().collect::<Vec<_>>().join(", "),
            ]);
        }
        md += &t.render();
        md += "\n";
        md += &stand_in_note(a, l);
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
            m.measurements().filter(|r| (r.str(col::PROFILE) == SPEED_PROFILE) == speed).map(|r| r.str(col::GIT_COMMIT)).collect();
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
            set_label(set),
            a.instances.get(set).map_or("—".into(), |n| n.to_string()),
            fmt_s(a.speed.summary(set, 1, SERIAL)),
            fmt_s(a.speed.summary(set, 1, PARALLEL)),
            a.speed.cell(set, 1, CUDA),
            a.speed.cell(set, 1, BALLOT),
            fmt_s(a.speed_load.summary(set, 1, BALLOT)),
            fmt::times(paper, 1),
            fmt::times(ballot, 1),
            match best {
                Some(x) if x >= SPEED_GOAL => "met".into(),
                Some(_) => "not met".into(),
                None => format!("not run here ({})", a.speed.reason(BALLOT)),
            },
        ]);
    }
    md + &t.render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::biohel::rows::{LearnGa, LearnRun, Model};
    use crate::experiments::biohel::spec::{BiohelSpec, PaperTables};
    use crate::experiments::biohel::{BIOHEL, LEARN_FIGURE};
    use crate::records::Record;
    use crate::spec::SpecFile;
    use std::sync::Arc;

    fn tables() -> Arc<PaperTables> {
        let spec: BiohelSpec = SpecFile::from_text(Path::new("experiments/biohel.toml"), BIOHEL.embedded_spec.into()).parse().unwrap();
        Arc::new(PaperTables::of(&spec))
    }

    /// A serial learning run of `set` at `windows`: rules learned, test accuracy and (newer rows) the majority-class rate.
    fn learned(set: &str, windows: usize, rules: usize, test: f64, majority: Option<f64>) -> Record {
        Record::new()
            .with(col::RECORD_KIND, "measurement")
            .with(col::FIGURE, LEARN_FIGURE)
            .with(col::PROFILE, "gpu")
            .with_row(&SetCase { set: set.into(), windows, iterations: 20, seed: 0 })
            .with_row(&LearnGa { population: 50, max_rules: None })
            .with(col::METHOD, SERIAL)
            .with(col::STATUS, "ok")
            .with_row(&LearnRun { learn_s: 1.0, ..Default::default() })
            .with_row(&Model { rules, train_accuracy: test, test_accuracy: test, majority_accuracy: majority, test_instances: 8400 })
    }

    fn analysis(rows: Vec<Record>) -> Analysis {
        let mut m = crate::claims::testing::machine(&[]);
        m.rows.extend(rows);
        Analysis::of(&m, &tables())
    }

    #[test]
    fn stand_in_learning_rows_say_what_they_show_and_where_they_are_at_chance() {
        // Older rows: the majority rate comes from the run that learned no rule (5 windows).
        let a = analysis(vec![learned("ss", 1, 2, 0.335, None), learned("ss", 5, 0, 0.334, None), learned("adu", 1, 2, 0.78, None)]);
        let (_, l) = a.main_learning().unwrap();
        let note = stand_in_note(&a, l);
        assert!(note.starts_with("Stand-ins (ss):") && note.contains("cannot show the real set's rules"), "{note}");
        assert!(note.contains("ss learned no rule at 5 window(s)"), "{note}");
        assert!(
            note.contains("test accuracy 33.4–33.5 % against the majority-class rate 33.4 %: at chance at every window count"),
            "{note}"
        );
        let table = accuracy_table(&a);
        assert!(table.contains("| ss (stand-in) | 1 |") && table.contains("at chance (majority class 33.4 %)"), "{table}");
        assert!(
            table.contains("| adu | 1 |") && table.contains("| adu | 1 | 1 | 2.0 ± 0.0 | 78.0 ± 0.0 % | 78.0 ± 0.0 % | — |"),
            "{table}"
        );
        // A stand-in above chance is said to be (newer rows carry the rate); no stand-in, no note.
        let a = analysis(vec![learned("sa", 1, 3, 0.70, Some(0.5)), learned("sa", 10, 1, 0.505, Some(0.5))]);
        let note = stand_in_note(&a, a.main_learning().unwrap().1);
        assert!(note.contains("test accuracy 50.5–70.0 % against the majority-class rate 50.0 %: at chance at 10 window(s)"), "{note}");
        assert!(accuracy_table(&a).contains("+20.0 points over the majority class (50.0 %)"));
        let a = analysis(vec![learned("adu", 1, 2, 0.78, Some(0.76))]);
        assert_eq!(stand_in_note(&a, a.main_learning().unwrap().1), "");
    }
}
