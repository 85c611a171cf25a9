//! The GA that learns one rule (P Sections 2.2 and 4; SRC `ga.cpp`), with ILAS windowing and per-stratum elitism.

use super::evaluation::{evaluate, load};
use super::operators::Operators;
use super::{
    Domain, EXPECTED_EXPRESSED_ATTRIBUTES, EvaluationStats, LearningConfig, MDL_RELAX_AFTER, RuleScore, attribute_domains,
    class_breakpoints, exceptions_length, theory_length,
};
use crate::library::biohel::{Counts, Rule, RuleEvaluator, ilas_strata, random_rule, window_range};
use crate::library::dataset::Dataset;
use anyhow::{Result, ensure};
use rand::RngExt;
use rand::rngs::StdRng;
use std::borrow::Cow;

/// What a GA needs to know about the whole training set: attribute domains, the
/// per-class breakpoints, the default class (which rules never predict), and the
/// expression probability of new rules.
#[derive(Clone, Debug, PartialEq)]
pub struct GaContext {
    pub domains: Vec<Domain>,
    pub class_breakpoints: Vec<f64>,
    pub default_class: u16,
    pub expressed_probability: f64,
}

impl GaContext {
    /// From the whole training set, as BioHEL computes these once when it reads the
    /// training file. The default class is the most frequent class, the first on
    /// ties (SRC `default class major`, `timerGlobals`, `classifier_aggregated`:
    /// the default rule predicts the training set's majority class, and the GA
    /// never learns rules for it — initialisation and class mutation skip it).
    pub fn new(train: &Dataset, cfg: &LearningConfig) -> GaContext {
        let counts = train.class_counts();
        let default_class = counts.iter().enumerate().fold((0, 0), |best, (c, &n)| if n > best.1 { (c, n) } else { best }).0;
        let attributes = train.attribute_count().max(1) as f64;
        GaContext {
            domains: attribute_domains(train),
            class_breakpoints: class_breakpoints(&counts, cfg.coverage_breakpoint),
            default_class: default_class as u16,
            expressed_probability: cfg.expressed_probability.unwrap_or((EXPECTED_EXPRESSED_ATTRIBUTES / attributes).min(1.0)),
        }
    }

    pub(super) fn classes(&self) -> usize {
        self.class_breakpoints.len()
    }

    fn score(&self, rule: &Rule, counts: Counts, weight: f64, coverage_ratio: f64) -> RuleScore {
        let tl = theory_length(rule, &self.domains);
        let cb = self.class_breakpoints[usize::from(rule.class)];
        let el = exceptions_length(counts, cb, coverage_ratio);
        RuleScore { counts, theory_length: tl, exceptions_length: el, fitness: tl * weight + el }
    }
}

/// The best rule of one GA, with its score on the whole `data` (BioHEL's last GA
/// iteration evaluates on all instances, see [`run_ga`]).
#[derive(Clone, Debug, PartialEq)]
pub struct GaOutcome {
    pub rule: Rule,
    pub score: RuleScore,
}

/// GAssist / BioHEL's `Sampling`: draws 0..n without replacement, starting over
/// when all have been drawn.
struct Sampling {
    n: usize,
    left: Vec<usize>,
}

impl Sampling {
    fn new(n: usize) -> Sampling {
        Sampling { n, left: (0..n).collect() }
    }

    fn sample(&mut self, rng: &mut StdRng) -> usize {
        if self.left.is_empty() {
            self.left.extend(0..self.n);
        }
        let i = rng.random_range(0..self.left.len());
        self.left.swap_remove(i)
    }
}

/// The MDL weight W of the theory length (SRC `timerMDL::newIteration`): 0 until
/// GA iteration `mdl_iteration`; then W = r / (1 − r) · EL / TL of the population's
/// best rule (r = `mdl_initial_tl_ratio`), or a fixed 0.1 when that rule's EL is 0
/// (or, our choice, its TL is 0, where the source would divide by 0); afterwards,
/// while the best rule's EL is not 0, W is multiplied by the relax factor whenever
/// the best fitness has not improved for [`MDL_RELAX_AFTER`] iterations.
struct MdlWeight {
    start: usize,
    ratio: f64,
    relax: f64,
    activated: bool,
    fixed: bool,
    weight: f64,
    /// `timerEvolutionStats`: iterations since the best fitness last improved
    /// (0: restart counting), and that fitness.
    since_best: u32,
    best_fitness: f64,
}

impl MdlWeight {
    fn new(cfg: &LearningConfig) -> MdlWeight {
        MdlWeight {
            start: cfg.mdl_iteration.max(1),
            ratio: cfg.mdl_initial_tl_ratio,
            relax: cfg.mdl_weight_relax_factor,
            activated: false,
            fixed: false,
            weight: 0.0,
            since_best: 0,
            best_fitness: f64::INFINITY,
        }
    }

    fn weight(&self) -> f64 {
        if self.activated { self.weight } else { 0.0 }
    }

    /// At the start of GA iteration `t`, with the population's best rule.
    fn new_iteration(&mut self, t: usize, best: &RuleScore) {
        let mut update = false;
        if t == self.start {
            self.activated = true;
            if !self.fixed {
                if best.exceptions_length == 0.0 || best.theory_length == 0.0 {
                    self.weight = 0.1;
                    self.fixed = true;
                } else {
                    self.weight = self.ratio / (1.0 - self.ratio) * best.exceptions_length / best.theory_length;
                }
            }
            update = true;
        }
        if self.activated && !self.fixed && best.exceptions_length != 0.0 && self.since_best == MDL_RELAX_AFTER {
            self.weight *= self.relax;
            update = true;
        }
        if update {
            self.since_best = 0;
        }
    }

    /// At the end of an iteration, with the fitness of the kept best rule
    /// (`timerEvolutionStats::bestOfIteration`).
    fn best_of_iteration(&mut self, fitness: f64) {
        if self.since_best == 0 || fitness < self.best_fitness {
            self.best_fitness = fitness;
            self.since_best = 1;
        } else {
            self.since_best += 1;
        }
    }
}

/// Indices of `scores` best first (lowest fitness; ties by index — BioHEL's
/// `qsort` leaves ties unspecified, our choice).
fn rank(scores: &[RuleScore]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].fitness.total_cmp(&scores[b].fitness).then(a.cmp(&b)));
    order
}

/// Runs one GA of BioHEL over `data` (the training instances still to be covered)
/// and returns its best rule. [`learn`] runs [`LearningConfig::repetitions`] of
/// them per rule; on its own it is the "one GA of 50 iterations" of Table 3.
///
/// Per SRC (`ga.cpp`, `replacement.cpp`, `selection.cpp`, `crossover.cpp`,
/// `mutation.cpp`, `windowingILAS.cpp`), with w = [`LearningConfig::windows`]:
///
/// 1. The instances are laid out in [`ilas_strata`] order (a new stratification
///    per GA, seed drawn from `rng`, as BioHEL re-stratifies at each restart), so
///    stratum s is [`window_range`]`(n, w, s)`; with w = 1 `data` is used as is.
///    That instance set is handed to [`RuleEvaluator::load`] once, before the
///    first evaluation (the paper's one upload per GA, Section 3.3).
/// 2. Initial population: `population` rules of [`random_rule`] (smart and
///    class-wise initialisation: a class drawn uniformly among the non-default
///    classes present, then [`random_rule`] over that class's instances), evaluated
///    in one [`RuleEvaluator::evaluate`] call on stratum 0.
/// 3. GA iteration t = 0, 1, …, T − 1 evaluates on stratum (t + 1) mod w — the
///    k-th evaluation of the GA uses stratum k mod w, round robin — except the
///    last iteration, which evaluates on all n instances (BioHEL disables windowing
///    for the last iteration, `instanceSet::newIteration`). Each iteration: the
///    MDL weight update; tournament selection without replacement; crossover of
///    pairs; mutation; generalize, then specialize, over all offspring; one
///    `evaluate` call for the offspring together with the elites; elitism;
///    ranking; the per-stratum best update.
/// 4. Per-stratum elitism (P Section 2.2; SRC `checkBestIndividual`,
///    `doElitism`): the GA keeps one best rule per stratum. After each iteration
///    the best rule of the stratum just used is compared with the population's
///    best, both scored on that stratum in that iteration, and replaced if the
///    population's is strictly better. Each iteration all kept bests (one per
///    stratum seen so far) are re-evaluated on the current window in the same
///    batch as the offspring, merged into the ranked offspring (each placed before
///    the first offspring it strictly beats) and the first `population` entries
///    form the next population (the elites replace the offspring pushed out).
///    With w = 1 this is plain elitism of the best rule.
/// 5. The result is the best rule kept for stratum 0 after the last iteration,
///    which was compared on all instances with the last population's best: the
///    best rule on the whole `data`, with its counts there.
///
/// `stats` accumulates the evaluator's calls and time. Errors when `data` has no
/// instance of a non-default class (no rule can be initialised), for an invalid
/// configuration, or when the evaluator fails.
///
/// [`learn`]: super::learn
pub fn run_ga(
    data: &Dataset,
    context: &GaContext,
    cfg: &LearningConfig,
    rng: &mut StdRng,
    evaluator: &mut dyn RuleEvaluator,
    stats: &mut EvaluationStats,
) -> Result<GaOutcome> {
    cfg.validate()?;
    ensure!(context.classes() == data.classes.len(), "GA context has {} classes, data {}", context.classes(), data.classes.len());
    ensure!(
        context.domains.len() == data.attribute_count(),
        "GA context has {} attributes, data {}",
        context.domains.len(),
        data.attribute_count()
    );
    let n = data.instances();
    let w = cfg.windows;
    let pop = cfg.population;

    // 1. ILAS layout.
    let strata_seed = rng.random::<u64>();
    let data: Cow<Dataset> = if w > 1 { Cow::Owned(data.subset(&ilas_strata(&data.labels, w, strata_seed))) } else { Cow::Borrowed(data) };
    let data = data.as_ref();
    load(evaluator, data, stats)?;

    // 2. Class-wise smart initialisation.
    let mut by_class: Vec<Vec<usize>> = vec![Vec::new(); context.classes()];
    for (i, &l) in data.labels.iter().enumerate() {
        by_class[usize::from(l)].push(i);
    }
    let pools: Vec<(u16, Dataset)> = by_class
        .iter()
        .enumerate()
        .filter(|&(c, idx)| c != usize::from(context.default_class) && !idx.is_empty())
        .map(|(c, idx)| (c as u16, data.subset(idx)))
        .collect();
    ensure!(!pools.is_empty(), "{}: no instance of a class other than the default class {}", data.name, context.default_class);
    let ops = Operators {
        domains: &context.domains,
        rule_classes: (0..context.classes() as u16).filter(|&c| c != context.default_class).collect(),
        cfg,
    };
    let mut rules: Vec<Rule> = (0..pop)
        .map(|_| {
            let (_, pool) = &pools[rng.random_range(0..pools.len())];
            random_rule(pool, rng, context.expressed_probability)
        })
        .collect();

    let mut mdl = MdlWeight::new(cfg);
    let mut counts = Vec::with_capacity(pop + w);
    evaluate(evaluator, data, window_range(n, w, 0), &rules, &mut counts, stats)?;
    let mut scores: Vec<RuleScore> =
        rules.iter().zip(&counts).map(|(r, &c)| context.score(r, c, mdl.weight(), cfg.coverage_ratio)).collect();
    let mut order = rank(&scores);
    // One kept best per stratum (BioHEL's `best[version]`).
    let mut best: Vec<Option<(Rule, RuleScore)>> = vec![None; w];
    best[0] = Some((rules[order[0]].clone(), scores[order[0]]));

    for t in 0..cfg.iterations {
        mdl.new_iteration(t, &scores[order[0]]);
        let last = t + 1 == cfg.iterations;
        let (window, version) = if last { (0..n, 0) } else { (window_range(n, w, (t + 1) % w), (t + 1) % w) };

        // Selection: tournament without replacement (`TournamentSelectionWOR`).
        let mut sampling = Sampling::new(pop);
        let selected: Vec<usize> = (0..pop)
            .map(|_| {
                let mut winner = sampling.sample(rng);
                for _ in 1..cfg.tournament_size {
                    let candidate = sampling.sample(rng);
                    if scores[candidate].fitness < scores[winner].fitness {
                        winner = candidate;
                    }
                }
                winner
            })
            .collect();

        // Crossover (`geneticAlgorithm::crossover`): parents drawn without
        // replacement; each draw joins a pair with the crossover probability,
        // else is copied.
        let mut sampling = Sampling::new(pop);
        let mut offspring: Vec<Rule> = Vec::with_capacity(pop + w);
        let mut pending: Option<usize> = None;
        for _ in 0..pop {
            if rng.random::<f64>() < cfg.crossover_probability {
                match pending.take() {
                    None => pending = Some(sampling.sample(rng)),
                    Some(p1) => {
                        let p2 = sampling.sample(rng);
                        let (o1, o2) = ops.crossover(&rules[selected[p1]], &rules[selected[p2]], rng);
                        offspring.push(o1);
                        offspring.push(o2);
                    }
                }
            } else {
                offspring.push(rules[selected[sampling.sample(rng)]].clone());
            }
        }
        if let Some(p1) = pending {
            offspring.push(rules[selected[p1]].clone());
        }

        // Mutation, then the special stages over the whole offspring population.
        for rule in &mut offspring {
            if rng.random::<f64>() < cfg.mutation_probability {
                ops.mutate(rule, rng);
            }
        }
        for rule in &mut offspring {
            ops.generalize(rule, rng);
        }
        for rule in &mut offspring {
            ops.specialize(rule, rng);
        }

        // One batch: offspring and the kept bests, on the current window.
        let elite_versions: Vec<usize> = (0..w).filter(|&v| best[v].is_some()).collect();
        offspring.extend(elite_versions.iter().map(|&v| best[v].as_ref().map(|(r, _)| r.clone()).expect("kept")));
        evaluate(evaluator, data, window.clone(), &offspring, &mut counts, stats)?;
        let weight = mdl.weight();
        let mut batch_scores: Vec<RuleScore> =
            offspring.iter().zip(&counts).map(|(r, &c)| context.score(r, c, weight, cfg.coverage_ratio)).collect();
        let elite_rules = offspring.split_off(pop);
        let elite_scores = batch_scores.split_off(pop);
        for (&v, &s) in elite_versions.iter().zip(&elite_scores) {
            best[v].as_mut().expect("kept").1 = s;
        }
        rules = offspring;
        scores = batch_scores;

        // Elitism (`doElitism`): merge the elites into the ranking.
        #[derive(Clone, Copy)]
        enum Entry {
            Member(usize),
            Elite(usize),
        }
        let fitness = |e: Entry| match e {
            Entry::Member(i) => scores[i].fitness,
            Entry::Elite(k) => elite_scores[k].fitness,
        };
        let mut priorities: Vec<Entry> = rank(&scores).into_iter().map(Entry::Member).collect();
        for (k, elite) in elite_scores.iter().enumerate() {
            let f = elite.fitness;
            let at = priorities.iter().position(|&e| f < fitness(e)).unwrap_or(priorities.len());
            priorities.insert(at, Entry::Elite(k));
        }
        let entering: Vec<usize> = priorities[..pop].iter().filter_map(|&e| if let Entry::Elite(k) = e { Some(k) } else { None }).collect();
        let ejected: Vec<usize> = priorities[pop..].iter().filter_map(|&e| if let Entry::Member(i) = e { Some(i) } else { None }).collect();
        for (&slot, &k) in ejected.iter().zip(&entering) {
            rules[slot] = elite_rules[k].clone();
            scores[slot] = elite_scores[k];
        }
        order = rank(&scores);

        // Per-stratum best (`checkBestIndividual`), scored on this window.
        let top = (rules[order[0]].clone(), scores[order[0]]);
        match &mut best[version] {
            Some(kept) if kept.1.fitness <= top.1.fitness => {}
            slot => *slot = Some(top),
        }
        mdl.best_of_iteration(best[version].as_ref().expect("kept").1.fitness);
    }

    let (rule, score) = best[0].take().expect("stratum 0 has a kept best");
    Ok(GaOutcome { rule, score })
}
