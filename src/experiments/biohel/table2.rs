//! Table 2 — evaluation and whole learning time with 1 window, beside the paper's
//! (mean ± sd over its folds).

use super::BiohelPaper;
use super::accuracy::per_budget;
use super::analysis::{Analysis, Stage, fmt_s};
use super::spec::set_label;
use super::{BALLOT, CUDA, PARALLEL, SERIAL};
use crate::report::Table;
use crate::stats::Summary;

/// A Table 2 value as printed: mean ± sd, one decimal.
fn fmt_paper([mean, sd]: [f64; 2]) -> String {
    format!("{mean:.1} ± {sd:.1}")
}

/// The columns both halves of Table 2 share: the set, its instances, and the serial
/// and CUDA times, the paper's beside this machine's.
const COLUMNS: [&str; 8] = [
    "set",
    "training instances",
    "serial: paper (s)",
    "serial: here (s)",
    "cpu-mt: here (s)",
    "CUDA: paper (s)",
    "cuda-paper: here (s)",
    "cuda-ballot: here (s)",
];

/// One set's cells under [`COLUMNS`]: the paper's serial and CUDA times (mean, sd)
/// beside `stage`'s at 1 window.
fn times(a: &Analysis, stage: &Stage, set: &str, paper: Option<([f64; 2], [f64; 2])>) -> Vec<String> {
    vec![
        set_label(set),
        a.instances.get(set).map_or("—".into(), |n| n.to_string()),
        paper.map_or("—".into(), |p| fmt_paper(p.0)),
        fmt_s(stage.summary(set, 1, SERIAL)),
        fmt_s(stage.summary(set, 1, PARALLEL)),
        paper.map_or("—".into(), |p| fmt_paper(p.1)),
        stage.cell(set, 1, CUDA),
        stage.cell(set, 1, BALLOT),
    ]
}

impl BiohelPaper {
    pub(super) fn table2(&self, a: &Analysis) -> String {
        let mut t = Table::new(&COLUMNS);
        for set in a.eval.sets() {
            let paper = self.spec.table2.iter().find(|r| r.set == set).map(|r| (*r.evaluation_serial, *r.evaluation_cuda));
            t.row(times(a, &a.eval, set, paper));
        }
        t.render()
    }

    pub(super) fn integration(&self, a: &Analysis) -> String {
        per_budget(a, |l| {
            let mut t = Table::new(&[&COLUMNS[..], &["evaluation share of serial", "rules learned"]].concat());
            for set in l.total.sets().into_iter().filter(|s| l.total.windows(s).contains(&1)) {
                let paper = self.spec.table2.iter().find(|r| r.set == set).map(|r| (*r.integration_serial, *r.integration_cuda));
                let rules = l.models.get(&(set.to_owned(), 1)).and_then(|m| Summary::of(&m.rules));
                let mut row = times(a, &l.total, set, paper);
                row.push(l.evaluation_share(set, 1).map_or("—".into(), |s| format!("{:.0} %", 100.0 * s)));
                row.push(rules.map_or("—".into(), |s| format!("{:.1}", s.mean)));
                t.row(row);
            }
            t
        })
    }
}
