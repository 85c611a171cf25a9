//! Claims and verdicts: one model for every paper, decided here and nowhere else.
//!
//! A paper lists its claims in its spec (`[[claims]]`: id, source, the paper's
//! words, its provenance, the `check` that judges it and that check's
//! parameters). Its module keeps a table of small check functions ([`Check`],
//! made with [`check!`]), each taking typed parameters (validated when the spec
//! is loaded: a missing, mistyped or out-of-range parameter is a spec error
//! naming file, line and key) and the paper's analysis of one machine's
//! records. A check measures; the rules of [`judge`] decide, the same for every
//! paper:
//!
//! - every quantity carries its 95% interval ([`Estimate`]); a ratio to the
//!   paper's value whose interval lies inside the claim's band is
//!   **reproduced**, wholly outside it **not reproduced** (falling short of or
//!   exceeding the paper: [`Direction`]) or **differs on this hardware** when a
//!   computed model predicts each point it uses ([`Explanation`]), and across
//!   an edge **inconclusive**, with the runs the observed spread would need;
//! - comparisons of methods or sizes use Welch's 95% interval: a tie, or equal
//!   counts, is **inconclusive**, never "not reproduced";
//! - fewer runs than the claim needs, or a sweep with cases missing, is
//!   **inconclusive** too;
//! - **not run here** when the records hold nothing to judge (with the reason),
//!   when the evidence needs a stand-in data set, or when it was measured below
//!   the paper's budget and the claim does not tolerate that ([`finalize`]);
//! - **not judged** (counted as not run) when a paper claim's only evidence on
//!   a machine is a smoke profile's (`smoke = true`, every `quick`): a smoke
//!   test of the harness never decides a paper claim ([`smoke_gate`]).
//!
//! Each claim is the paper's (with its quoted sentence) or the harness's own
//! check ([`Provenance`]): the two are shown and counted apart everywhere.
//! What lies outside the paper's range goes to [`Outcome::beyond`], shown in
//! the report's own *beyond the paper* section and never in the verdict.

mod binding;
pub mod estimate;
pub mod generic;
pub mod hardware;
pub mod judge;
pub mod series;

use crate::spec::{ClaimSpec, Provenance, ReducedBudget};
use serde::{Deserialize, Serialize};

pub use binding::{Bound, Check, Claims, Ctx, NoParams, Params, bind};
pub use estimate::Estimate;
pub use hardware::{Explanation, Model, Point};
pub use judge::{Band, Comparison, Finding};

/// Which way a measurement outside the band lies from the paper's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Below the band, or the paper's order not found (the opposite one was).
    FallsShort,
    /// Above the band.
    Exceeds,
}

impl Direction {
    pub fn label(self) -> &'static str {
        match self {
            Direction::FallsShort => "falls short of the paper",
            Direction::Exceeds => "exceeds the paper",
        }
    }
}

/// Why a claim was not judged on a machine.
#[derive(Clone, Debug, PartialEq)]
pub enum NotRun {
    /// The records hold nothing to judge: no GPU, no runs of the profile…
    Here(String),
    /// The evidence needs a stand-in for the paper's data set (its numbers go beyond the paper).
    StandIn(String),
    /// Measured below the paper's budget, which the claim does not tolerate.
    ReducedBudget(Budget),
    /// The machine's evidence is a smoke profile's only (`smoke = true`: the
    /// harness tested at reduced sizes and runs), which never judges a paper claim.
    Smoke(String),
}

/// A budget below the paper's: `used` of the paper's `paper` `unit`.
#[derive(Clone, Debug, PartialEq)]
pub struct Budget {
    pub used: f64,
    pub paper: f64,
    /// What is counted: "generations", "runs per point", "GA iterations".
    pub unit: String,
}

impl Budget {
    pub fn new(used: f64, paper: f64, unit: impl Into<String>) -> Budget {
        Budget { used, paper, unit: unit.into() }
    }

    pub fn is_reduced(&self) -> bool {
        self.used < self.paper
    }

    /// "reduced budget (2000 of the paper's 100000 generations)".
    pub fn label(&self) -> String {
        use crate::fmt::fmt_num;
        format!("reduced budget ({} of the paper's {} {})", fmt_num(self.used), fmt_num(self.paper), self.unit)
    }
}

/// Verdict of one claim on one machine.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Reproduced,
    /// Decided against the claim; which way, where a way applies.
    NotReproduced(Option<Direction>),
    /// Differs on this hardware, with the computed explanation (its direction inside).
    Differs(Explanation),
    /// The data cannot decide: `n` runs, `n_needed` by the observed spread
    /// (None: no number of runs would, e.g. equal counts), and why.
    Inconclusive {
        n: usize,
        n_needed: Option<usize>,
        why: String,
    },
    /// Rests on a profile whose sweep is incomplete here: `stored` of its
    /// `planned` cases (counted as inconclusive).
    Incomplete {
        profile: String,
        stored: usize,
        planned: usize,
    },
    /// Not run here, with the reason.
    NotRun(NotRun),
}

/// The kind of a verdict, without its detail: what indexes count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    Reproduced,
    NotReproduced,
    Differs,
    Inconclusive,
    NotRun,
}

impl VerdictKind {
    pub const ALL: [VerdictKind; 5] =
        [VerdictKind::Reproduced, VerdictKind::NotReproduced, VerdictKind::Differs, VerdictKind::Inconclusive, VerdictKind::NotRun];

    pub fn label(self) -> &'static str {
        match self {
            VerdictKind::Reproduced => "reproduced",
            VerdictKind::NotReproduced => "not reproduced",
            VerdictKind::Differs => "differs on this hardware",
            VerdictKind::Inconclusive => "inconclusive",
            VerdictKind::NotRun => "not run here",
        }
    }

    /// The snake-case key of `verdicts.json`.
    pub fn key(self) -> &'static str {
        match self {
            VerdictKind::Reproduced => "reproduced",
            VerdictKind::NotReproduced => "not_reproduced",
            VerdictKind::Differs => "differs",
            VerdictKind::Inconclusive => "inconclusive",
            VerdictKind::NotRun => "not_run",
        }
    }
}

impl Verdict {
    pub fn kind(&self) -> VerdictKind {
        match self {
            Verdict::Reproduced => VerdictKind::Reproduced,
            Verdict::NotReproduced(_) => VerdictKind::NotReproduced,
            Verdict::Differs(_) => VerdictKind::Differs,
            Verdict::Inconclusive { .. } | Verdict::Incomplete { .. } => VerdictKind::Inconclusive,
            Verdict::NotRun(_) => VerdictKind::NotRun,
        }
    }

    /// The direction of a verdict outside the band.
    pub fn direction(&self) -> Option<Direction> {
        match self {
            Verdict::NotReproduced(d) => *d,
            Verdict::Differs(e) => Some(e.direction),
            _ => None,
        }
    }

    /// The runs the observed spread would need to decide (inconclusive verdicts).
    pub fn n_needed(&self) -> Option<usize> {
        match self {
            Verdict::Inconclusive { n_needed, .. } => *n_needed,
            _ => None,
        }
    }

    pub fn label(&self) -> String {
        match self {
            Verdict::Reproduced => "reproduced".into(),
            Verdict::NotReproduced(None) => "not reproduced".into(),
            Verdict::NotReproduced(Some(d)) => format!("not reproduced: {}", d.label()),
            Verdict::Differs(e) => format!("differs on this hardware: {} ({e})", e.direction.label()),
            Verdict::Inconclusive { n, n_needed, why } => {
                let need = match n_needed {
                    Some(k) => format!("; the observed spread needs n ≈ {k}"),
                    None => String::new(),
                };
                format!("inconclusive ({why}; n = {n}{need})")
            }
            Verdict::Incomplete { profile, stored, planned } => {
                format!("inconclusive (incomplete: sweep `{profile}` has {stored} of {planned} cases)")
            }
            Verdict::NotRun(NotRun::Here(why)) => format!("not run here ({why})"),
            Verdict::NotRun(NotRun::StandIn(what)) => format!("not run here (stand-in: {what})"),
            Verdict::NotRun(NotRun::ReducedBudget(b)) => format!("not run here ({})", b.label()),
            Verdict::NotRun(NotRun::Smoke(profiles)) => format!("not judged here (smoke profile {profiles} only)"),
        }
    }

    /// Whether the verdict decides the claim one way or the other.
    pub fn is_decided(&self) -> bool {
        matches!(self.kind(), VerdictKind::Reproduced | VerdictKind::NotReproduced | VerdictKind::Differs)
    }
}

/// A quantitative claim's numbers: the measured value with its interval, the
/// paper's value, the band on measured / paper and that ratio with its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantified {
    pub measured: Estimate,
    pub paper: f64,
    pub band: Band,
    pub ratio: Estimate,
}

/// What a check found on one machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub verdict: Verdict,
    /// The measured values the verdict rests on, with n.
    pub evidence: String,
    /// Measured value over the paper's, for quantitative claims.
    pub ratio: Option<f64>,
    /// The numbers of a quantitative claim, with their intervals.
    pub quantity: Option<Quantified>,
    /// The runs the verdict rests on (the fewest of any sample it compares).
    pub n: Option<usize>,
    /// What was measured outside the paper's range or settings (never part of the verdict).
    pub beyond: Option<String>,
    /// Set by the check when its evidence uses a stand-in data set (what stands in for what).
    pub stand_in: Option<String>,
    /// Set by the check when its evidence was measured at a budget it can compare with the paper's.
    pub budget: Option<Budget>,
}

impl Outcome {
    pub fn new(verdict: Verdict, evidence: impl Into<String>) -> Outcome {
        let n = match &verdict {
            Verdict::Inconclusive { n, .. } => Some(*n),
            _ => None,
        };
        Outcome { verdict, evidence: evidence.into(), ratio: None, quantity: None, n, beyond: None, stand_in: None, budget: None }
    }

    pub fn not_run(reason: impl Into<String>) -> Outcome {
        Outcome::new(Verdict::NotRun(NotRun::Here(reason.into())), "")
    }

    /// Fewer runs than the claim needs: inconclusive, needing `needs`.
    pub fn too_few(n: usize, needs: usize, evidence: impl Into<String>) -> Outcome {
        let why = format!("fewer runs than the claim needs ({needs})");
        Outcome::new(Verdict::Inconclusive { n, n_needed: Some(needs), why }, evidence)
    }

    /// The verdict a [`Finding`] over `n` runs gives.
    pub fn decided(finding: Finding, n: usize, evidence: impl Into<String>) -> Outcome {
        Outcome { n: Some(n), ..Outcome::new(finding.verdict(n), evidence) }
    }

    pub fn with_ratio(mut self, ratio: f64) -> Outcome {
        self.ratio = ratio.is_finite().then_some(ratio);
        self
    }

    /// Adds what lies beyond the paper's range (ignored when empty).
    pub fn with_beyond(mut self, beyond: impl Into<String>) -> Outcome {
        let b = beyond.into();
        self.beyond = (!b.is_empty()).then_some(b);
        self
    }

    /// Marks the evidence as resting on a stand-in data set.
    pub fn with_stand_in(mut self, what: impl Into<String>) -> Outcome {
        self.stand_in = Some(what.into());
        self
    }

    /// Records the budget the evidence was measured at.
    pub fn with_budget(mut self, budget: Budget) -> Outcome {
        self.budget = Some(budget);
        self
    }

    /// The verdict as reports print it: with "reduced budget (k of n)" where
    /// a tolerated reduced budget decided it.
    pub fn label(&self) -> String {
        match self.budget.as_ref().filter(|b| b.is_reduced()) {
            Some(b) if !matches!(self.verdict, Verdict::NotRun(_)) => format!("{}, {}", self.verdict.label(), b.label()),
            _ => self.verdict.label(),
        }
    }

    /// Moves the evidence to `beyond` and replaces the verdict by `not run`.
    fn set_aside(self, why: NotRun) -> Outcome {
        let beyond = [Some(self.evidence.clone()).filter(|e| !e.is_empty()), self.beyond.clone()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("; ");
        Outcome { verdict: Verdict::NotRun(why), evidence: String::new(), ratio: None, quantity: None, ..self }.with_beyond(beyond)
    }
}

/// The rules every claim's outcome passes through after its check, the same
/// for every paper: a paper claim whose evidence needs a stand-in data set is
/// not run here (its numbers go beyond the paper); evidence below the paper's
/// budget is not run here unless the spec says the claim tolerates it
/// (`reduced_budget = "judge"`), in which case its label says so.
pub fn finalize(spec: &ClaimSpec, o: Outcome) -> Outcome {
    if matches!(o.verdict, Verdict::NotRun(_)) {
        return o;
    }
    if let Some(what) = o.stand_in.clone()
        && spec.provenance == Provenance::Paper
    {
        return o.set_aside(NotRun::StandIn(what));
    }
    match o.budget.clone() {
        Some(b) if b.is_reduced() && spec.reduced_budget == ReducedBudget::Gate => o.set_aside(NotRun::ReducedBudget(b)),
        _ => o,
    }
}

/// The smoke gate: a smoke profile never decides a paper claim. `judged` are
/// the claims judged on every record of `machine`, `without` the same judged
/// without its smoke profiles' (`profiles`, named in the label). A paper claim
/// of `machine` takes its outcome without them; where nothing else judges it,
/// it is not judged (smoke profile), its evidence kept.
pub fn smoke_gate(judged: Vec<ClaimResult>, without: &[ClaimResult], machine: &str, profiles: &str) -> Vec<ClaimResult> {
    judged
        .into_iter()
        .map(|mut c| {
            if c.machine != machine || !c.is_paper() {
                return c;
            }
            let other = without.iter().find(|w| w.id == c.id && w.machine == c.machine).map(|w| &w.outcome);
            match other {
                Some(o) if !matches!(o.verdict, Verdict::NotRun(_)) => c.outcome = o.clone(),
                _ if !matches!(c.outcome.verdict, Verdict::NotRun(_)) => {
                    let o = c.outcome.clone();
                    let evidence = format!("on the smoke profile's records: {}; {}", o.label(), o.evidence);
                    c.outcome = Outcome {
                        verdict: Verdict::NotRun(NotRun::Smoke(profiles.to_owned())),
                        evidence,
                        ratio: None,
                        quantity: None,
                        ..o
                    };
                }
                _ => {}
            }
            c
        })
        .collect()
}

/// One checked claim on one machine.
#[derive(Clone, Debug)]
pub struct ClaimResult {
    pub id: String,
    pub source: String,
    pub text: String,
    pub provenance: Provenance,
    /// The paper's sentence (paper claims).
    pub quote: Option<String>,
    pub machine: String,
    pub outcome: Outcome,
    /// The number the first screen shows for the claim's table or figure, where
    /// the spec declares one (`headline`) and the records hold it; never part of the verdict.
    pub headline: Option<Headline>,
}

/// A table or figure's headline number measured on one machine, beside the paper's.
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    pub what: String,
    pub measured: Estimate,
    pub paper: f64,
    /// Measured over the paper's, with its interval.
    pub ratio: Estimate,
}

impl ClaimResult {
    pub fn of(c: &ClaimSpec, machine: &str, outcome: Outcome) -> ClaimResult {
        ClaimResult {
            id: c.id.clone(),
            source: c.source.clone(),
            text: c.text.clone(),
            provenance: c.provenance,
            quote: c.quote.clone(),
            machine: machine.to_owned(),
            outcome,
            headline: None,
        }
    }

    /// The same claim not run on a machine, for the one reason given.
    pub fn not_run(c: &ClaimSpec, machine: &str, reason: &str) -> ClaimResult {
        ClaimResult::of(c, machine, Outcome::not_run(reason))
    }

    pub fn is_paper(&self) -> bool {
        self.provenance == Provenance::Paper
    }
}

/// Counts of each verdict kind, in [`VerdictKind::ALL`] order.
pub fn counts<'a>(results: impl IntoIterator<Item = &'a ClaimResult>) -> [usize; 5] {
    let mut n = [0; 5];
    for r in results {
        n[VerdictKind::ALL.iter().position(|k| *k == r.outcome.verdict.kind()).expect("listed")] += 1;
    }
    n
}

/// "3 reproduced, 1 not reproduced, …" (kinds with a count only).
pub fn counts_line(n: &[usize; 5]) -> String {
    let parts: Vec<String> = VerdictKind::ALL.iter().zip(n).filter(|(_, c)| **c > 0).map(|(k, c)| format!("{c} {}", k.label())).collect();
    if parts.is_empty() { "no claims".into() } else { parts.join(", ") }
}

/// "paper claims: 3 reproduced, 1 inconclusive; harness checks: 2 reproduced":
/// the paper's claims and the harness's own checks, counted apart.
pub fn counts_by_provenance<'a>(results: impl IntoIterator<Item = &'a ClaimResult> + Clone) -> String {
    let paper = counts(results.clone().into_iter().filter(|r| r.is_paper()));
    let harness = counts(results.into_iter().filter(|r| !r.is_paper()));
    let mut parts = vec![format!("paper claims: {}", counts_line(&paper))];
    if harness.iter().sum::<usize>() > 0 {
        parts.push(format!("harness checks: {}", counts_line(&harness)));
    }
    parts.join("; ")
}

#[cfg(test)]
pub mod testing;

#[cfg(test)]
mod tests;
