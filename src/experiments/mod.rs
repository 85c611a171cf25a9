//! The experiment registry and the runner shared by every paper.
//!
//! A paper is one spec (`experiments/<id>.toml`) plus one module here that
//! implements [`Experiment`] (parse the spec) and [`Paper`] (list cases, run a
//! case into records, render the report from records). Adding a paper is two
//! files and one line in [`registry`]. Data flows one way:
//! spec → cases → run → raw records → report.

pub mod biohel;
pub mod ecga;
pub mod gboa;
pub mod island;
pub mod layout;

use crate::error::{GpuError, SpecError};
use crate::gpu::{self, Gpu};
use crate::hardware::{self, Fingerprint};
use crate::records::{self, Record, RecordStore};
use crate::report::{self, MachineRecords};
use crate::spec::{PaperMeta, SpecFile};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};

/// A paper's entry in the registry: how to parse its spec.
pub trait Experiment: Sync {
    /// Short id used on the command line (`layout`, `ecga`, …).
    fn id(&self) -> &'static str;
    fn title(&self) -> &'static str;
    /// The spec as shipped, used when `experiments/<id>.toml` is not on disk.
    fn embedded_spec(&self) -> &'static str;
    /// Parses and validates the spec.
    fn load(&self, spec: &SpecFile) -> Result<Box<dyn Paper>, SpecError>;
}

/// A loaded paper: its cases, how to run one, and how to report.
pub trait Paper {
    fn meta(&self) -> &PaperMeta;
    fn profiles(&self) -> Vec<String>;
    /// The cases of a profile, in run order.
    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError>;
    /// Runs one case; every returned row is one repetition (or one "not run here").
    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>>;
    /// The report body (everything after the shared header and hardware tables),
    /// writing figures under `dir/figures/`.
    fn render(&self, machines: &[MachineRecords], dir: &Path) -> Result<String>;
    /// Side-by-side of every machine and the paper's hardware.
    fn compare(&self, machines: &[MachineRecords]) -> String;
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

/// Which compute the run may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// The GPU where one is present, else the CPU parts only.
    Auto,
    Cpu,
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
    pub spec: Option<PathBuf>,
}

/// Reads `experiments/<id>.toml` (or `spec`), falling back to the embedded copy.
pub fn load_paper(exp: &dyn Experiment, spec: Option<&Path>) -> Result<Box<dyn Paper>> {
    let default = PathBuf::from(format!("experiments/{}.toml", exp.id()));
    let file = match spec {
        Some(p) => SpecFile::read(p)?,
        None if default.exists() => SpecFile::read(&default)?,
        None => SpecFile::from_text(&PathBuf::from(format!("<built-in>/experiments/{}.toml", exp.id())), exp.embedded_spec().into()),
    };
    Ok(exp.load(&file)?)
}

pub const GIT_COMMIT: &str = env!("EVOREPRO_GIT_COMMIT");

fn ceiling_rows(env: &RunEnv, quick: bool) -> Result<Vec<Record>> {
    let mib = if quick { 128 } else { 512 };
    let mut rows = Vec::new();
    let mut push = |name: &str, gbs: f64| rows.push(Record::new().with("record_kind", "ceiling").with("ceiling", name).with("gbs", gbs));
    let cpu = hardware::measure_cpu(mib << 20, 5);
    push("cpu_read_1t", cpu.read_1t_gbs);
    push("cpu_read_all", cpu.read_all_gbs);
    if let Some(g) = &env.gpu {
        let c = gpu::ceilings::measure(g, 512 << 20, 10)?;
        push("gpu_d2d", c.d2d_gbs);
        push("gpu_h2d_pinned", c.h2d_pinned_gbs);
        push("gpu_d2h_pinned", c.d2h_pinned_gbs);
        rows.push(Record::new().with("record_kind", "ceiling").with("ceiling", "gpu_int32").with("gops", c.int32_gops));
    }
    Ok(rows)
}

/// Runs one paper: cases not yet stored, then the report. Returns the report path.
pub fn reproduce(exp: &dyn Experiment, opts: &RunOptions) -> Result<PathBuf> {
    let paper = load_paper(exp, opts.spec.as_deref())?;
    let cases = paper.cases(&opts.profile)?;
    let env = RunEnv::open(opts.backend, opts.device, &opts.profile)?;
    let dir = opts.out.join(exp.id());
    let spec_hash = spec_hash(exp, opts.spec.as_deref())?;
    let name = format!("{}__{}", env.fingerprint.hw_id, opts.profile);
    let mut store = RecordStore::open(&dir.join("records"), &name, &spec_hash, opts.resume)?;
    let run_id = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut common = Record::new()
        .with("paper", exp.id())
        .with("profile", opts.profile.as_str())
        .with("run_id", run_id)
        .with("git_commit", GIT_COMMIT)
        .with("spec_hash", spec_hash.as_str())
        .with("backend", if env.gpu.is_some() { "cuda" } else { "cpu" });
    common.extend(&env.fingerprint.record());
    let with_common = |rows: Vec<Record>, case: Option<&Case>| -> Vec<Record> {
        rows.into_iter()
            .map(|r| {
                let mut row = common.clone();
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
    };
    if let Some(g) = &env.gpu {
        eprintln!(
            "{}: GPU {} (CC {}.{}), profile {}",
            exp.id(),
            g.info.name,
            g.info.compute_capability.0,
            g.info.compute_capability.1,
            opts.profile
        );
    } else {
        eprintln!("{}: CPU only ({}): GPU parts are recorded as not run here; profile {}", exp.id(), env.gpu_absent, opts.profile);
    }
    store.append(None, with_common(ceiling_rows(&env, opts.profile == "quick")?, None))?;
    let todo: Vec<&Case> = cases.iter().filter(|c| !store.is_done(&c.id)).collect();
    if todo.len() < cases.len() {
        eprintln!("resuming: {} of {} cases already stored", cases.len() - todo.len(), cases.len());
    }
    let bar = ProgressBar::new(todo.iter().map(|c| c.weight).sum());
    bar.set_style(ProgressStyle::with_template("{msg:28} [{elapsed_precise}] {wide_bar} {percent}% eta {eta}").expect("valid template"));
    for case in todo {
        bar.set_message(case.id.clone());
        let rows = paper.run_case(case, &env).with_context(|| format!("case {}", case.id))?;
        store.append(Some(&case.id), with_common(rows, Some(case)))?;
        bar.inc(case.weight);
    }
    bar.finish_and_clear();
    store.finish()?;
    render(exp, &opts.out, Some(&env.fingerprint.hw_id), opts.spec.as_deref())
}

fn spec_hash(exp: &dyn Experiment, spec: Option<&Path>) -> Result<String> {
    let default = PathBuf::from(format!("experiments/{}.toml", exp.id()));
    Ok(match spec {
        Some(p) => SpecFile::read(p)?.hash,
        None if default.exists() => SpecFile::read(&default)?.hash,
        None => SpecFile::from_text(Path::new(""), exp.embedded_spec().into()).hash,
    })
}

/// Every record of a paper under `out/<id>/records/`.
pub fn load_records(out: &Path, id: &str) -> Result<Vec<Record>> {
    let mut rows = Vec::new();
    for f in records::record_files(&out.join(id).join("records")) {
        rows.extend(records::read_parquet(&f)?);
    }
    Ok(rows)
}

/// Writes the CSV copy of every record file that lacks one (records brought
/// back from another machine as Parquet only).
fn write_missing_csv(out: &Path, id: &str) -> Result<()> {
    for f in records::record_files(&out.join(id).join("records")) {
        if !f.with_extension("csv").exists() {
            records::write_csv(&f.with_extension(""), &records::read_parquet(&f)?)?;
        }
    }
    Ok(())
}

/// Re-renders `out/<id>/REPORT.md` (and figures) from the stored records.
pub fn render(exp: &dyn Experiment, out: &Path, this_hw: Option<&str>, spec: Option<&Path>) -> Result<PathBuf> {
    let paper = load_paper(exp, spec)?;
    write_missing_csv(out, exp.id())?;
    let rows = load_records(out, exp.id())?;
    if rows.is_empty() {
        bail!("no records under {} — run `evorepro reproduce {}` first", out.join(exp.id()).join("records").display(), exp.id());
    }
    let machines = report::by_machine(rows, this_hw);
    let dir = out.join(exp.id());
    std::fs::create_dir_all(dir.join("figures"))?;
    let mut md = report::header(paper.meta(), exp.id());
    md += "## Hardware\n\n";
    md += &report::hardware_table(paper.meta(), &machines);
    md += "\n### Measured ceilings\n\nMeasured at the start of each run, in the same process as the experiment (median of repeats).\n\n";
    md += &report::ceilings_table(&machines);
    md += "\n";
    md += &paper.render(&machines, &dir)?;
    let path = dir.join("REPORT.md");
    records::write_atomic(&path, md.as_bytes())?;
    Ok(path)
}

/// Writes `out/<id>/COMPARE.md` and returns its text.
pub fn compare(exp: &dyn Experiment, out: &Path, spec: Option<&Path>) -> Result<String> {
    let paper = load_paper(exp, spec)?;
    let rows = load_records(out, exp.id())?;
    if rows.is_empty() {
        bail!("no records under {} — run `evorepro reproduce {}` first", out.join(exp.id()).join("records").display(), exp.id());
    }
    let this = Fingerprint::this_machine(None).hw_id;
    let machines = report::by_machine(rows, Some(&this));
    let mut md = format!("# {} — hardware generations\n\n", paper.meta().title);
    md += &report::hardware_table(paper.meta(), &machines);
    md += "\n";
    md += &paper.compare(&machines);
    records::write_atomic(&out.join(exp.id()).join("COMPARE.md"), md.as_bytes())?;
    Ok(md)
}
