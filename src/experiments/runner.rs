//! Running a paper: checking its spec and sizes, the dry run, the cases of a
//! profile with progress, warm-up and resume, and storing their records and
//! this machine's fingerprint and ceilings.

use super::render::{Rendered, render};
use super::{
    Case, Experiment, GIT_COMMIT, Paper, RunEnv, RunOptions, check_footprints, load_records, plan, read_spec, records_dir,
    reference_folder, shard,
};
use crate::error::SpecError;
use crate::gpu::{self, Gpu};
use crate::hardware;
use crate::records::col;
use crate::records::{self, Record, RecordStore};
use crate::spec::SpecFile;
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// This machine's ceilings, one row each (`record_kind` = `kind`): CPU read
/// bandwidth on one and all threads and one core's clock, and with a GPU its
/// device copy, pinned host links and int32 rate. Buffers of 128 MiB when
/// `quick`, else 512 MiB.
pub fn measure_ceilings(gpu: Option<&Gpu>, quick: bool, kind: &str) -> Result<Vec<Record>> {
    let mib = if quick { 128 } else { 512 };
    let row = |name: &str, column: &str, v: f64| Record::new().with(col::RECORD_KIND, kind).with(col::CEILING, name).with(column, v);
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
pub(super) struct Checked {
    file: SpecFile,
    pub(super) paper: Box<dyn Paper>,
    pub(super) cases: Vec<Case>,
    pub(super) env: RunEnv,
}

pub(super) fn check_run(exp: &Experiment, opts: &RunOptions) -> Result<Checked> {
    let (file, paper, cases) = check_spec(exp, opts)?;
    let env = RunEnv::open(opts.backend, opts.device, &opts.profile)?;
    let host_bytes = (env.fingerprint.mem_gib * f64::from(1u32 << 30)) as u64;
    check_footprints(&file, &opts.profile, paper.as_ref(), &cases, host_bytes, env.gpu.as_ref().map(|g| g.info.mem_bytes as u64))?;
    Ok(Checked { file, paper, cases, env })
}

/// What `reproduce all` checks of every paper before the first case of any:
/// the spec loads, the profile has cases, the stored records read and every
/// data file the cases use loads ([`check_run`] without the machine).
pub fn preflight(exp: &Experiment, opts: &RunOptions) -> Result<()> {
    check_spec(exp, opts).map(|_| ())
}

/// The checks of [`check_run`] that need no machine: the spec, the cases, the records and the data.
fn check_spec(exp: &Experiment, opts: &RunOptions) -> Result<(SpecFile, Box<dyn Paper>, Vec<Case>)> {
    // A profile's name becomes a file name under `--out`: checked before anything is read or written.
    crate::spec::check_name("profile", &opts.profile)?;
    let file = read_spec(exp, &opts.spec)?;
    let paper = exp.load(&file)?;
    let cases = paper.cases(&opts.profile)?;
    if cases.is_empty() {
        let table = format!("profiles.{}", opts.profile);
        let line = file.line_of_table(&table);
        let message = format!("profile `{}` of {} has no cases: its sizes, runs or sweeps are empty", opts.profile, exp.id);
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
                bail!("--shard {s}: profile `{}` of {} has {all} cases, none for this shard; {most}", opts.profile, exp.id);
            }
            mine
        }
        None => cases,
    };
    load_records(&opts.out, exp.id)?;
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
pub fn dry_run(exp: &Experiment, opts: &RunOptions, dry: &DryRunOptions) -> Result<String> {
    let Checked { paper, cases, env, .. } = check_run(exp, opts)?;
    let hw = env.fingerprint.hw_id.as_str();
    let mut rows = load_records(&opts.out, exp.id)?;
    let stored: std::collections::BTreeSet<String> = rows
        .iter()
        .filter(|r| r.str(col::HW_ID) == hw && r.str(col::RECORD_KIND) == "measurement" && r.str(col::PROFILE) == opts.profile)
        .map(|r| r.str(col::CASE_ID).to_owned())
        .collect();
    // Times from the committed reference runs too, for a machine new to the paper.
    if let Some(refs) = reference_folder(&opts.out, &opts.spec.root) {
        rows.extend(load_records(&refs, exp.id)?);
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
    let group = |c: &Case| paper.group(c);
    let times = plan::CaseTimes::new(&machines, &basis, &cases, &known, &group);
    let mut md = format!("# {} — profile `{}` on `{hw}`, {on}; nothing is run or written\n\n", exp.id, opts.profile);
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

/// A run under way: its writer and the cases it plans.
pub struct Run<'a> {
    exp: &'a Experiment,
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
    pub fn start(exp: &'a Experiment, opts: &'a RunOptions) -> Result<Run<'a>> {
        // Nothing is written before every check passes: the report at the end reads every record file.
        let Checked { file, paper, cases, env } = check_run(exp, opts)?;
        BUSY_SAID.store(false, std::sync::atomic::Ordering::Relaxed);
        let records = records_dir(&opts.out, exp.id);
        let folder = opts.shard.map_or_else(|| records.clone(), |s| s.folder(&records, &opts.profile));
        let spec_hash = file.hash;
        let name = format!("{}__{}", env.fingerprint.hw_id, opts.profile);
        // Records written before the hash was of the spec's content carry the text's.
        let store = RecordStore::open(&folder, &name, &[&spec_hash, &file.text_hash], opts.resume)?;
        let mut common = Record::new()
            .with(col::PAPER, exp.id)
            .with(col::PROFILE, opts.profile.as_str())
            .with(col::RUN_ID, new_run_id())
            .with(col::GIT_COMMIT, GIT_COMMIT)
            .with(col::SPEC_HASH, spec_hash.as_str())
            .with(col::BACKEND, if env.gpu.is_some() { "cuda" } else { "cpu" });
        common.extend(&env.fingerprint.record());
        if let Some(g) = &env.gpu {
            crate::say!(
                "{}: GPU {} (CC {}.{}), profile {}",
                exp.id,
                g.info.name,
                g.info.compute_capability.0,
                g.info.compute_capability.1,
                opts.profile
            );
        } else {
            crate::say!("{}: CPU only ({}): GPU parts are recorded as not run here; profile {}", exp.id, env.gpu_absent, opts.profile);
        }
        if let Some(s) = opts.shard {
            crate::say!("{}: shard {s}, {} cases, records in {}", exp.id, cases.len(), folder.display());
        }
        if let Some(g) = &env.gpu {
            let t0 = std::time::Instant::now();
            for src in exp.kernels {
                g.load(src)?;
            }
            crate::say!("{}: kernels compiled and loaded in {:.2} s (before any timed case)", exp.id, t0.elapsed().as_secs_f64());
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
            crate::say!("warning: {}: {w}", self.exp.id);
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
                    row.set(col::CASE_ID, c.id.as_str());
                    row.extend(&c.params);
                }
                if r.get(col::RECORD_KIND) == &records::Value::Null {
                    row.set(col::RECORD_KIND, "measurement");
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

/// Runs `case` on `env`: its rows (on a run without a GPU, a "not run here" row
/// for each of the case's [`Plan::gpu_methods`](super::paper::Plan::gpu_methods)),
/// each with the machine's load and clock at the case's start
/// ([`hardware::Conditions`]; a warning where the load exceeds the threads), and
/// the seconds it took.
pub fn run_one(paper: &dyn Paper, case: &Case, env: &RunEnv) -> Result<(Vec<Record>, f64)> {
    let conditions = hardware::Conditions::now();
    if let Some(why) = conditions.busy(env.fingerprint.cpu_threads)
        && !BUSY_SAID.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        crate::say!("warning: case {}: {why} (later cases under load are not listed: the report's Runs section counts them)", case.id);
    }
    let started = std::time::Instant::now();
    let mut rows = paper.run_case(case, env).with_context(|| format!("case {}", case.id))?;
    if env.gpu.is_none() {
        let methods = paper.gpu_methods(case, &env.profile).with_context(|| format!("case {}", case.id))?;
        rows.extend(methods.into_iter().map(|m| paper.not_run_row(m, &env.gpu_absent)));
    }
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
pub fn reproduce(exp: &Experiment, opts: &RunOptions) -> Result<Finished> {
    let mut run = Run::start(exp, opts)?;
    let todo: Vec<Case> = run.todo().into_iter().cloned().collect();
    warm_up(run.paper.as_ref(), &todo.iter().collect::<Vec<_>>(), &run.env, exp.id)?;
    let mut progress = Progress::new(exp.id, &todo.iter().collect::<Vec<_>>());
    for case in &todo {
        progress.started(case);
        let (rows, case_s) = run_one(run.paper.as_ref(), case, &run.env)?;
        run.store_case(case, rows, case_s)?;
        progress.finished(case);
    }
    progress.clear();
    run.finish()
}
