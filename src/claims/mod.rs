//! Claims and verdicts: one model for every paper.
//!
//! A paper lists its claims in its spec (`[[claims]]`: id, source, the paper's
//! words, the `check` that judges it and that check's parameters). Its module
//! keeps a table of small check functions ([`Check`], made with [`check!`]),
//! each taking typed parameters (validated when the spec is loaded: a missing,
//! mistyped or out-of-range parameter is a spec error naming file, line and
//! key) and the paper's analysis of one machine's records, and returning an
//! [`Outcome`]. The verdicts are the same for every paper:
//!
//! - **reproduced** — the measured value lies in the claim's band, on the paper's
//!   own range and settings, with at least the spec's minimum number of runs;
//! - **not reproduced** — it does not, and nothing measured explains why;
//! - **differs on this hardware** — it does not, and a quantity measured on this
//!   machine, set against the paper's hardware, predicts the difference
//!   ([`Explanation`], computed by [`hardware::Model`]; never a fixed sentence);
//! - **too few runs** — fewer runs than the claim needs to decide;
//! - **not run here** — the records hold nothing to judge (with the reason).
//!
//! What lies outside the paper's range goes to [`Outcome::beyond`], shown in
//! the report's own *beyond the paper* section and never in the verdict.

pub mod hardware;
pub mod judge;

use crate::error::SpecError;
use crate::report::MachineRecords;
use crate::spec::{ClaimSpec, PaperHardware, SpecFile};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use hardware::{Explanation, Model};
pub use judge::{Band, Comparison};

/// Verdict of one claim on one machine.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Reproduced,
    NotReproduced,
    /// Differs on this hardware, with the computed explanation.
    Differs(Explanation),
    /// Runs too few to decide: `n` of the `needs` the claim asks for.
    TooFewRuns {
        n: usize,
        needs: usize,
    },
    /// Rests on a profile whose sweep is incomplete here: `stored` of its
    /// `planned` cases (counted with "too few runs").
    Incomplete {
        profile: String,
        stored: usize,
        planned: usize,
    },
    /// Not run here, with the one-line reason.
    NotRun(String),
}

/// The kind of a verdict, without its detail: what indexes count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    Reproduced,
    NotReproduced,
    Differs,
    TooFewRuns,
    NotRun,
}

impl VerdictKind {
    pub const ALL: [VerdictKind; 5] =
        [VerdictKind::Reproduced, VerdictKind::NotReproduced, VerdictKind::Differs, VerdictKind::TooFewRuns, VerdictKind::NotRun];

    pub fn label(self) -> &'static str {
        match self {
            VerdictKind::Reproduced => "reproduced",
            VerdictKind::NotReproduced => "not reproduced",
            VerdictKind::Differs => "differs on this hardware",
            VerdictKind::TooFewRuns => "too few runs",
            VerdictKind::NotRun => "not run here",
        }
    }
}

impl Verdict {
    pub fn kind(&self) -> VerdictKind {
        match self {
            Verdict::Reproduced => VerdictKind::Reproduced,
            Verdict::NotReproduced => VerdictKind::NotReproduced,
            Verdict::Differs(_) => VerdictKind::Differs,
            Verdict::TooFewRuns { .. } | Verdict::Incomplete { .. } => VerdictKind::TooFewRuns,
            Verdict::NotRun(_) => VerdictKind::NotRun,
        }
    }

    pub fn label(&self) -> String {
        match self {
            Verdict::Reproduced | Verdict::NotReproduced => self.kind().label().into(),
            Verdict::Differs(e) => format!("differs on this hardware ({e})"),
            Verdict::TooFewRuns { n, needs } => format!("too few runs (n = {n}, needs {needs})"),
            Verdict::Incomplete { profile, stored, planned } => {
                format!("too few runs (incomplete: sweep `{profile}` has {stored} of {planned} cases)")
            }
            Verdict::NotRun(why) => format!("not run here ({why})"),
        }
    }

    /// Reproduced when `ok`, else not reproduced.
    pub fn of(ok: bool) -> Verdict {
        if ok { Verdict::Reproduced } else { Verdict::NotReproduced }
    }
}

/// What a check found on one machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub verdict: Verdict,
    /// The measured values the verdict rests on, with n.
    pub evidence: String,
    /// Measured value over the paper's, for quantitative claims.
    pub ratio: Option<f64>,
    /// What was measured outside the paper's range or settings (never part of the verdict).
    pub beyond: Option<String>,
}

impl Outcome {
    pub fn new(verdict: Verdict, evidence: impl Into<String>) -> Outcome {
        Outcome { verdict, evidence: evidence.into(), ratio: None, beyond: None }
    }

    pub fn not_run(reason: impl Into<String>) -> Outcome {
        Outcome::new(Verdict::NotRun(reason.into()), "")
    }

    pub fn too_few(n: usize, needs: usize, evidence: impl Into<String>) -> Outcome {
        Outcome::new(Verdict::TooFewRuns { n, needs }, evidence)
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
            claims.push((c.clone(), (check.bind)(file, c, paper)?));
        }
        Ok(Claims { claims })
    }

    /// Every claim judged on one machine.
    pub fn judge(&self, analysis: &A, ctx: &Ctx) -> Vec<ClaimResult> {
        self.claims.iter().map(|(spec, run)| ClaimResult::of(spec, &ctx.machine.hw_id, run(analysis, ctx))).collect()
    }

    /// Judges the claim `id` alone (tests).
    pub fn judge_one(&self, id: &str, analysis: &A, ctx: &Ctx) -> Option<Outcome> {
        self.claims.iter().find(|(s, _)| s.id == id).map(|(_, run)| run(analysis, ctx))
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
    pub machine: String,
    pub outcome: Outcome,
}

impl ClaimResult {
    pub fn of(c: &ClaimSpec, machine: &str, outcome: Outcome) -> ClaimResult {
        ClaimResult { id: c.id.clone(), source: c.source.clone(), text: c.text.clone(), machine: machine.to_owned(), outcome }
    }

    /// The same claim not run on a machine, for the one reason given.
    pub fn not_run(c: &ClaimSpec, machine: &str, reason: &str) -> ClaimResult {
        ClaimResult::of(c, machine, Outcome::not_run(reason))
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
        Outcome::new(Verdict::of(a.iter().all(|x| *x <= p.max)), format!("{a:?}"))
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

    const HEAD: &str = "[[claims]]\nid = \"a\"\nsource = \"s\"\ntext = \"t\"\ncheck = \"below\"\n";

    #[test]
    fn parameters_are_typed_and_checked_at_load() {
        let e = bind_text(&format!("{HEAD}params = {{ max = \"x\" }}\n")).err().unwrap().to_string();
        assert!(e.contains("t.toml:6") && e.contains("claims.a.params") && e.contains("invalid type"), "{e}");
        let e = bind_text(&format!("{HEAD}params = {{ maxx = 1.0 }}\n")).err().unwrap().to_string();
        assert!(e.contains("t.toml:6") && e.contains("maxx"), "{e}");
        let e = bind_text(HEAD).err().unwrap().to_string();
        assert!(e.contains("missing field `max`"), "{e}");
        let e = bind_text(&format!("{HEAD}params = {{ max = -1.0 }}\n")).err().unwrap().to_string();
        assert!(e.contains("t.toml:6") && e.contains("claims.a.params.max") && e.contains("must be positive"), "{e}");
        let e = bind_text(&HEAD.replace("\"below\"", "\"nope\"")).err().unwrap().to_string();
        assert!(e.contains("t.toml:5") && e.contains("unknown check `nope`") && e.contains("below"), "{e}");
        let e = bind_text(&format!("{HEAD}params = {{ max = 1.0 }}\n{HEAD}params = {{ max = 1.0 }}\n")).err().unwrap().to_string();
        assert!(e.contains("appears twice"), "{e}");
        // A model may name only quantities the paper's datasheet gives (the test paper gives no SM count).
        let modelled = HEAD.replace("\"below\"", "\"modelled\"");
        assert!(bind_text(&format!("{modelled}params = {{ model = {{ gpu_bandwidth = 1.0 }} }}\n")).is_ok());
        let e = bind_text(&format!("{modelled}params = {{ model = {{ gpu_sms = 1.0 }} }}\n")).err().unwrap().to_string();
        assert!(e.contains("t.toml:6") && e.contains("claims.a.params.model") && e.contains("gives no GPU SMs"), "{e}");
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
        assert_eq!(kind(vec![0.5]), VerdictKind::TooFewRuns);
        assert_eq!(claims.judge(&vec![2.0; 3], &ctx)[0].outcome.verdict, Verdict::NotReproduced);
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
        assert_eq!(counts_line(&counts(&rs)), "1 reproduced, 1 too few runs, 1 not run here");
        assert_eq!(Verdict::TooFewRuns { n: 2, needs: 10 }.label(), "too few runs (n = 2, needs 10)");
        let incomplete = Verdict::Incomplete { profile: "quick".into(), stored: 10, planned: 15 };
        assert_eq!(incomplete.label(), "too few runs (incomplete: sweep `quick` has 10 of 15 cases)");
        assert_eq!(incomplete.kind(), VerdictKind::TooFewRuns);
    }
}
