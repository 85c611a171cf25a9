//! Two claims of the paper's text that compare strategies or functions as a
//! whole: registers are more robust than shared memory (Sections 4.1 and 4.3),
//! and Rana behaves like the heavy f4 (Section 4.4). Both are judged on the
//! figures' sizes (the paper's sweep) on end-to-end times; every size measured
//! goes to `beyond`.
//!
//! "Robust", as the paper shows it: where a strategy cannot run (Table 1's
//! NAN, f4_heavy's S2). How far a strategy falls behind where it runs (its
//! worst time over the fastest of S1–S4) is reported beside it, not judged.
//!
//! "Behaves like": at the sizes where the two candidates' winners differ, the
//! function's winner is the one of the function it is said to behave like.

use super::analysis::{Analysis, Cell, Standing};
use super::points::{Points, list, size, undecidable};
use super::spec::{Class, Func, GPU_CLASSES, Size};
use crate::claims::judge::{self, Comparison, Finding};
use crate::claims::{Ctx, Outcome, Params};
use crate::fmt::fmt_ratio;
use crate::library::nonseparable::Function;
use serde::Deserialize;

/// (register strategy, shared-memory strategy) pairs over some functions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Robust {
    /// Each pair differs in where a thread keeps its intermediate data:
    /// registers first, shared memory second.
    pub pairs: Vec<[Class; 2]>,
    pub functions: Vec<Func>,
}

impl Params for Robust {
    fn validate(&self) -> Result<(), (String, String)> {
        if self.functions.is_empty() {
            return Err(("functions".into(), "names no function".into()));
        }
        if self.pairs.is_empty() {
            return Err(("pairs".into(), "names no pair".into()));
        }
        match self.pairs.iter().flatten().find(|c| !GPU_CLASSES.contains(&c.0)) {
            Some(c) => Err(("pairs".into(), format!("`{}` is no GPU strategy ({})", c.0, GPU_CLASSES.join(", ")))),
            None => match self.pairs.iter().find(|p| p[0] == p[1]) {
                Some(p) => Err(("pairs".into(), format!("{} is paired with itself", p[0].0))),
                None => Ok(()),
            },
        }
    }
}

/// Where one strategy runs over some (function, size) pairs.
#[derive(Debug)]
pub struct Robustness {
    /// Where it could not run.
    pub blocked: Vec<String>,
    /// (Function, size) pairs where some GPU strategy ran.
    pub sizes: usize,
    /// Its worst mean time over the fastest GPU strategy's where it ran, and where (reported, not judged).
    pub worst: Option<(f64, String)>,
}

impl Robustness {
    /// Over each figure's sizes, or every size measured (`grid`).
    pub fn of(a: &Analysis, class: &str, functions: &[Func], grid: bool) -> Result<Robustness, Outcome> {
        let mut r = Robustness { blocked: vec![], sizes: 0, worst: None };
        for Func(f) in functions {
            let fig = if grid { a.grid_of(*f) } else { a.figure_of(*f) };
            for &s in fig.map_or(&[][..], |x| &x.sizes) {
                let Some(best) = GPU_CLASSES.iter().filter_map(|c| a.time(*f, s, c)).min_by(f64::total_cmp) else { continue };
                r.sizes += 1;
                let at = format!("{} {}", f.name(), size(s));
                match a.get(*f, s, class) {
                    Some(Cell::Ok(t)) => {
                        let rel = t.summary.mean / best;
                        if r.worst.as_ref().is_none_or(|w| rel > w.0) {
                            r.worst = Some((rel, at));
                        }
                    }
                    Some(Cell::CannotRun(_)) => r.blocked.push(at),
                    Some(Cell::NotRun(why)) => return Err(Outcome::not_run(why.clone())),
                    None => {}
                }
            }
        }
        Ok(r)
    }

    /// "cannot run at 4 of 63 (…)".
    fn blocked_line(&self) -> String {
        if self.blocked.is_empty() {
            format!("runs at all {}", self.sizes)
        } else {
            format!("cannot run at {} of {} ({})", self.blocked.len(), self.sizes, list(&self.blocked))
        }
    }

    /// "worst 3.10× the fastest GPU strategy (f4_heavy 1000×4000)".
    fn worst_line(&self) -> String {
        self.worst.as_ref().map_or("ran nowhere".into(), |w| format!("worst {} the fastest GPU strategy ({})", fmt_ratio(w.0), w.1))
    }
}

/// The register strategy of each pair cannot run at fewer sizes than the
/// shared-memory one ([`judge::order_exact`] on the counts: as many is
/// undecided for good), for every pair ([`judge::all_of`]): the paper's evidence
/// is S2 and S3 running out of shared memory where S1 and S4 still run.
pub(super) fn registers_more_robust(p: &Robust, a: &Analysis, _: &Ctx) -> Outcome {
    if !a.gpu_ran {
        return Outcome::not_run(a.gpu_absent.clone());
    }
    type Judged = (Vec<Finding>, Vec<String>, Vec<String>);
    let pairs = |grid: bool| -> Result<Judged, Outcome> {
        let (mut findings, mut lines, mut worst) = (Vec::new(), Vec::new(), Vec::new());
        for [Class(reg), Class(shared)] in &p.pairs {
            let (r, s) = (Robustness::of(a, reg, &p.functions, grid)?, Robustness::of(a, shared, &p.functions, grid)?);
            if r.sizes == 0 {
                return Err(Outcome::not_run("no GPU records at the paper's sizes"));
            }
            let finding = judge::order_exact(r.blocked.len() as f64, s.blocked.len() as f64, Comparison::Less);
            lines.push(format!(
                "{reg} (registers) {}; {shared} (shared memory) {} — {}",
                r.blocked_line(),
                s.blocked_line(),
                finding.word()
            ));
            worst.push(format!("{reg}: {}; {shared}: {}", r.worst_line(), s.worst_line()));
            findings.push(finding);
        }
        Ok((findings, lines, worst))
    };
    let (findings, lines, worst) = match pairs(false) {
        Ok(x) => x,
        Err(o) => return o,
    };
    let grid = pairs(true).map_or(String::new(), |(_, g, _)| format!("; on every size measured — {}", g.join("; ")));
    let beyond = format!("how far each falls behind where it runs, on the figures' sizes (not judged) — {}{grid}", worst.join("; "));
    Outcome::decided(judge::all_of(&findings), a.tries().unwrap_or(0), format!("on the figures' sizes — {}", lines.join("; ")))
        .with_beyond(beyond)
}

/// `function` behaves like `like` rather than `rather_than` (Section 4.4).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Like {
    pub function: Func,
    pub like: Func,
    pub rather_than: Func,
}

impl Params for Like {
    fn validate(&self) -> Result<(), (String, String)> {
        let names = [self.function.0, self.like.0, self.rather_than.0];
        if names[0] == names[1] || names[0] == names[2] || names[1] == names[2] {
            return Err(("function".into(), format!("needs three different functions, not {}", names.map(|f| f.name()).join(", "))));
        }
        Ok(())
    }
}

/// At each size the three functions' figures share where `like` and
/// `rather_than` have different winners: the function's winner is `like`'s
/// (holds), `rather_than`'s (fails) or neither (left out); a tie among any of
/// the three leaves the size undecided, with the tries it needs.
fn telling_sizes(a: &Analysis, [f, like, other]: [Function; 3], grid: bool) -> (Points, Vec<(Size, Standing)>) {
    let fig = |f: Function| if grid { a.grid_of(f) } else { a.figure_of(f) };
    let sizes: Vec<Size> = fig(f).map_or(vec![], |x| {
        x.sizes.iter().copied().filter(|s| [like, other].iter().all(|g| fig(*g).is_some_and(|y| y.sizes.contains(s)))).collect()
    });
    let mut points = Points::default();
    let mut standings = Vec::new();
    for s in sizes {
        let st = [a.winner(f, s), a.winner(like, s), a.winner(other, s)];
        standings.extend(st.iter().map(|x| (s, x.clone())));
        match &st {
            [Standing::Won(w, n), Standing::Won(l, _), Standing::Won(o, _)] if l != o => {
                let at = format!("{} ({} {w}, {} {l}, {} {o})", size(s), f.name(), like.name(), other.name());
                if w == l {
                    points.push(at, Finding::Holds, *n);
                } else if w == o {
                    points.push(at, Finding::Fails(None), *n);
                }
            }
            [Standing::Won(..), Standing::Won(..), Standing::Won(..)] => {}
            _ if st.iter().any(|x| matches!(x, Standing::Tie(..))) => {
                let need = st
                    .iter()
                    .filter_map(|x| if let Standing::Tie(_, _, k) = x { Some(*k) } else { None })
                    .try_fold(0, |m, k| k.map(|k| m.max(k)));
                let n = st
                    .iter()
                    .filter_map(|x| if let Standing::Won(_, n) | Standing::Tie(_, n, _) = x { Some(*n) } else { None })
                    .min()
                    .unwrap_or(0);
                points.push(format!("{} (a tie)", size(s)), Finding::undecided(need, "a tie for first"), n);
            }
            _ => {}
        }
    }
    (points, standings)
}

/// Rana (say) has `like`'s winner at most of the sizes where `like`'s and
/// `rather_than`'s winners differ ([`judge::most_of`]: the paper finds Rana
/// "reproduced in the schema of f4-heavy rather than f2-heavy").
pub(super) fn behaves_like(p: &Like, a: &Analysis, _: &Ctx) -> Outcome {
    let fs = [p.function.0, p.like.0, p.rather_than.0];
    let (points, standings) = telling_sizes(a, fs, false);
    if let Some(o) = undecidable(a, &standings) {
        return o;
    }
    let names = format!("{}'s winner that of {} (holds) or of {} (fails)", fs[0].name(), fs[1].name(), fs[2].name());
    let (grid, _) = telling_sizes(a, fs, true);
    let beyond = format!(
        "on every size measured: {names}: {}",
        if grid.at.is_empty() { "no size tells them apart".into() } else { grid.describe() }
    );
    if points.at.is_empty() {
        let why = format!("no size of the figures where {} and {} have different winners", fs[1].name(), fs[2].name());
        return Outcome::decided(
            Finding::undecided(None, why),
            a.tries().unwrap_or(0),
            format!("figures' sizes, end to end: {names}: none"),
        )
        .with_beyond(beyond);
    }
    Outcome::decided(
        judge::most_of(&points.findings()),
        points.n.unwrap_or(0),
        format!(
            "figures' sizes, end to end, at the sizes where {} and {} differ, {names}: {}",
            fs[1].name(),
            fs[2].name(),
            points.describe()
        ),
    )
    .with_beyond(beyond)
}
