//! The cases of a profile and how one runs (Section 4): the evaluation stage
//! (`eval/<set>/w<windows>/s<seed>`, one simulated GA per evaluator), the whole
//! learning system (`learn/<set>/w<windows>/s<seed>`) and the sweep beyond the
//! paper (`scale/…`, [`super::scale`]). Every evaluator must give the serial
//! counts exactly and learn the serial rule list exactly; a case fails otherwise.

use super::analysis::AttributeType;
use super::methods::{GPU_DESIGNS, evaluators, simulated_ga, threads};
use super::rows::{Evaluator, LearnGa, LearnRun, Model, ScaleCase, SetCase, TrainingSet};
use super::spec::{rule_bytes, stand_in};
use super::{BiohelPaper, EVAL_FIGURE, LEARN_FIGURE, scale};
use crate::error::SpecError;
use crate::experiments::{Case, Footprint, Plan, RunEnv, plan};
use crate::library::biohel::{ilas_strata, random_rule, window_range};
use crate::library::biohel_learning::{LearnedModel, LearningConfig, learn};
use crate::library::dataset::{self, Dataset};
use crate::records::Record;
use crate::records::col;
use crate::spec::{SpecOutline, values};
use anyhow::{Context, Result, bail};
use itertools::iproduct;
use rand::SeedableRng;
use rand::rngs::StdRng;

impl BiohelPaper {
    /// The whole set of Table 1 by its short name: a vendored public file, ParMX
    /// (generated), or the synthetic stand-in of CN, SS or SA.
    pub(super) fn data_set(&self, set: &str) -> Result<Dataset> {
        let standin = |kind: dataset::StandIn| dataset::synthetic_standin(kind, kind.paper_shape().instances, self.spec.settings.seed);
        let dir = &self.data_dir.path;
        Ok(match (set, stand_in(set)) {
            ("par", _) => dataset::parmx(),
            (_, Some(kind)) => standin(kind),
            _ => dataset::load_named(dir, set, self.file.context.confinement(dir))
                .with_context(|| format!("data set `{set}` under {}", dir.display()))?,
        })
    }

    /// Fold 0 of the stratified cross-validation (Section 4): the training set
    /// (the other folds) and the test set (fold 0), every missing value replaced
    /// by the training set's mean or mode (`Dataset::impute_missing`), as BioHEL
    /// does before learning and before classifying a test file.
    fn split(&self, set: &str) -> Result<(Dataset, Dataset)> {
        let mut data = self.data_set(set)?;
        let folds = dataset::stratified_folds(&data.labels, *self.spec.settings.folds, self.spec.settings.seed);
        let train: Vec<usize> = folds[1..].concat();
        data.impute_missing(&train);
        Ok((data.subset(&train), data.subset(&folds[0])))
    }

    /// The training set of fold 0 in ILAS order for `windows` strata.
    fn training_set(&self, set: &str, windows: usize, seed: u64) -> Result<Dataset> {
        let (train, _) = self.split(set)?;
        let order = ilas_strata(&train.labels, windows, seed);
        Ok(train.subset(&order))
    }
}

impl Plan for BiohelPaper {
    fn outline(&self) -> &dyn SpecOutline {
        &self.spec
    }

    fn timing(&self) -> plan::Timing {
        plan::Timing { method: col::METHOD, columns: &["eval_s", "learn_s"], only: None }
    }

    /// Loads every set of Table 1 that the evaluation and learning cases among
    /// `cases` use, once each: a missing or malformed file fails here, named.
    fn prepare(&self, cases: &[Case]) -> Result<()> {
        let mut sets: Vec<String> = cases
            .iter()
            .filter(|c| [EVAL_FIGURE, LEARN_FIGURE].contains(&c.params.str(col::FIGURE)))
            .filter_map(|c| c.params.row::<SetCase>().ok())
            .map(|c| c.set)
            .collect();
        sets.sort_unstable();
        sets.dedup();
        for set in sets {
            self.data_set(&set)?;
        }
        Ok(())
    }

    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError> {
        let p = self.file.profile(&self.spec.profiles, profile)?;
        let seed = |s: usize, w: usize| self.spec.settings.seed ^ ((s as u64) << 16) ^ w as u64;
        let mut cases = Vec::new();
        let iterations = p.iterations.as_ref().map_or(0, |i| **i);
        for (set, w, s) in iproduct!(&p.sets, values(&p.windows), 0..p.seeds.as_ref().map_or(0, |n| **n)) {
            let set = String::clone(set);
            let id = format!("eval/{set}/w{w}/s{s}");
            cases.push(Case::of(EVAL_FIGURE, id, &SetCase { set, windows: w, iterations, seed: seed(s, w) }, 10));
        }
        if let Some(l) = &p.learn {
            let (population, iterations) = (*l.population, *l.iterations);
            let ga = LearnGa { population, max_rules: l.max_rules.as_deref().copied() };
            for (set, w, s) in iproduct!(&l.sets, values(&l.windows), 0..*l.seeds) {
                let set = String::clone(set);
                let id = format!("learn/{set}/w{w}/s{s}");
                // Rules evaluated per GA in whole-set passes: the iterations on strata, the last one on all instances.
                let weight = (population * (iterations / w + 1) / 50).max(1) as u64;
                cases.push(Case::of(LEARN_FIGURE, id, &SetCase { set, windows: w, iterations, seed: seed(s, w) }, weight).with_row(&ga));
            }
        }
        if let Some(sc) = &p.scale {
            cases.extend(sc.cases(self.spec.settings.seed));
        }
        Ok(cases)
    }

    /// What one case holds at its peak: the data set three times on the host
    /// (whole, training fold, ILAS order; a learning case a fourth, the
    /// instances not yet covered), once on the device; and its rules: a
    /// simulated GA draws every iteration's before timing, a learning GA holds
    /// its population and as many offspring.
    fn footprint(&self, case: &Case) -> Footprint {
        let p = &case.params;
        let (values, attributes, iterations) = match (p.row::<ScaleCase>(), p.row::<SetCase>()) {
            (Ok(sc), _) => ((sc.instances * sc.attributes) as f64, sc.attributes as f64, sc.iterations as f64),
            (_, Ok(c)) => super::spec::shape(&c.set).map_or((0.0, 0.0, 0.0), |s| {
                let a = (s.continuous + s.nominal) as f64;
                (s.instances as f64 * a, a, c.iterations as f64)
            }),
            _ => (0.0, 0.0, 0.0),
        };
        let per_iteration = *self.spec.settings.rules_per_iteration as f64;
        let expressed = *self.spec.settings.expressed_probability * attributes;
        let (key, copies, rules, rule) = match p.str(col::FIGURE) {
            scale::SCALE_FIGURE => ("scale", 3.0, iterations * per_iteration, rule_bytes(expressed)),
            LEARN_FIGURE => {
                let expressed = attributes.min(crate::library::biohel_learning::EXPECTED_EXPRESSED_ATTRIBUTES);
                let population = p.row::<LearnGa>().map_or(0.0, |l| l.population as f64);
                ("learn", 4.0, 2.0 * population, rule_bytes(expressed))
            }
            _ => ("sets", 3.0, iterations * per_iteration, rule_bytes(expressed)),
        };
        let device_rules = if p.str(col::FIGURE) == LEARN_FIGURE { rules } else { per_iteration };
        Footprint {
            host_bytes: (copies * 4.0 * values + rules * rule) as u64,
            device_bytes: (4.0 * values + device_rules * rule) as u64,
            key,
        }
    }

    /// Every stage times the CUDA designs beside the CPU evaluators.
    fn gpu_methods(&self, _case: &Case, _profile: &str) -> Result<Vec<&'static str>> {
        Ok(GPU_DESIGNS.iter().map(|&(method, _)| method).collect())
    }

    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let s = &self.spec.settings;
        match case.params.str(col::FIGURE) {
            EVAL_FIGURE => self.run_evaluation(case, env),
            LEARN_FIGURE => self.run_learning(case, env),
            scale::SCALE_FIGURE => scale::run(case, env, *s.rules_per_iteration, *s.expressed_probability),
            other => bail!("case {}: unknown stage `{other}`", case.id),
        }
    }
}

impl BiohelPaper {
    /// First stage: one simulated GA per evaluator (Tables 2–3).
    fn run_evaluation(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let SetCase { set, windows, iterations, seed } = case.row()?;
        let data = self.training_set(&set, windows, seed)?;
        // Every iteration's rules, drawn before any timing.
        let mut rng = StdRng::seed_from_u64(seed);
        let rules: Vec<Vec<_>> = (0..iterations)
            .map(|_| {
                (0..*self.spec.settings.rules_per_iteration)
                    .map(|_| random_rule(&data, &mut rng, *self.spec.settings.expressed_probability))
                    .collect()
            })
            .collect();
        let rows = simulated_ga(&case.id, env, &data, &rules, |t| window_range(data.instances(), windows, t % windows))?;
        Ok(rows.into_iter().map(|r| r.with_row(&training_set(&data))).collect())
    }

    /// Second stage: BioHEL learns fold 0's training set with each evaluator
    /// (Table 2's integration columns, Table 4); every evaluator must learn the
    /// serial evaluator's rule list.
    fn run_learning(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>> {
        let SetCase { set, windows, iterations, seed } = case.row()?;
        let LearnGa { population, max_rules } = case.row()?;
        let base = LearningConfig::for_set(&set).with_context(|| format!("Table 1 gives no coverage breakpoint for `{set}`"))?;
        let cfg = LearningConfig { windows, population, iterations, max_rules, seed, ..base };
        let (train, test) = self.split(&set)?;
        let mut reference: Option<LearnedModel> = None;
        let mut timed = Vec::new();
        for (name, mut evaluator) in evaluators(env)? {
            let model = learn(&train, &cfg, evaluator.as_mut()).with_context(|| format!("learning with {name}"))?;
            let stats = model.stats;
            match &reference {
                None => reference = Some(model),
                Some(want) => {
                    if let Some(diff) = rule_list_difference(want, &model) {
                        bail!("{name} learned a different rule list from the serial evaluator's in case {} ({diff})", case.id);
                    }
                }
            }
            timed.push(
                Record::ran(name)
                    .with_row(&LearnRun {
                        learn_s: stats.total_time.as_secs_f64(),
                        loads: stats.evaluation.loads,
                        calls: stats.evaluation.calls,
                        rules_evaluated: stats.evaluation.rules,
                        matches: stats.evaluation.matches,
                        gas: stats.gas,
                        rejected_rules: stats.rejected_rules,
                    })
                    .with_row(&Evaluator { eval_s: stats.evaluation.time.as_secs_f64(), threads: threads(name) }),
            );
        }
        // Equal rule lists classify alike: the accuracies are the reference's.
        let model = reference.expect("the serial evaluator runs first");
        let (train_accuracy, test_accuracy) = (model.accuracy(&train), model.accuracy(&test));
        // The rule list without rules: the training set's majority class on the test fold (chance).
        let majority = LearnedModel { rules: Vec::new(), default_class: model.default_class, stats: Default::default() };
        let learned = Model {
            rules: model.rules.len(),
            train_accuracy,
            test_accuracy,
            majority_accuracy: Some(majority.accuracy(&test)),
            test_instances: test.instances(),
        };
        Ok(timed.into_iter().map(|r| r.with_row(&learned).with_row(&training_set(&train))).collect())
    }
}

/// The training set's row: its size and attribute type.
fn training_set(data: &Dataset) -> TrainingSet {
    TrainingSet {
        instances: data.instances(),
        attributes: data.attribute_count(),
        attribute_type: Some(AttributeType::of(data).label().to_owned()),
    }
}

/// Where two learned models differ, if they do.
fn rule_list_difference(want: &LearnedModel, got: &LearnedModel) -> Option<String> {
    if want.default_class != got.default_class {
        return Some(format!("default class {} instead of {}", got.default_class, want.default_class));
    }
    if let Some(i) = want.rules.iter().zip(&got.rules).position(|(a, b)| a != b) {
        return Some(format!("rule {i} of {} differs", want.rules.len()));
    }
    (want.rules.len() != got.rules.len()).then(|| format!("{} rules instead of {}", got.rules.len(), want.rules.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::biohel::{Condition, Rule};

    #[test]
    fn rule_lists_must_be_identical() {
        let rule = |class, high| Rule { class, conditions: vec![Condition::Interval { attribute: 0, low: 0.0, high }] };
        let model = |rules| LearnedModel { rules, default_class: 0, stats: Default::default() };
        let want = model(vec![rule(1, 0.5), rule(2, 0.7)]);
        assert_eq!(rule_list_difference(&want, &model(vec![rule(1, 0.5), rule(2, 0.7)])), None);
        assert_eq!(rule_list_difference(&want, &model(vec![rule(1, 0.5), rule(2, 0.6)])).unwrap(), "rule 1 of 2 differs");
        assert_eq!(rule_list_difference(&want, &model(vec![rule(1, 0.5)])).unwrap(), "1 rules instead of 2");
        let other_default = LearnedModel { default_class: 1, ..model(vec![rule(1, 0.5), rule(2, 0.7)]) };
        assert!(rule_list_difference(&want, &other_default).unwrap().contains("default class"));
    }
}
