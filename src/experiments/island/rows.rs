//! The island paper's records, one typed row per kind: the columns are named
//! here once ([`crate::record_row!`]) and shared by `cases` (which writes
//! them), `analysis` (which reads them) and the tests' fixtures.

crate::record_row! {
    /// A case of the GA (every figure): `islands` islands of `island_size`
    /// individuals evolved for `generations` from `seed`; `run` counts repeats
    /// (older ring, speed and table records lack it).
    pub struct IslandsCase {
        islands: usize,
        island_size: usize,
        generations: u32,
        run: Option<usize>,
        seed: u64,
    }
}

crate::record_row! {
    /// A Figure 7 speed case: the CPU thread counts it runs besides one and all
    /// threads ("6+12"; empty: none).
    pub struct SpeedCase {
        thread_counts: String,
    }
}

crate::record_row! {
    /// A `families` case (beyond the paper): the GA `variant` on Pisinger's
    /// instance of `kind` with `items` in 1..=`range`, capacity `capacity_ratio`
    /// of the total weight, generated from `instance_seed`.
    pub struct FamilyCase {
        kind: String,
        items: usize,
        capacity_ratio: f64,
        range: u32,
        instance_seed: u32,
        variant: String,
    }
}

crate::record_row! {
    /// One run of the GA by a method: its final statistics, feasibility and
    /// phase times (ms) (Figures 4–7, Tables I–II, the ring of Section IV).
    pub struct RunRow {
        best: u64,
        mean: f64,
        std_dev: f64,
        best_island: usize,
        feasible: bool,
        /// To the spec's `optimum` (`optimum_kind`: certified or not); `families`:
        /// to its reference, for a feasible best only.
        gap: Option<f64>,
        optimum: Option<u64>,
        optimum_kind: Option<String>,
        /// The final shares of feasible individuals and of islands holding one; the
        /// first trace generation with one and the trace point before it.
        feasible_individuals: Option<f64>,
        feasible_islands: Option<f64>,
        first_feasible: Option<u32>,
        first_feasible_after: Option<u32>,
        manipulation_ms: f64,
        /// Evaluation, replacement and statistics (absent before they were timed apart).
        evaluation_ms: Option<f64>,
        replacement_ms: Option<f64>,
        migration_ms: f64,
        statistics_ms: Option<f64>,
        /// GPU rows: the loop's wall time outside every phase (`PhaseTimes::outside_phases`; 0 on the CPU, absent
        /// before it was measured); part of `total_ms`.
        outside_phases_ms: Option<f64>,
        total_ms: f64,
        /// CPU rows and grid rows: the threads.
        threads: Option<usize>,
        /// GPU rows: the GPUs, and the integer operations of a generation (Section VI's sustained rate).
        gpus: Option<usize>,
        operations_per_generation: Option<f64>,
        /// A speed case's last GPU row: Philox calls per second with every SM busy.
        philox_calls_per_s: Option<f64>,
    }
}

crate::record_row! {
    /// The ring split over several GPUs (Section IV, `cuda-nccl`): the islands of
    /// each GPU ("4+3"), the same statistics as one GPU, and (newer rows) NCCL's
    /// version, its NVLink multicast setting and the link's bandwidth (GB/s).
    pub struct RingRow {
        split: String,
        identical: bool,
        nccl_version: Option<String>,
        nccl_nvls_enable: Option<String>,
        link_gb_per_s: Option<f64>,
    }
}

crate::record_row! {
    /// A `families` run's instance and its certificate: the reference the gap is
    /// taken to (`optimum` or `bound`), Dantzig's bound, the greedy solution, and
    /// how the optimum was found or why only the bound is known.
    pub struct FamilyRun {
        instance: String,
        capacity: u64,
        penalty_ratio: u64,
        reference: u64,
        reference_kind: String,
        bound: u64,
        greedy: u64,
        exact: String,
    }
}

/// The `figure` of each case kind: Figures 4–6's grid, the full-length runs,
/// the ring, the instance families, Tables I–II and Figure 7's speed runs.
pub const GRID: &str = "grid";
pub const FULL: &str = "full";
pub const RING: &str = "ring";
pub const FAMILIES: &str = "families";
pub const TABLE: &str = "table";
pub const SPEED: &str = "speed";
