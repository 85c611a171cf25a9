//! The paper's claims, one check each, registered in [`checks`] under the name
//! a spec's `check` uses (with the generic shapes of [`generic`], which judge
//! `gecga_identical`, `gm_population_not_smaller`, `population_growth`, `spc_small` and Figure 6's two claims); parameters are typed and
//! validated at load.
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
#[path = "claims_fig7.rs"]
mod fig7;
#[path = "claims_scalability.rs"]
mod scalability;
#[path = "claims_table5.rs"]
mod table5;

use super::GECGA;
use super::analysis::{Analysis, Fig6Run};
use crate::check;
use crate::claims::generic::{self, BySize};
use crate::claims::judge::Band;
use crate::claims::{Check, Model, Params};
use crate::library::ecga::Search;
use fig5::{spg_at_500, spg_grows};
use fig7::gm_faster;
use scalability::scale;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The paper's own checks (the generic shapes come with every paper: [`crate::experiments::load_spec`]).
pub(super) const CHECKS: &[Check<Analysis>] =
    &[check!("spg_grows", spg_grows), check!("spg_at_500", spg_at_500), check!("scale", scale), check!("gm_faster", gm_faster)];

/// The series the generic shapes judge: `gecga_identical` (Figure 5's gECGA
/// runs by ℓ, 1 where identical to the first CPU scorer's) and `table5_gm`,
/// `table5_greedy` (Table 5's bisected populations by ℓ) and `spc` (Figure 5's
/// FastCount speedups, [`fig5::spc`]); for the first screen, `fig7_gm_ms` and
/// `fig7_greedy_ms` (Figure 7's gECGA whole runs by ℓ, each search at its Table 5 population).
impl generic::Series for Analysis {
    const NAMES: &'static [&'static str] = &[
        "spc",
        "gecga_identical",
        "table5_gm",
        "table5_greedy",
        "fig6_quality_greedy",
        "fig6_quality_gm",
        "fig6_ones_greedy",
        "fig6_ones_gm",
        "fig7_gm_ms",
        "fig7_greedy_ms",
    ];

    fn points(&self, name: &str, sizes: Option<&Band>) -> generic::Points {
        match (name, sizes) {
            ("spc", Some(range)) => fig5::spc(self, range),
            _ => generic::Points::default(),
        }
    }

    fn by_size(&self, name: &str) -> Option<BySize> {
        let at = match name {
            "gecga_identical" => self
                .gecga_identical
                .iter()
                .map(|(l, &(same, runs))| (*l, (0..runs).map(|i| f64::from(u8::from(i < same))).collect()))
                .collect(),
            "table5_gm" | "table5_greedy" => {
                let search = if name == "table5_gm" { gm_name() } else { Search::Greedy.name() };
                self.table5.iter().filter(|(k, _)| k.0 == search).map(|(k, v)| (k.1, v.clone())).collect()
            }
            "fig6_quality_greedy" | "fig6_quality_gm" | "fig6_ones_greedy" | "fig6_ones_gm" => {
                return Some(BySize { symbol: "N", at: fig6_series(self, name)? });
            }
            "fig7_gm_ms" => self.fig7.iter().filter(|(_, gm)| gm.scorer == GECGA).map(|(l, gm)| (*l, gm.total.clone())).collect(),
            "fig7_greedy_ms" => self
                .fig7
                .iter()
                .filter(|(_, gm)| gm.scorer == GECGA)
                .filter_map(|(&l, _)| Some((l, self.times(l, GECGA)?.total.clone())))
                .collect(),
            _ => return None,
        };
        Some(BySize { symbol: "ℓ", at })
    }

    fn measured_as(&self, name: &str) -> Option<String> {
        let what = if name.starts_with("fig6_quality_") {
            "model quality over a run but its last generation"
        } else if name.starts_with("fig6_ones_") {
            "mean ratio of ones after selection over generations 1 to the longest run's last (a run that ended keeps its last value)"
        } else {
            return name.starts_with("table5_").then(|| table5::table5_rule(self));
        };
        Some(format!("{what}, at the paper's conditions"))
    }

    fn absent(&self, name: &str) -> Option<String> {
        (name == "gecga_identical").then(|| Some(format!("{GECGA}: {}", self.gecga_absent.as_ref()?))).flatten()
    }

    /// gECGA's identity beyond whole runs: one model build per ℓ, and the counting kernel alone.
    fn beyond(&self, name: &str) -> Vec<String> {
        if name != "gecga_identical" {
            return Vec::new();
        }
        let mut notes: Vec<String> = self
            .build
            .iter()
            .filter_map(|(ell, (_, scorers))| {
                let t = scorers.get(GECGA).filter(|t| t.runs > 0)?;
                Some(format!(
                    "one model build of the first selection at ℓ = {ell}: same MPM as the baseline's in {} of {}",
                    t.identical, t.runs
                ))
            })
            .collect();
        if self.count_identical.1 > 0 {
            notes.push(format!(
                "the counting kernel alone at the scalability point's N: {} of {} group sizes counted bit for bit as on the CPU",
                self.count_identical.0, self.count_identical.1
            ));
        }
        notes
    }
}

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

/// Figure 6 by population N, at each N where both searches ran: `fig6_<what>_<search>`, one value
/// per run of `search` (greedy or gm): its model quality over its generations but its last
/// (`quality`), or its mean ratio of ones after selection up to the longest run's last generation
/// of either search at that N (`ones`: every run counts, those that never come near 1 included).
fn fig6_series(a: &Analysis, name: &str) -> Option<BTreeMap<usize, Vec<f64>>> {
    let (what, search) = name.strip_prefix("fig6_")?.split_once('_')?;
    let search = if search == "gm" { gm_name() } else { Search::Greedy.name() };
    let runs = |s: &str, n: usize| a.fig6_runs.get(&(s.to_owned(), n));
    let at = |n: usize| {
        let both = [runs(Search::Greedy.name(), n)?, runs(gm_name(), n)?];
        let horizon = both.iter().flat_map(|r| r.values()).map(Fig6Run::last_generation).max().unwrap_or(0);
        let value = |r: &Fig6Run| if what == "quality" { r.overall_quality() } else { r.mean_ones_over(horizon) };
        Some((n, runs(search, n)?.values().filter_map(value).collect()))
    };
    Some(a.fig6_runs.keys().filter(|k| k.0 == search).filter_map(|k| at(k.1)).collect())
}

fn gm_name() -> &'static str {
    Search::GreedyMating.name()
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
