//! What an analysis names for the generic checks ([`super::generic`]): its
//! series by run, by size, as labelled points of the paper's setting or as
//! pairs of samples, with what lies outside the setting and why a series is
//! absent.

use super::Estimate;
use super::judge::Band;
use std::collections::{BTreeMap, BTreeSet};

/// An analysis that names its samples. Every method has a default (no
/// samples): a paper implements what its claims use.
pub trait Series {
    /// Every series name the analysis answers to: a claim or headline naming
    /// another is a spec error at load ([`super::Claims::bind`]), not a claim
    /// "not run here" on every machine.
    const NAMES: &'static [&'static str];

    /// One value per run of the series `name`, None where its records hold none.
    fn series(&self, _name: &str) -> Option<Vec<f64>> {
        None
    }

    /// The series `name` by problem size, None where its records hold none.
    fn by_size(&self, _name: &str) -> Option<BySize> {
        None
    }

    /// Why the records hold no `name` on this machine, where they say (a run not run, with its reason).
    fn absent(&self, _name: &str) -> Option<String> {
        None
    }

    /// How the records measured `name`, where the evidence must say it (a rule the samples followed).
    fn measured_as(&self, _name: &str) -> Option<String> {
        None
    }

    /// What the records show of `name` besides the samples a claim judges (the report's beyond the paper).
    fn beyond(&self, _name: &str) -> Vec<String> {
        Vec::new()
    }

    /// The points of `name` in the paper's setting (`sizes`: the claim's sizes, if any), with what lies outside it.
    fn points(&self, _name: &str, _sizes: Option<&Band>) -> Points {
        Points::default()
    }

    /// The pairs of samples of `name` in the paper's setting.
    fn pairs(&self, _name: &str) -> Pairs {
        Pairs::default()
    }
}

/// Whether `a` holds samples of the series `name` by any of [`Series`]'s ways
/// (runs, sizes, points at any size or none, pairs): a name an analysis lists in
/// [`Series::NAMES`] but none of its methods answers would leave every claim on
/// it "not run here" on every machine (the papers' records are tested for it).
pub fn measures<A: Series>(a: &A, name: &str) -> bool {
    a.series(name).is_some_and(|v| !v.is_empty())
        || a.by_size(name).is_some_and(|b| b.at.values().any(|v| !v.is_empty()))
        || [None, Some(&Band { low: 0.0, high: f64::INFINITY })].into_iter().any(|sizes| !a.points(name, sizes).at.is_empty())
        || !a.pairs(name).at.is_empty()
}

/// A claim's pairs of samples in the paper's setting: at each labelled point the runs of A and of B.
#[derive(Default)]
pub struct Pairs {
    /// What the samples are, for the evidence: "best fitness, more islands against fewer".
    pub setting: String,
    pub at: Vec<AtSize>,
    /// The setting's points the records lack ("6 → 7 of 128").
    pub missing: Vec<String>,
    /// Why there are none, where the records say.
    pub absent: Option<String>,
    /// What the records show outside the setting.
    pub beyond: String,
    /// The budget the pairs were measured at.
    pub budget: Option<super::Budget>,
    /// What stands in for the paper's data among the pairs, where something does (the framework sets the claim aside).
    pub stand_in: Option<String>,
}

/// A claim's labelled estimates in the paper's setting.
#[derive(Clone, Debug, Default)]
pub struct Points {
    /// Where and what was measured, for the evidence: "the ring over several GPUs (NCCL), 2048 per island, migration's share (%)".
    pub setting: String,
    /// Each point's label ("6 islands (3+3)") and estimate.
    pub at: Vec<(String, Estimate)>,
    /// The harness runs (`run_id`) whose records each point pools, by label: a
    /// hardware model reads its measured ceilings from them.
    pub runs: BTreeMap<String, BTreeSet<i64>>,
    /// Why there are none, where the records say.
    pub absent: Option<String>,
    /// Why the points, measured outside the paper's setting, do not judge the claim (they go beyond the paper).
    pub set_aside: Option<String>,
    /// What the records show outside the setting (the report's beyond the paper).
    pub beyond: String,
    /// The budget the points were measured at.
    pub budget: Option<super::Budget>,
    /// The claim's measured value over the paper's, where the analysis defines one (shown when decided).
    pub ratio: Option<f64>,
    /// The paper's values over the points, for `up_to`.
    pub paper: Paper,
}

/// The paper's values over a claim's points.
#[derive(Clone, Debug, Default)]
pub enum Paper {
    /// None given.
    #[default]
    Unknown,
    /// Only its largest ("up to 13×": the table's points did not survive).
    Largest(f64),
    /// One at each point of [`Points::at`], in the same order (Table 3's speedups).
    Each(Vec<f64>),
}

/// A series by problem size: the paper's symbol for the size and one value per run at each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BySize {
    /// "ℓ", "N".
    pub symbol: &'static str,
    pub at: BTreeMap<usize, Vec<f64>>,
}

impl BySize {
    /// The values at the sizes inside `range`, and at those outside it.
    pub(super) fn split(&self, range: &Band) -> [Vec<f64>; 2] {
        let at = |inside: bool| self.at.iter().filter(|(k, _)| range.contains(**k as f64) == inside).flat_map(|(_, v)| v.clone()).collect();
        [at(true), at(false)]
    }
}

/// One size of a comparison "A against B": its label ("ℓ = 50") and both samples.
pub struct AtSize {
    pub label: String,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

impl AtSize {
    /// The fewer runs of the two samples.
    pub fn n(&self) -> usize {
        self.a.len().min(self.b.len())
    }
}
