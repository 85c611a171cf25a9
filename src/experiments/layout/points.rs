//! Findings of the layout checks at the paper's sizes: how a size and a list
//! print, what stops a check from deciding, and findings gathered per point.

use super::analysis::{Analysis, Standing};
use super::spec::Size;
use crate::claims::Outcome;
use crate::claims::judge::Finding;

pub(super) fn size(s: Size) -> String {
    format!("{}×{}", s.0, s.1)
}

pub(super) fn elements(s: Size) -> f64 {
    (s.0 * s.1) as f64
}

/// Up to six items, then how many more.
pub(super) fn list(v: &[String]) -> String {
    match v.len() {
        0 => "none".into(),
        n if n <= 6 => v.join(", "),
        n => format!("{}, … ({} more)", v[..6].join(", "), n - 6),
    }
}

/// What stops a check from deciding: no GPU here, a strategy not run, or too few tries.
pub(super) fn stopped<'a>(a: &Analysis, standings: impl IntoIterator<Item = &'a (Size, Standing)>) -> Option<Outcome> {
    if !a.gpu_ran {
        return Some(Outcome::not_run(a.gpu_absent.clone()));
    }
    standings.into_iter().find_map(|(s, st)| match st {
        Standing::NotRun(why) => Some(Outcome::not_run(why.clone())),
        Standing::TooFew { n, needs } => Some(Outcome::too_few(*n, *needs, format!("{}: {n} tries per strategy", size(*s)))),
        _ => None,
    })
}

/// As [`stopped`], and also when no size of `standings` has records.
pub(super) fn undecidable(a: &Analysis, standings: &[(Size, Standing)]) -> Option<Outcome> {
    stopped(a, standings)
        .or_else(|| standings.iter().all(|(_, st)| *st == Standing::Missing).then(|| Outcome::not_run("no records at the paper's sizes")))
}

/// Findings at (labelled) points, and the fewest tries behind any of them.
#[derive(Default)]
pub(super) struct Points {
    pub at: Vec<(String, Finding)>,
    pub n: Option<usize>,
}

impl Points {
    pub fn push(&mut self, at: String, finding: Finding, n: usize) {
        self.at.push((at, finding));
        self.n = Some(self.n.map_or(n, |m| m.min(n)));
    }

    pub fn findings(&self) -> Vec<Finding> {
        self.at.iter().map(|(_, f)| f.clone()).collect()
    }

    /// "holds at 4 (…), undecided at 1 (…), falls short at 0".
    pub fn describe(&self) -> String {
        let mut words: Vec<(&str, Vec<String>)> = Vec::new();
        for (at, f) in &self.at {
            match words.iter_mut().find(|(w, _)| *w == f.word()) {
                Some((_, v)) => v.push(at.clone()),
                None => words.push((f.word(), vec![at.clone()])),
            }
        }
        let parts: Vec<String> = words.iter().map(|(w, v)| format!("{w} at {} ({})", v.len(), list(v))).collect();
        let n = self.n.map_or(String::new(), |n| format!(" (n ≥ {n} tries each)"));
        format!("{}{n}", parts.join("; "))
    }
}
