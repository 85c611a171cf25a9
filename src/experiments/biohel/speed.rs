//! Beyond the paper: the `speed` profile's evaluation on the largest sets against
//! the project's goal.

use super::analysis::{Analysis, fmt_s};
use super::spec::set_label;
use super::{BALLOT, CUDA, PARALLEL, SERIAL, SPEED_PROFILE};
use crate::fmt;
use crate::records::MachineRecords;
use crate::records::col;
use crate::report::Table;

/// The project's goal for the evaluation on the largest sets: CUDA ≥ 300× serial.
pub(super) const SPEED_GOAL: f64 = 300.0;

/// The `speed` profile's evaluations on the largest sets against the goal (CUDA
/// ≥ 300× serial at 1 window, the one upload per GA included), with the upload's
/// share, so a result never hides where its time goes. Empty without `speed` runs.
pub(super) fn speed(m: &MachineRecords, a: &Analysis) -> String {
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
