//! The experiment registry and the runner shared by every paper.
//!
//! A paper is one spec (`experiments/<id>.toml`) plus one folder here with the
//! same files for every paper: `mod.rs` (its [`Experiment`]: load the spec, the
//! GPU self-check), `spec.rs` (the typed spec and its validation), `cases.rs`
//! ([`Plan`]: cases of a profile, running one into records), `analysis.rs` (one
//! machine's records indexed for the report and the claims), `render.rs`
//! ([`Render`]: the report's sections) and `claims.rs` (the paper's own
//! checks). Adding a paper is that folder, its spec and one line in
//! [`registry`]. Data flows one way:
//! spec → cases → run → raw records → analysis → report sections and verdicts.
//!
//! `paper.rs` holds what a paper declares and implements ([`Experiment`],
//! [`Plan`], [`Render`]), the [`Paper`] the runner drives (every `Plan +
//! Render`) and [`load_spec`]; this file the registry and where records live; `runner.rs`
//! runs a profile's cases into records, `render.rs` judges and lays them out.
//!
//! The runner owns the report's skeleton ([`render`]): title, verdict summary,
//! hardware and ceilings, the method, each section with one heading per
//! machine, the claims table, what lies beyond the paper, and what was not run.

pub mod biohel;
pub mod ecga;
pub mod gboa;
pub mod island;
pub mod layout;
#[cfg(feature = "mpi")]
pub mod mpi;
mod paper;
pub mod plan;
mod render;
mod runner;
pub mod shard;
#[cfg(test)]
mod tests;

pub use paper::*;
pub use render::*;
pub use runner::*;

use crate::claims::ClaimResult;
use crate::error::{GpuError, SpecError};
use crate::gpu::Gpu;
use crate::hardware::Fingerprint;
use crate::records::MachineRecords;
use crate::records::col;
use crate::records::{self, Record, Row};
use crate::report;
use crate::spec::{SpecContext, SpecFile};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// A self check's closing lines: a FAIL where it exercised nothing (`vacuous`
/// says why), then "`what`: `checked` `noun` checked, `failed` failed";
/// returns the failures, the vacuous check counted.
pub(crate) fn tally(paper: &str, what: &str, checked: usize, noun: &str, mut failed: usize, vacuous: Option<&str>) -> usize {
    if let Some(why) = vacuous {
        println!("FAIL {paper}: {why}");
        failed += 1;
    }
    println!("{what}: {checked} {noun} checked, {failed} failed");
    failed
}

/// What a paper's report says; [`render`] lays it out.
pub struct PaperReport {
    /// How it was measured (Markdown).
    pub method: String,
    pub sections: Vec<Section>,
    /// Every claim on every machine.
    pub claims: Vec<ClaimResult>,
}

/// One table or figure of the paper: an introduction, then one part per machine.
pub struct Section {
    pub title: String,
    pub intro: String,
    /// (hw_id, part) per machine: what it shows goes under the machine's own
    /// heading, why it has nothing to show into one line after them.
    pub machines: Vec<(String, Part)>,
}

/// One machine's part of a section.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Markdown under the machine's heading.
    Shown(String),
    /// Why this machine has no results for the section ("libcuda not found").
    NotRun(String),
}

impl Part {
    /// `body`'s Markdown where the machine has `what` runs, else the one line
    /// "no `what` runs recorded".
    pub fn of_runs(has_runs: bool, what: &str, body: impl FnOnce() -> String) -> Part {
        if has_runs { Part::Shown(body()) } else { Part::NotRun(format!("no {what} runs recorded")) }
    }
}

impl From<String> for Part {
    fn from(md: String) -> Part {
        Part::Shown(md)
    }
}

/// A note for each machine whose sections show a measurement above the ceiling it is compared with
/// (marked [`crate::fmt::ABOVE_CEILING`]): how many cells, in which sections.
fn above_ceiling_note(sections: &[Section]) -> Option<String> {
    let mut marked: std::collections::BTreeMap<&str, (usize, Vec<&str>)> = std::collections::BTreeMap::new();
    for s in sections {
        for (hw, part) in &s.machines {
            let Part::Shown(part) = part else { continue };
            let n = part.matches(crate::fmt::ABOVE_CEILING).count();
            if n > 0 {
                let e = marked.entry(hw).or_default();
                e.0 += n;
                e.1.push(&s.title);
            }
        }
    }
    let lines: Vec<String> = marked
        .iter()
        .map(|(hw, (n, titles))| {
            format!(
                "**Above a ceiling:** `{hw}`: {n} measurement{} above the ceiling it is compared with (its profile's runs' own, \
                 else the machine's latest), marked {} (in {}): the ceiling was measured under other work, or the measurement counts bytes a cache served, or its unit is not the \
                 ceiling's; read them with care.",
                if *n == 1 { "" } else { "s" },
                crate::fmt::ABOVE_CEILING,
                titles.iter().map(|t| format!("*{t}*")).collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n\n"))
}

impl Section {
    /// A section whose part for each machine is `body(machine)`: Markdown (an
    /// empty part is left out) or a [`Part`].
    pub fn per_machine<P: Into<Part>>(
        title: impl Into<String>,
        intro: impl Into<String>,
        machines: &[MachineRecords],
        mut body: impl FnMut(&MachineRecords) -> Result<P>,
    ) -> Result<Section> {
        let mut parts = Vec::new();
        for m in machines {
            match body(m)?.into() {
                Part::Shown(md) if md.trim().is_empty() => {}
                part => parts.push((m.hw_id.clone(), part)),
            }
        }
        Ok(Section { title: title.into(), intro: intro.into(), machines: parts })
    }

    /// A section of text only.
    pub fn text(title: impl Into<String>, intro: impl Into<String>) -> Section {
        Section { title: title.into(), intro: intro.into(), machines: vec![] }
    }
}

/// One unit of work, skipped on `--resume` once its rows are stored.
#[derive(Clone, Debug)]
pub struct Case {
    pub id: String,
    /// Parameters, copied into every row of the case.
    pub params: Record,
    /// Relative cost, for the progress bar.
    pub weight: u64,
}

impl Case {
    /// A case of `figure` (its `figure` column) whose parameters are `row`.
    pub fn of(figure: &str, id: String, row: &impl Row, weight: u64) -> Case {
        Case { params: Record::new().with(col::FIGURE, figure).with_row(row), id, weight }
    }

    /// The case with `row`'s parameters after its own.
    pub fn with_row(mut self, row: &impl Row) -> Case {
        self.params = self.params.with_row(row);
        self
    }

    /// The case's parameters as the row `R`; the error names the case and the column.
    pub fn row<R: Row>(&self) -> Result<R> {
        self.params.row().map_err(|e| anyhow::anyhow!("case {}: {e}", self.id))
    }

    /// The id of run `run` of a repeated case: the first keeps `base` (as recorded before a profile repeated it),
    /// the others add `/r<run>`.
    pub fn repeat_id(base: String, run: usize) -> String {
        if run == 0 { base } else { format!("{base}/r{run}") }
    }
}

/// The memory one case holds at its peak, estimated from its sizes (the
/// largest buffers: populations, data sets, their device copies), so that a
/// profile that cannot fit this machine is refused before any work.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Footprint {
    pub host_bytes: u64,
    /// On the GPU, when the case runs there.
    pub device_bytes: u64,
    /// The profile's key whose sizes set it (`grid_sizes`, `sizes`, …): the error names its line.
    pub key: &'static str,
}

/// Refuses a profile whose largest case would not fit in `host_bytes` of host
/// memory or (with a GPU) `device_bytes` of device memory, naming the spec's
/// line and key, the case, the estimate and the memory.
pub fn check_footprints(
    file: &SpecFile,
    profile: &str,
    paper: &dyn Paper,
    cases: &[Case],
    host_bytes: u64,
    device_bytes: Option<u64>,
) -> Result<(), SpecError> {
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    for case in cases {
        let f = paper.footprint(case);
        let over = if f.host_bytes > host_bytes {
            Some((f.host_bytes, "host", host_bytes))
        } else {
            device_bytes.filter(|&d| f.device_bytes > d).map(|d| (f.device_bytes, "device", d))
        };
        if let Some((need, memory, have)) = over {
            return Err(file.invalid_key(
                &format!("profiles.{profile}"),
                f.key,
                format!(
                    "case `{}` needs about {:.1} GiB of {memory} memory (estimated from its sizes), more than this machine's {:.1} GiB",
                    case.id,
                    gib(need),
                    gib(have)
                ),
            ));
        }
    }
    Ok(())
}

/// Every paper in the harness.
pub fn registry() -> Vec<&'static Experiment> {
    vec![&layout::LAYOUT, &ecga::ECGA, &gboa::GBOA, &biohel::BIOHEL, &island::ISLAND]
}

pub fn find(id: &str) -> Result<&'static Experiment> {
    registry().into_iter().find(|e| e.id == id).ok_or_else(|| {
        let known: Vec<&str> = registry().iter().map(|e| e.id).collect();
        anyhow::anyhow!("unknown paper `{id}` (known: {}, or `all`)", known.join(", "))
    })
}

/// The profile whose runs a paper's speed goals are judged on, where a machine
/// has them (ECGA's and gBOA's whole runs on the device; BioHEL's evaluation
/// runs, which stay out of its Tables 2–3, Figures 4–5 and claims).
pub const SPEED_PROFILE: &str = "speed";

/// Which compute the run may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// The GPU where one is present, else the CPU parts only.
    Auto,
    /// The CPU parts only; the GPU parts are recorded as not run here.
    Cpu,
    /// The GPU; refuses to start without one.
    Cuda,
}

/// What a case runs with.
pub struct RunEnv {
    pub gpu: Option<Gpu>,
    /// Why GPU parts are not run here (when `gpu` is None).
    pub gpu_absent: String,
    pub fingerprint: Fingerprint,
    pub profile: String,
}

impl RunEnv {
    pub fn open(choice: BackendChoice, device: usize, profile: &str) -> Result<RunEnv> {
        let (gpu, gpu_absent) = match choice {
            BackendChoice::Cpu => (None, "--backend cpu".to_owned()),
            BackendChoice::Cuda => (Some(Gpu::open(device).context("--backend cuda")?), String::new()),
            BackendChoice::Auto => match Gpu::open(device) {
                Ok(g) => (Some(g), String::new()),
                Err(GpuError::Unavailable(why)) => (None, why),
                Err(e) => return Err(e.into()),
            },
        };
        let fingerprint = Fingerprint::this_machine(gpu.as_ref().map(|g| &g.info));
        Ok(RunEnv { gpu, gpu_absent, fingerprint, profile: profile.to_owned() })
    }
}

/// Options of `evorepro reproduce`.
pub struct RunOptions {
    pub profile: String,
    pub backend: BackendChoice,
    pub device: usize,
    pub out: PathBuf,
    pub resume: bool,
    pub spec: SpecChoice,
    /// `--shard K/N`: only this shard's cases, into its own records folder ([`shard`]).
    pub shard: Option<shard::Shard>,
    /// `--max-cases N`: at most N of the cases still to run, in order.
    pub max_cases: Option<usize>,
}

/// Which spec a command reads, and where its data may lie.
#[derive(Clone, Debug)]
pub struct SpecChoice {
    /// `--spec`: this file instead of `<root>/experiments/<id>.toml`.
    pub file: Option<PathBuf>,
    /// The repository root ([`crate::spec::find_root`]).
    pub root: PathBuf,
    /// `--allow-outside`: data paths may leave the root.
    pub allow_outside: bool,
}

/// Reads `choice.file`, else `<root>/experiments/<id>.toml`, else the embedded
/// copy (whose data paths resolve from `<root>/experiments`, as the file's would).
pub fn read_spec(exp: &Experiment, choice: &SpecChoice) -> Result<SpecFile, SpecError> {
    let experiments = choice.root.join("experiments");
    let default = experiments.join(format!("{}.toml", exp.id));
    let (file, base_dir) = match &choice.file {
        Some(p) => (SpecFile::read(p)?, p.parent().unwrap_or(Path::new("")).to_owned()),
        None if default.exists() => (SpecFile::read(&default)?, experiments),
        None => {
            let shown = PathBuf::from(format!("<built-in>/experiments/{}.toml", exp.id));
            (SpecFile::from_text(&shown, exp.embedded_spec.into()), experiments)
        }
    };
    Ok(file.with_context(SpecContext::new(&base_dir, &choice.root, choice.allow_outside)))
}

/// Reads ([`read_spec`]) and loads a paper's spec.
pub fn load_paper(exp: &Experiment, choice: &SpecChoice) -> Result<Box<dyn Paper>> {
    Ok(exp.load(&read_spec(exp, choice)?)?)
}

pub const GIT_COMMIT: &str = env!("EVOREPRO_GIT_COMMIT");

/// The records folder of a paper under the reports' root.
pub fn records_dir(out: &Path, id: &str) -> PathBuf {
    out.join(id).join("records")
}

/// Every record of a paper under `out/<id>/records/`.
pub fn load_records(out: &Path, id: &str) -> Result<Vec<Record>> {
    let mut rows = Vec::new();
    for f in records::record_files(&records_dir(out, id)) {
        rows.extend(records::read_parquet(&f)?);
    }
    Ok(rows)
}

/// Every record under a reports root: each paper's and the hardware records.
pub fn all_records(out: &Path) -> Result<Vec<Record>> {
    let mut rows = Vec::new();
    for dir in records::record_folders(out) {
        for f in records::record_files(&dir) {
            rows.extend(records::read_parquet(&f)?);
        }
    }
    Ok(rows)
}

/// Where `evorepro hw --record` keeps each machine's ceilings, under the reports' root.
pub const HARDWARE_DIR: &str = "hardware";

/// A paper's records grouped by machine (this one first), each with the
/// ceilings `evorepro hw --record` measured on the same machine.
fn machines(out: &Path, id: &str, this_hw: Option<&str>) -> Result<Vec<MachineRecords>> {
    let machines = compared_machines(out, id, this_hw, &[])?;
    if machines.is_empty() {
        bail!("no records under {} — run `evorepro reproduce {id}` first", out.join(id).join("records").display());
    }
    Ok(machines)
}

/// Stores `ceilings` (measured by [`measure_ceilings`] on the machine `fp`) as
/// `out/hardware/records/<hw_id>.parquet` (and CSV), replacing earlier ones,
/// under the folder's writer lock.
pub fn record_hardware(fp: &Fingerprint, ceilings: Vec<Record>, out: &Path) -> Result<PathBuf> {
    let run_id = new_run_id();
    let mut common = Record::new()
        .with(col::RUN_ID, run_id)
        .with(col::GIT_COMMIT, GIT_COMMIT)
        .with(col::PROFILE, "hw")
        .with(records::UTC, records::utc_now());
    common.extend(&fp.record());
    let rows: Vec<Record> = ceilings
        .into_iter()
        .map(|r| {
            let mut row = common.clone();
            row.extend(&r);
            row
        })
        .collect();
    let dir = out.join(HARDWARE_DIR).join("records");
    let _lock = records::WriterLock::take(&dir)?;
    let stem = dir.join(&fp.hw_id);
    records::write_records(&stem, &rows)?;
    Ok(stem.with_extension("parquet"))
}

/// Writes the CSV copy of every record file that lacks one or whose copy is
/// older than the Parquet (records brought back from another machine as
/// Parquet only, a run killed before its CSV was written). The copies are
/// derived and never read back; a record file without its checksum is refused
/// at the read, never given one here (`records upgrade` certifies it). The
/// folder's writer lock, where no run holds it, first moves the files of a
/// folder an older evorepro wrote to today's layout ([`records::migrate_layout`]).
fn write_missing_copies(out: &Path, id: &str) -> Result<()> {
    let dir = out.join(id).join("records");
    if !dir.is_dir() {
        return Ok(());
    }
    // A folder a run is writing to (or one that cannot be locked, read-only) is left as it is.
    let _lock = records::WriterLock::take(&dir).ok();
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    for f in records::record_files(&dir) {
        let csv = records::csv_path(&f.with_extension(""));
        if modified(&csv).is_none_or(|c| modified(&f).is_some_and(|p| p > c)) {
            records::write_csv(&f.with_extension(""), &records::read_parquet(&f)?)?;
        }
    }
    Ok(())
}

/// The folder of the committed reference runs, under the repository root.
pub const REFERENCES_DIR: &str = "reports";

/// Where `reproduce` writes by default (ignored by git): a fresh run stays apart
/// from the committed reference runs of [`REFERENCES_DIR`].
pub const RUNS_DIR: &str = "runs";

/// The committed reference runs' folder under `root`, unless `out` is that folder (or it is missing).
fn reference_folder(out: &Path, root: &Path) -> Option<PathBuf> {
    let refs = root.join(REFERENCES_DIR);
    let same = std::fs::canonicalize(&refs).ok()? == std::fs::canonicalize(out).unwrap_or_default();
    (!same).then_some(refs)
}

/// The committed reference runs' verdicts of paper `id` under `root`, unless `out` is that folder.
fn references(out: &Path, root: &Path, id: &str) -> Option<(PathBuf, report::index::PaperVerdicts)> {
    let refs = reference_folder(out, root)?;
    let verdicts = report::index::PaperVerdicts::read(&refs, id)?;
    Some((refs.join(id).join("verdicts.json"), verdicts))
}

/// The machines of `out` and of every folder in `with` (each with its own
/// `hardware/` ceilings); a machine already seen is named `<hw_id> @ <folder>`.
fn compared_machines(out: &Path, id: &str, this_hw: Option<&str>, with: &[PathBuf]) -> Result<Vec<MachineRecords>> {
    let mut all: Vec<MachineRecords> = Vec::new();
    for folder in std::iter::once(out).chain(with.iter().map(PathBuf::as_path)) {
        if !folder.join(id).join("records").is_dir() {
            continue;
        }
        let mut rows = load_records(folder, id)?;
        if rows.is_empty() {
            continue;
        }
        // One id per machine across every paper's records and the hardware records.
        let mut hardware = load_records(folder, HARDWARE_DIR)?;
        let alias = crate::records::aliases(&all_records(folder)?);
        crate::records::apply_aliases(&mut rows, &alias);
        crate::records::apply_aliases(&mut hardware, &alias);
        let mut machines = crate::records::by_machine(rows, this_hw);
        for r in hardware {
            if let Some(m) = machines.iter_mut().find(|m| m.hw_id == r.str(col::HW_ID)) {
                m.rows.push(r);
            }
        }
        for mut m in machines {
            if all.iter().any(|a| a.hw_id == m.hw_id) {
                m.hw_id = format!("{} @ {}", m.hw_id, folder.display());
            }
            all.push(m);
        }
    }
    Ok(all)
}
