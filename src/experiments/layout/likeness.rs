//! Two claims of the paper's text that compare strategies or functions as a
//! whole: registers are more robust than shared memory (Sections 4.1 and 4.3),
//! and Rana behaves like the heavy f4 (Section 4.4). Both are judged on the
//! figures' sizes (the paper's sweep) on end-to-end times; every size measured
//! goes to `beyond`.
//!
//! "Robust": how far a strategy can fall behind. At each size its *relative
//! time* is its mean over the fastest of S1–S4 there; a size it cannot run at
//! (the paper's NAN) is unbounded. Its robustness is its worst relative time.
//!
//! "Behaves like": the same winner of the paper's five columns at the same
//! size, and the same order of the five by time (Spearman's rank correlation).

use super::analysis::{Analysis, Cell, Standing};
use super::claims::{list, size, undecidable};
use super::spec::{Class, Func, GPU_CLASSES, PAPER_CLASSES, Size};
use crate::claims::judge::{self, Comparison, fmt_ratio};
use crate::claims::{Ctx, Outcome, Params, Verdict};
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

/// One strategy's robustness over some (function, size) pairs.
#[derive(Debug)]
pub struct Robustness {
    /// Worst relative time where it ran, where, and its tries there over the fastest mean.
    pub worst: Option<(f64, String, Vec<f64>)>,
    /// Where it could not run.
    pub blocked: Vec<String>,
    /// (Function, size) pairs where some GPU strategy ran.
    pub sizes: usize,
}

impl Robustness {
    /// Over each figure's sizes (or every size measured, `grid`); None when
    /// some strategy has fewer tries than a decision takes (paper's sweep only).
    pub fn of(a: &Analysis, class: &str, functions: &[Func], grid: bool) -> Result<Robustness, Outcome> {
        let mut r = Robustness { worst: None, blocked: vec![], sizes: 0 };
        for Func(f) in functions {
            let fig = if grid { a.grid_of(*f) } else { a.figure_of(*f) };
            for &s in fig.map_or(&[][..], |x| &x.sizes) {
                let ran: Vec<(&str, &[f64])> = GPU_CLASSES.iter().filter_map(|c| a.timed(*f, s, c).map(|t| (*c, &t.walls[..]))).collect();
                let Some(best) = ran.iter().map(|(_, xs)| mean(xs)).min_by(f64::total_cmp) else { continue };
                if let Some(n) = ran.iter().map(|(_, xs)| xs.len()).min().filter(|n| *n < a.min_n && !grid) {
                    return Err(Outcome::too_few(n, a.min_n, format!("{} {}: {n} tries", f.name(), size(s))));
                }
                r.sizes += 1;
                let at = format!("{} {}", f.name(), size(s));
                match a.get(*f, s, class) {
                    Some(Cell::Ok(t)) => {
                        let rel = t.summary.mean / best;
                        if r.worst.as_ref().is_none_or(|w| rel > w.0) {
                            r.worst = Some((rel, at, t.walls.iter().map(|x| x / best).collect()));
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

    /// "worst 3.10× the fastest GPU strategy (f4_heavy 1000×4000); cannot run at 4 of 63 (…)".
    fn describe(&self) -> String {
        let worst =
            self.worst.as_ref().map_or("ran nowhere".into(), |w| format!("worst {} the fastest GPU strategy ({})", fmt_ratio(w.0), w.1));
        let blocked = if self.blocked.is_empty() {
            format!("runs at all {}", self.sizes)
        } else {
            format!("cannot run at {} of {} ({})", self.blocked.len(), self.sizes, list(&self.blocked))
        };
        format!("{worst}; {blocked}")
    }
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Which of two strategies is more robust: fewer sizes it cannot run at, else
/// the lower worst relative time by Welch's 95% interval over the tries at the
/// two worst sizes (overlap: a tie).
pub fn more_robust(x: &Robustness, y: &Robustness) -> Comparison {
    match x.blocked.len().cmp(&y.blocked.len()) {
        std::cmp::Ordering::Less => Comparison::Less,
        std::cmp::Ordering::Greater => Comparison::Greater,
        std::cmp::Ordering::Equal => match (&x.worst, &y.worst) {
            (Some(a), Some(b)) => judge::compare(&a.2, &b.2).unwrap_or(Comparison::Tie),
            _ => Comparison::Tie,
        },
    }
}

/// The register strategy of every pair is more robust than the shared-memory one.
pub(super) fn registers_more_robust(p: &Robust, a: &Analysis, _: &Ctx) -> Outcome {
    if !a.gpu_ran {
        return Outcome::not_run(a.gpu_absent.clone());
    }
    let judge_pairs = |grid: bool| -> Result<(bool, Vec<String>), Outcome> {
        let (mut ok, mut lines) = (true, Vec::new());
        for [Class(reg), Class(shared)] in &p.pairs {
            let (r, s) = (Robustness::of(a, reg, &p.functions, grid)?, Robustness::of(a, shared, &p.functions, grid)?);
            if r.sizes == 0 {
                return Err(Outcome::not_run("no GPU records at the paper's sizes"));
            }
            let verdict = match more_robust(&r, &s) {
                Comparison::Less => format!("{reg} more robust"),
                Comparison::Greater => {
                    ok = false;
                    format!("{shared} more robust")
                }
                Comparison::Tie => {
                    ok = false;
                    "neither (Welch's interval overlaps)".into()
                }
            };
            lines.push(format!("{reg} (registers): {}; {shared} (shared memory): {} → {verdict}", r.describe(), s.describe()));
        }
        Ok((ok, lines))
    };
    let (ok, lines) = match judge_pairs(false) {
        Ok(x) => x,
        Err(o) => return o,
    };
    let beyond = judge_pairs(true).map_or(String::new(), |(_, g)| format!("on every size measured — {}", g.join("; ")));
    let n = format!(" (relative time: mean end to end over the fastest of S1–S4 at the size; n ≥ {} tries each)", a.min_n);
    Outcome::new(Verdict::of(ok), format!("on the figures' sizes — {}{n}", lines.join("; "))).with_beyond(beyond)
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

/// Spearman's rank correlation of the mean times of the strategies both
/// functions ran at one size (None below two).
pub fn rank_correlation(a: &Analysis, f: Function, g: Function, s: Size) -> Option<f64> {
    let both: Vec<(f64, f64)> = PAPER_CLASSES.iter().filter_map(|c| Some((a.time(f, s, c)?, a.time(g, s, c)?))).collect();
    let k = both.len();
    if k < 2 {
        return None;
    }
    let rank = |i: usize, pick: fn(&(f64, f64)) -> f64| both.iter().filter(|x| pick(x) < pick(&both[i])).count() as f64;
    let d2: f64 = (0..k).map(|i| (rank(i, |x| x.0) - rank(i, |x| x.1)).powi(2)).sum();
    Some(1.0 - 6.0 * d2 / (k * (k * k - 1)) as f64)
}

/// How close two functions behave over some sizes: same winner, and mean rank correlation.
struct Closeness {
    same: Vec<Size>,
    rho: f64,
}

impl Closeness {
    fn of(a: &Analysis, f: Function, g: Function, sizes: &[Size]) -> Closeness {
        let same = sizes.iter().copied().filter(|s| a.winner(f, *s).first() == a.winner(g, *s).first()).collect();
        let rhos: Vec<f64> = sizes.iter().filter_map(|s| rank_correlation(a, f, g, *s)).collect();
        Closeness { same, rho: if rhos.is_empty() { f64::NAN } else { mean(&rhos) } }
    }
}

/// Sizes of the three functions' figures where each has a winner, the rest counted.
fn decided(a: &Analysis, fs: [Function; 3], grid: bool) -> (Vec<Size>, Vec<(Size, Standing)>, usize) {
    let fig = |f: Function| if grid { a.grid_of(f) } else { a.figure_of(f) };
    let sizes: Vec<Size> = fig(fs[0]).map_or(vec![], |x| {
        x.sizes.iter().copied().filter(|s| fs[1..].iter().all(|g| fig(*g).is_some_and(|y| y.sizes.contains(s)))).collect()
    });
    let mut standings = Vec::new();
    let mut won = Vec::new();
    let mut undecided = 0;
    for s in sizes {
        let st: Vec<Standing> = fs.iter().map(|f| a.winner(*f, s)).collect();
        if st.iter().all(|x| matches!(x, Standing::Won(..))) {
            won.push(s);
        } else if st.iter().any(|x| *x != Standing::Missing) {
            undecided += 1;
        }
        standings.extend(st.into_iter().map(|x| (s, x)));
    }
    (won, standings, undecided)
}

/// Rana (say) shares its winner with `like` at more sizes than with
/// `rather_than`, and its strategies' order correlates at least as well.
pub(super) fn behaves_like(p: &Like, a: &Analysis, _: &Ctx) -> Outcome {
    let (f, like, other) = (p.function.0, p.like.0, p.rather_than.0);
    let (won, standings, undecided) = decided(a, [f, like, other], false);
    if let Some(o) = undecidable(a, &standings) {
        return o;
    }
    if won.is_empty() {
        return Outcome::not_run(format!(
            "no size of the figures where {}, {} and {} each have a winner",
            f.name(),
            like.name(),
            other.name()
        ));
    }
    let line = |won: &[Size], undecided: usize| {
        let (cl, co) = (Closeness::of(a, f, like, won), Closeness::of(a, f, other, won));
        let differs = |c: &Closeness| won.iter().filter(|s| !c.same.contains(s)).map(|s| size(*s)).collect::<Vec<_>>();
        let text = format!(
            "over {} sizes where all three have a winner ({undecided} tied or undecided left out): {} shares its winner with {} at {} \
             (differs at {}) and with {} at {} (differs at {}); mean rank correlation of the five columns' times {:.2} with {} and \
             {:.2} with {}",
            won.len(),
            f.name(),
            like.name(),
            cl.same.len(),
            list(&differs(&cl)),
            other.name(),
            co.same.len(),
            list(&differs(&co)),
            cl.rho,
            like.name(),
            co.rho,
            other.name()
        );
        (cl.same.len() > co.same.len() && cl.rho >= co.rho, text)
    };
    let (ok, text) = line(&won, undecided);
    let (gwon, _, gund) = decided(a, [f, like, other], true);
    let beyond = if gwon.is_empty() { String::new() } else { format!("on every size measured: {}", line(&gwon, gund).1) };
    Outcome::new(Verdict::of(ok), format!("figures' sizes, end to end, n ≥ {} tries: {text}", a.min_n)).with_beyond(beyond)
}
