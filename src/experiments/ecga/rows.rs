//! The ECGA paper's records, one typed row per kind: the columns are named
//! here once ([`crate::record_row!`]) and shared by `cases` (which writes
//! them), the analysis and report sections (which read them) and the tests'
//! fixtures.

use crate::records::{Record, col};

/// The `figure` of each kind of case (see the module's documentation).
pub const TABLE5: &str = "table5";
pub const FIG5: &str = "fig5";
pub const FIG6: &str = "fig6";
pub const FIG7: &str = "fig7";
pub const BUILD: &str = "build";
pub const WHOLE: &str = "whole";
pub const SCALE: &str = "scale";
pub const COUNT: &str = "count";

crate::record_row! {
    /// A Table 5 case: one bisection (Section 5.2) for the smallest population
    /// solving m − 1 subproblems, under a per-trial rule and randomness (absent
    /// from older records: one run of one, the paper's randomness).
    pub struct Table5Case {
        search: String,
        ell: usize,
        bisection: usize,
        runs_per_trial: Option<usize>,
        required_successes: Option<usize>,
        randomness: Option<String>,
        seed: u64,
    }
}

crate::record_row! {
    /// A Figure 5 case: one run at Table 5's population with every scorer, the
    /// single-threaded ones where `single_thread`.
    pub struct Fig5Case {
        search: String,
        ell: usize,
        n: usize,
        run: usize,
        single_thread: bool,
        seed: u64,
    }
}

crate::record_row! {
    /// A Figure 6 or Figure 7 case: one run of `search` at (ℓ, N) with the
    /// fastest scorer.
    pub struct RunCase {
        search: String,
        ell: usize,
        n: usize,
        run: usize,
        seed: u64,
    }
}

crate::record_row! {
    /// A `build` case (one model build of the first selection with every
    /// scorer) or a `scale` one (Section 5.4: one gECGA build at the paper's point).
    pub struct BuildCase {
        search: String,
        ell: usize,
        n: usize,
        seed: u64,
        /// Builds of the selection by each multi-threaded or GPU scorer (`build_repeats`; none: one).
        repeats: Option<usize>,
    }
}

crate::record_row! {
    /// A `whole` case (Section 5.3's whole runs timed by saved generations):
    /// run `run`'s generations g with g mod `chunks` = `chunk`, built `threads`
    /// at once (0: the host's physical cores).
    pub struct WholeCase {
        search: String,
        ell: usize,
        n: usize,
        run: usize,
        chunk: usize,
        chunks: usize,
        threads: usize,
        run_seed: u64,
        calibration_seed: u64,
        seed: u64,
    }
}

crate::record_row! {
    /// A `count` case: the counting kernel alone at each group size of `sizes`
    /// (comma-separated) over N individuals.
    pub struct CountCase {
        search: String,
        ell: usize,
        n: usize,
        sizes: String,
        seed: u64,
    }
}

crate::record_row! {
    /// The scorer that made a row: this paper's method column ([`super::SCORERS`]).
    pub struct Scored {
        scorer: String,
    }
}

/// A scorer's row that ran: status `ok`, its cells to follow.
pub fn ran(scorer: &str) -> Record {
    Record::new().with(Scored::scorer, scorer).with(col::STATUS, "ok")
}

crate::record_row! {
    /// A Table 5 bisection: the smallest population that succeeded, its trials
    /// and runs, and its time (ms).
    pub struct Bisection {
        n_min: usize,
        trials: usize,
        runs: usize,
        wall_ms: f64,
    }
}

crate::record_row! {
    /// One ECGA run (Figures 5 and 7, a `whole` case's gECGA runs): model
    /// building, the whole run and its wall time (ms), and what it decided
    /// (`digest`: equal digests, identical runs).
    pub struct RunRow {
        model_ms: f64,
        total_ms: f64,
        wall_ms: f64,
        generations: usize,
        best_solved: usize,
        converged: bool,
        pairs_scored: u64,
        digest: String,
        /// Figure 5: the run identical to the first scorer's.
        identical: Option<bool>,
        /// The runs with counter-based randomness (the device's, a `whole` case's).
        randomness: Option<String>,
    }
}

crate::record_row! {
    /// gECGA's device work: kernel time (CUDA events) and the host time of the
    /// calls launching them (ms), and the alleles read (Σ loci × N over scored groups).
    pub struct DeviceTimes {
        kernel_ms: Option<f64>,
        device_calls_ms: Option<f64>,
        alleles_counted: Option<f64>,
    }
}

crate::record_row! {
    /// The whole run on the device (`gecga-device`): device time of each phase
    /// (CUDA events, ms), in run order, and the host's setup before the first
    /// launch (absent from older records).
    pub struct Phases {
        init_ms: f64,
        convergence_ms: f64,
        selection_ms: f64,
        model_device_ms: f64,
        sampling_ms: f64,
        evaluation_ms: f64,
        setup_ms: Option<f64>,
    }
}

/// The phase columns of [`Phases`], in run order.
pub const PHASES: [&str; 6] =
    [Phases::init_ms, Phases::convergence_ms, Phases::selection_ms, Phases::model_device_ms, Phases::sampling_ms, Phases::evaluation_ms];

impl Phases {
    /// Each phase's column and time, in run order.
    pub fn each(&self) -> [(&'static str, f64); 6] {
        let ms = [self.init_ms, self.convergence_ms, self.selection_ms, self.model_device_ms, self.sampling_ms, self.evaluation_ms];
        std::array::from_fn(|i| (PHASES[i], ms[i]))
    }
}

crate::record_row! {
    /// One model build of a `build` case's selection (ms), the same MPM as the
    /// first scorer's.
    pub struct BuildRow {
        model_ms: f64,
        pairs_scored: u64,
        merges: usize,
        identical: bool,
    }
}

crate::record_row! {
    /// A `whole` case's single-threaded build (ms), `concurrent` builds at once:
    /// of a kept `generation`, its MPM the run's, or of the `build` case's
    /// selection (`calibration`).
    pub struct WholeBuild {
        model_ms: f64,
        pairs_scored: u64,
        concurrent: usize,
        calibration: bool,
        generation: Option<usize>,
        identical: Option<bool>,
    }
}

crate::record_row! {
    /// A `scale` build (Section 5.4): making the planted population and the
    /// model build (ms), its merges and the planted blocks found exactly.
    pub struct ScaleRow {
        population_ms: f64,
        model_ms: f64,
        pairs_scored: u64,
        merges: usize,
        model_quality: f64,
    }
}

crate::record_row! {
    /// One generation of a Figure 6 run: the model quality and ratio of ones
    /// after selection, the run's length and the subproblems its best solves.
    pub struct Generation {
        generation: usize,
        generations: usize,
        model_quality: f64,
        ones_ratio: f64,
        best_solved: usize,
    }
}

crate::record_row! {
    /// The counting kernel at one group size (`count` case): `groups` random
    /// groups counted by `counting` (FastCount or the histogram; absent from
    /// older records), checked bit for bit against the CPU; the alleles and
    /// kernel time per call are its [`DeviceTimes`].
    pub struct CountRow {
        group_size: usize,
        counting: Option<String>,
        groups: usize,
        identical: bool,
    }
}
