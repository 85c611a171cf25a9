//! BioHEL's learning system on top of the rule evaluation of [`crate::library::biohel`]:
//! the iterative rule learning (IRL) loop, the GA that learns one rule, BioHEL's
//! MDL fitness with the coverage breakpoint, and ILAS windowing with per-stratum
//! elitism, as used by Franco, Krasnogor & Bacardit, "Speeding Up the Evaluation of
//! Evolutionary Learning Systems using GPGPUs" (GECCO 2010), Sections 2.2, 4 and 5.
//!
//! Sources, cited per item below:
//! - P: the GECCO 2010 paper (Section 2.2: IRL, covered examples removed, ILAS
//!   round robin, per-stratum elitism; Section 4 and Table 1: one GA of 50
//!   iterations, coverage breakpoint per data set; Section 5.2: n = 2 GAs per rule).
//! - MC: Bacardit, Burke & Krasnogor, "Improving the scalability of rule-based
//!   evolutionary learning", Memetic Computing 1(1):55–67, 2009 (the paper's ref. 3:
//!   BioHEL's IRL, the MDL fitness TL·W + EL with accuracy and a coverage term
//!   shaped by the coverage breakpoint and the coverage ratio, ILAS).
//! - ALKR: Bacardit & Krasnogor, "A mixed discrete-continuous attribute list
//!   representation for large scale classification domains", GECCO 2009 (the
//!   paper's ref. 5, whose parameters P Section 4 keeps): rules as lists of
//!   expressed attributes, with the generalize and specialize operators.
//! - SRC: BioHEL's public C++ source (the CPU version and the CUDA version used by
//!   P): `main.cpp` (IRL loop, `isMajority`), `ga.cpp` / `replacement.cpp` /
//!   `selection.cpp` / `crossover.cpp` / `mutation.cpp` (GA and elitism),
//!   `classifier_hyperrect_list.cpp` (operators, theory length), `timerMDL.cpp`
//!   (fitness and MDL weight), `agentPerformanceTraining.h` (accuracy, recall),
//!   `instanceSet.cpp` / `windowingILAS.cpp` (removal, windows), and the
//!   configuration BioHEL ships (`test1.conf` of the BioHEL demo: population 500,
//!   50 iterations, tournament without replacement of size 4, crossover 0.6,
//!   individual mutation 0.6, generalize / specialize 0.25, coverage ratio 0.9,
//!   MDL iteration 10, initial TL ratio 0.25, weight relax factor 0.9, 15 expressed
//!   attributes at initialisation, probability of a 1 in a nominal mask 0.75,
//!   2 repetitions of rule learning, default class "major", smart and class-wise
//!   initialisation).
//!
//! Details of the fitness (recall as coverage, the cap at twice the breakpoint,
//! per-class breakpoints), of the MDL weight schedule and of the elitism are taken
//! from SRC, which is more specific than the papers. Where this module departs
//! from SRC or fills a gap, the item's documentation says "our choice".
//!
//! Every fitness value is a function of the three [`Counts`] of a rule, its theory
//! length (a function of the rule and the attribute domains) and constants of the
//! run (the MDL weight is itself computed from earlier fitness values), and every
//! count comes from one [`RuleEvaluator::evaluate`] call over a whole batch of rules
//! (Section 3.2's population at once). A GPU evaluator that returns equal counts
//! therefore learns the same rule set for the same seed, on any thread count.
//!
//! [`Counts`]: crate::library::biohel::Counts
//! [`RuleEvaluator::evaluate`]: crate::library::biohel::RuleEvaluator::evaluate

mod config;
mod evaluation;
mod fitness;
mod ga;
mod irl;
mod operators;
#[cfg(test)]
mod tests;

pub use config::{CLASS_MUTATION_PROBABILITY, EXPECTED_EXPRESSED_ATTRIBUTES, LearningConfig, MDL_RELAX_AFTER, table1_coverage_breakpoint};
pub use evaluation::EvaluationStats;
pub use fitness::{Domain, RuleScore, attribute_domains, class_breakpoints, coverage_term, exceptions_length, mdl_fitness, theory_length};
pub use ga::{GaContext, GaOutcome, run_ga};
pub use irl::{LearnedModel, LearningStats, learn};
