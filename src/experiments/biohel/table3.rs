//! Table 3 — evaluation speedups with ILAS windows, beside the paper's (with the
//! note of its text where the two disagree).

use super::BiohelPaper;
use super::analysis::{Analysis, fmt_s};
use super::spec::{Column, set_label};
use super::{BALLOT, CUDA, PARALLEL, SERIAL};
use crate::fmt;
use crate::report::Table;

impl BiohelPaper {
    /// A speedup of the paper's Tables 3–4, with the note of its text where the two disagree.
    pub(super) fn paper_cell(&self, table: &str, set: &str, windows: usize, column: Column, value: Option<f64>) -> String {
        match self.spec.text_note(table, set, windows, column) {
            Some(note) if value.is_some() => format!("{} ({note})", fmt::times(value, 1)),
            _ => fmt::times(value, 1),
        }
    }

    pub(super) fn table3(&self, a: &Analysis) -> String {
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
}
