//! The fitness claims of Figure 4, their pairs of samples: more and larger
//! islands give better fitness, and the steps between island counts Section VI
//! calls significant (both judged by the generic `order_at_points`, Welch's
//! interval of the best fitness at every pair).

use super::analysis::{Analysis, Run};
use super::claims_common::{inside, plural};
use super::spec::Figure4;
use crate::claims::generic::{AtSize, Pairs};
use crate::claims::judge;
use crate::claims::{Budget, Comparison, Finding};
use crate::fmt::fmt_mean;

/// Section VI: "All results shown here represent averaged values after 100k generations over 30 independent runs."
const PAPER_GENERATIONS: f64 = 100_000.0;

/// A word for a comparison's finding in evidence lines: "better", "worse", "tie (n ≈ 31 a side would decide)".
fn order_word(f: &Finding) -> String {
    match f {
        Finding::Holds => "better".into(),
        Finding::Fails(_) => "worse".into(),
        Finding::Undecided { n_needed: Some(k), why } => format!("undecided: {why}; n ≈ {k} a side"),
        Finding::Undecided { n_needed: None, why } => format!("undecided: {why}"),
    }
}

/// The grid's budget against the paper's 100k generations (the fewest generations of the runs compared).
fn grid_budget<'r>(runs: impl Iterator<Item = &'r Run>) -> Option<Budget> {
    runs.map(|r| r.generations).min().map(|g| Budget::new(f64::from(g), PAPER_GENERATIONS, "generations"))
}

/// Figure 4's setting where the grid has runs to judge in it, else the pairs that say why there are none.
fn setting(a: &Analysis) -> Result<&Figure4, Pairs> {
    let absent = |why: &str| Pairs { absent: Some(why.into()), ..Pairs::default() };
    let f = a.figure4().ok_or_else(|| absent("no Figure 4 setting"))?;
    if a.grid.is_empty() { Err(absent("no grid runs in these records")) } else { Ok(f) }
}

/// `more_and_larger_islands` (Figure 4, judged by the generic `order_at_points`):
/// within Figure 4's setting (the spec's `[figure4]`), the fewest against the
/// most islands at every island size and the smallest against the largest
/// islands at every island count, the best fitness of each run; the paper's
/// curves rise at every size and island count. Grid points outside the setting
/// go beyond the paper.
pub(super) fn more_and_larger_islands(a: &Analysis) -> Pairs {
    let f = match setting(a) {
        Ok(f) => f,
        Err(none) => return none,
    };
    let islands: Vec<usize> = a.grid_islands().into_iter().filter(|&i| inside(&f.islands, i)).collect();
    let sizes: Vec<usize> = a.grid_sizes().into_iter().filter(|&n| inside(&f.sizes, n)).collect();
    let outside: Vec<String> = a
        .grid
        .keys()
        .filter(|&&(i, n)| !inside(&f.islands, i) || !inside(&f.sizes, n))
        .map(|&(i, n)| format!("{i} × {n}: best {}", fmt_mean(&a.grid_values(i, n, |r| r.best))))
        .collect();
    let beyond = if outside.is_empty() {
        String::new()
    } else {
        format!("outside the paper's {} islands of {}: {}", f.islands, f.sizes, outside.join(", "))
    };
    let (Some(&i0), Some(&i1), Some(&n0), Some(&n1)) = (islands.first(), islands.last(), sizes.first(), sizes.last()) else {
        return Pairs { absent: Some("no grid runs in the paper's range".into()), beyond, ..Pairs::default() };
    };
    if i0 == i1 || n0 == n1 {
        let why = "needs two island counts and two island sizes in the paper's range";
        return Pairs { absent: Some(why.into()), beyond, ..Pairs::default() };
    }
    let best = |i, n| a.grid_values(i, n, |r| r.best);
    let mut at: Vec<AtSize> =
        sizes.iter().map(|&n| AtSize { label: format!("{i0} → {i1} islands of {n}"), a: best(i1, n), b: best(i0, n) }).collect();
    at.extend(islands.iter().map(|&i| AtSize { label: format!("{} of {n0} → {n1}", plural(i, "island")), a: best(i, n1), b: best(i, n0) }));
    let compared = islands.iter().flat_map(|&i| sizes.iter().map(move |&n| (i, n))).filter_map(|k| a.grid.get(&k)).flatten();
    Pairs {
        setting: "best fitness of the larger setting against the smaller, mean ± 95% CI, Welch's 95% interval of the difference".into(),
        at,
        beyond,
        budget: grid_budget(compared),
        ..Pairs::default()
    }
}

/// `island_steps` (Figure 4, judged by the generic `order_at_points`): each
/// step between island counts the paper calls significant (the spec's
/// `[figure4] steps`), at every island size of its setting in the grid, the
/// best fitness of more islands against fewer; steps the grid lacks are named.
pub(super) fn island_steps(a: &Analysis) -> Pairs {
    let f = match setting(a) {
        Ok(f) => f,
        Err(none) => return none,
    };
    let sizes: Vec<usize> = a.grid_sizes().into_iter().filter(|&n| inside(&f.sizes, n)).collect();
    let (mut steps, mut missing) = (Vec::new(), Vec::new());
    for &(fewer, more) in &f.steps {
        for &size in &sizes {
            match Step::of(a, fewer, more, size) {
                Some(step) => steps.push(step),
                None => missing.push(format!("{fewer} → {more} of {size}")),
            }
        }
    }
    let budget =
        grid_budget(steps.iter().flat_map(|s| [a.grid.get(&(s.fewer, s.size)), a.grid.get(&(s.more, s.size))]).flatten().flatten());
    Pairs {
        setting: "best fitness, more islands against fewer, mean ± 95% CI, Welch's 95% interval of the difference".into(),
        at: steps
            .into_iter()
            .map(|s| AtSize { label: format!("{} → {} islands of {}", s.fewer, s.more, s.size), a: s.hi, b: s.lo })
            .collect(),
        missing,
        absent: Some("none of the steps in the grid's island counts".into()),
        budget,
        ..Pairs::default()
    }
}

/// One step of Figure 4 at one island size: the best fitness of fewer and of more islands.
pub(super) struct Step {
    pub fewer: usize,
    pub more: usize,
    pub size: usize,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl Step {
    pub fn of(a: &Analysis, fewer: usize, more: usize, size: usize) -> Option<Step> {
        let (lo, hi) = (a.grid_values(fewer, size, |r| r.best), a.grid_values(more, size, |r| r.best));
        if lo.is_empty() || hi.is_empty() {
            return None;
        }
        Some(Step { fewer, more, size, lo, hi })
    }

    /// Runs of fewer and of more islands.
    pub fn n(&self) -> (usize, usize) {
        (self.lo.len(), self.hi.len())
    }

    /// Difference of the means and the half-width of Welch's 95% interval (None: fewer than two runs on a side).
    pub fn welch(&self) -> Option<(f64, f64)> {
        crate::stats::welch(&self.hi, &self.lo)
    }

    /// More islands better than fewer, by Welch's interval ([`judge::order`]).
    pub fn finding(&self) -> Finding {
        judge::order(&self.hi, &self.lo, Comparison::Greater)
    }

    /// "better", "worse" or why undecided.
    pub fn word(&self) -> String {
        order_word(&self.finding())
    }
}
