//! Generic checks: the shapes of claim that recur across papers, declared in a
//! spec by name and parameters, on any analysis that names its samples
//! ([`Series`]). A paper adds [`checks`] to its table and writes by hand only
//! the checks no shape here fits.
//!
//! - `faster`: series `a` takes less time than series `b` (Welch's 95% interval
//!   of the difference of means, [`judge::order`]; a tie is inconclusive).
//! - `ratio_to_paper`: mean(`a`) / mean(`b`) against the paper's `paper` value,
//!   within `band` of it ([`judge::ratio`]: outside falls short or exceeds,
//!   across an edge is inconclusive with the runs needed).

use super::judge::{self, Band, Comparison};
use super::{Check, Ctx, Estimate, Outcome, Params};
use serde::Deserialize;

/// An analysis that names its samples: one value per run of the series `name`,
/// None where its records hold none.
pub trait Series {
    fn series(&self, name: &str) -> Option<Vec<f64>>;
}

/// The generic checks, for a paper whose analysis is `A`.
pub fn checks<A: Series>() -> [Check<A>; 2] {
    [crate::check!("faster", faster::<A>), crate::check!("ratio_to_paper", ratio_to_paper::<A>)]
}

/// `faster`: the series compared and the runs each needs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FasterParams {
    /// The series claimed faster (lower times).
    pub a: String,
    pub b: String,
    #[serde(default = "two")]
    pub min_n: usize,
}

/// `ratio_to_paper`: measured mean(a) / mean(b) against the paper's value.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatioParams {
    pub a: String,
    pub b: String,
    /// The paper's value of the ratio.
    pub paper: f64,
    /// Measured / paper that reproduces it.
    pub band: Band,
    #[serde(default = "two")]
    pub min_n: usize,
}

fn two() -> usize {
    2
}

impl Params for FasterParams {
    fn validate(&self) -> Result<(), (String, String)> {
        min_n_of(self.min_n)
    }
}

impl Params for RatioParams {
    fn validate(&self) -> Result<(), (String, String)> {
        if !(self.paper > 0.0 && self.paper.is_finite()) {
            return Err(("paper".into(), format!("the paper's ratio must be positive and finite, not {}", self.paper)));
        }
        self.band.check_ratio("band")?;
        min_n_of(self.min_n)
    }
}

fn min_n_of(n: usize) -> Result<(), (String, String)> {
    if n >= 2 { Ok(()) } else { Err(("min_n".into(), format!("a spread needs at least 2 runs, not {n}"))) }
}

/// The two series' samples, or the outcome that says why they cannot be judged.
fn samples<A: Series>(analysis: &A, a: &str, b: &str, min_n: usize) -> Result<(Vec<f64>, Vec<f64>), Outcome> {
    let (Some(x), Some(y)) = (analysis.series(a), analysis.series(b)) else {
        return Err(Outcome::not_run(format!("no records of `{a}` and `{b}` on this machine")));
    };
    let n = x.len().min(y.len());
    judge::enough(n, min_n, &format!("`{a}` against `{b}`"))?;
    Ok((x, y))
}

fn faster<A: Series>(p: &FasterParams, analysis: &A, _ctx: &Ctx) -> Outcome {
    let (x, y) = match samples(analysis, &p.a, &p.b, p.min_n) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let finding = judge::order(&x, &y, Comparison::Less);
    let evidence =
        format!("`{}` {} against `{}` {} (n = {} and {}): {}", p.a, mean_text(&x), p.b, mean_text(&y), x.len(), y.len(), finding.word());
    Outcome::decided(finding, x.len().min(y.len()), evidence)
}

fn ratio_to_paper<A: Series>(p: &RatioParams, analysis: &A, ctx: &Ctx) -> Outcome {
    let (x, y) = match samples(analysis, &p.a, &p.b, p.min_n) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let Some(measured) = Estimate::ratio_of_means(&x, &y) else {
        return Outcome::not_run(format!("`{}` / `{}`: no ratio of means", p.a, p.b));
    };
    judge::ratio(&format!("`{}` / `{}`", p.a, p.b), measured, p.paper, &p.band, None, &[], ctx)
}

fn mean_text(xs: &[f64]) -> String {
    crate::fmt::fmt_num(xs.iter().sum::<f64>() / xs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::Verdict;
    use crate::records::MachineRecords;
    use crate::spec::PaperHardware;
    use std::collections::BTreeMap;

    struct Runs(BTreeMap<&'static str, Vec<f64>>);
    impl Series for Runs {
        fn series(&self, name: &str) -> Option<Vec<f64>> {
            self.0.get(name).cloned()
        }
    }

    fn judged<P>(f: fn(&P, &Runs, &Ctx) -> Outcome, p: &P, a: Vec<f64>, b: Vec<f64>) -> Outcome {
        let machine = MachineRecords { hw_id: "m".into(), rows: vec![] };
        let paper: PaperHardware = toml::from_str("gpu = \"g\"\ncpu = \"c\"\ncuda = \"1\"\ngpu_bandwidth_gbs = 100.0").unwrap();
        let runs = Runs(BTreeMap::from([("a", a), ("b", b)]));
        f(p, &runs, &Ctx { machine: &machine, paper: &paper })
    }

    #[test]
    fn faster_holds_fails_and_ties_by_welch() {
        let p = FasterParams { a: "a".into(), b: "b".into(), min_n: 3 };
        let holds = judged(faster, &p, vec![1.0, 1.1, 0.9], vec![2.0, 2.1, 1.9]);
        assert_eq!(holds.verdict, Verdict::Reproduced, "{}", holds.evidence);
        let fails = judged(faster, &p, vec![2.0, 2.1, 1.9], vec![1.0, 1.1, 0.9]);
        assert!(matches!(fails.verdict, Verdict::NotReproduced(_)), "{}", fails.evidence);
        let tie = judged(faster, &p, vec![1.0, 2.0, 1.5], vec![1.5, 1.0, 2.0]);
        assert!(matches!(tie.verdict, Verdict::Inconclusive { .. }), "{}", tie.evidence);
        let few = judged(faster, &p, vec![1.0, 1.1], vec![2.0, 2.1]);
        assert!(matches!(few.verdict, Verdict::Inconclusive { n_needed: Some(3), .. }), "{:?}", few.verdict);
    }

    #[test]
    fn ratio_to_paper_reads_its_band_both_ways() {
        let p = RatioParams { a: "a".into(), b: "b".into(), paper: 2.0, band: Band { low: 0.8, high: 1.25 }, min_n: 3 };
        let inside = judged(ratio_to_paper, &p, vec![4.0, 4.1, 3.9], vec![2.0, 2.05, 1.95]);
        assert_eq!(inside.verdict, Verdict::Reproduced, "{}", inside.evidence);
        let above = judged(ratio_to_paper, &p, vec![8.0, 8.1, 7.9], vec![2.0, 2.05, 1.95]);
        assert_eq!(above.verdict.direction(), Some(crate::claims::Direction::Exceeds), "{}", above.evidence);
        let below = judged(ratio_to_paper, &p, vec![2.0, 2.1, 1.9], vec![2.0, 2.05, 1.95]);
        assert_eq!(below.verdict.direction(), Some(crate::claims::Direction::FallsShort), "{}", below.evidence);
        let none = judged(ratio_to_paper, &RatioParams { a: "c".into(), ..p }, vec![1.0], vec![1.0]);
        assert_eq!(none.verdict.kind(), crate::claims::VerdictKind::NotRun, "{}", none.evidence);
    }

    #[test]
    fn parameters_are_checked() {
        let bad = RatioParams { a: "a".into(), b: "b".into(), paper: 0.0, band: Band { low: 0.8, high: 1.25 }, min_n: 2 };
        assert_eq!(bad.validate().unwrap_err().0, "paper");
        assert_eq!(FasterParams { a: "a".into(), b: "b".into(), min_n: 1 }.validate().unwrap_err().0, "min_n");
    }
}
