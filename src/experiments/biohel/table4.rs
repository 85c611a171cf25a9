//! Table 4 — speedups of the whole learning system with ILAS windows, beside the
//! paper's; and Section 5.2, the whole system's speedup against the evaluation's.

use super::BiohelPaper;
use super::accuracy::per_budget;
use super::analysis::{Analysis, Budget, Stage, fmt_s};
use super::spec::{Column, SETS, set_label};
use super::{BALLOT, CUDA, PARALLEL, SERIAL};
use crate::experiments::Analyses;
use crate::fmt;
use crate::records::MachineRecords;
use crate::report::Table;
use crate::stats::Summary;

impl BiohelPaper {
    pub(super) fn table4(&self, a: &Analysis) -> String {
        per_budget(a, |l| {
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
            t
        })
    }

    /// Section 5.2: with 1 window, the whole system's speedup against the
    /// evaluation's alone, the paper's (Tables 3–4) beside each machine's.
    pub(super) fn learning_vs_evaluation(&self, machines: &[MachineRecords], analyses: &Analyses<Analysis>) -> String {
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
}

/// The learning runs Section 5.2 sets against the evaluation: on equal terms where
/// a machine has them, else those of its Table 4.
fn learning_of(a: &Analysis) -> Option<(Budget, &Stage)> {
    a.like_for_like_learning().or_else(|| a.main_learning()).map(|(b, l)| (*b, &l.total))
}
