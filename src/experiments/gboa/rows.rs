//! gBOA's records, one typed row per kind: the columns are named here once
//! ([`crate::record_row!`]) and shared by `cases` (which writes them) and
//! `analysis` (which reads them).

crate::record_row! {
    /// A Table I case: one run of every construction at (ℓ, N) with the
    /// profile's run length, all from `seed`.
    pub struct Table1Case {
        ell: usize,
        n: usize,
        run: usize,
        generations: usize,
        seed: u64,
    }
}

crate::record_row! {
    /// A complexity case (Section V.A): the first network at (ℓ, N), one point of
    /// the sweep along `axis` (`ell` or `n`).
    pub struct ComplexityCase {
        axis: String,
        ell: usize,
        n: usize,
        seed: u64,
    }
}

crate::record_row! {
    /// One construction's run: its phase times (ms) and result (Table I, Figure 7;
    /// the complexity sweep's single generation). Optional columns are those
    /// older records lack or one method alone writes.
    pub struct RunRow {
        generations: usize,
        selection_ms: f64,
        construction_ms: f64,
        sampling_ms: f64,
        /// Offspring evaluation (absent before it was timed apart from replacement).
        evaluation_ms: Option<f64>,
        replacement_ms: f64,
        total_ms: f64,
        solved_fraction: f64,
        best_fitness: u32,
        families_scored: u64,
        edges: usize,
        /// The repeat within its case (complexity points repeat a network).
        repeat: Option<usize>,
        /// `gboa-device`: its randomness (counter-based).
        rng: Option<String>,
        /// gBOA's network kernels: kernel time (CUDA events) and the device calls'
        /// wall time over the run.
        kernel_ms: Option<f64>,
        device_calls_ms: Option<f64>,
        /// Alleles read by the network kernel (gBOA's methods, `gboa-device`).
        alleles_counted: Option<f64>,
        /// `gboa-device`: the selected parents, the statistics kernel's time and the
        /// host's setup.
        selected: Option<usize>,
        statistics_ms: Option<f64>,
        setup_ms: Option<f64>,
        /// pBOA's constructions: the run identical to single-threaded pBOA's.
        identical: Option<bool>,
    }
}

/// The `figure` of Table I's cases and of the complexity sweep's.
pub const TABLE1: &str = "table1";
pub const COMPLEXITY: &str = "complexity";
