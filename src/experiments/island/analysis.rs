//! One machine's island records, read into typed runs and indexed for the
//! report's sections and the claims. A row that lacks a column its figure needs
//! is an error naming the case and the column, never a silent default.

use super::rows::{FAMILIES, FULL, FamilyCase, FamilyRun, GRID, IslandsCase, RING, RingRow, RunRow, TABLE};
use super::spec::{Figure4, Stated};
use super::{CPU_MT, CUDA, CUDA_RING};
use crate::records::MachineRecords;
use crate::records::Record;
use crate::records::col;
use crate::stats::Summary;
use anyhow::{Context, Result};
use std::collections::BTreeMap;

/// One run of the GA (a grid, full-length, ring, table or speed row with status `ok`).
#[derive(Clone, Debug)]
pub(super) struct Run {
    pub method: String,
    /// The harness run that recorded it (`run_id`): its ceilings are the run's.
    pub run_id: i64,
    pub islands: usize,
    pub size: usize,
    pub generations: u32,
    /// Best fitness at the end of the run, and its gap to the optimum (families: to the optimum or the bound, for a
    /// feasible best solution only; None otherwise).
    pub best: f64,
    pub gap: Option<f64>,
    /// Whether the best solution is feasible.
    pub best_feasible: bool,
    /// Newer rows: the final fractions of feasible individuals and of islands holding one, and the first trace
    /// generation with a feasible individual (None: none in the run) with the trace point before it.
    pub feasibility: Option<(f64, f64)>,
    pub first_feasible: Option<u32>,
    pub first_feasible_after: Option<u32>,
    /// `families` rows: the instance, its reference and the variant.
    pub family: Option<Family>,
    pub total_ms: f64,
    pub migration_ms: f64,
    pub manipulation_ms: f64,
    /// Evaluation, replacement and statistics, where the row has them (every row since the phases were recorded).
    pub evaluation_ms: Option<f64>,
    pub replacement_ms: Option<f64>,
    pub statistics_ms: Option<f64>,
    /// GPU rows since it was measured: the loop's wall time outside every phase (part of `total_ms`).
    pub outside_phases_ms: Option<f64>,
    /// CPU threads the run used (CPU rows and grid rows).
    pub threads: Option<usize>,
    /// Ring rows: the GPUs and the islands of each (`split`, "4+3").
    pub gpus: Option<usize>,
    pub split: Vec<usize>,
    /// The ring ended with the same statistics as one GPU.
    pub identical: bool,
    /// Newer ring rows: NCCL's version, the NVLink multicast
    /// setting (`NCCL_NVLS_ENABLE`) and the link's measured bandwidth, GB/s.
    pub nccl: Option<(String, String, f64)>,
    /// GPU rows: the integer operations of a generation (`gpu::island::operations_per_generation`).
    pub operations_per_generation: Option<f64>,
}

/// What a `families` row ran on.
#[derive(Clone, Debug)]
pub(super) struct Family {
    pub kind: String,
    pub items: usize,
    pub ratio: f64,
    pub variant: String,
    /// The optimum or the bound the gap is taken to ("optimum" or "bound"), and its value.
    pub reference_kind: String,
    pub reference: f64,
    /// How the optimum was found, or why only the bound is known.
    pub exact: String,
    pub penalty_ratio: f64,
}

impl Family {
    fn of(case: FamilyCase, run: FamilyRun) -> Family {
        Family {
            kind: case.kind,
            items: case.items,
            ratio: case.capacity_ratio,
            variant: case.variant,
            reference_kind: run.reference_kind,
            reference: run.reference as f64,
            exact: run.exact,
            penalty_ratio: run.penalty_ratio as f64,
        }
    }
}

impl Run {
    fn of(r: &Record) -> Result<Run> {
        let case = r.str(col::CASE_ID);
        let read = |e: String| anyhow::anyhow!("record of case `{case}`: {e}");
        let IslandsCase { islands, island_size, generations, .. } = r.row().map_err(read)?;
        anyhow::ensure!(generations > 0, "case `{case}`: no generations");
        let run: RunRow = r.row().map_err(read)?;
        let total_ms = run.total_ms;
        anyhow::ensure!(total_ms > 0.0, "case `{case}`: total_ms {total_ms} is not a time");
        let method = r.str(col::METHOD).to_owned();
        let ring = if method == CUDA_RING { Some(r.row::<RingRow>().map_err(read)?) } else { None };
        let split = match ring.as_ref().map_or("", |g| g.split.as_str()) {
            "" => vec![],
            s => s.split('+').map(str::parse).collect::<Result<_, _>>().with_context(|| format!("case `{case}`: split `{s}`"))?,
        };
        let family = match r.str(col::FIGURE) {
            FAMILIES => Some(Family::of(r.row().map_err(read)?, r.row().map_err(read)?)),
            _ => None,
        };
        Ok(Run {
            method,
            run_id: r.int(col::RUN_ID).unwrap_or(0),
            islands,
            size: island_size,
            generations,
            best: run.best as f64,
            gap: run.gap,
            best_feasible: run.feasible,
            feasibility: run.feasible_individuals.zip(run.feasible_islands),
            first_feasible: run.first_feasible,
            first_feasible_after: run.first_feasible_after,
            family,
            total_ms,
            migration_ms: run.migration_ms,
            manipulation_ms: run.manipulation_ms,
            evaluation_ms: run.evaluation_ms,
            replacement_ms: run.replacement_ms,
            statistics_ms: run.statistics_ms,
            outside_phases_ms: run.outside_phases_ms,
            threads: run.threads,
            gpus: run.gpus,
            split,
            identical: ring.as_ref().is_some_and(|g| g.identical),
            nccl: ring.and_then(|g| Some((g.nccl_version.unwrap_or_default(), g.nccl_nvls_enable.unwrap_or_default(), g.link_gb_per_s?))),
            operations_per_generation: run.operations_per_generation,
        })
    }

    pub fn ms_per_generation(&self) -> f64 {
        self.total_ms / f64::from(self.generations)
    }

    /// Migration's share of the run's time (Figure 6).
    pub fn migration_share(&self) -> f64 {
        self.migration_ms / self.total_ms
    }

    /// Island-generations per second: islands × generations over the run's time.
    pub fn island_generations_per_s(&self) -> f64 {
        self.islands as f64 * f64::from(self.generations) / (self.total_ms * 1e-3)
    }

    /// Counted integer operations per second (Section VI's sustained rate), for GPU rows that record their count.
    pub fn operations_per_s(&self) -> Option<f64> {
        Some(self.operations_per_generation? / (self.ms_per_generation() * 1e-3))
    }

    /// Islands on each GPU when the ring is split evenly, else None.
    pub fn islands_per_gpu(&self) -> Option<usize> {
        let first = *self.split.first()?;
        self.split.iter().all(|&k| k == first).then_some(first)
    }
}

/// A machine's runs: grid runs by (islands, size), full-length runs, ring runs,
/// table runs by (islands, size, method) and speed runs by (size, method), with
/// the reasons of what did not run.
#[derive(Default)]
pub(super) struct Analysis {
    pub grid: BTreeMap<(usize, usize), Vec<Run>>,
    pub full: Vec<Run>,
    /// Ring cases: the ring on one GPU (`cuda`) and split over several (`cuda-nccl`).
    pub ring: Vec<Run>,
    /// Beyond the paper: the instance-family sweep.
    pub families: Vec<Run>,
    /// Speed runs by (size, method): every run of the profile that measured the point last.
    pub speed: BTreeMap<(usize, String), Vec<Run>>,
    /// Tables I and II: the runs of each method on the same islands and generations.
    pub table: BTreeMap<(usize, usize, String), Vec<Run>>,
    /// Method → why it did not run here.
    pub not_run: BTreeMap<String, String>,
    /// Threads of the all-threads CPU runs.
    pub threads: Option<usize>,
    /// Philox calls per second with every SM busy (the speed cases' ceiling).
    pub philox: Vec<f64>,
    /// What the paper states (the spec's Tables I–II and `[figure4]`), where the paper's claims are judged.
    pub stated: Option<Stated>,
}

impl Analysis {
    /// Each (figure, islands, island size) from the commit that measured it
    /// last, its runs of the same generations pooled over profiles (the `gpu`
    /// profile's speed cases are the `speed` profile's, with fewer runs and
    /// threads): one code version and one budget per mean.
    pub fn of(m: &MachineRecords) -> Result<Analysis> {
        // A family point also names its instance and variant.
        let point = |r: &Record| {
            let figure = match (r.str(col::FIGURE), r.row::<FamilyCase>()) {
                (FAMILIES, Ok(f)) => format!("{FAMILIES}/{}/{}/{}/{}", f.kind, f.items, f.capacity_ratio, f.variant),
                (other, _) => other.to_owned(),
            };
            Some((figure, r.int(IslandsCase::islands), r.int(IslandsCase::island_size)))
        };
        let mut a = Analysis::default();
        for r in m.pooled_measurements(point, |r| r.int(IslandsCase::generations)) {
            if !r.is_ok() {
                a.not_run.insert(r.str(col::METHOD).to_owned(), r.str(col::REASON).to_owned());
                continue;
            }
            let run = Run::of(r).with_context(|| format!("machine `{}`", m.hw_id))?;
            if run.method == CPU_MT {
                a.threads = a.threads.max(run.threads);
            }
            a.philox.extend(r.float(RunRow::philox_calls_per_s));
            match r.str(col::FIGURE) {
                GRID => a.grid.entry((run.islands, run.size)).or_default().push(run),
                FULL => a.full.push(run),
                RING => a.ring.push(run),
                FAMILIES => a.families.push(run),
                TABLE => a.table.entry((run.islands, run.size, run.method.clone())).or_default().push(run),
                _ => a.speed.entry((run.size, run.method.clone())).or_default().push(run),
            }
        }
        Ok(a)
    }

    /// Why `method` did not run here, if a record says.
    pub fn reason(&self, method: &str) -> Option<&str> {
        self.not_run.get(method).map(String::as_str)
    }

    /// Why the GPU parts have nothing to judge: the records' reason, else `otherwise`.
    pub fn gpu_reason(&self, otherwise: &str) -> String {
        self.reason(CUDA).unwrap_or(otherwise).to_owned()
    }

    pub fn grid_islands(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.grid.keys().map(|k| k.0).collect();
        v.dedup();
        v
    }

    pub fn grid_sizes(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.grid.keys().map(|k| k.1).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn speed_sizes(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.speed.keys().map(|k| k.0).collect();
        v.dedup();
        v
    }

    /// Figure 4's setting, where the spec's is known.
    pub fn figure4(&self) -> Option<&Figure4> {
        self.stated.as_ref().map(|s| &s.figure4)
    }

    /// `value` of every run of a grid point.
    pub fn grid_values(&self, islands: usize, size: usize, value: impl Fn(&Run) -> f64) -> Vec<f64> {
        self.grid.get(&(islands, size)).map_or_else(Vec::new, |runs| runs.iter().map(value).collect())
    }

    /// Mean milliseconds per generation of a grid point.
    pub fn grid_per_generation(&self, islands: usize, size: usize) -> Option<f64> {
        Summary::of(&self.grid_values(islands, size, Run::ms_per_generation)).map(|s| s.mean)
    }

    /// The method of the grid runs (`cuda` or `cpu-mt`).
    pub fn grid_method(&self) -> Option<&str> {
        self.grid.values().flatten().next().map(|r| r.method.as_str())
    }

    /// Milliseconds per generation of every speed run of `method` at `size`.
    pub fn speed_times(&self, size: usize, method: &str) -> Vec<f64> {
        self.speed.get(&(size, method.to_owned())).map_or_else(Vec::new, |runs| runs.iter().map(Run::ms_per_generation).collect())
    }

    /// The harness runs (`run_id`) that recorded the speed runs of `methods` at `size`.
    pub fn speed_run_ids(&self, size: usize, methods: &[&str]) -> Vec<i64> {
        methods.iter().flat_map(|m| self.speed.get(&(size, (*m).to_owned())).into_iter().flatten().map(|r| r.run_id)).collect()
    }

    /// Mean milliseconds per generation of the speed runs of `method` at `size`.
    pub fn per_generation(&self, size: usize, method: &str) -> Option<f64> {
        Summary::of(&self.speed_times(size, method)).map(|s| s.mean)
    }

    /// Island counts and sizes of the table runs.
    pub fn table_points(&self) -> (Vec<usize>, Vec<usize>) {
        let mut islands: Vec<usize> = self.table.keys().map(|k| k.0).collect();
        let mut sizes: Vec<usize> = self.table.keys().map(|k| k.1).collect();
        for v in [&mut islands, &mut sizes] {
            v.sort_unstable();
            v.dedup();
        }
        (islands, sizes)
    }

    /// The first table run of `method` (its settings: threads, GPUs, generations).
    pub fn table_run(&self, islands: usize, size: usize, method: &str) -> Option<&Run> {
        self.table.get(&(islands, size, method.to_owned())).and_then(|runs| runs.first())
    }

    /// Milliseconds per generation of every table run of `method`.
    pub fn table_times(&self, islands: usize, size: usize, method: &str) -> Vec<f64> {
        self.table.get(&(islands, size, method.to_owned())).map_or_else(Vec::new, |runs| runs.iter().map(Run::ms_per_generation).collect())
    }

    /// The harness runs (`run_id`) that recorded the table runs of `methods`.
    pub fn table_run_ids(&self, islands: usize, size: usize, methods: &[&str]) -> Vec<i64> {
        methods.iter().flat_map(|m| self.table.get(&(islands, size, (*m).to_owned())).into_iter().flatten().map(|r| r.run_id)).collect()
    }

    /// Mean milliseconds per generation of the table runs of `method`.
    pub fn table_per_generation(&self, islands: usize, size: usize, method: &str) -> Option<f64> {
        Summary::of(&self.table_times(islands, size, method)).map(|s| s.mean)
    }

    /// Every table run.
    pub fn table_runs(&self) -> impl Iterator<Item = &Run> {
        self.table.values().flatten()
    }

    /// Every speed run.
    pub fn speed_runs(&self) -> impl Iterator<Item = &Run> {
        self.speed.values().flatten()
    }

    /// The ring split over several GPUs.
    pub fn rings(&self) -> impl Iterator<Item = &Run> {
        self.ring.iter().filter(|r| r.method == CUDA_RING)
    }

    /// The ring cases' runs on one GPU of (islands, size).
    pub fn ring_on_one_gpu(&self, islands: usize, size: usize) -> Vec<&Run> {
        self.ring.iter().filter(|r| r.method == CUDA && r.islands == islands && r.size == size).collect()
    }

    /// Milliseconds per generation of every run with all its islands on one GPU, by (islands, size): the GPU grid's
    /// runs where it has the point, else the ring cases' one-GPU runs.
    pub fn one_gpu(&self) -> BTreeMap<(usize, usize), Vec<f64>> {
        let mut t: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
        for r in self.ring.iter().filter(|r| r.method == CUDA) {
            t.entry((r.islands, r.size)).or_default().push(r.ms_per_generation());
        }
        if self.grid_method() == Some(CUDA) {
            for &(i, n) in self.grid.keys() {
                t.insert((i, n), self.grid_values(i, n, Run::ms_per_generation));
            }
        }
        t
    }
}

/// Synthetic records for the tests of the report and the claims.
#[cfg(test)]
pub(super) mod fixtures {
    use super::super::rows::{FAMILIES, FamilyCase, FamilyRun, GRID, IslandsCase, RING, RingRow, RunRow, SPEED, TABLE};
    use super::super::{CPU_1T, CPU_MT, CUDA, CUDA_RING};
    use crate::records::MachineRecords;
    use crate::records::{Record, Row, col};

    /// `m`'s analysis in the shipped spec's Figure 4 setting (`[figure4]`), as the report makes it.
    pub fn analysed(m: &MachineRecords) -> super::Analysis {
        let text = include_str!("../../../experiments/island.toml");
        let file = crate::spec::SpecFile::from_text(std::path::Path::new("experiments/island.toml"), text.into());
        let spec: super::super::spec::IslandSpec = file.parse().unwrap();
        super::Analysis { stated: Some(spec.stated()), ..super::Analysis::of(m).unwrap() }
    }

    /// A fixture row with one of its typed rows changed: `grid(..).change(|run: &mut RunRow| run.migration_ms = 2.0)`.
    pub trait Change {
        fn change<R: Row>(self, f: impl FnOnce(&mut R)) -> Self;
    }

    impl Change for Record {
        fn change<R: Row>(self, f: impl FnOnce(&mut R)) -> Record {
            let mut row = self.row::<R>().expect("the fixture holds the row");
            f(&mut row);
            self.with_row(&row)
        }
    }

    /// `row` with the cells the runner adds: the measurement's kind, profile and run, the case's id, figure and parameters.
    fn in_case(row: Record, figure: &str, id: String, case: IslandsCase) -> Record {
        row.with(col::RECORD_KIND, "measurement")
            .with(col::PROFILE, "p")
            .with(col::RUN_ID, 1)
            .with(col::CASE_ID, id)
            .with(col::FIGURE, figure)
            .with_row(&case)
    }

    /// A run taking `total_ms`, half of it in genetic manipulation, with a feasible best of 2,800,000 (gap 1%).
    fn timed(total_ms: f64) -> RunRow {
        RunRow { best: 2_800_000, feasible: true, gap: Some(0.01), manipulation_ms: total_ms / 2.0, total_ms, ..RunRow::default() }
    }

    fn run(figure: &str, method: &str, islands: usize, size: usize, generations: u32, run: RunRow) -> Record {
        let case = IslandsCase { islands, island_size: size, generations, ..IslandsCase::default() };
        in_case(Record::ran(method), figure, format!("{figure}/i{islands}/n{size}"), case).with_row(&run)
    }

    /// A grid run of 1000 generations at `ms` per generation with this best fitness (whole, as recorded).
    pub fn grid(method: &str, islands: usize, size: usize, best: f64, ms: f64) -> Record {
        run(GRID, method, islands, size, 1000, RunRow { best: best as u64, threads: Some(2), ..timed(ms * 1000.0) })
    }

    /// A table run (100 generations) at `ms` per generation; GPU rows on one GPU with `operations` per generation.
    pub fn table(method: &str, islands: usize, size: usize, ms: f64, operations: f64) -> Record {
        let on = match method {
            CUDA => RunRow { gpus: Some(1), operations_per_generation: Some(operations), ..timed(ms * 100.0) },
            CPU_1T => RunRow { threads: Some(1), ..timed(ms * 100.0) },
            _ => RunRow { threads: Some(16), ..timed(ms * 100.0) },
        };
        run(TABLE, method, islands, size, 100, on)
    }

    /// A speed run (one island, 100 generations) at `ms` per generation.
    pub fn speed(method: &str, size: usize, ms: f64, threads: usize) -> Record {
        run(SPEED, method, 1, size, 100, RunRow { threads: Some(threads), ..timed(ms * 100.0) })
    }

    /// A `families` run (100 generations at 1 ms each) of `variant` on `kind` with `items` at capacity `ratio`: its
    /// gap to the optimum, or no feasible best (gap None) with `best` its penalised fitness.
    pub fn family(kind: &str, items: usize, ratio: f64, variant: &str, gap: Option<f64>, best: f64) -> Record {
        let feasible = gap.is_some();
        let case = FamilyCase { kind: kind.into(), items, capacity_ratio: ratio, variant: variant.into(), ..FamilyCase::default() };
        let run = RunRow {
            best: best as u64,
            gap,
            feasible,
            feasible_individuals: Some(if feasible { 0.5 } else { 0.0 }),
            feasible_islands: Some(if feasible { 1.0 } else { 0.0 }),
            first_feasible: feasible.then_some(10),
            first_feasible_after: feasible.then_some(5),
            ..timed(100.0)
        };
        let instance = FamilyRun {
            reference: 50_000,
            reference_kind: "optimum".into(),
            exact: "dense dynamic program over capacities".into(),
            penalty_ratio: 7,
            ..FamilyRun::default()
        };
        let islands = IslandsCase { islands: 2, island_size: 64, generations: 100, ..IslandsCase::default() };
        in_case(Record::ran(CPU_MT), FAMILIES, format!("families/{kind}/n{items}/c{ratio}/{variant}/r0"), islands)
            .with_row(&case)
            .with_row(&run)
            .with_row(&instance)
    }

    /// A ring case's run on one GPU (`split` empty) or over several GPUs, 1000 generations.
    pub fn ring(islands: usize, size: usize, ms: f64, migration_share: f64, split: &str) -> Record {
        let method = if split.is_empty() { CUDA } else { CUDA_RING };
        let gpus = Some(split.split('+').count());
        let on = RunRow { migration_ms: ms * 1000.0 * migration_share, gpus, ..timed(ms * 1000.0) };
        let r = run(RING, method, islands, size, 1000, on);
        match split {
            "" => r,
            s => r.with_row(&RingRow { split: s.into(), identical: true, ..RingRow::default() }),
        }
    }

    /// A method that did not run, with the reason (and its case's parameters, as the runner writes it).
    pub fn not_run(figure: &str, method: &str, reason: &str) -> Record {
        let generations = match figure {
            TABLE | SPEED => 100,
            _ => 1000,
        };
        let case = IslandsCase { islands: 1, island_size: 128, generations, ..IslandsCase::default() };
        in_case(Record::not_run(col::METHOD, method, reason), figure, format!("{figure}/i1/n128"), case)
    }

    /// A machine with these rows, its GPU's SM count (if any) and ceilings (as `testing::machine`).
    pub fn machine(mut rows: Vec<Record>, sms: Option<usize>, ceilings: &[(&str, f64)]) -> MachineRecords {
        if let Some(sms) = sms {
            for r in &mut rows {
                r.set(crate::records::FingerprintRow::gpu_sms, sms);
            }
        }
        rows.extend(crate::claims::testing::machine(ceilings).rows);
        MachineRecords { hw_id: "test".into(), rows }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn rows_are_read_into_runs_by_figure() {
        let m = machine(
            vec![
                grid(CUDA, 2, 256, 10.0, 0.1),
                grid(CUDA, 2, 256, 12.0, 0.3),
                speed(CPU_MT, 256, 2.0, 16),
                ring(4, 256, 0.2, 0.01, ""),
                ring(4, 256, 0.1, 0.02, "2+2"),
                not_run("speed", "cuda-split", "no reason"),
            ],
            None,
            &[],
        );
        let a = Analysis::of(&m).unwrap();
        assert_eq!(a.grid_values(2, 256, |r| r.best), vec![10.0, 12.0]);
        assert!((a.grid_per_generation(2, 256).unwrap() - 0.2).abs() < 1e-12);
        assert_eq!(a.threads, Some(16));
        assert_eq!(a.per_generation(256, CPU_MT), Some(2.0));
        let ring: Vec<&Run> = a.rings().collect();
        assert_eq!((ring.len(), ring[0].islands_per_gpu(), ring[0].identical), (1, Some(2), true));
        // 4 islands × 1000 generations in 0.1 s.
        assert!((ring[0].island_generations_per_s() - 40_000.0).abs() < 1e-6);
        // Times on one GPU: the ring case's one-GPU run and the GPU grid.
        assert_eq!(a.one_gpu().get(&(4, 256)), Some(&vec![0.2]));
        assert_eq!(a.one_gpu()[&(2, 256)].len(), 2);
        assert_eq!(a.reason("cuda-split"), Some("no reason"));
        assert_eq!(a.gpu_reason("none"), "none");
    }

    #[test]
    fn a_row_without_a_needed_column_is_an_error_naming_it() {
        let mut row = grid(CUDA, 2, 256, 10.0, 0.1);
        row.set(RunRow::total_ms, crate::records::Value::Null);
        let e = Analysis::of(&machine(vec![row], None, &[])).err().unwrap();
        assert!(format!("{e:#}").contains("record of case `grid/i2/n256`: column `total_ms`"), "{e:#}");
    }
}
