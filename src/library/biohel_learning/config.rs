//! The parameters of learning, with the paper's and BioHEL's values (P Section 4 and Table 1; SRC `test1.conf`).

use anyhow::{Result, ensure};

/// Expected number of expressed attributes of a new rule (SRC `num expressed
/// attributes init 15`): each attribute is expressed with probability
/// min(1, 15 / attributes).
pub const EXPECTED_EXPRESSED_ATTRIBUTES: f64 = 15.0;

/// Probability that a mutation changes the class instead of a condition (SRC
/// `classifier_hyperrect_list::mutation`, hard-coded there).
pub const CLASS_MUTATION_PROBABILITY: f64 = 0.1;

/// GA iterations without a new best after which the MDL weight is relaxed (SRC
/// `timerMDL::newIteration`, hard-coded there).
pub const MDL_RELAX_AFTER: u32 = 10;

/// The coverage breakpoint of Table 1 for a data set by its short name (sat, wav,
/// pen, SS, CN, adu, far, kdd, SA, par, c-4; case-insensitive).
pub fn table1_coverage_breakpoint(set: &str) -> Option<f64> {
    Some(match set.to_ascii_lowercase().as_str() {
        "sat" | "wav" | "pen" | "far" | "kdd" => 0.1,
        "ss" | "sa" | "c-4" => 0.0025,
        "cn" | "par" => 0.001,
        "adu" => 0.01,
        _ => return None,
    })
}

/// Parameters of [`learn`] and [`run_ga`]. [`Default`] carries the paper's and
/// BioHEL's values (see each field).
///
/// [`learn`]: super::learn
/// [`run_ga`]: super::run_ga
#[derive(Clone, Debug, PartialEq)]
pub struct LearningConfig {
    /// Rules per GA population: 500 (SRC `pop size 500`).
    pub population: usize,
    /// GA iterations: 50 (P Section 4, "one GA run of 50 iterations"; SRC).
    pub iterations: usize,
    /// ILAS strata; 1 disables windowing (P Section 2.2; Tables 3–4 sweep 1–50).
    pub windows: usize,
    /// The coverage breakpoint, a fraction of the training set (MC; P Table 1,
    /// per set: [`table1_coverage_breakpoint`], [`LearningConfig::for_set`]).
    /// Default 0.1, the value of five of Table 1's eleven sets (our choice).
    pub coverage_breakpoint: f64,
    /// Share of the coverage term reached at the breakpoint: 0.9 (MC; SRC
    /// `coverage ratio 0.90`).
    pub coverage_ratio: f64,
    /// Probability that an attribute is expressed in a new rule; `None`: min(1,
    /// [`EXPECTED_EXPRESSED_ATTRIBUTES`] / attributes), BioHEL's 15 expected
    /// expressed attributes.
    pub expressed_probability: Option<f64>,
    /// Stop after this many rules (BioHEL's optional `max rules`); `None`: no limit.
    pub max_rules: Option<usize>,
    /// Seed of the single [`StdRng`] behind every random choice of [`learn`].
    ///
    /// [`StdRng`]: rand::rngs::StdRng
    /// [`learn`]: super::learn
    pub seed: u64,
    /// GAs run per rule, the best (lowest exceptions length) kept: 2 (SRC
    /// `repetitions of rule learning 2`; P Section 5.2, n = 2).
    pub repetitions: usize,
    /// Consecutive rejected rules after which learning stops: 3 (SRC `main.cpp`).
    pub failures_to_stop: usize,
    /// Tournament size, selection without replacement: 4 (SRC).
    pub tournament_size: usize,
    /// Probability that a selected parent takes part in a crossover: 0.6 (SRC).
    pub crossover_probability: f64,
    /// Probability that an offspring is mutated: 0.6 (SRC).
    pub mutation_probability: f64,
    /// Probability of the generalize operator (drop an expressed attribute): 0.25
    /// (ALKR; SRC `prob generalize list 0.25`).
    pub generalize_probability: f64,
    /// Probability of the specialize operator (express a new attribute): 0.25
    /// (ALKR; SRC `prob specialize list 0.25`).
    pub specialize_probability: f64,
    /// Probability that a value is allowed in a nominal condition created by
    /// specialize: 0.75 (SRC `prob one 0.75`).
    pub prob_one: f64,
    /// GA iteration (0-based; 0 acts as 1, as in SRC) at which the theory length
    /// enters the fitness: 10 (SRC `mdl iteration 10`; before it the fitness is
    /// the exceptions length).
    pub mdl_iteration: usize,
    /// Share of theory length in the fitness of the population's best rule when
    /// the MDL weight is set: 0.25 (SRC `mdl initial tl ratio 0.25`).
    pub mdl_initial_tl_ratio: f64,
    /// Factor applied to the MDL weight after [`MDL_RELAX_AFTER`] iterations
    /// without a new best: 0.9 (SRC `mdl weight relax factor 0.90`).
    pub mdl_weight_relax_factor: f64,
}

impl Default for LearningConfig {
    fn default() -> Self {
        LearningConfig {
            population: 500,
            iterations: 50,
            windows: 1,
            coverage_breakpoint: 0.1,
            coverage_ratio: 0.9,
            expressed_probability: None,
            max_rules: None,
            seed: 0,
            repetitions: 2,
            failures_to_stop: 3,
            tournament_size: 4,
            crossover_probability: 0.6,
            mutation_probability: 0.6,
            generalize_probability: 0.25,
            specialize_probability: 0.25,
            prob_one: 0.75,
            mdl_iteration: 10,
            mdl_initial_tl_ratio: 0.25,
            mdl_weight_relax_factor: 0.9,
        }
    }
}

impl LearningConfig {
    /// [`Default`] with the coverage breakpoint of Table 1 for `set` (its short
    /// name); `None` for a set Table 1 does not list.
    pub fn for_set(set: &str) -> Option<LearningConfig> {
        Some(LearningConfig { coverage_breakpoint: table1_coverage_breakpoint(set)?, ..LearningConfig::default() })
    }

    /// Checks ranges: sizes ≥ 1, probabilities in [0, 1], breakpoint in (0, 1].
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("population", self.population),
            ("iterations", self.iterations),
            ("windows", self.windows),
            ("repetitions", self.repetitions),
            ("failures_to_stop", self.failures_to_stop),
            ("tournament_size", self.tournament_size),
        ] {
            ensure!(v >= 1, "learning config: {name} must be at least 1, is {v}");
        }
        for (name, p) in [
            ("coverage_ratio", self.coverage_ratio),
            ("crossover_probability", self.crossover_probability),
            ("mutation_probability", self.mutation_probability),
            ("generalize_probability", self.generalize_probability),
            ("specialize_probability", self.specialize_probability),
            ("prob_one", self.prob_one),
            ("mdl_weight_relax_factor", self.mdl_weight_relax_factor),
            ("expressed_probability", self.expressed_probability.unwrap_or(0.5)),
        ] {
            ensure!((0.0..=1.0).contains(&p), "learning config: {name} must lie in [0, 1], is {p}");
        }
        ensure!(
            self.coverage_breakpoint > 0.0 && self.coverage_breakpoint <= 1.0,
            "learning config: coverage_breakpoint must lie in (0, 1], is {}",
            self.coverage_breakpoint
        );
        ensure!(
            (0.0..1.0).contains(&self.mdl_initial_tl_ratio),
            "learning config: mdl_initial_tl_ratio must lie in [0, 1), is {}",
            self.mdl_initial_tl_ratio
        );
        Ok(())
    }
}
