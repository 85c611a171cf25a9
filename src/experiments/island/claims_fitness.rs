//! The fitness claims of Figure 4: more and larger islands give better
//! fitness, and the steps between island counts Section VI calls significant,
//! each judged by Welch's interval of the best fitness.

use super::analysis::{Analysis, Run};
use super::claims_common::{Invalid, at_least, inside, plural};
use crate::claims::judge;
use crate::claims::{Band, Budget, Comparison, Ctx, Finding, Outcome, Params};
use crate::fmt::fmt_mean;
use crate::spec::Pair;
use serde::Deserialize;

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

fn with_budget(o: Outcome, budget: Option<Budget>) -> Outcome {
    match budget {
        Some(b) => o.with_budget(b),
        None => o,
    }
}

/// Figure 4: more islands and larger islands give better fitness.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MoreIslandsBetter {
    /// The paper's island counts and island sizes.
    islands: Band,
    sizes: Band,
    min_n: usize,
}

impl Params for MoreIslandsBetter {
    fn validate(&self) -> Invalid {
        at_least("min_n", self.min_n, 2, "a comparison needs the spread of repeated runs")
    }
}

/// The fewest and most islands, and the smallest and largest islands, of the
/// paper's range in the grid: each larger one against the smaller by Welch's
/// interval of the best fitness ([`judge::order`]). The paper's curves rise at
/// every size and island count, so every pair must hold ([`judge::all_of`]): one
/// worse decides against, a tie leaves the claim inconclusive with the runs it
/// would need. The budget (generations) goes to the framework's rule.
pub(super) fn more_islands_better(p: &MoreIslandsBetter, a: &Analysis, _: &Ctx) -> Outcome {
    if a.grid.is_empty() {
        return Outcome::not_run("no grid runs in these records");
    }
    let islands: Vec<usize> = a.grid_islands().into_iter().filter(|&i| inside(&p.islands, i)).collect();
    let sizes: Vec<usize> = a.grid_sizes().into_iter().filter(|&n| inside(&p.sizes, n)).collect();
    let outside: Vec<String> = a
        .grid
        .keys()
        .filter(|&&(i, n)| !inside(&p.islands, i) || !inside(&p.sizes, n))
        .map(|&(i, n)| format!("{i} × {n}: best {}", fmt_mean(&a.grid_values(i, n, |r| r.best))))
        .collect();
    let beyond = if outside.is_empty() {
        String::new()
    } else {
        format!("outside the paper's {} islands of {}: {}", p.islands, p.sizes, outside.join(", "))
    };
    let (Some(&i0), Some(&i1), Some(&n0), Some(&n1)) = (islands.first(), islands.last(), sizes.first(), sizes.last()) else {
        return Outcome::not_run("no grid runs in the paper's range").with_beyond(beyond);
    };
    if i0 == i1 || n0 == n1 {
        return Outcome::not_run("needs two island counts and two island sizes in the paper's range").with_beyond(beyond);
    }
    let best = |i, n| a.grid_values(i, n, |r| r.best);
    let mut pairs: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    pairs.extend(sizes.iter().map(|&n| (format!("{i0} → {i1} islands of {n}"), best(i0, n), best(i1, n))));
    pairs.extend(islands.iter().map(|&i| (format!("{} of {n0} → {n1}", plural(i, "island")), best(i, n0), best(i, n1))));
    let n = pairs.iter().flat_map(|(_, x, y)| [x.len(), y.len()]).min().unwrap_or(0);
    let findings: Vec<Finding> = pairs.iter().map(|(_, lo, hi)| judge::order(hi, lo, Comparison::Greater)).collect();
    let lines: Vec<String> = pairs
        .iter()
        .zip(&findings)
        .map(|((what, lo, hi), f)| format!("{what}: {} → {} ({})", fmt_mean(lo), fmt_mean(hi), order_word(f)))
        .collect();
    let evidence = format!("best fitness, mean ± 95% CI; Welch 95% interval of the difference: {}", lines.join("; "));
    let compared = islands.iter().flat_map(|&i| sizes.iter().map(move |&n| (i, n))).filter_map(|k| a.grid.get(&k)).flatten();
    let budget = grid_budget(compared);
    if n < p.min_n {
        return with_budget(Outcome::too_few(n, p.min_n, evidence).with_beyond(beyond), budget);
    }
    with_budget(Outcome::decided(judge::all_of(&findings), n, evidence).with_beyond(beyond), budget)
}

/// Figure 4: the steps between island counts the paper calls significant.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IslandStepsSignificant {
    /// (fewer, more) island counts.
    steps: Vec<Pair<usize>>,
    sizes: Band,
    min_n: usize,
}

impl Params for IslandStepsSignificant {
    fn validate(&self) -> Invalid {
        if let Some(s) = self.steps.iter().find(|s| s.0[0] >= s.0[1]) {
            return Err(("steps".into(), format!("a step goes from fewer islands to more, not {} → {}", s.0[0], s.0[1])));
        }
        if self.steps.is_empty() {
            return Err(("steps".into(), "at least one step".into()));
        }
        at_least("min_n", self.min_n, 2, "a comparison needs the spread of repeated runs")
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

    /// "6 → 7 islands of 128: +1234 ± 567 (Welch 95%, n = 3 / 3, better)".
    pub fn describe(&self) -> String {
        let diff = self.welch().map_or("—".into(), |(d, h)| format!("{d:+.0} ± {h:.0}"));
        let (a, b) = self.n();
        format!("{} → {} islands of {}: {diff} (Welch 95%, n = {a} / {b}, {})", self.fewer, self.more, self.size, self.word())
    }
}

/// Every step at every island size of the paper's range in the grid must be a
/// gain by Welch's interval: the paper calls each significant, so every point
/// must hold ([`judge::all_of`]); a tie is inconclusive with the runs it would
/// need. Steps the grid lacks make the claim not run here unless a step present
/// already decides against it. The budget (generations) goes to the framework's rule.
pub(super) fn island_steps_significant(p: &IslandStepsSignificant, a: &Analysis, _: &Ctx) -> Outcome {
    if a.grid.is_empty() {
        return Outcome::not_run("no grid runs in these records");
    }
    let sizes: Vec<usize> = a.grid_sizes().into_iter().filter(|&n| inside(&p.sizes, n)).collect();
    let (mut steps, mut missing) = (Vec::new(), Vec::new());
    for s in &p.steps {
        let [fewer, more] = s.0;
        for &size in &sizes {
            match Step::of(a, fewer, more, size) {
                Some(step) => steps.push(step),
                None => missing.push(format!("{fewer} → {more} of {size}")),
            }
        }
    }
    if steps.is_empty() {
        return Outcome::not_run(format!("none of the steps in the grid's island counts ({})", missing.join(", ")));
    }
    let lines: Vec<String> = steps.iter().map(Step::describe).collect();
    let evidence = format!("best fitness, more − fewer islands: {}", lines.join("; "));
    let budget =
        grid_budget(steps.iter().flat_map(|s| [a.grid.get(&(s.fewer, s.size)), a.grid.get(&(s.more, s.size))]).flatten().flatten());
    let n = steps.iter().map(|s| s.n().0.min(s.n().1)).min().unwrap_or(0);
    if n < p.min_n {
        return with_budget(Outcome::too_few(n, p.min_n, evidence), budget);
    }
    let finding = judge::all_of(&steps.iter().map(Step::finding).collect::<Vec<_>>());
    if !missing.is_empty() && !finding.fails() {
        return Outcome::not_run(format!("steps not in the grid: {}", missing.join(", "))).with_beyond(evidence);
    }
    with_budget(Outcome::decided(finding, n, evidence), budget)
}
