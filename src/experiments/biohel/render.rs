//! The report's content: how it was measured, the sections' order (Tables 2–4 in
//! `table2.rs`, `table3.rs`, `table4.rs`; Figures 4–5 in [`super::figures`]; the
//! accuracy in `accuracy.rs`; beyond the paper, the sweep of [`super::scale`] and
//! the `speed` profile in `speed.rs`), the points this machine lacks, the paper's
//! values and the side-by-side of `evorepro compare`.

use super::accuracy::accuracy_table;
use super::analysis::{Analysis, AttributeType};
use super::rows::{SetCase, TrainingSet};
use super::spec::{SETS, set_label};
use super::speed::{SPEED_GOAL, speed};
use super::{BALLOT, BiohelPaper, CUDA, PARALLEL, SERIAL, SPEED_PROFILE, scale};
use crate::claims::Claims;
use crate::experiments::{Analyses, Part, Render, Section};
use crate::fmt;
use crate::records::MachineRecords;
use crate::records::col;
use crate::report::{PaperValue, Table};
use anyhow::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
            s.folds, s.rules_per_iteration, s.expressed_probability, s.rules_per_iteration
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
        if let Some(s) = scale::section(machines, dir, *self.spec.settings.rules_per_iteration)? {
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

    /// `evorepro compare`: every machine's 1-window times beside the paper's Table 2.
    fn compare(&self, machines: &[MachineRecords]) -> String {
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
                for (&w, (net, total)) in table.windows.iter().zip(row.net.iter().zip(&row.total)) {
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
            let by = profiles.iter().filter(|(_, p)| p.sets.iter().any(|s| missing_sets.contains(&s.as_str()))).map(|(n, _)| n.to_string());
            t.row(vec![
                "Table 3".into(),
                format!("sets {}", list(missing_sets.iter().map(|s| set_label(s)).collect())),
                quoted(by.collect()),
            ]);
        }
        let missing: Vec<usize> = self.spec.table3.windows.iter().copied().filter(|w| !eval_windows.contains(w)).collect();
        if !missing.is_empty() {
            let by = profiles.iter().filter(|(_, p)| !p.sets.is_empty() && p.windows.iter().any(|w| missing.contains(&**w)));
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
                .filter(|(_, p)| p.learn.as_ref().is_some_and(|l| l.sets.iter().any(|s| missing_sets.contains(&s.as_str()))));
            t.row(vec![
                "Table 4".into(),
                format!("sets {}", list(missing_sets.iter().map(|s| set_label(s)).collect())),
                quoted(by.map(|(n, _)| n.to_string()).collect()),
            ]);
        }
        let missing: Vec<usize> = self.spec.table4.windows.iter().copied().filter(|w| !windows4.contains(w)).collect();
        if !missing.is_empty() {
            let by = profiles.iter().filter(|(_, p)| p.learn.as_ref().is_some_and(|l| l.windows.iter().any(|w| missing.contains(&**w))));
            t.row(vec![
                "Table 4".into(),
                format!("window counts {}", list(missing.iter().map(|w| w.to_string()).collect())),
                quoted(by.map(|(n, _)| n.to_string()).collect()),
            ]);
        }
        if let Some(b) = budget.filter(|b| !b.is_paper()) {
            let d = crate::library::biohel_learning::LearningConfig::default();
            let paper =
                |l: &super::spec::LearnProfile| *l.population == d.population && *l.iterations == d.iterations && l.max_rules.is_none();
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
}

/// A machine's part of a section on the evaluation stage (Tables 2–3), or why it has none.
fn evaluated(a: &Analysis, body: impl FnOnce() -> String) -> Part {
    Part::of_runs(!a.eval.sets().is_empty(), "evaluation", body)
}

/// A machine's part of a section on the learning runs (Tables 2 and 4, the accuracy), or why it has none.
fn learned(a: &Analysis, body: impl FnOnce() -> String) -> Part {
    Part::of_runs(!a.learning.is_empty(), "learning", body)
}
