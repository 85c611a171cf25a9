//! Claims bound to checks: what a check sees ([`Ctx`]), its typed parameters
//! ([`Params`]), a paper's table of checks ([`Check`], made with [`check!`]) and
//! a spec's claims bound to it ([`Claims`]), judged on each machine.

use super::generic::{self, Series};
use super::{ClaimResult, Headline, Model, Outcome, finalize};
use crate::error::SpecError;
use crate::records::MachineRecords;
use crate::spec::{ClaimSpec, PaperHardware, Provenance, SpecFile};
use serde::de::DeserializeOwned;

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

    /// The series of the analysis the parameters name, by key (a generic
    /// check's `series`, `a`, `b`): each must be one the analysis answers to
    /// ([`Series::NAMES`], checked at load).
    fn series(&self) -> Vec<(&'static str, &str)> {
        Vec::new()
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
pub fn bind<A: Series + 'static, P: Params>(
    file: &SpecFile,
    claim: &ClaimSpec,
    paper: &PaperHardware,
    f: fn(&P, &A, &Ctx) -> Outcome,
) -> Result<Bound<A>, SpecError> {
    let params: P = parse_params(file, claim)?;
    let missing = params.model().and_then(|m| m.quantities().find(|q| !paper.datasheet.contains_key(q)));
    let unknown = params.series().into_iter().find(|(_, name)| !A::NAMES.contains(name));
    let problem = match (missing, unknown) {
        (Some(q), _) => Err(("model".to_owned(), format!("[paper.hardware.datasheet] gives no {} for the paper's machine", q.label()))),
        (_, Some((key, name))) => Err((key.to_owned(), unknown_series::<A>(name))),
        _ => params.validate(),
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

/// "unknown series `x` (this paper's: a, b)".
fn unknown_series<A: Series>(name: &str) -> String {
    let known = if A::NAMES.is_empty() { "none".to_owned() } else { A::NAMES.join(", ") };
    format!("unknown series `{name}` (this paper's: {known})")
}

/// Reads `P` from the claim's `params` text so that errors carry the line and key.
fn parse_params<P: Params>(file: &SpecFile, claim: &ClaimSpec) -> Result<P, SpecError> {
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
    claims: Vec<(ClaimSpec, Bound<A>, Option<Measure<A>>)>,
}

/// A claim's headline number measured on one machine's analysis ([`generic::headline`]).
type Measure<A> = Box<dyn Fn(&A) -> Option<Headline> + Send + Sync>;

impl<A: Series + 'static> Claims<A> {
    /// Binds every claim of the spec to its check, a generic shape
    /// ([`generic::checks`], every paper's) or one of the paper's `own`, and its
    /// headline to the analysis's series; an unknown check or bad parameters is
    /// a spec error naming file, line and key.
    pub fn bind(file: &SpecFile, specs: &[ClaimSpec], paper: &PaperHardware, own: &[Check<A>]) -> Result<Claims<A>, SpecError> {
        let table: Vec<Check<A>> = generic::checks().into_iter().chain(own.iter().map(|c| Check { name: c.name, bind: c.bind })).collect();
        let mut claims = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for c in specs {
            if !seen.insert(c.id.as_str()) {
                return Err(file.invalid(&c.check, "claims.id", format!("claim id `{}` appears twice", c.id)));
            }
            let Some(check) = table.iter().find(|k| k.name == *c.check) else {
                let known: Vec<&str> = table.iter().map(|k| k.name).collect();
                return Err(file.invalid(&c.check, "claims.check", format!("unknown check `{}` (known: {})", c.check, known.join(", "))));
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
            let measure = match &c.headline {
                Some(h) if !(h.paper.is_finite() && h.paper > 0.0) => {
                    let why = format!("the paper's value {} is not a positive number", h.paper);
                    return Err(file.invalid(h, &format!("claims.{}.headline.paper", c.id), why));
                }
                Some(h) => {
                    let names = [Some(&h.a), h.b.as_ref()];
                    if let Some(name) = names.into_iter().flatten().find(|n| !A::NAMES.contains(&n.as_str())) {
                        return Err(file.invalid(h, &format!("claims.{}.headline", c.id), unknown_series::<A>(name)));
                    }
                    let h = h.clone();
                    Some(Box::new(move |a: &A| generic::headline(&h, a)) as Measure<A>)
                }
                None => None,
            };
            claims.push((c.clone(), (check.bind)(file, c, paper)?, measure));
        }
        Ok(Claims { claims })
    }
}

impl<A: 'static> Claims<A> {
    /// Every claim judged on one machine.
    pub fn judge(&self, analysis: &A, ctx: &Ctx) -> Vec<ClaimResult> {
        self.claims
            .iter()
            .map(|(spec, run, measure)| ClaimResult {
                headline: measure.as_ref().and_then(|m| m(analysis)),
                ..ClaimResult::of(spec, &ctx.machine.hw_id, finalize(spec, run(analysis, ctx)))
            })
            .collect()
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
        self.claims.iter().find(|(s, ..)| s.id == id).map(|(spec, run, _)| finalize(spec, run(analysis, ctx)))
    }

    /// The claims as the spec gives them.
    pub fn specs(&self) -> Vec<&ClaimSpec> {
        self.claims.iter().map(|(s, ..)| s).collect()
    }

    pub fn ids(&self) -> Vec<&str> {
        self.claims.iter().map(|(s, ..)| s.id.as_str()).collect()
    }
}
