//! The layout paper's records, one typed row per kind: the columns are named
//! here once ([`crate::record_row!`]) and shared by `cases` (which writes
//! them), `analysis` (which reads them) and the tests' fixtures.

crate::record_row! {
    /// A case (Section 4.1): one function at one size (population × dimension),
    /// `tries` timed tries of each strategy on the population drawn from `seed`.
    pub struct SizeCase {
        function: String,
        pop: usize,
        dim: usize,
        seed: u64,
        tries: usize,
    }
}

crate::record_row! {
    /// One evaluation by a strategy (`sequential`, `cpu_mt`, S1–S4): the try of a
    /// phase ([`SEARCH`] for a block size, [`TIMED`], [`KERNEL_LOOP`]).
    pub struct Try {
        strategy: String,
        phase: String,
        r#try: usize,
    }
}

crate::record_row! {
    /// What a try measured, each where its strategy has it (times in ms).
    pub struct Measured {
        /// GPU strategies: the threads per block of the launch.
        block_size: Option<u32>,
        /// End to end: copy in, kernel, copy out (the CPU: the evaluation, best of `best_of`).
        wall_ms: Option<f64>,
        h2d_ms: Option<f64>,
        /// The kernel (CUDA events); on a [`KERNEL_LOOP`] row, one of back-to-back launches.
        kernel_ms: Option<f64>,
        d2h_ms: Option<f64>,
        /// Copy in, kernel and copy out between two CUDA events.
        events_ms: Option<f64>,
        /// The worst ratio to the f64 reference over the population.
        check_ratio: Option<f64>,
        best_of: Option<usize>,
        /// `cpu_mt`: its threads.
        threads: Option<usize>,
        /// S4: the host-side transposition before the try, and its threads.
        transpose_ms: Option<f64>,
        transpose_threads: Option<usize>,
    }
}

/// The phases of a [`Try`].
pub const SEARCH: &str = "search";
pub const TIMED: &str = "timed";
pub const KERNEL_LOOP: &str = "kernel_loop";
