//! Tests of the learning system: the fitness on hand-computed counts, the operators, ILAS windowing, covered-instance
//! removal and learning on generated and real data sets.

use super::fitness::low_bits;
use super::irl::remove_covered;
use super::operators::Operators;
use super::*;
use crate::library::biohel::{Condition, Counts, ParallelEvaluator, Rule, RuleEvaluator, SerialEvaluator, random_rule, window_range};
use crate::library::dataset::{Attribute, Dataset, load_named, scalable, stratified_folds, waveform};
use anyhow::{Result, ensure};
use rand::SeedableRng;
use rand::rngs::StdRng;
use std::ops::Range;
use std::path::Path;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn coverage_term_follows_the_breakpoint() {
    let (cb, cr) = (0.1, 0.9);
    assert!(close(coverage_term(0.0, cb, cr), 0.0));
    assert!(close(coverage_term(0.05, cb, cr), 0.45));
    assert!(close(coverage_term(0.1, cb, cr), 0.9));
    assert!(close(coverage_term(0.15, cb, cr), 0.9 + 0.1 * 0.05 / 0.9));
    // Capped at twice the breakpoint.
    let cap = 0.9 + 0.1 * 0.1 / 0.9;
    assert!(close(coverage_term(0.2, cb, cr), cap));
    assert!(close(coverage_term(0.7, cb, cr), cap));
    // Steep below, flat above.
    assert!(coverage_term(0.09, cb, cr) - coverage_term(0.08, cb, cr) > 10.0 * (coverage_term(0.12, cb, cr) - coverage_term(0.11, cb, cr)));
    // Breakpoint 1: the recall itself.
    assert!(close(coverage_term(0.37, 1.0, cr), 0.37));
    // Per-class breakpoints: cb · N / N_c, capped at 1.
    let bp = class_breakpoints(&[600, 300, 100, 0], 0.1);
    assert!(close(bp[0], 0.1 * 1000.0 / 600.0) && close(bp[1], 0.1 * 1000.0 / 300.0) && close(bp[2], 1.0) && close(bp[3], 1.0));
}

#[test]
fn fitness_on_hand_computed_counts() {
    let (cb, cr) = (0.1, 0.9);
    // 8 of 10 matched are right; 8 of the class's 100: recall 0.08 < cb.
    let c = Counts { matched: 10, correct: 100, matched_and_correct: 8 };
    assert!(close(exceptions_length(c, cb, cr), 0.2 + (1.0 - 0.9 * 0.08 / 0.1)));
    // Recall 0.4 ≥ 2 cb: capped.
    let c = Counts { matched: 10, correct: 20, matched_and_correct: 8 };
    let el = 0.2 + (1.0 - (0.9 + 0.1 * 0.1 / 0.9));
    assert!(close(exceptions_length(c, cb, cr), el));
    assert!(close(mdl_fitness(c, 0.5, 0.1, cb, cr), 0.05 + el));
    // Fewer than two instances of the class: the worst value.
    assert!(close(exceptions_length(Counts { matched: 5, correct: 1, matched_and_correct: 1 }, cb, cr), 2.0));
    // Nothing matched: accuracy 0, coverage 0.
    assert!(close(exceptions_length(Counts { matched: 0, correct: 50, matched_and_correct: 0 }, cb, cr), 2.0));
    // A perfect rule covering its whole class.
    assert!(close(exceptions_length(Counts { matched: 50, correct: 50, matched_and_correct: 50 }, 0.5, cr), 0.0));
    // Monotone in accuracy: more wrongly matched instances, worse (higher) fitness.
    let f = |matched| mdl_fitness(Counts { matched, correct: 40, matched_and_correct: 12 }, 0.3, 0.2, cb, cr);
    for matched in 12..200 {
        assert!(f(matched + 1) > f(matched), "{matched}");
    }
    // Monotone in recall at fixed accuracy, up to the cap.
    let g = |mc: u32| exceptions_length(Counts { matched: mc, correct: 100, matched_and_correct: mc }, cb, cr);
    for mc in 2..20 {
        assert!(g(mc + 1) < g(mc), "{mc}");
    }
    assert!(close(g(20), g(60)));
}

fn tiny() -> Dataset {
    Dataset {
        name: "tiny".into(),
        attributes: vec![
            Attribute::Continuous { name: "x".into() },
            Attribute::Nominal { name: "colour".into(), values: vec!["red".into(), "green".into(), "blue".into(), "grey".into()] },
            Attribute::Continuous { name: "y".into() },
        ],
        classes: vec!["a".into(), "b".into()],
        values: vec![0.0, 0.0, 5.0, 2.0, 1.0, f32::NAN, 4.0, 3.0, 7.0, 1.0, 2.0, 6.0],
        labels: vec![0, 1, 1, 0],
        synthetic: true,
    }
}

#[test]
fn domains_and_theory_length() {
    let data = tiny();
    let d = attribute_domains(&data);
    assert_eq!(
        d,
        vec![Domain::Continuous { min: 0.0, max: 4.0 }, Domain::Nominal { values: 4 }, Domain::Continuous { min: 5.0, max: 7.0 }]
    );
    let rule = Rule {
        class: 0,
        conditions: vec![Condition::Interval { attribute: 0, low: 1.0, high: 2.0 }, Condition::Values { attribute: 1, mask: 0b0101 }],
    };
    // (1 − 1/4) + 2/4 over 3 attributes.
    assert!(close(theory_length(&rule, &d), (0.75 + 0.5) / 3.0));
    assert!(close(theory_length(&Rule { class: 1, conditions: vec![] }, &d), 0.0));
}

fn config(population: usize, iterations: usize, windows: usize, seed: u64) -> LearningConfig {
    LearningConfig { population, iterations, windows, seed, ..LearningConfig::default() }
}

/// Six continuous attributes, two classes: class = (⌊2a⌋ + ⌊2b⌋) mod 2 for two
/// attributes a, b drawn from the seed (`scalable`) — an XOR of two thresholds,
/// described exactly by two interval rules per class.
fn easy(instances: usize, seed: u64) -> Dataset {
    scalable(instances, 6, 2, 0.0, seed)
}

fn split(data: &Dataset, seed: u64) -> (Dataset, Dataset) {
    let folds = stratified_folds(&data.labels, 5, seed);
    let train: Vec<usize> = folds[1..].concat();
    (data.subset(&train), data.subset(&folds[0]))
}

#[test]
fn learns_an_easy_set_and_beats_the_majority_class() {
    let (train, test) = split(&easy(1_500, 3), 1);
    let model = learn(&train, &config(100, 30, 1, 7), &mut ParallelEvaluator).expect("learns");
    let majority = *test.class_counts().iter().max().expect("classes") as f64 / test.instances() as f64;
    let (train_acc, test_acc) = (model.accuracy(&train), model.accuracy(&test));
    eprintln!("easy: {} rules, train {train_acc:.3}, test {test_acc:.3}, majority {majority:.3}", model.rules.len());
    assert!(train_acc >= 0.95, "train accuracy {train_acc}");
    assert!(test_acc >= majority + 0.3, "test accuracy {test_acc}, majority {majority}");
}

#[test]
fn serial_and_parallel_evaluators_learn_the_same_rules() {
    let train = waveform(600, 4);
    for windows in [1, 3] {
        let cfg = LearningConfig { max_rules: Some(4), ..config(100, 20, windows, 11) };
        let serial = learn(&train, &cfg, &mut SerialEvaluator).expect("learns");
        let parallel = learn(&train, &cfg, &mut ParallelEvaluator).expect("learns");
        assert!(!serial.rules.is_empty());
        assert_eq!(serial.rules, parallel.rules, "{windows} windows");
        assert_eq!(serial.stats.evaluation.matches, parallel.stats.evaluation.matches);
        // On a one-thread pool too.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
        let single = pool.install(|| learn(&train, &cfg, &mut ParallelEvaluator)).expect("learns");
        assert_eq!(serial.rules, single.rules);
        // Another seed, another rule set.
        let other = learn(&train, &LearningConfig { seed: 12, ..cfg.clone() }, &mut SerialEvaluator).expect("learns");
        assert_ne!(serial.rules, other.rules);
    }
}

/// Wraps [`SerialEvaluator`], recording (instances of the data, window, rules)
/// of every call and the instances of every load; like a GPU evaluator it
/// refuses to evaluate a set other than the one last loaded.
#[derive(Default)]
struct Recording {
    calls: Vec<(usize, Range<usize>, usize)>,
    loads: Vec<usize>,
    loaded: Option<(*const f32, *const u16, usize)>,
}

impl RuleEvaluator for Recording {
    fn name(&self) -> String {
        "recording".into()
    }

    fn load(&mut self, data: &Dataset) -> Result<()> {
        self.loads.push(data.instances());
        self.loaded = Some((data.values.as_ptr(), data.labels.as_ptr(), data.instances()));
        Ok(())
    }

    fn evaluate(&mut self, data: &Dataset, window: Range<usize>, rules: &[Rule], out: &mut Vec<Counts>) -> Result<()> {
        ensure!(self.loaded == Some((data.values.as_ptr(), data.labels.as_ptr(), data.instances())), "not loaded");
        self.calls.push((data.instances(), window.clone(), rules.len()));
        SerialEvaluator.evaluate(data, window, rules, out)
    }
}

#[test]
fn ilas_evaluates_windows_round_robin_in_population_batches() {
    let data = waveform(1_000, 9);
    let n = data.instances();
    let (pop, iterations) = (30, 8);
    for windows in [1, 3, 7] {
        let cfg = config(pop, iterations, windows, 5);
        let context = GaContext::new(&data, &cfg);
        let mut rec = Recording::default();
        let mut stats = EvaluationStats::default();
        let outcome = run_ga(&data, &context, &cfg, &mut StdRng::seed_from_u64(1), &mut rec, &mut stats).expect("runs");
        assert_eq!(rec.calls.len(), iterations + 1, "one batch per iteration plus the initial population");
        for (k, (instances, window, rules)) in rec.calls.iter().enumerate() {
            assert_eq!(*instances, n);
            if k == iterations {
                assert_eq!(*window, 0..n, "the last iteration uses every instance");
            } else {
                assert_eq!(*window, window_range(n, windows, k % windows), "call {k}, {windows} windows");
            }
            // The population plus one kept best per stratum seen so far.
            let elites = if k == 0 { 0 } else { k.min(windows) };
            assert_eq!(*rules, pop + elites, "call {k}");
        }
        if windows == 7 {
            assert!(rec.calls[1].1.len() < n / 6, "windows are strata, not the whole set");
        }
        let expected: u64 = rec.calls.iter().map(|(_, w, r)| (w.len() * r) as u64).sum();
        assert_eq!((stats.calls, stats.matches), (rec.calls.len() as u64, expected));
        assert_eq!(rec.loads, vec![n], "the instances are loaded once per GA");
        assert_eq!(stats.loads, 1);
        // The outcome's counts are over all instances.
        let mut all = Vec::new();
        SerialEvaluator.evaluate(&data, 0..n, std::slice::from_ref(&outcome.rule), &mut all).expect("valid");
        assert_eq!(all[0], outcome.score.counts);
    }
}

#[test]
fn covered_instances_are_removed_between_rules() {
    // Hand check of the removal: every matched instance goes, whatever its class.
    let data = tiny();
    let rule = Rule { class: 1, conditions: vec![Condition::Interval { attribute: 0, low: 0.5, high: 3.5 }] };
    let left = remove_covered(&data, &rule);
    // Rows 1 (class b) and 3 (class a) match x ∈ [0.5, 3.5]; rows 0 and 2 stay.
    assert_eq!(left.labels, vec![0, 1]);
    assert_eq!(left.row(0), data.row(0));
    assert_eq!(left.row(1), data.row(2));

    // In learning: each GA of rule k sees the training set less everything the
    // rules before it match.
    let train = waveform(800, 2);
    let cfg = LearningConfig { max_rules: Some(5), ..config(100, 20, 2, 3) };
    let mut rec = Recording::default();
    let model = learn(&train, &cfg, &mut rec).expect("learns");
    assert!(model.rules.len() >= 2, "{} rules", model.rules.len());
    let mut expected = vec![train.instances()];
    let mut left = train.clone();
    for rule in &model.rules {
        let before = left.instances();
        left = remove_covered(&left, rule);
        assert!(left.instances() < before, "each accepted rule covers something");
        expected.push(left.instances());
    }
    let mut seen: Vec<usize> = rec.calls.iter().map(|c| c.0).collect();
    seen.dedup();
    assert_eq!(seen, expected[..seen.len()].to_vec());
    assert!(seen.len() >= model.rules.len());
    assert_eq!(model.stats.gas, (model.rules.len() + model.stats.rejected_rules) * cfg.repetitions);
    // One load per GA and one per rule check.
    let checks = model.rules.len() + model.stats.rejected_rules;
    assert_eq!(rec.loads.len(), model.stats.gas + checks);
    assert_eq!(model.stats.evaluation.loads, rec.loads.len() as u64);
}

#[test]
fn the_default_rule_is_the_majority_class_and_rules_never_predict_it() {
    // Half of class 0 dropped: class 1 is the majority, about 2 : 1.
    let full = easy(900, 5);
    let keep: Vec<usize> = (0..full.instances()).filter(|&i| full.labels[i] == 1 || i % 2 == 0).collect();
    let data = full.subset(&keep);
    let counts = data.class_counts();
    assert!(counts[1] > counts[0] * 3 / 2, "{counts:?}");
    let model = learn(&data, &config(60, 15, 1, 2), &mut SerialEvaluator).expect("learns");
    assert_eq!(model.default_class, 1);
    assert!(!model.rules.is_empty());
    assert!(model.rules.iter().all(|r| r.class == 0), "rules never predict the default class");
    // No rules: the default rule alone, the majority share.
    let none = learn(&data, &LearningConfig { max_rules: Some(0), ..config(60, 15, 1, 2) }, &mut SerialEvaluator).expect("learns");
    assert!(none.rules.is_empty() && none.default_class == 1);
    assert!(close(none.accuracy(&data), counts[1] as f64 / data.instances() as f64));
    assert_eq!(none.stats.evaluation.calls, 0);
    // Predictions: the first matching rule, else the default class.
    let first = &model.rules[0];
    let i = (0..data.instances()).find(|&i| first.matches(data.row(i))).expect("the first rule matches something");
    assert_eq!(model.predict(data.row(i)), first.class);
    if let Some(i) = (0..data.instances()).find(|&i| !model.rules.iter().any(|r| r.matches(data.row(i)))) {
        assert_eq!(model.predict(data.row(i)), 1);
    }
    // A tie goes to the first class.
    let tie = full.subset(
        &(0..full.instances())
            .filter(|&i| full.labels[i] == 1)
            .take(50)
            .chain((0..full.instances()).filter(|&i| full.labels[i] == 0).take(50))
            .collect::<Vec<_>>(),
    );
    assert_eq!(GaContext::new(&tie, &LearningConfig::default()).default_class, 0);
}

#[test]
fn operators_keep_rules_sorted_and_in_the_domain() {
    let data = scalable(300, 12, 3, 0.5, 2);
    let cfg = LearningConfig { specialize_probability: 1.0, generalize_probability: 0.5, ..LearningConfig::default() };
    let context = GaContext::new(&data, &cfg);
    let ops = Operators { domains: &context.domains, rule_classes: vec![0, 1, 2], cfg: &cfg };
    let mut rng = StdRng::seed_from_u64(4);
    let mut rules: Vec<Rule> = (0..60).map(|_| random_rule(&data, &mut rng, 0.4)).collect();
    for round in 0..40 {
        let (i, j) = (round % rules.len(), (round * 7 + 3) % rules.len());
        let (a, b) = ops.crossover(&rules[i], &rules[j], &mut rng);
        rules[i] = a;
        rules[j] = b;
        for r in rules.iter_mut() {
            ops.mutate(r, &mut rng);
            ops.generalize(r, &mut rng);
            ops.specialize(r, &mut rng);
        }
    }
    for r in &rules {
        assert!(r.conditions.windows(2).all(|p| p[0].attribute() < p[1].attribute()), "{r:?}");
        for c in &r.conditions {
            match (*c, context.domains[c.attribute()]) {
                (Condition::Interval { low, high, .. }, Domain::Continuous { min, max }) => {
                    assert!(min <= low && low <= high && high <= max, "{c:?}")
                }
                (Condition::Values { mask, .. }, Domain::Nominal { values }) => assert_eq!(mask & !low_bits(values), 0),
                _ => panic!("{c:?} does not fit its attribute"),
            }
        }
    }
    // Crossover of two rules on the same attributes keeps them (up to crossing).
    let p1 = Rule { class: 0, conditions: vec![Condition::Interval { attribute: 0, low: 0.1, high: 0.2 }] };
    let p2 = Rule { class: 1, conditions: vec![Condition::Interval { attribute: 0, low: 0.5, high: 0.9 }] };
    for _ in 0..20 {
        let (a, b) = ops.crossover(&p1, &p2, &mut rng);
        let mut bounds: Vec<f32> = [&a, &b]
            .iter()
            .flat_map(|r| match r.conditions[..] {
                [Condition::Interval { low, high, .. }] => [low, high],
                _ => panic!("{r:?}"),
            })
            .collect();
        bounds.sort_by(f32::total_cmp);
        assert_eq!(bounds, vec![0.1, 0.2, 0.5, 0.9]);
        assert!(a.class != b.class);
    }
}

#[test]
fn invalid_configurations_are_errors() {
    let data = easy(100, 1);
    for cfg in [
        LearningConfig { population: 0, ..LearningConfig::default() },
        LearningConfig { windows: 0, ..LearningConfig::default() },
        LearningConfig { iterations: 0, ..LearningConfig::default() },
        LearningConfig { coverage_breakpoint: 0.0, ..LearningConfig::default() },
        LearningConfig { crossover_probability: 1.5, ..LearningConfig::default() },
        LearningConfig { expressed_probability: Some(-0.1), ..LearningConfig::default() },
    ] {
        assert!(learn(&data, &cfg, &mut SerialEvaluator).is_err(), "{cfg:?}");
    }
    assert_eq!(LearningConfig::for_set("SS").map(|c| c.coverage_breakpoint), Some(0.0025));
    assert_eq!(table1_coverage_breakpoint("adu"), Some(0.01));
    assert_eq!(table1_coverage_breakpoint("xyz"), None);
}

/// The numbers for the report: `cargo test --release -- --ignored --nocapture`.
#[test]
#[ignore = "measurement (tens of seconds in release)"]
fn measure_waveform_and_satimage() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/biohel");
    let sets = [
        ("wav (generated, 5000)", waveform(5_000, 1)),
        ("wav", load_named(&dir, "wav", None).expect("wav loads")),
        ("sat", load_named(&dir, "sat", None).expect("sat loads")),
    ];
    for (name, data) in sets {
        let cb = table1_coverage_breakpoint(if name == "sat" { "sat" } else { "wav" }).expect("Table 1");
        let folds = stratified_folds(&data.labels, 10, 1);
        let (train, test) = (data.subset(&folds[1..].concat()), data.subset(&folds[0]));
        for windows in [1, 10] {
            for serial in [true, false] {
                let cfg = LearningConfig { windows, coverage_breakpoint: cb, seed: 1, ..LearningConfig::default() };
                let model = if serial { learn(&train, &cfg, &mut SerialEvaluator) } else { learn(&train, &cfg, &mut ParallelEvaluator) }
                    .expect("learns");
                let s = model.stats;
                eprintln!(
                    "{name} w={windows} {}: train {:.4} test {:.4} rules {} GAs {} total {:.2}s eval {:.2}s ({:.1}%) loads {} calls {} matches {:.3e}",
                    if serial { "serial" } else { "parallel" },
                    model.accuracy(&train),
                    model.accuracy(&test),
                    model.rules.len(),
                    s.gas,
                    s.total_time.as_secs_f64(),
                    s.evaluation.time.as_secs_f64(),
                    100.0 * s.evaluation_share(),
                    s.evaluation.loads,
                    s.evaluation.calls,
                    s.evaluation.matches as f64
                );
            }
        }
    }
}
