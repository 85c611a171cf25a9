//! The experiment registry and the runner shared by every paper.
//!
//! A paper is one spec (`experiments/<id>.toml`) plus one folder here with the
//! same files for every paper: `mod.rs` ([`Experiment`]: load the spec, the GPU
//! self-check), `spec.rs` (the typed spec and its validation), `cases.rs`
//! (cases of a profile, running one into records), `analysis.rs` (one
//! machine's records indexed for the report), `render.rs` (the report's
//! sections) and `claims.rs` (the table of checks). Adding a paper is that
//! folder, its spec and one line in [`registry`]. Data flows one way:
//! spec → cases → run → raw records → analysis → report sections and verdicts.
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
pub mod plan;
pub mod shard;

use crate::claims::{ClaimResult, Outcome, Verdict};
use crate::error::{GpuError, SpecError};
use crate::gpu::{self, Gpu};
use crate::hardware::{self, Fingerprint};
use crate::records::MachineRecords;
use crate::records::{self, Record, RecordStore};
use crate::report;
use crate::spec::{PaperMeta, SpecContext, SpecFile};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A paper's entry in the registry: how to parse its spec.
pub trait Experiment: Sync {
    /// Short id used on the command line (`layout`, `ecga`, …).
    fn id(&self) -> &'static str;
    fn title(&self) -> &'static str;
    /// The spec as shipped, used when `experiments/<id>.toml` is not on disk.
    fn embedded_spec(&self) -> &'static str;
    /// Parses and validates the spec.
    fn load(&self, spec: &SpecFile) -> Result<Box<dyn Paper>, SpecError>;
    /// Checks every GPU kernel of the paper against its CPU reference on fresh
    /// random inputs (few, small sizes when `small`), printing a line per
    /// configuration; returns the number that failed. Vendored inputs are read
    /// from `datasets` (`<root>/datasets`).
    fn selfcheck(&self, gpu: &Gpu, small: bool, seed: u64, datasets: &Path) -> Result<usize>;
    /// The kernel files its GPU parts launch: compiled (NVRTC) and loaded when
    /// a run opens the GPU, so that no timed case pays for it.
    fn kernels(&self) -> &'static [&'static gpu::KernelSource];
}

/// A loaded paper: its cases, how to run one, and what its report says.
pub trait Paper {
    fn meta(&self) -> &PaperMeta;
    fn profiles(&self) -> Vec<String>;
    /// What a profile is for: its description, and whether it is a smoke test.
    fn about(&self, profile: &str) -> crate::spec::ProfileAbout;
    /// The cases of a profile, in run order.
    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError>;
    /// The spec's claims, in its order.
    fn claim_specs(&self) -> Vec<&crate::spec::ClaimSpec>;
    /// Opens and checks every data set or instance `cases` use (a missing or
    /// malformed file fails here, naming it, before anything is written).
    fn prepare(&self, _cases: &[Case]) -> Result<()> {
        Ok(())
    }
    /// Runs one case; every returned row is one repetition (or one "not run here").
    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>>;
    /// The report's content from every machine's records, writing figures under
    /// `dir/figures/`; the runner lays it out ([`render`]).
    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<PaperReport>;
    /// Every claim judged on every machine, from the analyses alone (no report,
    /// no figure): what [`mark_incomplete`] and the verdict tests call; the
    /// report's claims are these.
    fn judge(&self, machines: &[MachineRecords]) -> Result<Vec<ClaimResult>>;
    /// Side-by-side of every machine and the paper's hardware.
    fn compare(&self, machines: &[MachineRecords]) -> String;
    /// What one case holds at its peak, estimated from its sizes (none by default).
    fn footprint(&self, _case: &Case) -> Footprint {
        Footprint::default()
    }
    /// The record column that names what a "not run here" row did not run.
    fn not_run_column(&self) -> &'static str {
        "method"
    }
    /// How its rows time one repetition of a method, whose spread over
    /// repeats a run warns of ([`plan::Repeats`]): `total_ms` by default.
    fn timing(&self) -> plan::Timing {
        plan::Timing { method: self.not_run_column(), columns: &["total_ms"], only: None }
    }
    /// What one case occupies while it runs ([`plan::Resource`]). One GPU by
    /// default: every case of the shipped papers runs its GPU method(s) where
    /// there is a GPU, beside the CPU baselines it times (a case run without one
    /// records its GPU methods as not run, so only a rank with a GPU may take it).
    /// A paper whose case needs no GPU says so here.
    fn resource(&self, _case: &Case) -> plan::Resource {
        plan::Resource::Gpu
    }
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
    /// (hw_id, Markdown) per machine, each under the machine's own heading.
    pub machines: Vec<(String, String)>,
}

/// A note for each machine whose sections show a measurement above the ceiling it is compared with
/// (marked [`crate::fmt::ABOVE_CEILING`]): how many cells, in which sections.
fn above_ceiling_note(sections: &[Section]) -> Option<String> {
    let mut marked: std::collections::BTreeMap<&str, (usize, Vec<&str>)> = std::collections::BTreeMap::new();
    for s in sections {
        for (hw, part) in &s.machines {
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
    /// A section whose part for each machine is `body(machine)` (an empty part is left out).
    pub fn per_machine(
        title: impl Into<String>,
        intro: impl Into<String>,
        machines: &[MachineRecords],
        mut body: impl FnMut(&MachineRecords) -> Result<String>,
    ) -> Result<Section> {
        let mut parts = Vec::new();
        for m in machines {
            let md = body(m)?;
            if !md.trim().is_empty() {
                parts.push((m.hw_id.clone(), md));
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
pub fn registry() -> Vec<&'static dyn Experiment> {
    vec![&layout::LAYOUT, &ecga::ECGA, &gboa::GBOA, &biohel::BIOHEL, &island::ISLAND]
}

pub fn find(id: &str) -> Result<&'static dyn Experiment> {
    registry().into_iter().find(|e| e.id() == id).ok_or_else(|| {
        let known: Vec<&str> = registry().iter().map(|e| e.id()).collect();
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
pub fn read_spec(exp: &dyn Experiment, choice: &SpecChoice) -> Result<SpecFile, SpecError> {
    let experiments = choice.root.join("experiments");
    let default = experiments.join(format!("{}.toml", exp.id()));
    let (file, base_dir) = match &choice.file {
        Some(p) => (SpecFile::read(p)?, p.parent().unwrap_or(Path::new("")).to_owned()),
        None if default.exists() => (SpecFile::read(&default)?, experiments),
        None => {
            let shown = PathBuf::from(format!("<built-in>/experiments/{}.toml", exp.id()));
            (SpecFile::from_text(&shown, exp.embedded_spec().into()), experiments)
        }
    };
    Ok(file.with_context(SpecContext::new(&base_dir, &choice.root, choice.allow_outside)))
}

/// Reads ([`read_spec`]) and loads a paper's spec.
pub fn load_paper(exp: &dyn Experiment, choice: &SpecChoice) -> Result<Box<dyn Paper>> {
    Ok(exp.load(&read_spec(exp, choice)?)?)
}

pub const GIT_COMMIT: &str = env!("EVOREPRO_GIT_COMMIT");

/// This machine's ceilings, one row each (`record_kind` = `kind`): CPU read
/// bandwidth on one and all threads and one core's clock, and with a GPU its
/// device copy, pinned host links and int32 rate. Buffers of 128 MiB when
/// `quick`, else 512 MiB.
pub fn measure_ceilings(gpu: Option<&Gpu>, quick: bool, kind: &str) -> Result<Vec<Record>> {
    let mib = if quick { 128 } else { 512 };
    let row = |name: &str, column: &str, v: f64| Record::new().with("record_kind", kind).with("ceiling", name).with(column, v);
    let cpu = hardware::measure_cpu(mib << 20, 5);
    let (gb_per_s, gop_per_s, clock_ghz) = (records::GB_PER_S, records::GOP_PER_S, records::CPU_CLOCK_GHZ);
    let mut rows = vec![row("cpu_read_1t", gb_per_s, cpu.read_1t_gbs), row("cpu_read_all", gb_per_s, cpu.read_all_gbs)];
    rows.extend(hardware::measure_cpu_clock(5).map(|ghz| row("cpu_clock", clock_ghz, ghz)));
    if let Some(g) = gpu {
        let c = gpu::ceilings::measure(g, 512 << 20, 10)?;
        rows.push(row("gpu_d2d", gb_per_s, c.d2d_gbs));
        rows.push(row("gpu_h2d_pinned", gb_per_s, c.h2d_pinned_gbs));
        rows.push(row("gpu_d2h_pinned", gb_per_s, c.d2h_pinned_gbs));
        rows.push(row("gpu_int32", gop_per_s, c.int32_gops));
    }
    Ok(rows)
}

/// A new run's id: nanoseconds since the Unix epoch, so that ids grow with time
/// (the report takes the largest as the latest) and runs started in the same
/// second differ. Within one process every call returns more than the last.
pub fn new_run_id() -> u64 {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    let mut id = now;
    // Never fails: the closure always returns Some.
    let _ = LAST.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
        id = now.max(last.saturating_add(1));
        Some(id)
    });
    id
}

/// What `reproduce` and `--dry-run` establish before any work or write: the
/// spec loads and validates, the profile has cases, every stored record file
/// reads, every data file the cases use loads, and every case fits this
/// machine's memory.
struct Checked {
    file: SpecFile,
    paper: Box<dyn Paper>,
    cases: Vec<Case>,
    env: RunEnv,
}

fn check_run(exp: &dyn Experiment, opts: &RunOptions) -> Result<Checked> {
    let (file, paper, cases) = check_spec(exp, opts)?;
    let env = RunEnv::open(opts.backend, opts.device, &opts.profile)?;
    let host_bytes = (env.fingerprint.mem_gib * f64::from(1u32 << 30)) as u64;
    check_footprints(&file, &opts.profile, paper.as_ref(), &cases, host_bytes, env.gpu.as_ref().map(|g| g.info.mem_bytes as u64))?;
    Ok(Checked { file, paper, cases, env })
}

/// What `reproduce all` checks of every paper before the first case of any:
/// the spec loads, the profile has cases, the stored records read and every
/// data file the cases use loads ([`check_run`] without the machine).
pub fn preflight(exp: &dyn Experiment, opts: &RunOptions) -> Result<()> {
    check_spec(exp, opts).map(|_| ())
}

/// The checks of [`check_run`] that need no machine: the spec, the cases, the records and the data.
fn check_spec(exp: &dyn Experiment, opts: &RunOptions) -> Result<(SpecFile, Box<dyn Paper>, Vec<Case>)> {
    // A profile's name becomes a file name under `--out`: checked before anything is read or written.
    crate::spec::check_name("profile", &opts.profile)?;
    let file = read_spec(exp, &opts.spec)?;
    let paper = exp.load(&file)?;
    let cases = paper.cases(&opts.profile)?;
    if cases.is_empty() {
        let table = format!("profiles.{}", opts.profile);
        let line = file.line_of_table(&table);
        let message = format!("profile `{}` of {} has no cases: its sizes, runs or sweeps are empty", opts.profile, exp.id());
        return Err(SpecError::Invalid { path: file.path.clone(), line, key: table, message }.into());
    }
    let cases = match opts.shard {
        Some(s) => {
            let all = cases.len();
            let gpu_cases = cases.iter().filter(|c| paper.resource(c) == plan::Resource::Gpu).count();
            let mine = s.select(cases, |c| paper.resource(c));
            if mine.is_empty() {
                let most = match s.gpu_shards {
                    Some(g) if g < s.count => format!(
                        "{gpu_cases} of them need a GPU (shards 1..={g}), {} need none (shards {}..={}): use at most {} GPU shards and {} others",
                        all - gpu_cases,
                        g + 1,
                        s.count,
                        gpu_cases,
                        all - gpu_cases
                    ),
                    _ => format!("use at most {all} shards"),
                };
                bail!("--shard {s}: profile `{}` of {} has {all} cases, none for this shard; {most}", opts.profile, exp.id());
            }
            mine
        }
        None => cases,
    };
    load_records(&opts.out, exp.id())?;
    paper.prepare(&cases)?;
    Ok((file, paper, cases))
}

/// What `reproduce --dry-run` estimates beyond the run's options.
pub struct DryRunOptions {
    /// `--gpus`: the time on this many GPUs as well as on one.
    pub gpus: usize,
    /// `--estimate-from`: the machine (an `hw_id` or a part naming one) whose records estimate.
    pub estimate_from: Option<String>,
}

/// `reproduce --dry-run`: the profile's cases by figure with the memory, the
/// resource and the time each needs ([`plan`]) after the checks `reproduce`
/// makes; runs and writes nothing.
pub fn dry_run(exp: &dyn Experiment, opts: &RunOptions, dry: &DryRunOptions) -> Result<String> {
    let Checked { paper, cases, env, .. } = check_run(exp, opts)?;
    let hw = env.fingerprint.hw_id.as_str();
    let mut rows = load_records(&opts.out, exp.id())?;
    let stored: std::collections::BTreeSet<String> = rows
        .iter()
        .filter(|r| r.str("hw_id") == hw && r.str("record_kind") == "measurement" && r.str("profile") == opts.profile)
        .map(|r| r.str("case_id").to_owned())
        .collect();
    // Times from the committed reference runs too, for a machine new to the paper.
    if let Some(refs) = reference_folder(&opts.out, &opts.spec.root) {
        rows.extend(load_records(&refs, exp.id())?);
    }
    let machines = crate::records::by_machine(rows, Some(hw));
    let on = match &env.gpu {
        Some(g) => format!("GPU {}", g.info.name),
        None => format!("CPU only ({}): GPU parts would be recorded as not run here", env.gpu_absent),
    };
    let (basis, said) = plan::basis(&machines, hw, dry.estimate_from.as_deref()).map_err(anyhow::Error::msg)?;
    let mut known = Vec::new();
    for p in paper.profiles() {
        known.extend(paper.cases(&p)?);
    }
    let times = plan::CaseTimes::new(&machines, &basis, &cases, &known);
    let mut md = format!("# {} — profile `{}` on `{hw}`, {on}; nothing is run or written\n\n", exp.id(), opts.profile);
    let about = paper.about(&opts.profile);
    if let Some(d) = &about.description {
        md += &format!("{d}.\n\n");
    }
    if about.smoke {
        md += "A smoke profile: it tests the harness and decides none of the paper's claims (they read \"not judged here (smoke \
               profile)\"); the harness's own checks are judged.\n\n";
    }
    if let Some(line) = said {
        md += &format!("{line}\n\n");
    }
    let plan = plan::DryRun { paper: paper.as_ref(), cases: &cases, times: &times, this_hw: hw, gpus: dry.gpus };
    md += &plan.render(|c| stored.contains(&c.id));
    let here = match &env.gpu {
        Some(_) => plan::GpusHere { count: plan::GpusHere::probe().count.max(1), absent: String::new() },
        None => plan::GpusHere { count: 0, absent: env.gpu_absent.clone() },
    };
    let claims: Vec<plan::Foresight> = paper.claim_specs().into_iter().map(|c| plan::foresee(c, &cases, about.smoke, &here)).collect();
    md += &format!("\n## The claims this run can decide here\n\n{}", plan::foresight_table(&claims));
    Ok(md)
}

/// What `reproduce` wrote: a report, or (with `--shard`) a shard's records.
pub enum Finished {
    Rendered(Box<Rendered>),
    Shard { shard: shard::Shard, file: PathBuf, stored: usize, planned: usize },
}

impl Finished {
    pub fn summary(&self, id: &str) -> String {
        match self {
            Finished::Rendered(r) => r.summary(id),
            Finished::Shard { shard, file, stored, planned } => format!(
                "{id}: shard {shard}: {stored} of its {planned} cases stored in {} — `evorepro merge {id}` combines the shards once all have run",
                file.display()
            ),
        }
    }
}

/// The records folder of a paper under the reports' root.
pub fn records_dir(out: &Path, id: &str) -> PathBuf {
    out.join(id).join("records")
}

/// A run under way: its writer and the cases it plans.
pub struct Run<'a> {
    exp: &'a dyn Experiment,
    opts: &'a RunOptions,
    pub paper: Box<dyn Paper>,
    pub cases: Vec<Case>,
    pub env: RunEnv,
    /// Apart from the rest, so that another thread may store while the cases are handed out ([`mpi`]).
    pub writer: Writer,
}

/// The one writer of a run: its records store and the columns every row carries.
pub struct Writer {
    store: RecordStore,
    common: Record,
    /// The run's repeated timings, for the spread warning at its end.
    repeats: plan::Repeats,
    /// How the paper's rows time a repetition.
    timing: plan::Timing,
}

impl<'a> Run<'a> {
    /// Checks everything ([`check_run`]), opens the records store (this
    /// shard's with `--shard`) and stores this machine's ceilings.
    pub fn start(exp: &'a dyn Experiment, opts: &'a RunOptions) -> Result<Run<'a>> {
        // Nothing is written before every check passes: the report at the end reads every record file.
        let Checked { file, paper, cases, env } = check_run(exp, opts)?;
        BUSY_SAID.store(false, std::sync::atomic::Ordering::Relaxed);
        let records = records_dir(&opts.out, exp.id());
        let folder = opts.shard.map_or_else(|| records.clone(), |s| s.folder(&records, &opts.profile));
        let spec_hash = file.hash;
        let name = format!("{}__{}", env.fingerprint.hw_id, opts.profile);
        // Records written before the hash was of the spec's content carry the text's.
        let store = RecordStore::open(&folder, &name, &[&spec_hash, &file.text_hash], opts.resume)?;
        let mut common = Record::new()
            .with("paper", exp.id())
            .with("profile", opts.profile.as_str())
            .with("run_id", new_run_id())
            .with("git_commit", GIT_COMMIT)
            .with("spec_hash", spec_hash.as_str())
            .with("backend", if env.gpu.is_some() { "cuda" } else { "cpu" });
        common.extend(&env.fingerprint.record());
        if let Some(g) = &env.gpu {
            crate::say!(
                "{}: GPU {} (CC {}.{}), profile {}",
                exp.id(),
                g.info.name,
                g.info.compute_capability.0,
                g.info.compute_capability.1,
                opts.profile
            );
        } else {
            crate::say!("{}: CPU only ({}): GPU parts are recorded as not run here; profile {}", exp.id(), env.gpu_absent, opts.profile);
        }
        if let Some(s) = opts.shard {
            crate::say!("{}: shard {s}, {} cases, records in {}", exp.id(), cases.len(), folder.display());
        }
        if let Some(g) = &env.gpu {
            let t0 = std::time::Instant::now();
            for src in exp.kernels() {
                g.load(src)?;
            }
            crate::say!("{}: kernels compiled and loaded in {:.2} s (before any timed case)", exp.id(), t0.elapsed().as_secs_f64());
        }
        let ceilings = measure_ceilings(env.gpu.as_ref(), opts.profile == "quick", "ceiling")?;
        let mut writer = Writer { store, common, repeats: plan::Repeats::default(), timing: paper.timing() };
        let rows = writer.with_common(ceilings, None);
        writer.store.append(None, rows)?;
        Ok(Run { exp, opts, paper, cases, env, writer })
    }

    /// The cases not yet stored (all of them without `--resume`), at most `--max-cases` of them.
    pub fn todo(&self) -> Vec<&Case> {
        let mut todo: Vec<&Case> = self.cases.iter().filter(|c| !self.writer.store.is_done(&c.id)).collect();
        if todo.len() < self.cases.len() {
            crate::say!("resuming: {} of {} cases already stored", self.cases.len() - todo.len(), self.cases.len());
        }
        if let Some(max) = self.opts.max_cases.filter(|&m| m < todo.len()) {
            crate::say!("--max-cases {max}: running {max} of the {} cases still to run", todo.len());
            todo.truncate(max);
        }
        todo
    }

    /// Stores the rows `run_case` returned for `case` (run in `case_s` seconds), at once.
    pub fn store_case(&mut self, case: &Case, rows: Vec<Record>, case_s: f64) -> Result<()> {
        self.writer.store_case(case, rows, case_s)
    }

    /// Writes the CSV copy and renders the report (a shard only says what it stored).
    pub fn finish(self) -> Result<Finished> {
        if let Some(w) = self.writer.repeats.warning() {
            crate::say!("warning: {}: {w}", self.exp.id());
        }
        let store = &self.writer.store;
        store.finish()?;
        if let Some(shard) = self.opts.shard {
            return Ok(Finished::Shard { shard, file: store.file(), stored: store.finished_cases(), planned: self.cases.len() });
        }
        Ok(Finished::Rendered(Box::new(render(self.exp, &self.opts.out, Some(&self.env.fingerprint.hw_id), &self.opts.spec)?)))
    }
}

impl Writer {
    /// `rows` with the columns every row carries, and (for a case's rows) its id and parameters.
    fn with_common(&self, rows: Vec<Record>, case: Option<&Case>) -> Vec<Record> {
        rows.into_iter()
            .map(|r| {
                let mut row = self.common.clone();
                if let Some(c) = case {
                    row.set("case_id", c.id.as_str());
                    row.extend(&c.params);
                }
                if r.get("record_kind") == &records::Value::Null {
                    row.set("record_kind", "measurement");
                }
                row.extend(&r);
                row
            })
            .collect()
    }

    /// Stores the rows `run_case` returned for `case` (run in `case_s` seconds), at once.
    pub fn store_case(&mut self, case: &Case, rows: Vec<Record>, case_s: f64) -> Result<()> {
        // Every row carries how long its whole case took: `--dry-run` estimates from it.
        // …and when it finished (UTC).
        let utc = records::utc_now();
        let rows = rows.into_iter().map(|r| r.with(plan::CASE_SECONDS, case_s).with(records::UTC, utc.as_str())).collect();
        let rows = self.with_common(rows, Some(case));
        self.repeats.add(case, &rows, &self.timing);
        Ok(self.store.append(Some(&case.id), rows)?)
    }
}

/// Runs `case` on `env`: its rows, each with the machine's load and clock at
/// the case's start ([`hardware::Conditions`]; a warning where the load exceeds
/// the threads), and the seconds it took.
pub fn run_one(paper: &dyn Paper, case: &Case, env: &RunEnv) -> Result<(Vec<Record>, f64)> {
    let conditions = hardware::Conditions::now();
    if let Some(why) = conditions.busy(env.fingerprint.cpu_threads)
        && !BUSY_SAID.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        crate::say!("warning: case {}: {why} (later cases under load are not listed: the report's Runs section counts them)", case.id);
    }
    let started = std::time::Instant::now();
    let rows = paper.run_case(case, env).with_context(|| format!("case {}", case.id))?;
    Ok((rows.into_iter().map(|r| conditions.on(r)).collect(), started.elapsed().as_secs_f64()))
}

/// Whether this run has warned of a busy machine: once a run, not once per case.
static BUSY_SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--quiet`: no progress bar and no progress lines from here on.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

/// Progress of a run: a bar on a terminal, else a line per finished case (at
/// most one every 10 s, and the last), by case weight.
/// Neither with `--quiet` ([`set_quiet`]).
pub struct Progress {
    id: &'static str,
    bar: ProgressBar,
    log: plan::BatchLog,
}

impl Progress {
    pub fn new(id: &'static str, todo: &[&Case]) -> Progress {
        let bar = ProgressBar::new(todo.iter().map(|c| c.weight).sum());
        bar.set_style(
            ProgressStyle::with_template("{msg:28} [{elapsed_precise}] {wide_bar} {percent}% eta {eta}").expect("valid template"),
        );
        // Without a terminal (batch jobs, nohup) the bar is hidden: a line per
        // finished case instead, at most one every 10 s, and the last.
        let quiet = QUIET.load(std::sync::atomic::Ordering::Relaxed);
        if quiet {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        let lines = !quiet && !std::io::IsTerminal::is_terminal(&std::io::stderr());
        let log = plan::BatchLog::new(lines, todo.len(), bar.length().unwrap_or(0));
        Progress { id, bar, log }
    }

    pub fn started(&self, case: &Case) {
        self.bar.set_message(case.id.clone());
    }

    pub fn finished(&mut self, case: &Case) {
        self.bar.inc(case.weight);
        self.log.finished(self.id, &case.id, self.bar.position());
    }

    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// The warm-up cases of a run: the lightest case of each resource the cases
/// use, run once untimed before any timed case, so that no timed case pays a
/// process's first launches, allocations and thread pool (the first CUDA case
/// of a process measured 2–3× slower: adult 4.40 against 2.17 ms).
pub fn warm_ups<'c>(todo: &[&'c Case], resource: impl Fn(&Case) -> plan::Resource) -> Vec<&'c Case> {
    let mut lightest: std::collections::BTreeMap<plan::Resource, &Case> = std::collections::BTreeMap::new();
    for &c in todo {
        let e = lightest.entry(resource(c)).or_insert(c);
        if c.weight < e.weight {
            *e = c;
        }
    }
    lightest.into_values().collect()
}

/// Runs the warm-up cases ([`warm_ups`]) and drops their rows.
pub fn warm_up(paper: &dyn Paper, todo: &[&Case], env: &RunEnv, id: &str) -> Result<()> {
    for case in warm_ups(todo, |c| paper.resource(c)) {
        let (_, s) = run_one(paper, case, env)?;
        if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
            crate::say!("{id}: warm-up case {} in {s:.2} s (untimed, not stored)", case.id);
        }
    }
    Ok(())
}

/// Runs one paper: cases not yet stored, then the report (with `--shard`, this
/// shard's cases into its own records, no report). Returns what was written.
pub fn reproduce(exp: &dyn Experiment, opts: &RunOptions) -> Result<Finished> {
    let mut run = Run::start(exp, opts)?;
    let todo: Vec<Case> = run.todo().into_iter().cloned().collect();
    warm_up(run.paper.as_ref(), &todo.iter().collect::<Vec<_>>(), &run.env, exp.id())?;
    let mut progress = Progress::new(exp.id(), &todo.iter().collect::<Vec<_>>());
    for case in &todo {
        progress.started(case);
        let (rows, case_s) = run_one(run.paper.as_ref(), case, &run.env)?;
        run.store_case(case, rows, case_s)?;
        progress.finished(case);
    }
    progress.clear();
    run.finish()
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
/// `out/hardware/records/<hw_id>.parquet` (and CSV), replacing earlier ones.
pub fn record_hardware(fp: &Fingerprint, ceilings: Vec<Record>, out: &Path) -> Result<PathBuf> {
    let run_id = new_run_id();
    let mut common =
        Record::new().with("run_id", run_id).with("git_commit", GIT_COMMIT).with("profile", "hw").with(records::UTC, records::utc_now());
    common.extend(&fp.record());
    let rows: Vec<Record> = ceilings
        .into_iter()
        .map(|r| {
            let mut row = common.clone();
            row.extend(&r);
            row
        })
        .collect();
    let stem = out.join(HARDWARE_DIR).join("records").join(&fp.hw_id);
    std::fs::create_dir_all(stem.parent().expect("has a parent"))?;
    records::write_records(&stem, &rows)?;
    Ok(stem.with_extension("parquet"))
}

/// Writes the CSV copy of every record file that lacks one or whose copy is
/// older than the Parquet (records brought back from another machine as
/// Parquet only, a run killed before its CSV was written). The copies are
/// derived and never read back; a record file without its checksum is refused
/// at the read, never given one here (`records upgrade` certifies it).
fn write_missing_copies(out: &Path, id: &str) -> Result<()> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    for f in records::record_files(&out.join(id).join("records")) {
        let csv = f.with_extension("csv");
        if modified(&csv).is_none_or(|c| modified(&f).is_some_and(|p| p > c)) {
            records::write_csv(&f.with_extension(""), &records::read_parquet(&f)?)?;
        }
    }
    Ok(())
}

/// What [`render`] wrote.
pub struct Rendered {
    pub report: PathBuf,
    pub verdicts: PathBuf,
    pub index: PathBuf,
    /// `out/<id>/COMPARE.md`, refreshed with the report.
    pub compare: PathBuf,
    /// The claims judged, on every machine with records.
    pub claims: Vec<ClaimResult>,
    /// The same as `verdicts.json` holds them.
    pub judged: report::index::PaperVerdicts,
    /// The machine the command runs on.
    pub this_hw: Option<String>,
    /// The committed reference runs' verdicts (`<root>/reports/<id>/verdicts.json`)
    /// where the report was rendered elsewhere: the file and what it holds.
    pub references: Option<(PathBuf, report::index::PaperVerdicts)>,
}

impl Rendered {
    /// What this machine judged (its own claims' verdicts), then how every other
    /// machine stands: those with records beside it, then the committed reference
    /// runs on other hardware; then the files written.
    pub fn summary(&self, id: &str) -> String {
        let mut lines = Vec::new();
        let this = self.this_hw.as_deref().and_then(|hw| self.judged.machines.iter().find(|m| m.hw_id == hw));
        match this {
            Some(m) => lines.push(format!("{id} on this machine ({}): {}", m.label, self.judged.machine_line(&m.hw_id, true))),
            None => lines.push(format!("{id}: this machine has no records here")),
        }
        let others: Vec<_> = self.judged.machines.iter().filter(|m| this.is_none_or(|t| t.hw_id != m.hw_id)).collect();
        if !others.is_empty() {
            lines.push(format!("{id} on the other machines with records beside it:"));
            lines.extend(others.iter().map(|m| format!("  `{}` ({}): {}", m.hw_id, m.label, self.judged.machine_line(&m.hw_id, false))));
        }
        if let Some((file, refs)) = &self.references {
            lines.push(format!("{id} reference runs committed in {}:", file.display()));
            for m in &refs.machines {
                let mine = if self.this_hw.as_deref() == Some(m.hw_id.as_str()) { ", this machine" } else { "" };
                lines.push(format!("  `{}` ({}{mine}): {}", m.hw_id, m.label, refs.machine_line(&m.hw_id, false)));
            }
        }
        lines.push(format!(
            "{id}: {}, {}, {}, {}",
            self.report.display(),
            self.verdicts.display(),
            self.index.display(),
            self.compare.display()
        ));
        lines.join("\n")
    }
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

/// Re-renders `out/<id>/REPORT.md` (and figures) from the stored records, with
/// `out/<id>/verdicts.json`, `out/INDEX.md` and `out/verdicts.json`.
pub fn render(exp: &dyn Experiment, out: &Path, this_hw: Option<&str>, spec: &SpecChoice) -> Result<Rendered> {
    let paper = load_paper(exp, spec)?;
    write_missing_copies(out, exp.id())?;
    write_missing_copies(out, HARDWARE_DIR)?;
    let machines = machines(out, exp.id(), this_hw)?;
    let dir = out.join(exp.id());
    std::fs::create_dir_all(dir.join("figures"))?;
    let mut body = paper.report(&machines, &dir)?;
    body.claims = gate_smoke(paper.as_ref(), &machines, body.claims)?;
    body.claims = mark_incomplete(paper.as_ref(), &machines, body.claims)?;
    let mut md = report::header(paper.meta(), exp.id());
    md += "## At a glance\n\n";
    md += &report::glance::glance(&body.claims, &machines);
    md += "\n## Verdicts\n\n";
    md += &report::verdict_summary(&body.claims, &machines);
    md += "\n";
    md += "## Hardware\n\n";
    md += &report::hardware_table(paper.meta(), &machines);
    md += "\n### Measured ceilings\n\nMeasured at the start of each run, in the same process as the experiment (median of repeats).\n\n";
    md += &report::ceilings_table(&machines);
    md +=
        "\n### Runs\n\nEach profile's records: the commits they were measured at and the cases stored against those the profile plans.\n\n";
    md += &report::runs_table(&machines, |profile| planned_ids(paper.as_ref(), profile));
    if let Some(note) = report::busy_note(&machines) {
        md += &format!("\n{note}\n");
    }
    if let Some(note) = plan::spread_note(&machines, |p| paper.cases(p).ok(), &paper.timing()) {
        md += &format!("\n{note}\n");
    }
    if let Some(note) = above_ceiling_note(&body.sections) {
        crate::say!("{}: warning: {note}", exp.id());
        md += &format!("\n{note}\n");
    }
    let unmerged = shard::unmerged(out, exp.id());
    if !unmerged.is_empty() {
        let names: Vec<String> = unmerged.iter().map(|f| format!("`{}`", f.display())).collect();
        let note = format!("**Unmerged shards, not in this report:** {} (`evorepro merge {}` combines them).", names.join(", "), exp.id());
        crate::say!("{}: {note}", exp.id());
        md += &format!("\n{note}\n");
    }
    md += "\n## How this was measured\n\n";
    md += body.method.trim_end();
    md += "\n\n";
    for s in &body.sections {
        md += &format!("## {}\n\n", s.title);
        if !s.intro.trim().is_empty() {
            md += s.intro.trim_end();
            md += "\n\n";
        }
        // A machine whose part only says it did not run is one line after the others.
        let said_not_run =
            |part: &str| part.lines().filter(|l| !l.trim().is_empty()).all(|l| l.contains("not run here") && !l.starts_with(['|', '!']));
        let label = |hw: &String| machines.iter().find(|m| &m.hw_id == hw).map_or_else(|| hw.clone(), |m| m.label());
        let mut not_run = Vec::new();
        for (hw, part) in &s.machines {
            if said_not_run(part) {
                let lines: Vec<&str> = part.lines().map(|l| l.trim().trim_end_matches('.')).filter(|l| !l.is_empty()).collect();
                let why = match lines.as_slice() {
                    [one] => one.strip_prefix("not run here (").and_then(|w| w.strip_suffix(')')).unwrap_or(one).to_owned(),
                    _ => lines.join("; "),
                };
                not_run.push(format!("{} (`{hw}`): {why}", label(hw)));
                continue;
            }
            md += &format!("### {}\n\nMachine `{hw}`.\n\n{}\n\n", label(hw), part.trim_end());
        }
        if !not_run.is_empty() {
            md += &format!("**Not run on** {}.\n\n", not_run.join("; "));
        }
    }
    md += "## Claims\n\n";
    md += &report::glance::claims_section(&body.claims, &machines);
    if let Some(t) = report::beyond_table(&body.claims) {
        md += "\n## Beyond the paper\n\nMeasured outside the paper's range or settings; not part of any verdict above.\n\n";
        md += &t;
    }
    if let Some(t) = report::not_run_table(&machines, paper.not_run_column()) {
        md += "\n## Not run here\n\n";
        md += &t;
    }
    let path = dir.join("REPORT.md");
    records::write_atomic(&path, md.as_bytes())?;
    let judged = report::index::PaperVerdicts::new(exp.id(), &paper.meta().title, &machines, &body.claims);
    let verdicts = judged.write(out)?;
    compare(exp, out, spec, &[])?;
    let index = write_index(out)?;
    Ok(Rendered {
        report: path,
        verdicts,
        index,
        compare: dir.join("COMPARE.md"),
        claims: body.claims,
        judged,
        this_hw: this_hw.map(str::to_owned),
        references: references(out, &spec.root, exp.id()),
    })
}

/// The ids of the cases a profile plans now; None for a profile the spec no longer has.
fn planned_ids(paper: &dyn Paper, profile: &str) -> Option<std::collections::BTreeSet<String>> {
    paper.cases(profile).ok().map(|c| c.into_iter().map(|c| c.id).collect())
}

/// The paper's smoke profiles (`smoke = true`).
pub fn smoke_profiles(paper: &dyn Paper) -> Vec<String> {
    paper.profiles().into_iter().filter(|p| paper.about(p).smoke).collect()
}

/// The smoke gate ([`crate::claims::smoke_gate`]) on each machine with records
/// of a smoke profile: its claims judged again without them.
fn gate_smoke(paper: &dyn Paper, machines: &[MachineRecords], mut claims: Vec<ClaimResult>) -> Result<Vec<ClaimResult>> {
    let smoke = smoke_profiles(paper);
    for m in machines {
        let used: std::collections::BTreeSet<String> =
            m.measurements().map(|r| r.str("profile").to_owned()).filter(|p| smoke.contains(p)).collect();
        if used.is_empty() {
            continue;
        }
        let mut without = m.clone();
        without.rows.retain(|r| !(r.str("record_kind") == "measurement" && used.contains(r.str("profile"))));
        let judged = paper.judge(std::slice::from_ref(&without))?;
        let names: Vec<String> = used.iter().map(|p| format!("`{p}`")).collect();
        claims = crate::claims::smoke_gate(claims, &judged, &m.hw_id, &names.join(", "));
    }
    Ok(claims)
}

/// Claims that rest on an incomplete sweep. For each machine and profile with
/// fewer cases stored than the profile plans, the claims are judged again
/// without that profile's measurements: a claim whose outcome changes rests on
/// the profile, so it cannot be decided until the missing cases run. Its
/// verdict becomes "too few runs" (cases stored of planned) and its evidence
/// keeps what the stored cases say.
fn mark_incomplete(paper: &dyn Paper, machines: &[MachineRecords], mut claims: Vec<ClaimResult>) -> Result<Vec<ClaimResult>> {
    for m in machines {
        for (profile, stored) in report::cases_stored(m) {
            let Some(plan) = planned_ids(paper, &profile) else { continue };
            let (done, _) = report::planned_and_not(&stored, &plan);
            let planned = plan.len();
            if done >= planned {
                continue;
            }
            let mut without = machines.to_vec();
            for w in without.iter_mut().filter(|w| w.hw_id == m.hw_id) {
                w.rows.retain(|r| !(r.str("record_kind") == "measurement" && r.str("profile") == profile));
            }
            let judged = paper.judge(&without)?;
            for c in claims.iter_mut().filter(|c| c.machine == m.hw_id && c.outcome.verdict.is_decided()) {
                let same = judged.iter().find(|j| j.id == c.id && j.machine == c.machine).is_some_and(|j| j.outcome == c.outcome);
                if !same {
                    let o = &c.outcome;
                    let evidence = format!("on the {done} cases stored: {}; {}", o.verdict.label(), o.evidence);
                    let verdict = Verdict::Incomplete { profile: profile.clone(), stored: done, planned };
                    c.outcome = Outcome { verdict, evidence, ratio: None, quantity: None, ..o.clone() };
                }
            }
        }
    }
    Ok(claims)
}

/// Every claim of a paper judged on every machine with records under `out`
/// (incomplete sweeps marked), without writing anything: the verdicts a
/// [`render`] would show.
pub fn judge(exp: &dyn Experiment, out: &Path, spec: &SpecChoice) -> Result<Vec<ClaimResult>> {
    let paper = load_paper(exp, spec)?;
    let machines = machines(out, exp.id(), None)?;
    judge_machines(paper.as_ref(), &machines)
}

/// Every claim judged on `machines` as a report judges them: smoke profiles gated, incomplete sweeps marked.
fn judge_machines(paper: &dyn Paper, machines: &[MachineRecords]) -> Result<Vec<ClaimResult>> {
    let claims = gate_smoke(paper, machines, paper.judge(machines)?)?;
    mark_incomplete(paper, machines, claims)
}

/// Rewrites `out/INDEX.md` and `out/verdicts.json` from every paper's verdicts.
pub fn write_index(out: &Path) -> Result<PathBuf> {
    let order: Vec<&str> = registry().iter().map(|e| e.id()).collect();
    report::index::write_index(out, &order)
}

/// Writes `out/<id>/COMPARE.md` (the paper's tables, then the hardware
/// generations: bounds, predictions and measurements, with charts) and the
/// cross-paper `out/COMPARE.md`; returns a few lines for the terminal: the paper's
/// headline workload on each machine and where the whole comparison is. `with` adds the
/// records of other report folders (a user's run beside the committed ones); a
/// machine found in two folders appears twice, named with its folder.
pub fn compare(exp: &dyn Experiment, out: &Path, spec: &SpecChoice, with: &[PathBuf]) -> Result<String> {
    let paper = load_paper(exp, spec)?;
    if let Some(f) = with.iter().find(|f| !f.join(exp.id()).join("records").is_dir()) {
        bail!("{}: no records of {} in this folder (expected {})", f.display(), exp.id(), f.join(exp.id()).join("records").display());
    }
    let this = Fingerprint::this_machine(None).hw_id;
    let machines = compared_machines(out, exp.id(), Some(&this), with)?;
    if machines.is_empty() {
        bail!("no records under {} — run `evorepro reproduce {}` first", out.join(exp.id()).join("records").display(), exp.id());
    }
    let catalogue = report::generations::Generations::load(&spec.root)?;
    let dir = out.join(exp.id());
    std::fs::create_dir_all(dir.join("figures"))?;
    let mut md = format!("# {} — hardware generations\n\n", paper.meta().title);
    if !with.is_empty() {
        let folders: Vec<String> =
            std::iter::once(out).chain(with.iter().map(PathBuf::as_path)).map(|p| format!("`{}`", p.display())).collect();
        md += &format!("Records from {}.\n\n", folders.join(", "));
    }
    md += &report::hardware_table(paper.meta(), &machines);
    md += "\n";
    md += &paper.compare(&machines);
    md += "\n";
    let generations = report::generations::PaperGenerations { catalogue: &catalogue, paper_id: exp.id(), machines: &machines };
    md += &generations.render(&dir.join("figures"))?;
    let path = dir.join("COMPARE.md");
    records::write_atomic(&path, md.as_bytes())?;
    write_generations_summary(out, this.as_str(), &catalogue, with)?;
    write_index(out)?;
    prune_figures(out, exp.id())?;
    let headline = generations.summary().unwrap_or_else(|| "No workload of `experiments/generations.toml` has records here.\n".into());
    Ok(format!(
        "## {}\n\n{headline}\nEvery table, workload, bound and prediction on {} machine{}: {}\n",
        exp.id(),
        machines.len(),
        if machines.len() == 1 { "" } else { "s" },
        path.display()
    ))
}

/// Removes the charts under `out/<id>/figures/` that neither the paper's
/// REPORT.md and COMPARE.md nor `out/COMPARE.md` show in any format (a retired
/// machine id's, a figure a report no longer draws; a chart's PNG and SVG go
/// together), so that every figure file belongs to a report. Returns the names
/// removed.
pub fn prune_figures(out: &Path, id: &str) -> Result<Vec<String>> {
    let dir = out.join(id);
    let mut shown = String::new();
    for md in [dir.join("REPORT.md"), dir.join("COMPARE.md"), out.join("COMPARE.md")] {
        match std::fs::read_to_string(&md) {
            Ok(text) => shown += &text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(anyhow::Error::new(e).context(format!("reading {}", md.display()))),
        }
    }
    let figures = dir.join("figures");
    let Ok(entries) = std::fs::read_dir(&figures) else { return Ok(vec![]) };
    let mut removed = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let (Some(name), Some(stem)) = (path.file_name().and_then(|n| n.to_str()), path.file_stem().and_then(|n| n.to_str())) else {
            continue;
        };
        let name = name.to_owned();
        let chart = path.extension().is_some_and(|e| e == "png" || e == "svg");
        if chart && !shown.contains(&format!("figures/{stem}.")) {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
            removed.push(name);
        }
    }
    removed.sort();
    Ok(removed)
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
            if let Some(m) = machines.iter_mut().find(|m| m.hw_id == r.str("hw_id")) {
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

/// `out/COMPARE.md`: per paper with records, its headline workload on every
/// machine, the speedup over the paper's card and the predictions for cards
/// nobody ran here.
fn write_generations_summary(out: &Path, this_hw: &str, catalogue: &report::generations::Generations, with: &[PathBuf]) -> Result<()> {
    let mut md = String::from(
        "# Hardware generations\n\nPer paper, the headline workload (the first of `experiments/generations.toml` with \
         records) on every machine with records, its speedup over the paper's card, and the time the workload's \
         bound predicts for cards not run here (predictions, not measurements). Each paper's `COMPARE.md` has every \
         workload with its bound, the predictions both ways and charts.\n\n",
    );
    for exp in registry() {
        let machines = compared_machines(out, exp.id(), Some(this_hw), with)?;
        let g = report::generations::PaperGenerations { catalogue, paper_id: exp.id(), machines: &machines };
        if let Some(s) = g.summary() {
            md += &format!("## [{}]({}/COMPARE.md)\n\n{s}\n", exp.id(), exp.id());
        }
    }
    records::write_atomic(&out.join("COMPARE.md"), md.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurements_above_their_ceiling_are_counted_per_machine() {
        let mark = crate::fmt::share(5.0, 4.0, 0);
        let section = |title: &str, parts: &[(&str, &str)]| Section {
            title: title.into(),
            intro: String::new(),
            machines: parts.iter().map(|(h, p)| ((*h).into(), (*p).into())).collect(),
        };
        let sections = [
            section("Rates", &[("a", &format!("| x | {mark} |\n| y | {mark} |")), ("b", "| x | 90% |")]),
            section("Kernel", &[("a", &format!("at {mark}"))]),
        ];
        let note = above_ceiling_note(&sections).unwrap();
        assert!(note.starts_with("**Above a ceiling:** `a`: 3 measurements above the ceiling"), "{note}");
        assert!(note.contains("(in *Rates*, *Kernel*)") && !note.contains("`b`"), "{note}");
        assert_eq!(above_ceiling_note(&sections[..1].iter().map(|s| section(&s.title, &[("b", "90%")])).collect::<Vec<_>>()), None);
    }

    /// Only the charts a report shows stay: a retired id's PNG and SVG go, a shown chart's SVG twin stays, and a
    /// file that is not a chart is left alone.
    #[test]
    fn figures_no_report_shows_are_removed() {
        let out = tempfile::tempdir().unwrap();
        let figures = out.path().join("p").join("figures");
        std::fs::create_dir_all(&figures).unwrap();
        for f in ["new__fig5.png", "new__fig5.svg", "old__fig5.png", "old__fig5.svg", "gen.svg", "notes.txt", "new__fig5b.png"] {
            std::fs::write(figures.join(f), "x").unwrap();
        }
        std::fs::write(out.path().join("p").join("REPORT.md"), "![Figure 5](figures/new__fig5.png)\n").unwrap();
        std::fs::write(out.path().join("p").join("COMPARE.md"), "![](figures/gen.svg)\n").unwrap();
        let removed = prune_figures(out.path(), "p").unwrap();
        assert_eq!(removed, vec!["new__fig5b.png", "old__fig5.png", "old__fig5.svg"]);
        let mut left: Vec<String> =
            std::fs::read_dir(&figures).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, vec!["gen.svg", "new__fig5.png", "new__fig5.svg", "notes.txt"]);
    }

    const GIB: u64 = 1 << 30;

    /// Every kernel file but the ceilings' (loaded by `hw` and every run) is
    /// compiled before a run's timed cases by the paper that launches it.
    #[test]
    fn every_kernel_file_is_loaded_by_a_paper_before_timing() {
        let mut listed: Vec<&str> = registry().iter().flat_map(|e| e.kernels().iter().map(|k| k.file)).collect();
        listed.push(gpu::ceilings::CEILINGS_CU.file);
        listed.sort_unstable();
        let mut on_disk: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".cu"))
            .collect();
        on_disk.sort_unstable();
        assert_eq!(listed, on_disk);
    }

    /// Every shipped profile says what it is for, and every paper's `quick` profile is a smoke test (and only it).
    #[test]
    fn every_profile_has_a_description_and_quick_is_the_smoke_profile() {
        for e in registry() {
            let (_, paper) = loaded(e.id(), str::to_owned);
            for p in paper.profiles() {
                let about = paper.about(&p);
                assert!(about.description.as_ref().is_some_and(|d| !d.trim().is_empty()), "{} {p}: no description", e.id());
                assert_eq!(about.smoke, p == "quick", "{} {p}", e.id());
            }
            assert_eq!(smoke_profiles(paper.as_ref()), vec!["quick".to_owned()], "{}", e.id());
        }
    }

    /// What `--dry-run` and `list` say a profile can decide on a machine without a GPU, against what the
    /// judge then says of that profile's records: the committed runs of the CPU-only machine (the quick
    /// profile of every paper, ECGA's `cpu` and `fig6`, gBOA's `cpu`), each judged alone as a run of it
    /// would leave them. A claim the dry run says the profile cannot decide is not run there, and one with
    /// too few runs for its n is not decided: the claims the judge does not mark "not run here" are among
    /// those the dry run said it decides or has too few runs for. The dry run's "decides" is an upper bound
    /// (so it says): where the records hold no sizes in the paper's range, rest on a stand-in data set or
    /// spread too widely, the judge still leaves a claim undecided.
    #[test]
    fn the_dry_run_foresees_what_the_judge_decides_on_a_machine_without_a_gpu() {
        use plan::Blocked;
        let refs = Path::new(env!("CARGO_MANIFEST_DIR")).join(REFERENCES_DIR);
        let none = plan::GpusHere { count: 0, absent: "libcuda not found".into() };
        let (mut checked, mut wrong, mut decides) = (Vec::new(), Vec::new(), Vec::new());
        for e in registry() {
            let (_, paper) = loaded(e.id(), str::to_owned);
            let rows: Vec<Record> =
                load_records(&refs, e.id()).unwrap().into_iter().filter(|r| r.str("hw_id").starts_with("cpu-only")).collect();
            let profiles: std::collections::BTreeSet<String> =
                rows.iter().filter(|r| r.str("record_kind") == "measurement").map(|r| r.str("profile").to_owned()).collect();
            for profile in profiles.iter().filter(|p| paper.profiles().contains(p)) {
                let alone = rows.iter().filter(|r| r.str("record_kind") != "measurement" || r.str("profile") == profile).cloned();
                let machines = crate::records::by_machine(alone.collect(), None);
                let judged = judge_machines(paper.as_ref(), &machines).unwrap();
                let cases = paper.cases(profile).unwrap();
                for f in paper.claim_specs().into_iter().map(|c| plan::foresee(c, &cases, paper.about(profile).smoke, &none)) {
                    for j in judged.iter().filter(|j| j.id == f.claim.id) {
                        let v = &j.outcome.verdict;
                        let agrees = match &f.blocked {
                            None => true,
                            Some(Blocked::TooFewRuns { .. }) => !v.is_decided(),
                            Some(_) => v.kind() == crate::claims::VerdictKind::NotRun,
                        };
                        if !agrees {
                            wrong.push(format!("{} {profile} {}: dry run {:?}, judged {}", e.id(), f.claim.id, f.blocked, v.label()));
                        }
                        if f.blocked.is_none() {
                            decides.push((format!("{} {profile} {}", e.id(), f.claim.id), v.kind() != crate::claims::VerdictKind::NotRun));
                        }
                    }
                }
                checked.push(format!("{} {profile}", e.id()));
            }
        }
        assert!(wrong.is_empty(), "the dry run disagrees with the judge:\n{}", wrong.join("\n"));
        for want in ["layout quick", "gboa quick", "gboa cpu", "ecga quick", "ecga cpu", "ecga fig6", "island quick", "biohel quick"] {
            assert!(checked.iter().any(|c| c == want), "no committed CPU-only records of {want}: {checked:?}");
        }
        // On these records the sets are equal: what the dry run says these profiles decide here, the judge
        // judges (reproduced, or inconclusive by the spread it found), and nothing else.
        let want = [
            "ecga cpu gm_population_not_smaller",
            "ecga cpu population_growth",
            "ecga fig6 greedy_quality_higher",
            "ecga fig6 greedy_converges_earlier",
            "gboa cpu pboa_faster_than_sboa",
            "gboa cpu complexity",
            "gboa cpu quality_kept",
            "biohel quick windows_cut_serial_time",
        ];
        let ids: Vec<&str> = decides.iter().map(|(d, _)| d.as_str()).collect();
        assert_eq!(ids, want);
        assert!(decides.iter().all(|(_, judged)| *judged), "decides, but not run here: {decides:?}");
    }

    /// A paper loaded from its shipped spec with `edit` applied, as from `experiments/`.
    fn loaded(id: &str, edit: impl Fn(&str) -> String) -> (SpecFile, Box<dyn Paper>) {
        let exp = find(id).unwrap();
        let file = SpecFile::in_repository(&format!("{id}.toml"), edit(exp.embedded_spec()));
        let paper = exp.load(&file).unwrap();
        (file, paper)
    }

    #[test]
    fn a_profile_too_big_for_the_machine_names_line_key_case_and_memory() {
        let (file, paper) = loaded("island", |t| {
            t.replacen("grid_islands = [1, 2, 4]\ngrid_sizes = [128, 256]", "grid_islands = [1024]\ngrid_sizes = [65536]", 1)
        });
        let line = file.text[..file.text.find("grid_sizes = [65536]").unwrap()].matches('\n').count() + 1;
        let cases = paper.cases("quick").unwrap();
        let e = check_footprints(&file, "quick", paper.as_ref(), &cases, 128 * GIB, None).unwrap_err().to_string();
        for needle in
            [format!("island.toml:{line}:"), "profiles.quick.grid_sizes".into(), "grid/i1024/n65536/r0".into(), "host memory".into()]
        {
            assert!(e.contains(&needle), "`{needle}` not in: {e}");
        }
        // Room on the host, not on the device.
        let e = check_footprints(&file, "quick", paper.as_ref(), &cases, 1024 * GIB, Some(80 * GIB)).unwrap_err().to_string();
        assert!(e.contains("GiB of device memory") && e.contains("80.0 GiB"), "{e}");
        assert!(check_footprints(&file, "quick", paper.as_ref(), &cases, 1024 * GIB, None).is_ok());
    }

    #[test]
    fn every_shipped_profile_fits_the_gpu_machine_and_has_an_estimate() {
        for exp in registry() {
            let (file, paper) = loaded(exp.id(), str::to_owned);
            let mut largest = Footprint::default();
            for profile in paper.profiles() {
                let cases = paper.cases(&profile).unwrap();
                check_footprints(&file, &profile, paper.as_ref(), &cases, 120 * GIB, Some(78 * GIB))
                    .unwrap_or_else(|e| panic!("{}: {e}", exp.id()));
                for c in &cases {
                    let f = paper.footprint(c);
                    largest.host_bytes = largest.host_bytes.max(f.host_bytes);
                    largest.device_bytes = largest.device_bytes.max(f.device_bytes);
                }
            }
            assert!(largest.host_bytes > 1 << 20 && largest.device_bytes > 1 << 20, "{}: {largest:?}", exp.id());
        }
    }

    use crate::spec::MAX_REPEATS;

    /// `exp`'s shipped spec with `field` set to `n` on the first line starting
    /// with `prefix` after the table `header`; and that line's number.
    fn with_repeats(exp: &dyn Experiment, header: &str, prefix: &str, field: &str, n: usize) -> (String, usize) {
        let mut lines: Vec<String> = exp.embedded_spec().lines().map(str::to_owned).collect();
        let h = lines.iter().position(|l| l == header).expect("the table is in the spec");
        let i = h + lines[h..].iter().position(|l| l.starts_with(prefix)).expect("the line is in the table");
        let at = lines[i].find(&format!("{field} = ")).expect("the field is on the line") + field.len() + 3;
        let end = at + lines[i][at..].find(|c: char| !c.is_ascii_digit()).unwrap_or(lines[i].len() - at);
        lines[i].replace_range(at..end, &n.to_string());
        (lines.join("\n"), i + 1)
    }

    #[test]
    fn repetition_counts_past_the_limit_are_refused_with_file_line_and_key() {
        // Each listed every case before: 4294967295 runs or seeds ran out of memory.
        let counts = [
            ("gboa", "[profiles.quick]", "runs", "runs", "profiles.quick.runs"),
            ("island", "[profiles.quick]", "runs", "runs", "profiles.quick.runs"),
            ("island", "[profiles.gpu]", "full_length", "runs", "profiles.gpu.full_length.runs"),
            ("ecga", "[profiles.quick]", "table5_bisections", "table5_bisections", "profiles.quick.table5_bisections"),
            ("ecga", "[profiles.quick]", "fig5_runs", "fig5_runs", "profiles.quick.fig5_runs"),
            ("ecga", "[profiles.quick]", "fig6_runs", "fig6_runs", "profiles.quick.fig6_runs"),
            ("ecga", "[profiles.quick]", "fig7_runs", "fig7_runs", "profiles.quick.fig7_runs"),
            ("biohel", "[profiles.quick]", "seeds", "seeds", "profiles.quick.seeds"),
            ("biohel", "[profiles.quick.learn]", "seeds", "seeds", "profiles.quick.learn.seeds"),
            ("biohel", "[profiles.quick.scale]", "seeds", "seeds", "profiles.quick.scale.seeds"),
        ];
        for (id, header, prefix, field, key) in counts {
            let exp = find(id).unwrap();
            let load = |n| {
                let (text, line) = with_repeats(exp, header, prefix, field, n);
                (exp.load(&SpecFile::in_repository("x.toml", text)), line)
            };
            let (loaded, line) = load(MAX_REPEATS + 1);
            let e = loaded.err().unwrap_or_else(|| panic!("{key} = {} accepted", MAX_REPEATS + 1)).to_string();
            assert!(e.starts_with(&format!("x.toml:{line}: `{key}`: {} repetitions", MAX_REPEATS + 1)), "{e}");
            if let Err(e) = load(MAX_REPEATS).0 {
                panic!("{key} = {MAX_REPEATS} refused: {e}");
            }
        }
    }

    #[test]
    fn sizes_and_counts_past_their_bounds_are_refused_with_line_key_and_cost() {
        // Each passed validation before: the BioHEL ones aborted on a failed allocation, the rest ran until killed.
        let huge = "1000000000000";
        let cases = [
            ("biohel", "rules_per_iteration = 500", "settings.rules_per_iteration", "TiB of memory"),
            ("biohel", "population = 150", "profiles.quick.learn.population", "iB of rules"),
            ("biohel", "population = 150\niterations = 30", "profiles.quick.learn.iterations", "years at 1e9 a second"),
            ("biohel", "windows = [1, 2, 4, 10]\niterations = 10", "profiles.quick.iterations", "iB of rules"),
            ("biohel", "nominal_fraction = 0.33\niterations = 3", "profiles.quick.scale.iterations", "iB of rules"),
            ("biohel", "folds = 10", "settings.folds", "instances"),
            ("gboa", "generations = 40", "profiles.quick.generations", "years at 1e9 a second"),
            ("ecga", "bisection_n0 = 16", "settings.bisection_n0", "PiB"),
            // Island's generations are u32: 10¹² fails to parse (naming its line), 4·10⁹ parses.
            ("island", "generations = 200", "profiles.quick.generations", "at 1e9 a second"),
            ("island", "table_generations = 20", "profiles.quick.table_generations", "at 1e9 a second"),
            ("layout", "min_n = 10", "settings.min_n", "repetitions: at most"),
        ];
        let mut wrong = Vec::new();
        for (id, from, key, cost) in cases {
            let huge = if id == "island" { "4000000000" } else { huge };
            let exp = find(id).unwrap();
            let shipped = exp.embedded_spec();
            assert!(shipped.contains(from), "{id}: no `{from}`");
            // The last number of `from` becomes `huge`.
            let at = from.rfind(" = ").unwrap() + 3;
            let text = shipped.replacen(from, &format!("{}{huge}", &from[..at]), 1);
            let line = text[..text.find(&format!("{}{huge}", &from[..at])).unwrap()].matches('\n').count() + 1 + from.matches('\n').count();
            match exp.load(&SpecFile::in_repository("x.toml", text)) {
                Ok(_) => wrong.push(format!("{id}: {key} = {huge} accepted")),
                Err(e)
                    if !(e.to_string().starts_with(&format!("x.toml:{line}: `{key}`: {huge}"))
                        && e.to_string().contains("at most")
                        && e.to_string().contains(cost)) =>
                {
                    wrong.push(format!("{id}: {e} (wanted line {line} and `{cost}`)"))
                }
                Err(_) => {}
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        // Bounds read without spans name the key's line.
        for (id, from, to, key) in [
            ("ecga", "whole_runs = 3", "whole_runs = 1000000", "profiles.whole.whole_runs"),
            ("layout", "max_elements = 16000000", "max_elements = -1", "profiles.paper.max_elements"),
        ] {
            let exp = find(id).unwrap();
            let text = exp.embedded_spec().replacen(from, to, 1);
            let line = text[..text.find(to).unwrap()].matches('\n').count() + 1;
            let e = exp.load(&SpecFile::in_repository("x.toml", text)).err().unwrap_or_else(|| panic!("{to} accepted")).to_string();
            assert!(e.starts_with(&format!("x.toml:{line}: `{key}`: ")), "{e}");
        }
    }

    #[test]
    fn a_nan_datasheet_value_and_another_paper_s_id_are_refused() {
        let exp = find("biohel").unwrap();
        for (from, to) in
            [("gpu_bandwidth = { value = 102.0", "gpu_bandwidth = { value = nan"), ("gpu_bandwidth_gbs = 102.0", "gpu_bandwidth_gbs = inf")]
        {
            let text = exp.embedded_spec().replacen(from, to, 1);
            let line = text[..text.find(to).unwrap()].matches('\n').count() + 1;
            let e = exp.load(&SpecFile::in_repository("x.toml", text)).err().unwrap_or_else(|| panic!("`{to}` accepted")).to_string();
            assert!(e.contains(&format!("line {line}")) && e.contains(": must be a positive finite number"), "{e}");
        }
        let exp = find("gboa").unwrap();
        let text = exp.embedded_spec().replacen("id = \"gboa\"", "id = \"ecga\"", 1);
        let line = text[..text.find("id = \"ecga\"").unwrap()].matches('\n').count() + 1;
        let e = exp.load(&SpecFile::in_repository("x.toml", text)).err().expect("another paper's id accepted").to_string();
        assert!(e.starts_with(&format!("x.toml:{line}: `paper.id`: `ecga`: this is gboa's spec")), "{e}");
    }

    #[test]
    fn a_profile_without_cases_names_its_line() {
        let tmp = tempfile::tempdir().unwrap();
        let spec = tmp.path().join("gboa.toml");
        let empty = "[profiles.empty]\ntable1_ells = []\ngenerations = 1\nruns = 1\ncomplexity_ells = []\ncomplexity_pops = []\ncomplexity_ell = 30\n\n";
        let text = find("gboa").unwrap().embedded_spec().replacen("[profiles.quick]", &format!("{empty}[profiles.quick]"), 1);
        let line = text[..text.find("[profiles.empty]").unwrap()].matches('\n').count() + 1;
        std::fs::write(&spec, &text).unwrap();
        let opts = RunOptions {
            profile: "empty".into(),
            backend: BackendChoice::Cpu,
            device: 0,
            out: tmp.path().join("out"),
            resume: false,
            spec: SpecChoice { file: Some(spec.clone()), root: Path::new(env!("CARGO_MANIFEST_DIR")).into(), allow_outside: false },
            shard: None,
            max_cases: None,
        };
        let e = preflight(find("gboa").unwrap(), &opts).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:{line}: `profiles.empty`: profile `empty` of gboa has no cases", spec.display())), "{e}");
    }

    #[test]
    fn biohel_s_footprint_counts_the_rules_it_holds() {
        // 10,000 iterations of 100,000 rules: within each bound, but 10⁹ rules held at once.
        let (file, paper) = loaded("biohel", |t| {
            t.replacen("rules_per_iteration = 500", "rules_per_iteration = 100000", 1).replacen(
                "windows = [1, 2, 4, 10]\niterations = 10",
                "windows = [1, 2, 4, 10]\niterations = 10000",
                1,
            )
        });
        let cases = paper.cases("quick").unwrap();
        let e = check_footprints(&file, "quick", paper.as_ref(), &cases, 16 * GIB, None).unwrap_err().to_string();
        assert!(e.contains("`profiles.quick.sets`") && e.contains("eval/sat/w1/s0") && e.contains("host memory"), "{e}");
        // A learning GA holds its population and its offspring, each rule 40 bytes or more.
        let learn_bytes = |population: &str| {
            let (_, paper) = loaded("biohel", |t| t.replacen("population = 150", population, 1));
            let case = paper.cases("quick").unwrap().into_iter().find(|c| c.id.starts_with("learn/")).unwrap();
            paper.footprint(&case).host_bytes
        };
        assert!(learn_bytes("population = 100000") >= learn_bytes("population = 150") + 2 * (100_000 - 150) * 40);
    }

    #[test]
    fn a_claims_band_of_three_values_is_an_error_not_a_panic() {
        // biohel read its peak claims' bands a second time and panicked where the two reads disagreed.
        let exp = find("biohel").unwrap();
        let text = exp.embedded_spec().replacen("per_stratum = [25000.0, 50000.0]", "per_stratum = [25000.0, 50000.0, 0]", 1);
        let line = text.lines().position(|l| l.contains("50000.0, 0]")).unwrap() + 1;
        let e = exp.load(&SpecFile::from_text(Path::new("x.toml"), text)).err().expect("refused").to_string();
        assert!(e.starts_with(&format!("x.toml:{line}: `claims.fig4_peak.params`")) && e.contains("3 values"), "{e}");
    }

    #[test]
    fn each_resource_warms_up_once_on_its_lightest_case() {
        let case = |id: &str, weight: u64| Case { id: id.into(), params: Record::new(), weight };
        let cases = [case("gpu-big", 9), case("cpu-a", 5), case("gpu-small", 2), case("cpu-b", 1), case("gpu-mid", 4)];
        let todo: Vec<&Case> = cases.iter().collect();
        let resource = |c: &Case| if c.id.starts_with("gpu") { plan::Resource::Gpu } else { plan::Resource::CpuCores };
        let ids: Vec<&str> = warm_ups(&todo, resource).iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, vec!["cpu-b", "gpu-small"]);
        assert!(warm_ups(&[], resource).is_empty());
    }

    #[test]
    fn run_ids_are_unique_and_grow() {
        let (a, b) = (new_run_id(), new_run_id());
        assert!(b > a, "{a} then {b}");
        // Nanoseconds since the epoch: after 2020, and still an i64 in the records.
        assert!(a > 1_577_836_800_000_000_000 && i64::try_from(b).is_ok(), "{a}");
    }
}
