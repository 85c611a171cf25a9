//! Table 2 — evaluation and whole learning time with 1 window, beside the paper's
//! (mean ± sd over its folds).

use super::BiohelPaper;
use super::accuracy::per_budget;
use super::analysis::{Analysis, fmt_s};
use super::spec::set_label;
use super::{BALLOT, CUDA, PARALLEL, SERIAL};
use crate::report::Table;
use crate::stats::Summary;

/// A Table 2 value as printed: mean ± sd, one decimal.
fn fmt_paper([mean, sd]: [f64; 2]) -> String {
    format!("{mean:.1} ± {sd:.1}")
}

impl BiohelPaper {
    pub(super) fn table2(&self, a: &Analysis) -> String {
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

    pub(super) fn integration(&self, a: &Analysis) -> String {
        per_budget(a, |l| {
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
            t
        })
    }
}
