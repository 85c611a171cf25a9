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

use crate::claims::{ClaimResult, counts, counts_line};
use crate::error::{GpuError, SpecError};
use crate::gpu::{self, Gpu};
use crate::hardware::{self, Fingerprint};
use crate::records::{self, Record, RecordStore};
use crate::report::{self, MachineRecords};
use crate::spec::{PaperMeta, SpecFile};
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
    /// configuration; returns the number that failed.
    fn selfcheck(&self, gpu: &Gpu, small: bool, seed: u64) -> Result<usize>;
}

/// A loaded paper: its cases, how to run one, and what its report says.
pub trait Paper {
    fn meta(&self) -> &PaperMeta;
    fn profiles(&self) -> Vec<String>;
    /// The cases of a profile, in run order.
    fn cases(&self, profile: &str) -> Result<Vec<Case>, SpecError>;
    /// Runs one case; every returned row is one repetition (or one "not run here").
    fn run_case(&self, case: &Case, env: &RunEnv) -> Result<Vec<Record>>;
    /// The report's content from every machine's records, writing figures under
    /// `dir/figures/`; the runner lays it out ([`render`]).
    fn report(&self, machines: &[MachineRecords], dir: &Path) -> Result<PaperReport>;
    /// Side-by-side of every machine and the paper's hardware.
    fn compare(&self, machines: &[MachineRecords]) -> String;
    /// The record column that names what a "not run here" row did not run.
    fn not_run_column(&self) -> &'static str {
        "method"
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

/// This machine's ceilings, one row each (`record_kind` = `kind`): CPU read
/// bandwidth on one and all threads and one core's clock, and with a GPU its
/// device copy, pinned host links and int32 rate. Buffers of 128 MiB when
/// `quick`, else 512 MiB.
pub fn measure_ceilings(gpu: Option<&Gpu>, quick: bool, kind: &str) -> Result<Vec<Record>> {
    let mib = if quick { 128 } else { 512 };
    let row = |name: &str, unit: &str, v: f64| Record::new().with("record_kind", kind).with("ceiling", name).with(unit, v);
    let cpu = hardware::measure_cpu(mib << 20, 5);
    let mut rows = vec![row("cpu_read_1t", "gbs", cpu.read_1t_gbs), row("cpu_read_all", "gbs", cpu.read_all_gbs)];
    rows.extend(hardware::measure_cpu_clock(5).map(|ghz| row("cpu_clock", "ghz", ghz)));
    if let Some(g) = gpu {
        let c = gpu::ceilings::measure(g, 512 << 20, 10)?;
        rows.push(row("gpu_d2d", "gbs", c.d2d_gbs));
        rows.push(row("gpu_h2d_pinned", "gbs", c.h2d_pinned_gbs));
        rows.push(row("gpu_d2h_pinned", "gbs", c.d2h_pinned_gbs));
        rows.push(row("gpu_int32", "gops", c.int32_gops));
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

/// Runs one paper: cases not yet stored, then the report. Returns what was written.
pub fn reproduce(exp: &dyn Experiment, opts: &RunOptions) -> Result<Rendered> {
    let paper = load_paper(exp, opts.spec.as_deref())?;
    let cases = paper.cases(&opts.profile)?;
    if cases.is_empty() {
        bail!("profile `{}` of {} has no cases: its sizes, runs or sweeps are empty", opts.profile, exp.id());
    }
    // Every stored record file must read before any work: the report at the end reads them all.
    load_records(&opts.out, exp.id())?;
    let env = RunEnv::open(opts.backend, opts.device, &opts.profile)?;
    let dir = opts.out.join(exp.id());
    let spec_hash = spec_hash(exp, opts.spec.as_deref())?;
    let name = format!("{}__{}", env.fingerprint.hw_id, opts.profile);
    let mut store = RecordStore::open(&dir.join("records"), &name, &spec_hash, opts.resume)?;
    let run_id = new_run_id();
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
    store.append(None, with_common(measure_ceilings(env.gpu.as_ref(), opts.profile == "quick", "ceiling")?, None))?;
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

/// Where `evorepro hw --record` keeps each machine's ceilings, under the reports' root.
pub const HARDWARE_DIR: &str = "hardware";

/// A paper's records grouped by machine (this one first), each with the
/// ceilings `evorepro hw --record` measured on the same machine.
fn machines(out: &Path, id: &str, this_hw: Option<&str>) -> Result<Vec<MachineRecords>> {
    let rows = load_records(out, id)?;
    if rows.is_empty() {
        bail!("no records under {} — run `evorepro reproduce {id}` first", out.join(id).join("records").display());
    }
    let mut machines = report::by_machine(rows, this_hw);
    for r in load_records(out, HARDWARE_DIR)? {
        if let Some(m) = machines.iter_mut().find(|m| m.hw_id == r.str("hw_id")) {
            m.rows.push(r);
        }
    }
    Ok(machines)
}

/// Stores `ceilings` (measured by [`measure_ceilings`] on the machine `fp`) as
/// `out/hardware/records/<hw_id>.parquet` (and CSV), replacing earlier ones.
pub fn record_hardware(fp: &Fingerprint, ceilings: Vec<Record>, out: &Path) -> Result<PathBuf> {
    let run_id = new_run_id();
    let mut common = Record::new().with("run_id", run_id).with("git_commit", GIT_COMMIT).with("profile", "hw");
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

/// Writes the checksum file of every record file that lacks one (records
/// written before checksums were kept) and reads cleanly, and the CSV copy of
/// every record file that lacks one or whose copy is older than the Parquet
/// (records brought back from another machine as Parquet only, a run killed
/// before its CSV was written).
fn write_missing_copies(out: &Path, id: &str) -> Result<()> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    for f in records::record_files(&out.join(id).join("records")) {
        records::add_missing_checksum(&f)?;
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
    /// The claims judged, on every machine with records.
    pub claims: Vec<ClaimResult>,
}

impl Rendered {
    /// "layout: 8 reproduced, 2 not reproduced — reports/layout/REPORT.md, …".
    pub fn summary(&self, id: &str) -> String {
        format!(
            "{id}: {} — {}, {}, {}",
            counts_line(&counts(&self.claims)),
            self.report.display(),
            self.verdicts.display(),
            self.index.display()
        )
    }
}

/// Re-renders `out/<id>/REPORT.md` (and figures) from the stored records, with
/// `out/<id>/verdicts.json`, `out/INDEX.md` and `out/verdicts.json`.
pub fn render(exp: &dyn Experiment, out: &Path, this_hw: Option<&str>, spec: Option<&Path>) -> Result<Rendered> {
    let paper = load_paper(exp, spec)?;
    write_missing_copies(out, exp.id())?;
    write_missing_copies(out, HARDWARE_DIR)?;
    let machines = machines(out, exp.id(), this_hw)?;
    let dir = out.join(exp.id());
    std::fs::create_dir_all(dir.join("figures"))?;
    let body = paper.report(&machines, &dir)?;
    let mut md = report::header(paper.meta(), exp.id());
    md += "## Verdicts\n\n";
    md += &report::verdict_summary(&body.claims, &machines);
    md += "\nEach claim, its evidence and its measured value over the paper's are in [Claims](#claims).\n\n";
    md += "## Hardware\n\n";
    md += &report::hardware_table(paper.meta(), &machines);
    md += "\n### Measured ceilings\n\nMeasured at the start of each run, in the same process as the experiment (median of repeats).\n\n";
    md += &report::ceilings_table(&machines);
    md +=
        "\n### Runs\n\nEach profile's records: the commits they were measured at and the cases stored against those the profile plans.\n\n";
    md += &report::runs_table(&machines, |profile| paper.cases(profile).ok().map(|c| c.len()));
    md += "\n## How this was measured\n\n";
    md += body.method.trim_end();
    md += "\n\n";
    for s in &body.sections {
        md += &format!("## {}\n\n", s.title);
        if !s.intro.trim().is_empty() {
            md += s.intro.trim_end();
            md += "\n\n";
        }
        for (hw, part) in &s.machines {
            let label = machines.iter().find(|m| &m.hw_id == hw).map_or_else(|| hw.clone(), |m| m.label());
            md += &format!("### `{hw}` ({label})\n\n{}\n\n", part.trim_end());
        }
    }
    md += "## Claims\n\n";
    md += &report::claims_table(&body.claims);
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
    let verdicts = report::index::PaperVerdicts::new(exp.id(), &paper.meta().title, &machines, &body.claims).write(out)?;
    let index = write_index(out)?;
    Ok(Rendered { report: path, verdicts, index, claims: body.claims })
}

/// Rewrites `out/INDEX.md` and `out/verdicts.json` from every paper's verdicts.
pub fn write_index(out: &Path) -> Result<PathBuf> {
    let order: Vec<&str> = registry().iter().map(|e| e.id()).collect();
    report::index::write_index(out, &order)
}

/// Writes `out/<id>/COMPARE.md` and returns its text.
pub fn compare(exp: &dyn Experiment, out: &Path, spec: Option<&Path>) -> Result<String> {
    let paper = load_paper(exp, spec)?;
    let this = Fingerprint::this_machine(None).hw_id;
    let machines = machines(out, exp.id(), Some(&this))?;
    let mut md = format!("# {} — hardware generations\n\n", paper.meta().title);
    md += &report::hardware_table(paper.meta(), &machines);
    md += "\n";
    md += &paper.compare(&machines);
    records::write_atomic(&out.join(exp.id()).join("COMPARE.md"), md.as_bytes())?;
    write_index(out)?;
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;
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
                (exp.load(&SpecFile::from_text(Path::new("x.toml"), text)), line)
            };
            let (loaded, line) = load(MAX_REPEATS + 1);
            let e = loaded.err().unwrap_or_else(|| panic!("{key} = {} accepted", MAX_REPEATS + 1)).to_string();
            assert!(e.starts_with(&format!("x.toml:{line}: `{key}`: {} repetitions", MAX_REPEATS + 1)), "{e}");
            assert!(load(MAX_REPEATS).0.is_ok(), "{key} = {MAX_REPEATS} refused");
        }
    }

    #[test]
    fn a_claims_band_of_three_values_is_an_error_not_a_panic() {
        // biohel read its peak claims' bands a second time and panicked where the two reads disagreed.
        let exp = find("biohel").unwrap();
        let text = exp.embedded_spec().replacen("per_stratum = [25000.0, 100000.0]", "per_stratum = [25000.0, 100000.0, 0]", 1);
        let line = text.lines().position(|l| l.contains("100000.0, 0]")).unwrap() + 1;
        let e = exp.load(&SpecFile::from_text(Path::new("x.toml"), text)).err().expect("refused").to_string();
        assert!(e.starts_with(&format!("x.toml:{line}: `claims.fig4_peak.params`")) && e.contains("3 values"), "{e}");
    }

    #[test]
    fn run_ids_are_unique_and_grow() {
        let (a, b) = (new_run_id(), new_run_id());
        assert!(b > a, "{a} then {b}");
        // Nanoseconds since the epoch: after 2020, and still an i64 in the records.
        assert!(a > 1_577_836_800_000_000_000 && i64::try_from(b).is_ok(), "{a}");
    }
}
