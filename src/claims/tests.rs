//! Tests of the verdict framework: typed parameters and claims bound at load,
//! a bound check's verdicts, the rules every outcome passes through
//! ([`finalize`], [`smoke_gate`]) and the counts of verdict kinds.

use super::*;
use crate::check;
use crate::error::SpecError;
use crate::records::MachineRecords;
use crate::spec::SpecFile;
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

/// The runs are series `x` (a headline's); `y` is a series these records never hold.
impl generic::Series for Vec<f64> {
    const NAMES: &'static [&'static str] = &["x", "y"];

    fn series(&self, name: &str) -> Option<Vec<f64>> {
        (name == "x").then(|| self.clone())
    }
}

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

/// A claim's headline is measured on each machine's analysis beside its verdict, never changing it; a paper
/// value that is not a positive number is refused at load, naming its line; a series the records lack gives none.
#[test]
fn a_headline_is_measured_beside_the_verdict() {
    let text = format!("{HEAD}params = {{ max = 10.0 }}\nheadline = {{ what = \"mean x\", a = \"x\", paper = 4.0 }}\n");
    let claims = bind_text(&text).expect("binds");
    let machine = MachineRecords { hw_id: "m".into(), rows: Vec::new() };
    let ctx = Ctx { machine: &machine, paper: &testing::paper_hardware() };
    let judged = claims.judge(&vec![7.0, 8.0, 9.0], &ctx);
    let h = judged[0].headline.as_ref().expect("measured");
    assert_eq!((h.what.as_str(), h.measured.value, h.paper, h.ratio.value), ("mean x", 8.0, 4.0, 2.0));
    assert!(h.measured.low < 8.0 && h.measured.high > 8.0 && h.ratio.low < 2.0, "{h:?}");
    assert_eq!(judged[0].outcome, claims.judge_one("a", &vec![7.0, 8.0, 9.0], &ctx).expect("judged"), "the verdict is the check's");
    // verdicts.json carries it beside the verdict, as the first screen shows it.
    let json = serde_json::to_value(crate::report::index::ClaimVerdict::of(&judged[0])).expect("serialises");
    assert_eq!((json["headline"]["what"].as_str(), json["headline"]["paper"].as_f64()), (Some("mean x"), Some(4.0)), "{json}");
    assert_eq!(json["headline"]["ratio"]["value"].as_f64(), Some(2.0), "{json}");
    let none = bind_text(&text.replace("a = \"x\"", "a = \"y\"")).expect("binds");
    let unmeasured = none.judge(&vec![7.0, 8.0], &ctx);
    assert_eq!(unmeasured[0].headline, None);
    assert!(serde_json::to_value(crate::report::index::ClaimVerdict::of(&unmeasured[0])).unwrap()["headline"].is_null());
    let e = bind_error(&text.replace("paper = 4.0", "paper = 0.0"));
    assert!(e.contains("t.toml:8") && e.contains("claims.a.headline.paper") && e.contains("not a positive number"), "{e}");
    // A series the analysis does not answer to is an error at load, not a headline missing on every machine.
    let e = bind_error(&text.replace("a = \"x\"", "a = \"z\""));
    assert!(e.contains("t.toml:8") && e.contains("claims.a.headline") && e.contains("unknown series `z` (this paper's: x, y)"), "{e}");
    let e = bind_error(&text.replace("paper = 4.0", "paper = 4.0, sizes = 3"));
    assert!(e.contains("t.toml") && e.contains("line 8") && e.contains("unknown field `sizes`"), "{e}");
}

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

/// A generic check's series is one the analysis answers to: a misspelt name is
/// an error at load naming the line and key, not "not run here" on every machine.
#[test]
fn a_generic_checks_series_must_be_the_papers() {
    let threshold = HEAD.replace("\"below\"", "\"threshold\"");
    assert!(bind_text(&format!("{threshold}params = {{ series = \"x\", at_most = 1.0, min_n = 2 }}\n")).is_ok());
    let e = bind_error(&format!("{threshold}params = {{ series = \"xx\", at_most = 1.0, min_n = 2 }}\n"));
    assert!(
        e.contains("t.toml:7") && e.contains("claims.a.params.series") && e.contains("unknown series `xx` (this paper's: x, y)"),
        "{e}"
    );
    let faster = HEAD.replace("\"below\"", "\"faster\"");
    let e = bind_error(&format!("{faster}params = {{ a = \"x\", b = \"q\" }}\n"));
    assert!(e.contains("claims.a.params.b") && e.contains("unknown series `q`"), "{e}");
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
