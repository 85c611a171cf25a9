//! One machine's records indexed for the report and the claims: the evaluation
//! stage's times (Tables 2–3, Figure 4), the learning runs per GA budget (Table
//! 2's integration columns, Table 4, Figure 5), the `speed` profile's runs
//! (beyond the paper) and each set's training-set size.

use super::rows::{Evaluator, LearnGa, LearnRun, Model, SetCase, SimulatedGa, TrainingSet};
use super::spec::{PaperTables, SETS};
use super::{LEARN_FIGURE, SERIAL, SPEED_PROFILE, scale};
use crate::claims::{self, Comparison};
use crate::library::biohel_learning::LearningConfig;
use crate::library::dataset::Dataset;
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use crate::stats::Summary;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Table 1's grouping of the sets, Figures 4–5's colours: all attributes
/// continuous, all discrete (nominal), or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AttributeType {
    Continuous,
    Mixed,
    Discrete,
}

impl AttributeType {
    pub fn of(data: &Dataset) -> AttributeType {
        match data.nominal_count() {
            0 => AttributeType::Continuous,
            n if n == data.attribute_count() => AttributeType::Discrete,
            _ => AttributeType::Mixed,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            AttributeType::Continuous => "continuous",
            AttributeType::Mixed => "mixed",
            AttributeType::Discrete => "discrete",
        }
    }

    pub fn parse(s: &str) -> Option<AttributeType> {
        [AttributeType::Continuous, AttributeType::Mixed, AttributeType::Discrete].into_iter().find(|t| t.label() == s)
    }
}

/// One timed run of an evaluator: the run and seed it shares with the serial
/// evaluator's run of the same case, and its seconds.
#[derive(Clone, Copy, Debug)]
struct Run {
    run: (i64, i64),
    secs: f64,
}

/// One stage's times (s) per (set, windows, method), and why a method did not
/// run on the machine.
#[derive(Default)]
pub struct Stage {
    times: BTreeMap<(String, usize, String), Vec<Run>>,
    not_run: BTreeMap<String, String>,
}

impl Stage {
    /// Adds the seconds `secs` of case `case`'s `ok` row `r`, or the reason of a `not_run` row.
    pub fn add(&mut self, r: &Record, case: &SetCase, secs: Option<f64>) {
        let method = r.str(col::METHOD).to_owned();
        if !r.is_ok() {
            self.not_run.insert(method, r.str(col::REASON).to_owned());
            return;
        }
        let key = (case.set.clone(), case.windows, method);
        let run = (r.int(col::RUN_ID).unwrap_or(0), case.seed as i64);
        if let Some(secs) = secs {
            self.times.entry(key).or_default().push(Run { run, secs });
        }
    }

    fn runs(&self, set: &str, windows: usize, method: &str) -> &[Run] {
        self.times.get(&(set.to_owned(), windows, method.to_owned())).map_or(&[], Vec::as_slice)
    }

    /// The harness runs (`run_id`) that timed `method` at (set, windows).
    pub fn run_ids(&self, set: &str, windows: usize, method: &str) -> impl Iterator<Item = i64> + '_ {
        self.runs(set, windows, method).iter().map(|r| r.run.0)
    }

    /// Every run's seconds.
    pub fn secs(&self, set: &str, windows: usize, method: &str) -> Vec<f64> {
        self.runs(set, windows, method).iter().map(|r| r.secs).collect()
    }

    pub fn summary(&self, set: &str, windows: usize, method: &str) -> Option<Summary> {
        Summary::of(&self.secs(set, windows, method))
    }

    /// Mean ± sd of `method`, or why it did not run on this machine.
    pub fn cell(&self, set: &str, windows: usize, method: &str) -> String {
        match (self.summary(set, windows, method), self.not_run.get(method)) {
            (Some(s), _) => fmt_s(Some(s)),
            (None, Some(why)) => format!("not run here ({why})"),
            (None, None) => "—".into(),
        }
    }

    pub fn mean(&self, set: &str, windows: usize, method: &str) -> Option<f64> {
        self.summary(set, windows, method).map(|s| s.mean)
    }

    /// serial / `method` at the same window count (the paper's net speedup), of the means.
    pub fn speedup(&self, set: &str, windows: usize, method: &str) -> Option<f64> {
        Some(self.mean(set, windows, SERIAL)? / self.mean(set, windows, method)?)
    }

    /// serial / `method` at the same window count, one value per case that ran both.
    pub fn run_speedups(&self, set: &str, windows: usize, method: &str) -> Vec<f64> {
        let other = self.runs(set, windows, method);
        self.runs(set, windows, SERIAL).iter().filter_map(|s| other.iter().find(|o| o.run == s.run).map(|o| s.secs / o.secs)).collect()
    }

    /// serial with 1 window (its mean) / `method` with `windows`, one value per run of `method`.
    pub fn run_total_speedups(&self, set: &str, windows: usize, method: &str) -> Vec<f64> {
        let Some(base) = self.mean(set, 1, SERIAL) else { return Vec::new() };
        self.runs(set, windows, method).iter().map(|r| base / r.secs).collect()
    }

    /// Table 1's sets with runs, in its order.
    pub fn sets(&self) -> Vec<&'static str> {
        SETS.iter().copied().filter(|s| self.times.keys().any(|k| k.0 == *s)).collect()
    }

    pub fn windows(&self, set: &str) -> Vec<usize> {
        let mut w: Vec<usize> = self.times.keys().filter(|k| k.0 == set).map(|k| k.1).collect();
        w.dedup();
        w
    }

    /// Why `method` has no times here.
    pub fn reason(&self, method: &str) -> String {
        self.not_run.get(method).cloned().unwrap_or_else(|| format!("no {method} runs in this machine's records"))
    }

    /// Per set, the net speedup of `method` at each window count that `keep`
    /// admits, against T/x (Figures 4–5).
    pub fn speedups_per_stratum(&self, instances: &BTreeMap<String, i64>, method: &str, keep: impl Fn(usize) -> bool) -> Vec<Curve> {
        self.sets()
            .into_iter()
            .filter_map(|set| {
                let t = *instances.get(set)? as f64;
                let points: Vec<StratumPoint> = self
                    .windows(set)
                    .into_iter()
                    .filter(|&w| keep(w))
                    .filter_map(|windows| {
                        Some(StratumPoint {
                            per_stratum: t / windows as f64,
                            speedup: self.speedup(set, windows, method)?,
                            windows,
                            runs: self.run_speedups(set, windows, method),
                        })
                    })
                    .collect();
                (!points.is_empty()).then_some(Curve { set, points })
            })
            .collect()
    }
}

pub fn fmt_s(s: Option<Summary>) -> String {
    s.map_or("—".into(), |s| format!("{:.3} ± {:.3}", s.mean, s.sd))
}

/// One point of Figures 4–5: the speedup (of the means) with `windows` strata of
/// T/x = `per_stratum` training instances each, and each run's speedup.
#[derive(Clone, Debug, PartialEq)]
pub struct StratumPoint {
    pub per_stratum: f64,
    pub speedup: f64,
    pub windows: usize,
    pub runs: Vec<f64>,
}

/// The speedups of one set against T/x, and the point where it is highest.
pub struct Curve {
    pub set: &'static str,
    pub points: Vec<StratumPoint>,
}

impl Curve {
    pub fn peak(&self) -> Option<&StratumPoint> {
        peak(self.points.iter())
    }
}

pub fn peak<'p>(points: impl Iterator<Item = &'p StratumPoint>) -> Option<&'p StratumPoint> {
    points.max_by(|a, b| a.speedup.total_cmp(&b.speedup))
}

/// The GA budget of learning cases: population, iterations, rule limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Budget {
    pub population: i64,
    iterations: i64,
    max_rules: Option<i64>,
}

impl Budget {
    fn of(case: &SetCase, r: &Record) -> Budget {
        let ga = r.row::<LearnGa>().unwrap_or_default();
        Budget { population: ga.population as i64, iterations: case.iterations as i64, max_rules: ga.max_rules.map(|m| m as i64) }
    }

    /// BioHEL's default budget, the paper's.
    pub fn is_paper(&self) -> bool {
        let d = LearningConfig::default();
        self.population == d.population as i64 && self.iterations == d.iterations as i64 && self.max_rules.is_none()
    }

    pub fn describe(&self) -> String {
        let limit = self.max_rules.map_or("no rule limit".into(), |m| format!("at most {m} rules"));
        let kind = if self.is_paper() {
            "the paper's budget".to_owned()
        } else {
            let d = LearningConfig::default();
            format!("**reduced budget** (the paper's: population {}, {} iterations, no rule limit)", d.population, d.iterations)
        };
        format!("population {}, {} GA iterations, {limit}: {kind}", self.population, self.iterations)
    }

    /// The budget as the claims count it ([`claims::Budget`]): rule evaluations
    /// per GA (population × iterations) against BioHEL's default, a rule limit
    /// named in the unit (the paper has none; `spec::validate` refuses a limit
    /// at the whole GA budget, which this count would not show as reduced).
    pub fn for_claims(&self) -> claims::Budget {
        let d = LearningConfig::default();
        let limit = self.max_rules.map_or(String::new(), |m| format!(", at most {m} rules (the paper: no limit)"));
        let used = (self.population * self.iterations) as f64;
        claims::Budget::new(used, (d.population * d.iterations) as f64, format!("rule evaluations per GA (population × iterations){limit}"))
    }

    /// Orders budgets by work: evaluations per GA, then the rule limit (none = most).
    fn work(&self) -> (i64, i64) {
        (self.population * self.iterations, self.max_rules.unwrap_or(i64::MAX))
    }
}

/// What the learning runs of one set and window count produced (serial rows: the
/// other evaluators learned the same rule lists or the case failed).
#[derive(Default)]
pub struct Models {
    pub rules: Vec<f64>,
    pub train: Vec<f64>,
    pub test: Vec<f64>,
    /// Instances of the test fold (the same in every run of a set).
    pub test_instances: Option<i64>,
    pub methods: BTreeSet<String>,
}

/// What a learning run's test accuracy says against chance: the share of the
/// test fold in the training set's majority class (the rule list without rules).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chance {
    /// The majority-class rate on the test fold.
    pub majority: f64,
    /// Mean test accuracy of the runs.
    pub test: f64,
    /// 1.96 standard errors of a proportion at the majority rate over the test fold.
    pub margin: f64,
}

impl Chance {
    /// The runs' mean test accuracy against the majority-class rate, when both are known.
    pub fn of(models: &Models, majority: Option<f64>) -> Option<Chance> {
        let (p, n) = (majority?, models.test_instances? as f64);
        let test = Summary::of(&models.test)?.mean;
        Some(Chance { majority: p, test, margin: 1.96 * (p * (1.0 - p) / n).sqrt() })
    }

    /// Within the margin of the majority-class rate: the rules learn nothing the default class does not.
    pub fn at_chance(&self) -> bool {
        (self.test - self.majority).abs() <= self.margin
    }
}

/// The learning runs of one budget.
#[derive(Default)]
pub struct Learning {
    /// Whole learning time (`learn_s`), and the evaluation time inside it (`eval_s`).
    pub total: Stage,
    pub evaluation: Stage,
    pub models: BTreeMap<(String, usize), Models>,
}

impl Learning {
    /// Share of the serial learning time spent evaluating.
    pub fn evaluation_share(&self, set: &str, windows: usize) -> Option<f64> {
        Some(self.evaluation.mean(set, windows, SERIAL)? / self.total.mean(set, windows, SERIAL)?)
    }
}

/// Everything one machine's records say, beside the paper's Tables 3–4.
pub struct Analysis {
    /// Evaluation-stage times (`eval_s` of the `eval/…` cases).
    pub eval: Stage,
    /// The lengths (GA iterations) of the evaluation stage's simulated GAs.
    pub eval_iterations: BTreeSet<i64>,
    /// The `speed` profile's evaluation times, and their upload part (`load_s`).
    pub speed: Stage,
    pub speed_load: Stage,
    pub learning: BTreeMap<Budget, Learning>,
    /// Training-set size per set (both stages use fold 0's training set).
    pub instances: BTreeMap<String, i64>,
    /// Per set, the test fold's majority-class rate (`majority_accuracy`; rows
    /// written before that column: the test accuracy of a run that learned no
    /// rule, whose rule list is the majority class alone).
    pub majority: BTreeMap<String, f64>,
    pub paper: Arc<PaperTables>,
}

impl Analysis {
    pub fn of(m: &MachineRecords, paper: &Arc<PaperTables>) -> Analysis {
        let mut a = Analysis {
            eval: Stage::default(),
            eval_iterations: BTreeSet::new(),
            speed: Stage::default(),
            speed_load: Stage::default(),
            learning: BTreeMap::new(),
            instances: BTreeMap::new(),
            majority: BTreeMap::new(),
            paper: Arc::clone(paper),
        };
        let mut no_rule = BTreeMap::new();
        for r in m.latest_measurements(point).into_iter().filter(|r| r.str(col::FIGURE) != scale::SCALE_FIGURE) {
            let Ok(case) = r.row::<SetCase>() else { continue };
            if let Ok(t) = r.row::<TrainingSet>() {
                a.instances.insert(case.set.clone(), t.instances as i64);
            }
            let eval_s = r.row::<Evaluator>().ok().map(|e| e.eval_s);
            if r.str(col::PROFILE) == SPEED_PROFILE {
                a.speed.add(r, &case, eval_s);
                a.speed_load.add(r, &case, r.row::<SimulatedGa>().ok().map(|g| g.load_s));
                continue;
            }
            if r.str(col::FIGURE) != LEARN_FIGURE {
                a.eval.add(r, &case, eval_s);
                a.eval_iterations.extend(r.is_ok().then_some(case.iterations as i64));
                continue;
            }
            let l = a.learning.entry(Budget::of(&case, r)).or_default();
            l.total.add(r, &case, r.row::<LearnRun>().ok().map(|run| run.learn_s));
            l.evaluation.add(r, &case, eval_s);
            if r.is_ok() {
                let models = l.models.entry((case.set.clone(), case.windows)).or_default();
                models.methods.insert(r.str(col::METHOD).to_owned());
                let Some(model) = r.row::<Model>().ok().filter(|_| r.str(col::METHOD) == SERIAL) else { continue };
                models.rules.push(model.rules as f64);
                models.train.push(model.train_accuracy);
                models.test.push(model.test_accuracy);
                models.test_instances = models.test_instances.or(Some(model.test_instances as i64));
                match model.majority_accuracy {
                    Some(m) => {
                        a.majority.insert(case.set, m);
                    }
                    None if model.rules == 0 => {
                        no_rule.insert(case.set, model.test_accuracy);
                    }
                    None => {}
                }
            }
        }
        for (set, t) in no_rule {
            a.majority.entry(set).or_insert(t);
        }
        a
    }

    /// The evaluation stage's GA budget for the claims: the shortest simulated
    /// GA of its runs against the paper's "one GA run of 50 iterations" (Section 4).
    pub fn eval_budget(&self) -> Option<claims::Budget> {
        let used = *self.eval_iterations.iter().min()?;
        Some(claims::Budget::new(used as f64, LearningConfig::default().iterations as f64, "GA iterations of the simulated GA"))
    }

    /// The learning runs of Table 4, Figure 5 and their claims: the paper's
    /// budget if the records hold it, else the budget with the most points
    /// (sets × window counts), then the most work.
    pub fn main_learning(&self) -> Option<(&Budget, &Learning)> {
        let points = |l: &Learning| l.total.sets().iter().map(|s| l.total.windows(s).len()).sum::<usize>();
        self.learning.iter().max_by_key(|(b, l)| (b.is_paper(), points(l), b.work()))
    }

    /// The learning runs on equal terms with the evaluation stage (Section 5.2):
    /// a population of the evaluation's rules per GA iteration, so that every
    /// evaluator call evaluates as many rules in both stages; the most work among them.
    pub fn like_for_like_learning(&self) -> Option<(&Budget, &Learning)> {
        let rules = self.paper.rules_per_iteration as i64;
        self.learning.iter().filter(|(b, _)| b.population == rules).max_by_key(|(b, _)| b.work())
    }
}

/// Where one machine's means and ratios come from: at each point (stage, set,
/// window count and, for learning, the GA budget) only the rows of the profile
/// that ran last, so that no mean mixes code versions measured by two profiles
/// (e.g. `gpu` and `learning-500-eval` at 1 window); the `speed` profile's runs
/// are a stage of their own.
fn point(r: &Record) -> Option<(bool, String, String, usize, Budget)> {
    let case = r.row::<SetCase>().ok()?;
    let budget =
        if r.str(col::FIGURE) == LEARN_FIGURE { Budget::of(&case, r) } else { Budget { population: 0, iterations: 0, max_rules: None } };
    let speed = r.str(col::PROFILE) == SPEED_PROFILE;
    Some((speed, r.str(col::FIGURE).to_owned(), case.set, case.windows, budget))
}

/// Whether the variance of `a` is smaller than, equal to (within the noise) or
/// larger than that of `b`: the two-sided F test at 95% (the ratio of the sample
/// variances against the F distribution's 2.5% and 97.5% quantiles with n − 1
/// degrees of freedom each), and the ratio var(a) / var(b). None when either
/// sample has fewer than two values or both have no spread.
pub fn compare_variances(a: &[f64], b: &[f64]) -> Option<(Comparison, f64)> {
    let (sa, sb) = (Summary::of(a)?, Summary::of(b)?);
    if sa.n < 2 || sb.n < 2 || (sa.sd == 0.0 && sb.sd == 0.0) {
        return None;
    }
    let (da, db) = ((sa.n - 1) as f64, (sb.n - 1) as f64);
    let (va, vb) = (sa.sd * sa.sd, sb.sd * sb.sd);
    let ratio = va / vb;
    Some(if vb / va > f_quantile(0.975, db, da) {
        (Comparison::Less, ratio)
    } else if ratio > f_quantile(0.975, da, db) {
        (Comparison::Greater, ratio)
    } else {
        (Comparison::Tie, ratio)
    })
}

/// The runs per sample (more than `n`) at which a variance ratio var(a) / var(b)
/// of `ratio` < 1 would pass the two-sided F test at 95% (equal runs in both);
/// None when it never would (a ratio of 1 or more) or only beyond
/// [`MAX_VARIANCE_RUNS`].
pub fn runs_to_separate_variances(ratio: f64, n: usize) -> Option<usize> {
    if !(ratio > 0.0 && ratio < 1.0) {
        return None;
    }
    let passes = |k: usize| 1.0 / ratio > f_quantile(0.975, (k - 1) as f64, (k - 1) as f64);
    // The quantile falls as the runs grow: double past the answer, then bisect.
    let (mut lo, mut hi) = (n.max(1), (n + 1).max(2));
    while !passes(hi) {
        if hi >= MAX_VARIANCE_RUNS {
            return None;
        }
        (lo, hi) = (hi, (2 * hi).min(MAX_VARIANCE_RUNS));
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if passes(mid) { hi = mid } else { lo = mid }
    }
    Some(hi)
}

/// Runs beyond which the F test's "runs needed" is not stated.
pub const MAX_VARIANCE_RUNS: usize = 10_000;

/// The `p` quantile of the F distribution with (d1, d2) degrees of freedom, by
/// bisection on its distribution function.
fn f_quantile(p: f64, d1: f64, d2: f64) -> f64 {
    let cdf = |f: f64| incomplete_beta(d1 / 2.0, d2 / 2.0, d1 * f / (d1 * f + d2));
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while cdf(hi) < p {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if cdf(mid) < p { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}

/// The regularized incomplete beta function I_x(a, b) (continued fraction, Lentz).
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) { front * beta_fraction(a, b, x) / a } else { 1.0 - front * beta_fraction(b, a, 1.0 - x) / b }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    d = 1.0 / if d.abs() < TINY { TINY } else { d };
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        for num in
            [m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)), -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0))]
        {
            d = 1.0 + num * d;
            d = 1.0 / if d.abs() < TINY { TINY } else { d };
            c = 1.0 + num / c;
            c = if c.abs() < TINY { TINY } else { c };
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return std::f64::consts::PI.ln() - (std::f64::consts::PI * x).sin().ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let a = G.iter().enumerate().skip(1).fold(G[0], |a, (i, g)| a + g / (x + i as f64));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::dataset::Attribute;

    #[test]
    fn f_quantiles_match_the_tables() {
        for (d1, d2, want) in [(1.0, 1.0, 647.79), (4.0, 4.0, 9.6045), (10.0, 10.0, 3.7168), (2.0, 24.0, 4.3187)] {
            let got = f_quantile(0.975, d1, d2);
            assert!((got / want - 1.0).abs() < 1e-3, "F(0.975; {d1}, {d2}) = {got}, table {want}");
        }
        assert!((f_quantile(0.95, 1.0, 1.0) / 161.45 - 1.0).abs() < 1e-3);
    }

    #[test]
    fn variances_differ_only_beyond_the_f_quantile() {
        // sd 0.1 against sd 10 with n = 2 each: a variance ratio of 10⁴ > 647.8.
        assert_eq!(compare_variances(&[1.0, 1.1], &[10.0, 20.0]).unwrap().0, Comparison::Less);
        assert_eq!(compare_variances(&[10.0, 20.0], &[1.0, 1.1]).unwrap().0, Comparison::Greater);
        // A ratio of 100 is inside the noise at n = 2, outside it at n = 10.
        assert_eq!(compare_variances(&[1.0, 2.0], &[1.0, 11.0]).unwrap().0, Comparison::Tie);
        let a: Vec<f64> = (0..10).map(|i| f64::from(i % 2)).collect();
        let b: Vec<f64> = (0..10).map(|i| 10.0 * f64::from(i % 2)).collect();
        assert_eq!(compare_variances(&a, &b).unwrap().0, Comparison::Less);
        assert!(compare_variances(&[1.0], &[1.0, 2.0]).is_none());
        assert!(compare_variances(&[1.0, 1.0], &[2.0, 2.0]).is_none());
    }

    #[test]
    fn the_runs_a_variance_ratio_needs_pass_the_f_test_and_no_fewer_do() {
        // A variance ratio of 1/100 fails at 2 runs each (F(0.975; 1, 1) = 648), passes at 3 (F(0.975; 2, 2) = 39.0).
        assert_eq!(runs_to_separate_variances(0.01, 2), Some(3));
        assert_eq!(runs_to_separate_variances(0.01, 5), Some(6), "more than the runs already made");
        let k = runs_to_separate_variances(0.5, 2).unwrap();
        assert!((30..40).contains(&k), "a variance ratio of 2 needs about 35 runs each, not {k}");
        assert_eq!(runs_to_separate_variances(1.0, 2), None);
        assert_eq!(runs_to_separate_variances(2.0, 2), None);
        assert_eq!(runs_to_separate_variances(0.9999, 2), None, "beyond reach");
    }

    #[test]
    fn attribute_types_follow_the_nominal_attributes() {
        let set = |nominal: &[bool]| Dataset {
            name: "t".into(),
            attributes: nominal
                .iter()
                .map(|&n| {
                    if n {
                        Attribute::Nominal { name: "n".into(), values: vec!["a".into()] }
                    } else {
                        Attribute::Continuous { name: "c".into() }
                    }
                })
                .collect(),
            classes: vec!["x".into()],
            values: vec![],
            labels: vec![],
            synthetic: true,
        };
        assert_eq!(AttributeType::of(&set(&[false, false])), AttributeType::Continuous);
        assert_eq!(AttributeType::of(&set(&[true, false])), AttributeType::Mixed);
        assert_eq!(AttributeType::of(&set(&[true, true])), AttributeType::Discrete);
        for t in [AttributeType::Continuous, AttributeType::Mixed, AttributeType::Discrete] {
            assert_eq!(AttributeType::parse(t.label()), Some(t));
        }
    }
}
