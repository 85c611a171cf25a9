//! The learned models' accuracy (not in the paper: it shows that the learner
//! learns), and what the stand-in sets' learning runs can and cannot show.

use super::METHODS;
use super::analysis::{Analysis, Chance, Learning, Models};
use super::spec::{SETS, set_label, stand_in};
use crate::report::Table;
use crate::stats::Summary;
use std::fmt::Write;

fn fmt_pct(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| format!("{:.1} ± {:.1} %", 100.0 * s.mean, 100.0 * s.sd))
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
pub(super) fn stand_in_note(a: &Analysis, l: &Learning) -> String {
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

/// One table per learning budget of the records, each under its budget and over the
/// stand-ins' note (Table 2's integration columns, Table 4, the accuracy).
pub(super) fn per_budget(a: &Analysis, table: impl Fn(&Learning) -> Table) -> String {
    let mut md = String::new();
    for (budget, l) in &a.learning {
        let _ = writeln!(md, "Budget: {}.\n", budget.describe());
        md += &table(l).render();
        md += "\n";
        md += &stand_in_note(a, l);
    }
    md
}

pub(super) fn accuracy_table(a: &Analysis) -> String {
    per_budget(a, |l| {
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
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiments::biohel::SERIAL;
    use crate::experiments::biohel::rows::SetCase;
    use crate::experiments::biohel::rows::{LearnGa, LearnRun, Model};
    use crate::experiments::biohel::spec::{BiohelSpec, PaperTables};
    use crate::experiments::biohel::{BIOHEL, LEARN_FIGURE};
    use crate::records::Record;
    use crate::records::col;
    use crate::spec::SpecFile;
    use std::path::Path;
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
