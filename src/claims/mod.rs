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

pub mod estimate;
pub mod generic;
pub mod hardware;
pub mod judge;

use crate::error::SpecError;
use crate::records::MachineRecords;
use crate::spec::{ClaimSpec, PaperHardware, Provenance, ReducedBudget, SpecFile};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

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

/// What a check sees of one machine besides the paper's analysis: its records
/// (ceilings, fingerprint) and the paper's hardware, for explanations.
pub struct Ctx<'a> {
    pub machine: &'a MachineRecords,
    pub paper: &'a PaperHardware,
}

/// A check's parameters, deserialized from the claim's `params` table.
pub trait Params: DeserializeOwned + Send + Sync + 'static {
    /// Range checks beyond the types: `Err((key, message))`.
    fn validate(&self) -> Result<(), (String, String)> {
        Ok(())
    }

    /// The hardware model the parameters hold, if any: its quantities must be
    /// given for the paper in `[paper.hardware.datasheet]` (checked at load).
    fn model(&self) -> Option<&Model> {
        None
    }
}

/// Checks without parameters.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}
impl Params for NoParams {}

/// A check bound to its validated parameters.
pub type Bound<A> = Box<dyn Fn(&A, &Ctx) -> Outcome + Send + Sync>;

/// One entry of a paper's table of checks: the name a spec's `check` uses and
/// how to bind its parameters. Made with [`check!`].
pub struct Check<A: 'static> {
    pub name: &'static str,
    pub bind: fn(&SpecFile, &ClaimSpec, &PaperHardware) -> Result<Bound<A>, SpecError>,
}

/// `check!("name", function)`: a table entry for `function(&P, &A, &Ctx) -> Outcome`,
/// whose parameters `P: Params` are read from the claim's `params`.
#[macro_export]
macro_rules! check {
    ($name:literal, $f:path) => {
        $crate::claims::Check { name: $name, bind: |file, claim, paper| $crate::claims::bind(file, claim, paper, $f) }
    };
}

/// Parses and validates a claim's parameters as `P` and binds them to `f`; a
/// model must name only quantities the paper's datasheet gives.
pub fn bind<A: 'static, P: Params>(
    file: &SpecFile,
    claim: &ClaimSpec,
    paper: &PaperHardware,
    f: fn(&P, &A, &Ctx) -> Outcome,
) -> Result<Bound<A>, SpecError> {
    let params: P = parse_params(file, claim)?;
    let missing = params.model().and_then(|m| m.quantities().find(|q| !paper.datasheet.contains_key(q)));
    let problem = match missing {
        Some(q) => Err(("model".to_owned(), format!("[paper.hardware.datasheet] gives no {} for the paper's machine", q.label()))),
        None => params.validate(),
    };
    if let Err((key, message)) = problem {
        let key = format!("claims.{}.params.{key}", claim.id);
        return Err(match &claim.params {
            Some(p) => file.invalid(p, &key, message),
            None => file.invalid(&claim.check, &key, message),
        });
    }
    Ok(Box::new(move |a, ctx| f(&params, a, ctx)))
}

/// Reads `P` from the claim's `params` text so that errors carry the line and key.
pub(crate) fn parse_params<P: Params>(file: &SpecFile, claim: &ClaimSpec) -> Result<P, SpecError> {
    let key = format!("claims.{}.params", claim.id);
    let invalid = |line: usize, message: String| SpecError::Invalid { path: file.path.clone(), line, key: key.clone(), message };
    let Some(params) = &claim.params else {
        // No `params` key: the check must take none (or only defaults).
        let empty = toml::Value::Table(toml::Table::new());
        return empty.try_into::<P>().map_err(|e| invalid(file.line_of(claim.check.span().start), e.message().into()));
    };
    let span = params.span();
    let text = &file.text[span.clone()];
    let de = toml::de::ValueDeserializer::parse(text).map_err(|e| invalid(file.line_of(span.start), e.message().into()))?;
    P::deserialize(de).map_err(|e| {
        let at = e.span().map_or(span.start, |s| span.start + s.start);
        invalid(file.line_of(at), e.message().to_owned())
    })
}

/// A spec's claims bound to one paper's checks.
pub struct Claims<A: 'static> {
    claims: Vec<(ClaimSpec, Bound<A>)>,
}

impl<A: 'static> Claims<A> {
    /// Binds every claim of the spec to its check in `table`; an unknown check or
    /// bad parameters is a spec error naming file, line and key.
    pub fn bind(file: &SpecFile, specs: &[ClaimSpec], paper: &PaperHardware, table: &[Check<A>]) -> Result<Claims<A>, SpecError> {
        let mut claims = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for c in specs {
            if !seen.insert(c.id.as_str()) {
                return Err(file.invalid(&c.check, "claims.id", format!("claim id `{}` appears twice", c.id)));
            }
            let Some(check) = table.iter().find(|k| k.name == c.check.get_ref()) else {
                let known: Vec<&str> = table.iter().map(|k| k.name).collect();
                return Err(file.invalid(
                    &c.check,
                    "claims.check",
                    format!("unknown check `{}` (known: {})", c.check.get_ref(), known.join(", ")),
                ));
            };
            match (c.provenance, &c.quote) {
                (Provenance::Paper, None) => {
                    let why = format!(
                        "paper claim `{}` quotes no sentence of the paper (`quote = \"…\"`, or `provenance = \"harness\"` for the harness's own check)",
                        c.id
                    );
                    return Err(file.invalid(&c.check, "claims.quote", why));
                }
                (Provenance::Harness, Some(_)) => {
                    let why = format!("`{}` is the harness's own check: it quotes no sentence of the paper", c.id);
                    return Err(file.invalid(&c.check, "claims.quote", why));
                }
                _ => {}
            }
            let reversed = c.needs.cases.iter().flatten().find(|(_, w)| matches!(w, crate::spec::Wanted::Range(r) if r.0[0] > r.0[1]));
            if let Some((param, crate::spec::Wanted::Range(r))) = reversed {
                let why = format!("`{param}` wants [{}, {}]: a range runs from low to high", r.0[0], r.0[1]);
                return Err(file.invalid(&c.check, "claims.needs.cases", why));
            }
            if c.needs.budget.as_ref().is_some_and(|b| b.of.is_empty()) {
                return Err(file.invalid(&c.check, "claims.needs.budget.of", "names no case parameter: the budget is their product"));
            }
            claims.push((c.clone(), (check.bind)(file, c, paper)?));
        }
        Ok(Claims { claims })
    }

    /// Every claim judged on one machine.
    pub fn judge(&self, analysis: &A, ctx: &Ctx) -> Vec<ClaimResult> {
        self.claims.iter().map(|(spec, run)| ClaimResult::of(spec, &ctx.machine.hw_id, finalize(spec, run(analysis, ctx)))).collect()
    }

    /// Every claim judged on every machine, each on its own analysis (`analysis`
    /// made once per machine, e.g. by the report that also shows it).
    pub fn judge_machines<'a, B: std::borrow::Borrow<A>>(
        &self,
        machines: &'a [MachineRecords],
        paper: &PaperHardware,
        analysis: impl Fn(&'a MachineRecords) -> anyhow::Result<B>,
    ) -> anyhow::Result<Vec<ClaimResult>> {
        let mut out = Vec::new();
        for m in machines {
            out.extend(self.judge(analysis(m)?.borrow(), &Ctx { machine: m, paper }));
        }
        Ok(out)
    }

    /// Judges the claim `id` alone (tests).
    pub fn judge_one(&self, id: &str, analysis: &A, ctx: &Ctx) -> Option<Outcome> {
        self.claims.iter().find(|(s, _)| s.id == id).map(|(spec, run)| finalize(spec, run(analysis, ctx)))
    }

    /// The claims as the spec gives them.
    pub fn specs(&self) -> Vec<&ClaimSpec> {
        self.claims.iter().map(|(s, _)| s).collect()
    }

    pub fn ids(&self) -> Vec<&str> {
        self.claims.iter().map(|(s, _)| s.id.as_str()).collect()
    }
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
mod tests {
    use super::*;
    use std::path::Path;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Limit {
        max: f64,
        #[serde(default = "two")]
        min_n: usize,
    }
    fn two() -> usize {
        2
    }
    impl Params for Limit {
        fn validate(&self) -> Result<(), (String, String)> {
            if self.max <= 0.0 { Err(("max".into(), format!("must be positive, not {}", self.max))) } else { Ok(()) }
        }
    }
    fn below(p: &Limit, a: &Vec<f64>, _: &Ctx) -> Outcome {
        if a.len() < p.min_n {
            return Outcome::too_few(a.len(), p.min_n, "");
        }
        let points: Vec<Finding> = a.iter().map(|x| judge::at_most(&Estimate::exact(*x), p.max)).collect();
        Outcome::decided(judge::all_of(&points), a.len(), format!("{a:?}"))
    }
    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Modelled {
        model: Option<Model>,
    }
    impl Params for Modelled {
        fn model(&self) -> Option<&Model> {
            self.model.as_ref()
        }
    }
    fn modelled(_: &Modelled, _: &Vec<f64>, _: &Ctx) -> Outcome {
        Outcome::not_run("test")
    }
    const TABLE: &[Check<Vec<f64>>] = &[check!("below", below), check!("modelled", modelled)];

    #[derive(serde::Deserialize)]
    struct Spec {
        claims: Vec<ClaimSpec>,
    }

    fn bind_text(text: &str) -> Result<Claims<Vec<f64>>, SpecError> {
        let file = SpecFile::from_text(Path::new("t.toml"), text.into());
        let spec: Spec = file.parse()?;
        Claims::bind(&file, &spec.claims, &testing::paper_hardware(), TABLE)
    }

    /// The error binding `text` gives (it must give one).
    fn bind_error(text: &str) -> String {
        bind_text(text).err().expect("refused").to_string()
    }

    const HEAD: &str = "[[claims]]\nid = \"a\"\nsource = \"s\"\ntext = \"t\"\nquote = \"q\"\ncheck = \"below\"\n";

    #[test]
    fn parameters_are_typed_and_checked_at_load() {
        let e = bind_error(&format!("{HEAD}params = {{ max = \"x\" }}\n"));
        assert!(e.contains("t.toml:7") && e.contains("claims.a.params") && e.contains("invalid type"), "{e}");
        let e = bind_error(&format!("{HEAD}params = {{ maxx = 1.0 }}\n"));
        assert!(e.contains("t.toml:7") && e.contains("maxx"), "{e}");
        let e = bind_error(HEAD);
        assert!(e.contains("missing field `max`"), "{e}");
        let e = bind_error(&format!("{HEAD}params = {{ max = -1.0 }}\n"));
        assert!(e.contains("t.toml:7") && e.contains("claims.a.params.max") && e.contains("must be positive"), "{e}");
        let e = bind_error(&HEAD.replace("\"below\"", "\"nope\""));
        assert!(e.contains("t.toml:6") && e.contains("unknown check `nope`") && e.contains("below"), "{e}");
        let e = bind_error(&format!("{HEAD}params = {{ max = 1.0 }}\n{HEAD}params = {{ max = 1.0 }}\n"));
        assert!(e.contains("appears twice"), "{e}");
        // A model may name only quantities the paper's datasheet gives (the test paper gives no SM count).
        let modelled = HEAD.replace("\"below\"", "\"modelled\"");
        assert!(bind_text(&format!("{modelled}params = {{ model = {{ gpu_bandwidth = 1.0 }} }}\n")).is_ok());
        let e = bind_error(&format!("{modelled}params = {{ model = {{ gpu_sms = 1.0 }} }}\n"));
        assert!(e.contains("t.toml:7") && e.contains("claims.a.params.model") && e.contains("gives no GPU SMs"), "{e}");
    }

    #[test]
    fn a_bound_check_reaches_each_verdict() {
        let claims = bind_text(&format!("{HEAD}params = {{ max = 1.0, min_n = 3 }}\n")).unwrap();
        let m = MachineRecords { hw_id: "m".into(), rows: vec![] };
        let hw = testing::paper_hardware();
        let ctx = Ctx { machine: &m, paper: &hw };
        let kind = |a: Vec<f64>| claims.judge_one("a", &a, &ctx).unwrap().verdict.kind();
        assert_eq!(kind(vec![0.5, 0.9, 1.0]), VerdictKind::Reproduced);
        assert_eq!(kind(vec![0.5, 0.9, 1.1]), VerdictKind::NotReproduced);
        assert_eq!(kind(vec![0.5]), VerdictKind::Inconclusive);
        assert_eq!(kind(vec![0.5, 1.0, 1.0]), VerdictKind::Reproduced);
        assert_eq!(claims.judge(&vec![2.0; 3], &ctx)[0].outcome.verdict, Verdict::NotReproduced(Some(Direction::Exceeds)));
    }

    #[test]
    fn paper_claims_quote_the_paper_and_harness_checks_do_not() {
        let no_quote = HEAD.replace("quote = \"q\"\n", "");
        let e = bind_error(&format!("{no_quote}params = {{ max = 1.0 }}\n"));
        assert!(e.contains("t.toml:5") && e.contains("claims.quote") && e.contains("quotes no sentence"), "{e}");
        let harness = no_quote.replace("text = \"t\"\n", "text = \"t\"\nprovenance = \"harness\"\n");
        assert!(bind_text(&format!("{harness}params = {{ max = 1.0 }}\n")).is_ok());
        let both = HEAD.replace("text = \"t\"\n", "text = \"t\"\nprovenance = \"harness\"\n");
        assert!(bind_error(&format!("{both}params = {{ max = 1.0 }}\n")).contains("harness's own check"));
    }

    /// A claim's `needs` is typed when the spec loads: a range of three values or a budget of nothing is refused, naming the line.
    #[test]
    fn needs_are_checked_at_load() {
        let ok = bind_text(&format!(
            "{HEAD}needs = {{ gpus = 1, cases = [{{ ell = [1, 2], figure = \"f\" }}], runs = \"run\" }}\nparams = {{ max = 1.0 }}\n"
        ));
        assert!(ok.is_ok());
        let e = bind_error(&format!("{HEAD}needs = {{ cases = [{{ ell = [1, 2, 3] }}] }}\nparams = {{ max = 1.0 }}\n"));
        assert!(e.contains("t.toml") && e.contains("line 7"), "{e}");
        let e = bind_error(&format!("{HEAD}needs = {{ gpu = true }}\nparams = {{ max = 1.0 }}\n"));
        assert!(e.contains("line 7") && e.contains("gpu"), "{e}");
        let e = bind_error(&format!("{HEAD}needs = {{ budget = {{ of = [], paper = 10 }} }}\nparams = {{ max = 1.0 }}\n"));
        assert!(e.contains("t.toml:6") && e.contains("claims.needs.budget.of"), "{e}");
        // A reversed range would match no case and read as "cases not planned": refused.
        let e = bind_error(&format!("{HEAD}needs = {{ cases = [{{ ell = [50, 1] }}] }}\nparams = {{ max = 1.0 }}\n"));
        assert!(e.contains("t.toml:6") && e.contains("`ell` wants [50, 1]"), "{e}");
        let e = bind_error(&format!("{HEAD}needs = {{ budget = {{ of = [\"g\"], paper = 0 }} }}\nparams = {{ max = 1.0 }}\n"));
        assert!(e.contains("line 7") && e.contains("positive"), "{e}");
    }

    fn spec_with(extra: &str) -> ClaimSpec {
        toml::from_str(&format!("id = \"c\"\nsource = \"s\"\ntext = \"t\"\ncheck = \"c\"\n{extra}")).unwrap()
    }

    #[test]
    fn stand_ins_and_reduced_budgets_are_decided_once_for_every_claim() {
        let decided = || Outcome::new(Verdict::Reproduced, "52.4× on SS").with_beyond("more");
        // A paper claim resting on a stand-in is not run here; its numbers go beyond the paper.
        let o = finalize(&spec_with(""), decided().with_stand_in("SS is a synthetic stand-in"));
        assert_eq!(o.verdict, Verdict::NotRun(NotRun::StandIn("SS is a synthetic stand-in".into())));
        assert_eq!(o.beyond.as_deref(), Some("52.4× on SS; more"));
        assert_eq!(o.verdict.label(), "not run here (stand-in: SS is a synthetic stand-in)");
        // The harness's own check may use one.
        let o = finalize(&spec_with("provenance = \"harness\""), decided().with_stand_in("SS"));
        assert_eq!(o.verdict, Verdict::Reproduced);
        // Below the paper's budget: gated by default, judged and labelled where the spec tolerates it.
        let budget = Budget::new(2000.0, 100000.0, "generations");
        let o = finalize(&spec_with(""), decided().with_budget(budget.clone()));
        assert_eq!(o.verdict.label(), "not run here (reduced budget (2000 of the paper's 100000 generations))");
        let o = finalize(&spec_with("reduced_budget = \"judge\""), decided().with_budget(budget));
        assert_eq!(o.label(), "reproduced, reduced budget (2000 of the paper's 100000 generations)");
        // At the paper's budget nothing changes.
        let o = finalize(&spec_with(""), decided().with_budget(Budget::new(30.0, 30.0, "runs")));
        assert_eq!(o.label(), "reproduced");
        // What was not run stays so.
        assert_eq!(finalize(&spec_with(""), Outcome::not_run("no GPU").with_stand_in("x")).verdict.label(), "not run here (no GPU)");
    }

    #[test]
    fn counts_follow_kinds() {
        let c = ClaimSpec::for_tests("x");
        let rs = [
            ClaimResult::of(&c, "m", Outcome::new(Verdict::Reproduced, "")),
            ClaimResult::of(&c, "m", Outcome::not_run("no GPU")),
            ClaimResult::of(&c, "m", Outcome::too_few(1, 3, "")),
        ];
        assert_eq!(counts(&rs), [1, 0, 0, 1, 1]);
        assert_eq!(counts_line(&counts(&rs)), "1 reproduced, 1 inconclusive, 1 not run here");
        assert_eq!(
            Outcome::too_few(2, 10, "").verdict.label(),
            "inconclusive (fewer runs than the claim needs (10); n = 2; the observed spread needs n ≈ 10)"
        );
        let incomplete = Verdict::Incomplete { profile: "quick".into(), stored: 10, planned: 15 };
        assert_eq!(incomplete.label(), "inconclusive (incomplete: sweep `quick` has 10 of 15 cases)");
        assert_eq!(incomplete.kind(), VerdictKind::Inconclusive);
    }

    /// A paper claim decided on a smoke profile's records alone reads "smoke profile"; one that other records decide
    /// takes their verdict; the harness's own checks keep theirs.
    #[test]
    fn a_smoke_profile_never_decides_a_paper_claim() {
        let (paper, mut harness) = (ClaimSpec::for_tests("p"), ClaimSpec::for_tests("h"));
        harness.provenance = Provenance::Harness;
        let other = ClaimSpec::for_tests("q");
        let judged = vec![
            ClaimResult::of(&paper, "m", Outcome::new(Verdict::Reproduced, "3 tries").with_ratio(1.1)),
            ClaimResult::of(&harness, "m", Outcome::new(Verdict::Reproduced, "ok")),
            ClaimResult::of(&other, "m", Outcome::new(Verdict::NotReproduced(None), "pooled")),
            ClaimResult::of(&paper, "elsewhere", Outcome::new(Verdict::Reproduced, "ok")),
        ];
        let without = vec![
            ClaimResult::not_run(&paper, "m", "no runs"),
            ClaimResult::not_run(&harness, "m", "no runs"),
            ClaimResult::of(&other, "m", Outcome::new(Verdict::Reproduced, "paper profile")),
        ];
        let gated = smoke_gate(judged, &without, "m", "`quick`");
        assert_eq!(gated[0].outcome.verdict, Verdict::NotRun(NotRun::Smoke("`quick`".into())));
        assert_eq!(gated[0].outcome.label(), "not judged here (smoke profile `quick` only)");
        assert_eq!(gated[0].outcome.ratio, None);
        assert!(gated[0].outcome.evidence.contains("reproduced; 3 tries"), "{}", gated[0].outcome.evidence);
        assert_eq!(gated[1].outcome.verdict, Verdict::Reproduced);
        assert_eq!(gated[2].outcome.verdict, Verdict::Reproduced);
        assert_eq!(gated[3].outcome.verdict, Verdict::Reproduced);
    }
}
