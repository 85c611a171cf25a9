//! The typed spec of `experiments/biohel.toml`: the settings of Section 4, the
//! profiles (evaluation sweep, learning sweep, the sweep beyond the paper), the
//! paper's Tables 2–4 and the claims, validated with file, line and key.

use crate::claims::Band;
use crate::error::SpecError;
use crate::library::biohel::{Condition, Counts, Rule};
use crate::library::dataset::{self, Shape, StandIn};
use crate::spec::{ClaimSpec, Pair, PaperMeta, Spanned, SpecFile, bytes_text, steps_time, values};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Table 1's sets by their short names, in its order.
pub const SETS: [&str; 11] = ["sat", "wav", "pen", "cn", "ss", "adu", "par", "kdd", "far", "c-4", "sa"];

/// The sets of Table 1 that are not public (CN, SS, SA): the harness runs
/// synthetic stand-ins of their shape (`dataset::synthetic_standin`).
pub fn stand_in(set: &str) -> Option<StandIn> {
    match set {
        "cn" => Some(StandIn::Cn),
        "ss" => Some(StandIn::Ss),
        "sa" => Some(StandIn::Sa),
        _ => None,
    }
}

/// The shape of a set of Table 1: a vendored file's, ParMX's or a stand-in's.
pub fn shape(set: &str) -> Option<Shape> {
    stand_in(set).map(StandIn::paper_shape).or_else(|| dataset::named_shape(set))
}

/// The most rules an evaluation iteration draws (`settings.rules_per_iteration`;
/// the paper's GA has 500) and the largest learning population.
pub const MAX_RULES: usize = 100_000;
/// The most GA iterations of a simulated or a learning GA (the paper's: 50).
pub const MAX_ITERATIONS: usize = 10_000;
/// The most cross-validation folds (the paper's: 10).
pub const MAX_FOLDS: usize = 100;

/// Bytes one rule holds with `conditions` expressed attributes, its counts included.
pub fn rule_bytes(conditions: f64) -> f64 {
    (size_of::<Rule>() + size_of::<Counts>()) as f64 + conditions * size_of::<Condition>() as f64
}

/// A set's name as every table row shows it: a stand-in marked as one.
pub fn set_label(set: &str) -> String {
    if stand_in(set).is_some() { format!("{set} (stand-in)") } else { set.to_owned() }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BiohelSpec {
    pub paper: PaperMeta,
    pub settings: Settings,
    pub profiles: BTreeMap<String, Profile>,
    pub table2: Vec<Table2Row>,
    pub table3: PaperSpeedups,
    pub table4: PaperSpeedups,
    pub peaks: Peaks,
    pub small_sets: SmallSetsSpec,
    pub highest: HighestSpec,
    #[serde(default)]
    pub paper_text: Vec<PaperText>,
    pub claims: Vec<ClaimSpec>,
}

/// Where the paper sees each stage's speedup peak (`[peaks]`), in training
/// instances per stratum: Sections 5.1 and 5.2, Figures 4 and 5.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Peaks {
    pub evaluation: Spanned<Band>,
    pub learning: Spanned<Band>,
}

/// The sets Section 5.1 calls very small (pen, sat, wav), against the sets
/// above `large_above` training instances ("more than 40000 instances"): `[small_sets]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmallSetsSpec {
    pub sets: Vec<Spanned<String>>,
    pub large_above: Spanned<f64>,
}

/// `[small_sets]` once loaded.
#[derive(Clone, Debug)]
pub struct SmallSets {
    pub sets: Vec<String>,
    pub large_above: f64,
}

/// The sets where Section 5.1 sees the evaluation's highest speedups
/// (`[highest]`): `net`, CUDA alone ("52.4X in the SS problem"), and `total`,
/// combined with ILAS ("637X in the SA problem").
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HighestSpec {
    pub net: Spanned<String>,
    pub total: Spanned<String>,
}

/// `[highest]` once loaded.
#[derive(Clone, Debug)]
pub struct Highest {
    pub net: String,
    pub total: String,
}

/// A value of Tables 3–4 that the paper's text contradicts, and the note shown beside it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperText {
    pub table: Spanned<String>,
    pub set: String,
    pub windows: usize,
    pub measure: Column,
    pub note: String,
}

/// A row of Tables 3–4: the net speedup (same window count) or the total one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    Net,
    Total,
}

impl BiohelSpec {
    /// The note of the paper's text beside Table `table`'s `measure` of `set` at `windows`, if any.
    pub fn text_note(&self, table: &str, set: &str, windows: usize, measure: Column) -> Option<&str> {
        self.paper_text
            .iter()
            .find(|t| *t.table == table && t.set == set && t.windows == windows && t.measure == measure)
            .map(|t| t.note.as_str())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub seed: u64,
    /// The vendored sets' folder, relative to the spec's.
    pub data_dir: Spanned<PathBuf>,
    pub rules_per_iteration: Spanned<usize>,
    pub expressed_probability: Spanned<f64>,
    pub folds: Spanned<usize>,
}

crate::paper_profile! {
    /// The evaluation-stage sweep of a profile (none when `sets` is empty), its
    /// learning-stage sweep and its sweep over the scalable synthetic family.
    pub struct Profile {
        #[serde(default)]
        pub sets: Vec<Spanned<String>>,
        #[serde(default)]
        pub windows: Vec<Spanned<usize>>,
        pub iterations: Option<Spanned<usize>>,
        pub seeds: Option<Spanned<usize>>,
        pub learn: Option<LearnProfile>,
        pub scale: Option<ScaleProfile>,
        /// Why this profile leaves out points of the paper's Tables 3–4 (shown where
        /// the report lists them as not run).
        pub left_out: Option<String>,
    }
}

/// The learning-stage sweep (Section 4, second stage; Table 4): BioHEL on each
/// set at each window count, `seeds` runs, with a GA budget. The paper's budget is
/// BioHEL's default (`LearningConfig::default()`: population 500, 50 iterations,
/// no rule limit); anything smaller is reported as a reduced budget.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnProfile {
    pub sets: Vec<Spanned<String>>,
    pub windows: Vec<Spanned<usize>>,
    pub seeds: Spanned<usize>,
    pub population: Spanned<usize>,
    pub iterations: Spanned<usize>,
    pub max_rules: Option<Spanned<usize>>,
}

/// Table 2 (seconds, mean ± sd, 1 window): the evaluation alone and the whole
/// learning system ("integration"), serial on a Xeon E5472 and CUDA on a Tesla
/// C1060.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table2Row {
    pub set: String,
    pub evaluation_serial: Pair<f64>,
    pub evaluation_cuda: Pair<f64>,
    pub integration_serial: Pair<f64>,
    pub integration_cuda: Pair<f64>,
}

/// A speedup table of the paper (Table 3 for the evaluation, Table 4 for the whole
/// system; CUDA on a Tesla C1060 over serial on a Xeon E5472): per set, the net
/// speedup (same window count) and the total speedup (against serial with 1
/// window) at each window count.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperSpeedups {
    pub windows: Spanned<Vec<usize>>,
    pub sets: Vec<SpeedupRow>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeedupRow {
    pub set: String,
    pub net: Vec<f64>,
    pub total: Vec<f64>,
}

impl PaperSpeedups {
    /// (net, total) of `set` at `windows`, when the paper has that column.
    pub fn at(&self, set: &str, windows: usize) -> Option<(f64, f64)> {
        let i = self.windows.iter().position(|&w| w == windows)?;
        let row = self.sets.iter().find(|r| r.set == set)?;
        Some((*row.net.get(i)?, *row.total.get(i)?))
    }

    /// Whether the paper measured this window count (the claims' range).
    pub fn has_windows(&self, windows: usize) -> bool {
        self.windows.contains(&windows)
    }
}

/// The paper's Tables 3 and 4, which the speedup claims are judged against, and
/// the rules the evaluation stage evaluates per GA iteration (the population the
/// learning stage needs to be judged against it on equal terms).
#[derive(Clone, Debug)]
pub struct PaperTables {
    pub table3: PaperSpeedups,
    pub table4: PaperSpeedups,
    pub rules_per_iteration: usize,
    /// `[peaks]`: the evaluation's band and the learning system's.
    pub peaks: [Band; 2],
    pub small_sets: SmallSets,
    pub highest: Highest,
}

impl PaperTables {
    /// The spec's tables and settings the analysis and the claims read.
    pub fn of(spec: &BiohelSpec) -> PaperTables {
        PaperTables {
            table3: spec.table3.clone(),
            table4: spec.table4.clone(),
            rules_per_iteration: *spec.settings.rules_per_iteration,
            peaks: [*spec.peaks.evaluation, *spec.peaks.learning],
            small_sets: SmallSets {
                sets: spec.small_sets.sets.iter().map(|s| String::clone(s)).collect(),
                large_above: *spec.small_sets.large_above,
            },
            highest: Highest { net: String::clone(&spec.highest.net), total: String::clone(&spec.highest.total) },
        }
    }
}

fn validate_sets(file: &SpecFile, sets: &[Spanned<String>], key: &str) -> Result<(), SpecError> {
    file.check_each(sets, key, |set| SETS.contains(&set.as_str()), |set| format!("unknown set `{set}` (known: {})", SETS.join(", ")))
}

fn validate_windows(file: &SpecFile, windows: &[Spanned<usize>], key: &str) -> Result<(), SpecError> {
    file.check_each(windows, key, |w| (1..=1000).contains(w), |w| format!("{w} windows: must be in 1..=1000"))
}

crate::paper_spec!(BiohelSpec, Profile, validate);

/// Range checks beyond the types (the claims' parameters are checked when they are bound).
pub fn validate(file: &SpecFile, spec: &BiohelSpec) -> Result<(), SpecError> {
    for (key, band) in [("evaluation", &spec.peaks.evaluation), ("learning", &spec.peaks.learning)] {
        let why = |b: &Band| format!("instances per stratum must be above 0, not {}", b.low);
        file.check_each([band], &format!("peaks.{key}"), |b| b.low > 0.0, why)?;
    }
    let small = &spec.small_sets;
    validate_sets(file, &small.sets, "small_sets.sets")?;
    validate_sets(file, std::slice::from_ref(&spec.highest.net), "highest.net")?;
    validate_sets(file, std::slice::from_ref(&spec.highest.total), "highest.total")?;
    if small.sets.is_empty() {
        return Err(file.invalid_key("small_sets", "sets", "name at least one set"));
    }
    let why = |n: &f64| format!("training instances must be above 0, not {n}");
    file.check_each([&small.large_above], "small_sets.large_above", |n| *n > 0.0, why)?;
    let s = &spec.settings;
    file.check_each([&s.rules_per_iteration], "settings.rules_per_iteration", |n| *n > 0, |_| "must be at least 1".into())?;
    file.check_each(
        [&s.expressed_probability],
        "settings.expressed_probability",
        |p| (0.0..=1.0).contains(p),
        |_| "must be in [0, 1]".into(),
    )?;
    file.check_each([&s.folds], "settings.folds", |n| *n >= 2, |_| "must be at least 2".into())?;
    let rules = *s.rules_per_iteration;
    file.check_at_most(&s.rules_per_iteration, "settings.rules_per_iteration", MAX_RULES as u64, |n| {
        format!("one iteration's rules alone would take {} of memory", bytes_text(n * rule_bytes(0.0)))
    })?;
    file.check_at_most(&s.folds, "settings.folds", MAX_FOLDS as u64, |n| {
        format!("a fold of Table 1's smallest set would hold {:.0} instances", 5_000.0 / n)
    })?;
    // The fewest instances of a profile's sets: the time bounds' floor.
    let fewest = |sets: &[Spanned<String>]| sets.iter().filter_map(|s| shape(s)).map(|s| s.instances).min().unwrap_or(1) as f64;
    for (name, p) in &spec.profiles {
        validate_sets(file, &p.sets, &format!("profiles.{name}.sets"))?;
        validate_windows(file, &p.windows, &format!("profiles.{name}.windows"))?;
        match &p.iterations {
            Some(i) if **i == 0 => return Err(file.invalid(i, &format!("profiles.{name}.iterations"), "must be at least 1")),
            None if !p.sets.is_empty() => {
                return Err(file.invalid(&p.sets[0], &format!("profiles.{name}.iterations"), "missing: the evaluation sweep needs it"));
            }
            Some(i) => file.check_at_most(i, &format!("profiles.{name}.iterations"), MAX_ITERATIONS as u64, |n| {
                format!(
                    "each case would hold {} of rules ({rules} an iteration) and test them in {}",
                    bytes_text(n * rules as f64 * rule_bytes(0.0)),
                    steps_time(n * rules as f64 * fewest(&p.sets))
                )
            })?,
            _ => {}
        }
        if let Some(n) = &p.seeds {
            file.check_repeats(n, &format!("profiles.{name}.seeds"))?;
        }
        if let Some(sc) = &p.scale {
            sc.validate(file, &format!("profiles.{name}.scale"), rules)?;
        }
        if let Some(l) = &p.learn {
            validate_sets(file, &l.sets, &format!("profiles.{name}.learn.sets"))?;
            validate_windows(file, &l.windows, &format!("profiles.{name}.learn.windows"))?;
            file.check_repeats(&l.seeds, &format!("profiles.{name}.learn.seeds"))?;
            for (key, v) in [("population", Some(&l.population)), ("iterations", Some(&l.iterations)), ("max_rules", l.max_rules.as_ref())]
            {
                file.check_each(v, &format!("profiles.{name}.learn.{key}"), |v| *v > 0, |_| "must be at least 1".into())?;
            }
            let population = *l.population as f64;
            // An iteration on the smallest stratum of the most windows.
            let stratum = fewest(&l.sets) / values(&l.windows).max().unwrap_or(1) as f64;
            // Each GA holds its population and as many offspring, and tests each on the (strata of the) set.
            file.check_at_most(&l.population, &format!("profiles.{name}.learn.population"), MAX_RULES as u64, |n| {
                format!(
                    "a GA would hold {} of rules and test them in {} an iteration",
                    bytes_text(2.0 * n * rule_bytes(0.0)),
                    steps_time(n * fewest(&l.sets))
                )
            })?;
            file.check_at_most(&l.iterations, &format!("profiles.{name}.learn.iterations"), MAX_ITERATIONS as u64, |n| {
                format!("one GA of {population} rules would make {}", steps_time(n * population * stratum))
            })?;
            // The claims count a budget in rule evaluations per GA (`analysis::Budget::for_claims`):
            // a rule limit at BioHEL's whole GA budget would pass for the paper's.
            let d = crate::library::biohel_learning::LearningConfig::default();
            if let Some(m) = &l.max_rules
                && *l.population * *l.iterations >= d.population * d.iterations
            {
                let why = format!(
                    "a rule limit with BioHEL's whole GA budget ({} × {} or more): the claims would judge it as the paper's budget; lower the population or the iterations too, or drop the limit",
                    d.population, d.iterations
                );
                return Err(file.invalid(m, &format!("profiles.{name}.learn.max_rules"), why));
            }
        }
    }
    for t in &spec.paper_text {
        let table = match t.table.as_str() {
            "table3" => &spec.table3,
            "table4" => &spec.table4,
            other => return Err(file.invalid(&t.table, "paper_text.table", format!("`{other}`: must be table3 or table4"))),
        };
        if table.at(&t.set, t.windows).is_none() {
            return Err(file.invalid(&t.table, "paper_text", format!("{} has no value for `{}` at {} windows", t.table, t.set, t.windows)));
        }
    }
    for (key, t) in [("table3", &spec.table3), ("table4", &spec.table4)] {
        let n = t.windows.len();
        if let Some(row) = t.sets.iter().find(|r| r.net.len() != n || r.total.len() != n) {
            return Err(file.invalid(
                &t.windows,
                &format!("{key}.sets"),
                format!("set `{}` has {} net and {} total values for {n} window counts", row.set, row.net.len(), row.total.len()),
            ));
        }
        if let Some(row) = t.sets.iter().find(|r| !SETS.contains(&r.set.as_str())) {
            return Err(file.invalid(
                &t.windows,
                &format!("{key}.sets"),
                format!("unknown set `{}` (known: {})", row.set, SETS.join(", ")),
            ));
        }
    }
    Ok(())
}

/// The sweep of a profile: every (instances, attributes) pair, `seeds` sets each.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleProfile {
    pub(super) instances: Vec<Spanned<usize>>,
    pub(super) attributes: Vec<Spanned<usize>>,
    pub(super) classes: Spanned<usize>,
    pub(super) nominal_fraction: Spanned<f64>,
    pub(super) iterations: Spanned<usize>,
    pub(super) seeds: Spanned<usize>,
}

impl ScaleProfile {
    /// Ranges, the iterations bounded by the rules they hold (`rules` an iteration) and the time they take.
    pub fn validate(&self, file: &SpecFile, key: &str, rules: usize) -> Result<(), SpecError> {
        let at = |k: &str| format!("{key}.{k}");
        let (instances, attributes) = (1..=10_000_000, 2..=1000);
        let why = |n: &usize| format!("{n} instances: must be in {instances:?}");
        file.check_each(&self.instances, &at("instances"), |n| instances.contains(n), why)?;
        let why = |a: &usize| format!("{a} attributes: must be in {attributes:?}");
        file.check_each(&self.attributes, &at("attributes"), |a| attributes.contains(a), why)?;
        file.check_each([&self.classes], &at("classes"), |c| (2..=100).contains(c), |_| "must be in 2..=100".into())?;
        file.check_each([&self.nominal_fraction], &at("nominal_fraction"), |f| (0.0..=1.0).contains(f), |_| "must be in [0, 1]".into())?;
        file.check_each([&self.iterations], &at("iterations"), |i| *i > 0, |_| "must be at least 1".into())?;
        let fewest = values(&self.instances).min().unwrap_or(1) as f64;
        file.check_at_most(&self.iterations, &format!("{key}.iterations"), MAX_ITERATIONS as u64, |n| {
            format!(
                "each case would hold {} of rules ({rules} an iteration) and test them in {}",
                bytes_text(n * rules as f64 * rule_bytes(0.0)),
                steps_time(n * rules as f64 * fewest)
            )
        })?;
        file.check_repeats(&self.seeds, &format!("{key}.seeds"))
    }
}

#[cfg(test)]
mod tests {
    use super::super::BIOHEL;
    use super::*;
    use std::path::Path;

    /// The shipped spec with `from` replaced by `to` once, loaded as `biohel.toml`.
    fn load_edited(edit: Option<(&str, &str)>) -> Result<(), SpecError> {
        let mut text = BIOHEL.embedded_spec.to_owned();
        if let Some((from, to)) = edit {
            assert!(text.contains(from), "the spec no longer has `{from}`");
            text = text.replacen(from, to, 1);
        }
        BIOHEL.load(&SpecFile::in_repository("biohel.toml", text)).map(|_| ())
    }

    fn shipped() -> BiohelSpec {
        SpecFile::from_text(Path::new("biohel.toml"), BIOHEL.embedded_spec.into()).parse().unwrap()
    }

    /// Whether a printed speedup (one decimal) can be the ratio of two printed
    /// times (one decimal each): a check of the transcription.
    fn ratio_of_printed(speedup: f64, serial: f64, cuda: f64) -> bool {
        let (lo, hi) = ((serial - 0.05) / (cuda + 0.05) - 0.05, (serial + 0.05) / (cuda - 0.05) + 0.05);
        lo - 1e-9 <= speedup && speedup <= hi + 1e-9
    }

    #[test]
    fn the_shipped_spec_loads_and_its_paper_tables_agree() {
        load_edited(None).unwrap();
        let spec = shipped();
        // Tables 3 and 4's 1-window columns are Table 2's ratios (Section 5).
        for r in &spec.table2 {
            let (net, total) = spec.table4.at(&r.set, 1).unwrap();
            assert_eq!(net, total, "{}", r.set);
            assert!(ratio_of_printed(net, r.integration_serial[0], r.integration_cuda[0]), "{}: Table 4 against Table 2", r.set);
            let (eval_net, _) = spec.table3.at(&r.set, 1).unwrap();
            assert!(ratio_of_printed(eval_net, r.evaluation_serial[0], r.evaluation_cuda[0]), "{}: Table 3 against Table 2", r.set);
        }
        assert!(!ratio_of_printed(3.7, 95.7, 20.0), "the check can fail");
        assert_eq!(spec.table2.len(), SETS.len());
        assert_eq!(spec.table4.at("ss", 50), Some((6.6, 765.3)));
        assert!(spec.table3.has_windows(45) && !spec.table4.has_windows(45 + 1));
        assert_eq!(spec.text_note("table3", "sa", 50, Column::Total), Some("the text: 637× (Section 5.1)"));
        assert_eq!(spec.text_note("table3", "sa", 50, Column::Net), None);
    }

    #[test]
    fn malformed_specs_are_rejected_with_their_key() {
        let err = |from, to| load_edited(Some((from, to))).unwrap_err().to_string();
        let e = err("{ set = \"sat\", net = [3.7, 1.6,", "{ set = \"sat\", net = [1.6,");
        assert!(e.contains("table4.sets") && e.contains("`sat` has 10 net"), "{e}");
        let e = err("{ set = \"sat\", net = [3.7,", "{ set = \"sta\", net = [3.7,");
        assert!(e.contains("table4.sets") && e.contains("unknown set `sta`"), "{e}");
        let e = err("set = \"sa\"\nwindows = 50\nmeasure", "set = \"sa\"\nwindows = 51\nmeasure");
        assert!(e.contains("paper_text") && e.contains("no value for `sa` at 51 windows"), "{e}");
        let e = err("population = ", "population = 0 # ");
        assert!(e.contains("learn.population") && e.contains("at least 1"), "{e}");
        let e = err("population = 500\niterations = 20\nmax_rules = 2", "population = 500\niterations = 50\nmax_rules = 2");
        assert!(e.contains("learning-500.learn.max_rules") && e.contains("as the paper's budget"), "{e}");
    }
}
