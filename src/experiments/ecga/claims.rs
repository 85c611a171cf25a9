//! The paper's claims, one check each, registered in [`CHECKS`] under the name
//! a spec's `check` uses; parameters are typed and validated at load.
//!
//! Each check judges the paper's own range and settings (Table 5 and Figure 7:
//! ℓ = 50–350; Figure 5: ℓ = 50–500; gECGA as the scorer where the paper
//! used it); what the records hold beyond them goes to [`Outcome::beyond`].
//! A check measures and the rules of [`judge`] decide: comparisons of searches
//! or sizes by Welch's 95% interval ([`judge::order`]: a tie is inconclusive,
//! with the runs it would need), bounds and bands by an estimate's 95%
//! interval, and a claim's points combined by the rule its wording implies
//! (named in each check's comment).

#[path = "claims_fig5.rs"]
mod fig5;
#[path = "claims_fig6.rs"]
mod fig6;
#[path = "claims_fig7.rs"]
mod fig7;
#[path = "claims_scalability.rs"]
mod scalability;
#[path = "claims_table5.rs"]
mod table5;

use super::analysis::Analysis;
use crate::check;
use crate::claims::judge::{self, Band, Comparison, Finding};
use crate::claims::{Check, Model, Outcome, Params};
use crate::fmt::fmt_mean;
use crate::library::ecga::Search;
use fig5::{gecga_identical, spc_small, spg_at_500, spg_grows};
use fig6::{greedy_converges_earlier, greedy_quality_higher};
use fig7::gm_faster;
use scalability::scale;
use serde::Deserialize;
use table5::{gm_population_not_smaller, population_growth};

pub const CHECKS: &[Check<Analysis>] = &[
    check!("gm_population_not_smaller", gm_population_not_smaller),
    check!("population_growth", population_growth),
    check!("gecga_identical", gecga_identical),
    check!("spg_grows", spg_grows),
    check!("spc_small", spc_small),
    check!("spg_at_500", spg_at_500),
    check!("greedy_quality_higher", greedy_quality_higher),
    check!("greedy_converges_earlier", greedy_converges_earlier),
    check!("scale", scale),
    check!("gm_faster", gm_faster),
];

/// The paper's sizes ℓ a claim applies to, and the runs each size needs.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizesRuns {
    range: Band,
    min_n: usize,
}

impl Params for SizesRuns {
    fn validate(&self) -> Result<(), (String, String)> {
        positive_range(&self.range)?;
        at_least("min_n", self.min_n, 2)
    }
}

/// A power law fitted to Table 5 whose exponent must lie in `exponent`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Growth {
    range: Band,
    exponent: Band,
    /// Bisections each size needs, and sizes the fit needs.
    min_n: usize,
    min_sizes: usize,
}

impl Params for Growth {
    fn validate(&self) -> Result<(), (String, String)> {
        positive_range(&self.range)?;
        at_least("min_n", self.min_n, 1)?;
        at_least("min_sizes", self.min_sizes, 3)
    }
}

/// A speedup that must stay at most `max` (its 95% interval wholly below: [`judge::at_most`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmallSpeedup {
    range: Band,
    max: f64,
    min_n: usize,
}

impl Params for SmallSpeedup {
    fn validate(&self) -> Result<(), (String, String)> {
        positive_range(&self.range)?;
        if !(self.max > 1.0 && self.max.is_finite()) {
            return Err(("max".into(), format!("a bound on a speedup must be above 1, not {}", self.max)));
        }
        at_least("min_n", self.min_n, 2)
    }
}

/// The paper's speedups at its ℓ: measured / paper in `band`; outside it, the
/// hardware `model` may explain the difference.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperSpeedup {
    band: Band,
    min_n: usize,
    #[serde(default)]
    model: Option<Model>,
}

impl Params for PaperSpeedup {
    fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    fn validate(&self) -> Result<(), (String, String)> {
        self.band.check_ratio("band")?;
        at_least("min_n", self.min_n, 1)
    }
}

/// Runs each population size needs (Figure 6).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Runs {
    min_n: usize,
}

impl Params for Runs {
    fn validate(&self) -> Result<(), (String, String)> {
        at_least("min_n", self.min_n, 2)
    }
}

/// Figure 7: the sizes and runs of the comparison, and the hardware model
/// that may explain its result (Amdahl's law: `model = { amdahl = 1.0 }`),
/// predicting each ℓ within `band` (measured / predicted), from the paper's
/// model-building share of gECGA's whole run (`paper_share`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GmFaster {
    range: Band,
    min_n: usize,
    band: Band,
    #[serde(default)]
    model: Option<Model>,
    paper_share: f64,
}

impl Params for GmFaster {
    fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    fn validate(&self) -> Result<(), (String, String)> {
        positive_range(&self.range)?;
        self.band.check_ratio("band")?;
        if !(self.paper_share > 0.0 && self.paper_share < 1.0) {
            return Err(("paper_share".into(), format!("a share of the whole run must be in (0, 1), not {}", self.paper_share)));
        }
        at_least("min_n", self.min_n, 2)
    }
}

/// Section 5.4: the searches that must build the model at the paper's point,
/// and the fraction of the planted blocks each must find exactly.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleParams {
    searches: Vec<String>,
    min_quality: f64,
}

impl Params for ScaleParams {
    fn validate(&self) -> Result<(), (String, String)> {
        if !(self.min_quality > 0.0 && self.min_quality <= 1.0) {
            return Err(("min_quality".into(), format!("a fraction of the planted blocks must be in (0, 1], not {}", self.min_quality)));
        }
        let known = [Search::Greedy.name(), Search::GreedyMating.name()];
        match self.searches.iter().find(|s| !known.contains(&s.as_str())) {
            _ if self.searches.is_empty() => Err(("searches".into(), "name one search or more".into())),
            Some(s) => Err(("searches".into(), format!("unknown search `{s}` (known: {})", known.join(", ")))),
            None => Ok(()),
        }
    }
}

fn positive_range(range: &Band) -> Result<(), (String, String)> {
    if range.low >= 1.0 {
        Ok(())
    } else {
        Err(("range".into(), format!("sizes ℓ must be positive, not [{}, {}]", range.low, range.high)))
    }
}

fn at_least(key: &str, v: usize, min: usize) -> Result<(), (String, String)> {
    if v >= min { Ok(()) } else { Err((key.into(), format!("must be at least {min}, not {v}"))) }
}

/// One size of a comparison "A against B": its label and both samples.
struct Sample {
    label: String,
    a: Vec<f64>,
    b: Vec<f64>,
}

impl Sample {
    fn n(&self) -> usize {
        self.a.len().min(self.b.len())
    }
}

/// How a claim's points combine: [`judge::all_of`] or [`judge::any_none_against`].
type Rule = fn(&[Finding]) -> Finding;

/// Fewer runs than the claim needs: undecided, needing `min_n`.
fn too_few(min_n: usize) -> Finding {
    Finding::undecided(Some(min_n), format!("fewer runs than the claim needs ({min_n})"))
}

/// The runs a verdict over points of `ns` runs rests on: the fewest of any
/// point with enough runs, else the most of any.
fn fewest(ns: impl Iterator<Item = usize> + Clone, min_n: usize) -> usize {
    ns.clone().filter(|&n| n >= min_n).min().or_else(|| ns.max()).unwrap_or(0)
}

/// A claim "A is `want` than B" over several sizes: at each size A's runs
/// against B's by Welch ([`judge::order`]; a size with fewer than `min_n` runs
/// is undecided, needing them), the sizes combined by `rule`. `words` name A
/// as the claim wants it and the opposite.
fn across_sizes(samples: &[Sample], want: Comparison, min_n: usize, rule: Rule, names: (&str, &str), words: [&str; 2]) -> Outcome {
    let mut count = [0; 4];
    let mut findings = Vec::new();
    let mut parts = Vec::new();
    for s in samples {
        let f = if s.n() < min_n { too_few(min_n) } else { judge::order(&s.a, &s.b, want) };
        let (k, word) = match &f {
            Finding::Holds => (0, words[0].to_owned()),
            Finding::Undecided { .. } if s.n() < min_n => (3, format!("too few runs (n = {})", s.n())),
            Finding::Undecided { .. } => (1, "tie".to_owned()),
            Finding::Fails(_) => (2, words[1].to_owned()),
        };
        count[k] += 1;
        findings.push(f);
        parts.push(format!("{}: {} {} vs {} {} — {word}", s.label, names.0, fmt_mean(&s.a), names.1, fmt_mean(&s.b)));
    }
    let few = if count[3] > 0 { format!(", too few runs at {}", count[3]) } else { String::new() };
    let evidence = format!(
        "{} at {} of {} sizes, tie at {}, {} at {}{few}: {}",
        words[0],
        count[0],
        samples.len(),
        count[1],
        words[1],
        count[2],
        parts.join("; ")
    );
    Outcome::decided(rule(&findings), fewest(samples.iter().map(Sample::n), min_n), evidence)
}

/// The sizes of `keys` inside and outside `range`.
fn split<K: Copy>(keys: impl Iterator<Item = (usize, K)>, range: &Band) -> (Vec<K>, Vec<K>) {
    let (inside, outside): (Vec<_>, Vec<_>) = keys.partition(|(size, _)| range.contains(*size as f64));
    (inside.into_iter().map(|k| k.1).collect(), outside.into_iter().map(|k| k.1).collect())
}

fn gm_name() -> &'static str {
    Search::GreedyMating.name()
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
