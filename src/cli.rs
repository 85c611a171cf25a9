//! The `evorepro` command line: parse → options → run → export.

use crate::experiments::{self, BackendChoice, RunOptions, SpecChoice};
use crate::gpu::Gpu;
use crate::hardware::Fingerprint;
use crate::records::col;
use anyhow::Result;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "evorepro", version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("EVOREPRO_GIT_COMMIT"), ")"), about = "Reproduces the tables and figures of papers on GPU-accelerated evolutionary computation")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The repository root, where `experiments/` and `datasets/` are (default: the
    /// current folder if it holds both, else the nearest folder above the binary
    /// that does, else the folder it was built from).
    #[arg(long, global = true)]
    pub root: Option<PathBuf>,
    /// Let a spec's data paths lead outside the repository root (and, for a spec
    /// outside the root, outside the spec's folder).
    #[arg(long, global = true)]
    pub allow_outside: bool,
    /// No progress bar and no progress lines (errors are still shown).
    #[arg(long, short, global = true)]
    pub quiet: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The papers, their profiles and stored records.
    List {
        /// Root of the reports whose stored records are listed (OUT/<paper>/records/).
        #[arg(long, default_value = experiments::REFERENCES_DIR)]
        out: PathBuf,
    },
    /// Runs a paper's experiments (or `all`) and renders its report.
    Reproduce {
        /// The paper's id (see the list below), or `all`.
        #[arg(value_parser = PaperId { all: true })]
        paper: String,
        /// Which of the spec's profiles to run (its cases and repeats).
        #[arg(long, default_value = "quick")]
        profile: String,
        /// Where the GPU parts run: `auto` (the GPU where one is present), `cpu`
        /// (GPU parts recorded as not run here) or `cuda` (fail without a GPU).
        #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
        backend: BackendChoice,
        /// CUDA device ordinal.
        #[arg(long, default_value_t = 0)]
        device: usize,
        /// Root of the run's reports (records go to OUT/<paper>/records/). The
        /// default `runs` keeps a fresh run apart from the committed reference
        /// runs; `--out reports` adds a reference run.
        #[arg(long, default_value = experiments::RUNS_DIR)]
        out: PathBuf,
        /// Keep this machine's stored records and run only the missing cases
        /// (without it, earlier records of this machine and profile are archived).
        #[arg(long)]
        resume: bool,
        /// A spec file instead of ROOT/experiments/<paper>.toml; its data paths
        /// are relative to its own folder.
        #[arg(long)]
        spec: Option<PathBuf>,
        /// Only list the cases by figure, with the memory each needs and a time
        /// estimated from stored records; run and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Run only shard K of N (1 ≤ K ≤ N): a fixed 1/N of the cases, dealt
        /// longest first, into OUT/<paper>/records/_shards/<profile>__shard-K-of-N/
        /// (for job arrays; `evorepro merge` combines the shards).
        #[arg(long, value_name = "K/N")]
        shard: Option<experiments::shard::Shard>,
        /// With --shard: shards 1..=G take the cases that need a GPU, the others
        /// the cases that need none (K processes on one node: GPU cases on its GPU,
        /// the rest on its other cores).
        #[arg(long, value_name = "G", requires = "shard")]
        gpu_shards: Option<usize>,
        /// With --dry-run: the time on this many GPUs (one rank each) as well.
        #[arg(long, default_value_t = 1, requires = "dry_run", value_parser = at_least_one)]
        gpus: usize,
        /// With --dry-run: estimate from this machine's records (an hw_id, or a
        /// part of one naming one machine) instead of this one's.
        #[arg(long, value_name = "HW_ID", requires = "dry_run")]
        estimate_from: Option<String>,
        /// Run at most this many of the cases still to run, in order, then
        /// stop and render (with --resume, a long profile in steps that each
        /// fit a time limit). N ≥ 1.
        #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        max_cases: Option<usize>,
    },
    /// Combines the shards of a profile (`reproduce --shard K/N`) into its
    /// ordinary records file, refusing duplicate cases and shards of another
    /// spec or commit, then renders the report.
    Merge {
        /// The paper's id, or `all`.
        #[arg(value_parser = PaperId { all: true })]
        paper: String,
        /// Only this profile's shards (default: every sharded profile).
        #[arg(long)]
        profile: Option<String>,
        /// Root of the reports (shards under OUT/<paper>/records/_shards/); the
        /// same as the shards' `reproduce --out`.
        #[arg(long, default_value = experiments::RUNS_DIR)]
        out: PathBuf,
        /// A spec file instead of ROOT/experiments/<paper>.toml: the cases each shard plans, and the report.
        #[arg(long)]
        spec: Option<PathBuf>,
        /// Merge shards that have not stored all their cases (killed, or run with --max-cases); every
        /// shard then stays in place, for `reproduce --shard K/N --resume` and a later merge.
        #[arg(long)]
        partial: bool,
    },
    /// Re-renders a paper's report from its raw records, without rerunning.
    Report {
        /// The paper's id, or `all`.
        #[arg(value_parser = PaperId { all: true })]
        paper: String,
        /// Root of the reports: records read from OUT/<paper>/records/, the report
        /// and figures written to OUT/<paper>/.
        #[arg(long, default_value = experiments::REFERENCES_DIR)]
        out: PathBuf,
        /// A spec file instead of ROOT/experiments/<paper>.toml (the claims and
        /// the paper's values the report sets the records against).
        #[arg(long)]
        spec: Option<PathBuf>,
    },
    /// Side by side: every machine with records for a paper, and the paper's own hardware, written to OUT/<paper>/COMPARE.md; prints each paper's headline workload.
    Compare {
        /// The paper's id, or `all`.
        #[arg(value_parser = PaperId { all: true })]
        paper: String,
        /// Root of the reports whose records are compared (and where COMPARE.md files are written)
        #[arg(long, default_value = experiments::REFERENCES_DIR)]
        out: PathBuf,
        /// Another reports folder whose records join the comparison (repeatable), e.g. a fresh run beside the committed reference runs
        #[arg(long = "with", value_name = "DIR")]
        with: Vec<PathBuf>,
    },
    /// Checks every GPU kernel against the CPU reference on fresh random inputs.
    Selfcheck {
        /// CUDA device ordinal.
        #[arg(long, default_value_t = 0)]
        device: usize,
        /// Few, small sizes (for compute-sanitizer).
        #[arg(long)]
        small: bool,
        /// Seed of the random inputs (default: from the clock, printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Only this paper's kernels (default: every paper with kernels).
        #[arg(long, value_parser = PaperId { all: false })]
        paper: Option<String>,
    },
    /// A completion script for a shell (e.g. `evorepro completions bash >
    /// ~/.local/share/bash-completion/completions/evorepro`).
    Completions {
        /// The shell the script is for.
        shell: clap_complete::Shell,
    },
    /// Record files kept by an older evorepro.
    Records {
        #[command(subcommand)]
        action: RecordsAction,
    },
    /// This machine's fingerprint and measured ceilings.
    Hw {
        /// CUDA device ordinal.
        #[arg(long, default_value_t = 0)]
        device: usize,
        /// Also store the ceilings under OUT/hardware/records/ (reports use them
        /// to explain differences where a run's own records lack one).
        #[arg(long)]
        record: bool,
        /// Root of the reports (with --record: OUT/hardware/records/).
        #[arg(long, default_value = experiments::REFERENCES_DIR)]
        out: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
pub enum RecordsAction {
    /// Rewrites older record files in today's layout.
    ///
    /// Every records folder under OUT/<paper>/records/ first in today's layout
    /// (the Parquet files alone at its top, to read as one data set; checksums
    /// in `_sha256/`, CSV copies in `_csv/`, `archive/` and `shards/` renamed
    /// `_archive/` and `_shards/`: files moved, not rewritten). Then every
    /// record file (shards included, `_archive/` left as it was taken): column names from
    /// before units were named (`gbs` → `gb_per_s`, `gops` → `gop_per_s`, `ghz`
    /// → `cpu_clock_ghz`, `link_gbs` → `link_gb_per_s`) renamed, columns without
    /// a value left out, the CSV copies split into measurements and ceilings.
    /// Parquet, checksum and CSV atomically, every value as it was. Reports read
    /// old files either way; this is for tools that read the files themselves.
    Upgrade {
        /// Root of the reports whose record folders are upgraded.
        #[arg(long, default_value = experiments::REFERENCES_DIR)]
        out: PathBuf,
    },
}

/// A paper's id (with `all`, where every paper may be asked for): `--help` and
/// the shell completions list them; an unknown id is named beside the known ones.
#[derive(Clone)]
struct PaperId {
    all: bool,
}

impl clap::builder::TypedValueParser for PaperId {
    type Value = String;

    fn parse_ref(&self, cmd: &clap::Command, _arg: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<String, clap::Error> {
        let id = value.to_string_lossy();
        if (self.all && id == "all") || experiments::registry().iter().any(|e| e.id == id) {
            return Ok(id.into_owned());
        }
        let known: Vec<&str> = experiments::registry().iter().map(|e| e.id).collect();
        let all = if self.all { ", or `all`" } else { "" };
        let message = format!("unknown paper `{id}` (known: {}{all})\n", known.join(", "));
        Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, message).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let papers = experiments::registry().into_iter().map(|e| clap::builder::PossibleValue::new(e.id).help(e.title));
        Some(Box::new(papers.chain(self.all.then(|| clap::builder::PossibleValue::new("all").help("every paper")))))
    }
}

fn papers(id: &str) -> Result<Vec<&'static experiments::Experiment>> {
    if id == "all" { Ok(experiments::registry()) } else { Ok(vec![experiments::find(id)?]) }
}

/// Every paper with its title and profiles (from the built-in specs), for `reproduce --help`.
fn papers_help() -> String {
    let mut s = String::from("Papers (or `all`) and their profiles:\n");
    for e in experiments::registry() {
        let profiles = toml::from_str::<toml::Table>(e.embedded_spec)
            .ok()
            .and_then(|t| Some(t.get("profiles")?.as_table()?.keys().cloned().collect::<Vec<_>>().join(", ")))
            .unwrap_or_default();
        s += &format!("  {:8} {}\n           profiles: {profiles}\n", e.id, e.title);
    }
    s
}

impl Command {
    /// Whether the command writes record files (and holds a records lock while it runs).
    pub fn writes_records(&self) -> bool {
        matches!(self, Command::Reproduce { .. } | Command::Merge { .. })
    }
}

/// The command line, with `reproduce --help` listing the papers and their profiles.
pub fn parse() -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let command = Cli::command().mut_subcommand("reproduce", |c| c.after_help(papers_help()));
    Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

pub fn run(cli: Cli) -> Result<()> {
    if let Command::Completions { shell } = cli.command {
        use clap::CommandFactory;
        clap_complete::generate(shell, &mut Cli::command(), "evorepro", &mut std::io::stdout());
        return Ok(());
    }
    let root = crate::spec::find_root(cli.root.as_deref())?;
    experiments::set_quiet(cli.quiet);
    let choice = |file: Option<PathBuf>| SpecChoice { file, root: root.clone(), allow_outside: cli.allow_outside };
    match cli.command {
        Command::List { out } => {
            let this = Fingerprint::this_machine(None).hw_id;
            let here = experiments::plan::GpusHere::probe();
            for e in experiments::registry() {
                let paper = experiments::load_paper(e, &choice(None))?;
                println!("{:8} {}", e.id, e.title);
                // One unreadable file is named and skipped; the other records still list.
                let mut rows = Vec::new();
                for f in crate::records::record_files(&out.join(e.id).join("records")) {
                    match crate::records::read_parquet(&f) {
                        Ok(r) => rows.extend(r),
                        Err(err) => println!("         unreadable: {err}"),
                    }
                }
                let machines = crate::records::by_machine(rows, Some(&this));
                let mut known = Vec::new();
                for profile in paper.profiles() {
                    known.extend(paper.cases(&profile)?);
                }
                for profile in paper.profiles() {
                    let cases = paper.cases(&profile)?;
                    let about = paper.about(&profile);
                    let smoke = if about.smoke { "; smoke profile: decides no paper claim" } else { "" };
                    println!(
                        "         profile {profile:14} {}{smoke}",
                        experiments::plan::profile_line(paper.as_ref(), &cases, &known, &machines, &this)
                    );
                    if let Some(d) = about.description {
                        println!("                 {d}");
                    }
                    let claims: Vec<_> =
                        paper.claim_specs().into_iter().map(|c| experiments::plan::foresee(c, &cases, about.smoke, &here)).collect();
                    println!("                 {}", experiments::plan::foresight_line(&claims));
                }
                for m in &machines {
                    println!("         records: {} ({} rows)", m.hw_id, m.rows.len());
                }
            }
        }
        Command::Reproduce {
            paper,
            profile,
            backend,
            device,
            out,
            resume,
            spec,
            dry_run,
            shard,
            gpu_shards,
            gpus,
            estimate_from,
            max_cases,
        } => {
            let shard = match (shard, gpu_shards) {
                (Some(s), Some(g)) => Some(s.with_gpu_shards(g).map_err(anyhow::Error::msg)?),
                (s, _) => s,
            };
            let dry = experiments::DryRunOptions { gpus, estimate_from };
            let list = papers(&paper)?;
            if spec.is_some() && list.len() > 1 {
                anyhow::bail!("--spec names one paper's spec; use it with one paper, not `all`");
            }
            // Over MPI ranks when an MPI launcher started this process with several.
            #[cfg(feature = "mpi")]
            let universe = experiments::mpi::init()?;
            let opts = RunOptions { profile, backend, device, out, resume, spec: choice(spec), shard, max_cases };
            // `all`: every paper's spec, records and data are checked before the first case of any.
            if list.len() > 1 && !dry_run {
                for e in &list {
                    experiments::preflight(e, &opts)?;
                }
            }
            for e in list {
                #[cfg(feature = "mpi")]
                if let Some(u) = &universe {
                    if dry_run {
                        if experiments::mpi::rank(u) == 0 {
                            println!("{}", experiments::dry_run(e, &opts, &dry)?);
                        }
                    } else if let Some(done) = experiments::mpi::reproduce(u, e, &opts)? {
                        crate::say_out!("{}", done.summary(e.id));
                    }
                    continue;
                }
                if dry_run {
                    println!("{}", experiments::dry_run(e, &opts, &dry)?);
                } else {
                    crate::say_out!("{}", experiments::reproduce(e, &opts)?.summary(e.id));
                }
            }
        }
        Command::Merge { paper, profile, out, spec, partial } => {
            for e in papers(&paper)? {
                let loaded = experiments::load_paper(e, &choice(spec.clone()))?;
                let planned = |profile: &str, shard: &experiments::shard::Shard| -> Result<Vec<String>> {
                    let cases = loaded.cases(profile)?;
                    Ok(shard.select(cases, |c| loaded.resource(c)).into_iter().map(|c| c.id).collect())
                };
                for m in experiments::shard::merge(&out, e.id, profile.as_deref(), &planned, partial)? {
                    crate::say_out!("{}: merged {} shards, {} cases, {} rows into {}", e.id, m.shards, m.cases, m.rows, m.file.display());
                    for i in &m.incomplete {
                        crate::say_out!(
                            "{}: --partial: {i}; the shards stay under {}/shards",
                            e.id,
                            m.file.parent().map_or(String::new(), |p| p.display().to_string())
                        );
                    }
                }
                let this = Fingerprint::this_machine(None).hw_id;
                crate::say_out!("{}", experiments::render(e, &out, Some(&this), &choice(spec.clone()))?.summary(e.id));
            }
        }
        Command::Report { paper, out, spec } => {
            for e in papers(&paper)? {
                let this = Fingerprint::this_machine(None).hw_id;
                crate::say_out!("{}", experiments::render(e, &out, Some(&this), &choice(spec.clone()))?.summary(e.id));
            }
        }
        Command::Compare { paper, out, with } => {
            for e in papers(&paper)? {
                println!("{}", experiments::compare(e, &out, &choice(None), &with)?);
            }
        }
        Command::Records { action: RecordsAction::Upgrade { out } } => upgrade_records(&out)?,
        Command::Completions { .. } => unreachable!("answered above"),
        Command::Hw { device, record, out } => hw(device, record, &out)?,
        Command::Selfcheck { device, small, seed, paper } => selfcheck(device, small, seed, paper.as_deref(), &root.join("datasets"))?,
    }
    Ok(())
}

/// A count of one or more (`--gpus`): 0 would divide the estimate by nothing.
fn at_least_one(value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn upgrade_records(out: &std::path::Path) -> Result<()> {
    let folders = crate::records::record_folders(out);
    if folders.is_empty() {
        anyhow::bail!("no record folders under {} (OUT/<paper>/records/)", out.display());
    }
    // The older layouts' side files move first: a paper's folder moves its shard folders too.
    let mut moved = 0;
    for dir in folders.iter().filter(|d| d.file_name().is_some_and(|n| n == "records")) {
        moved += crate::records::migrate_layout(dir)?;
    }
    if moved > 0 {
        println!(
            "{moved} files and folders moved to today's layout (Parquet alone at each records folder's top; _sha256/, _csv/, _archive/, _shards/)"
        );
    }
    let (mut files, mut upgraded) = (0, 0);
    for dir in crate::records::record_folders(out) {
        files += crate::records::record_files(&dir).len();
        for (f, what) in crate::records::upgrade_folder(&dir)? {
            println!("upgraded {}: {what}", f.display());
            upgraded += 1;
        }
    }
    println!("{upgraded} of {files} record files upgraded; the others were already in today's layout");
    // One machine, one id: files written under an id without the CPU's signature
    // take the id of the one machine whose fingerprint equals theirs.
    let mut rows = Vec::new();
    let mut by_file = Vec::new();
    for dir in crate::records::record_folders(out) {
        for f in crate::records::record_files(&dir) {
            let r = crate::records::read_parquet(&f)?;
            by_file.push((f, r.first().map(|r| r.str(col::HW_ID).to_owned()).unwrap_or_default()));
            rows.extend(r);
        }
    }
    let aliases = crate::records::aliases(&rows);
    let mut renamed = 0;
    for (f, id) in by_file {
        if let Some(new) = aliases.get(&id) {
            let _lock = crate::records::WriterLock::take(f.parent().expect("a folder"))?;
            let to = crate::records::rename_machine(&f, &id, new)?;
            println!("machine id of {}: `{id}` → `{new}` ({})", f.display(), to.display());
            renamed += 1;
        }
    }
    println!("{renamed} record files renamed to their machine's id");
    Ok(())
}

fn hw(device: usize, record: bool, out: &std::path::Path) -> Result<()> {
    let gpu = match Gpu::open(device) {
        Ok(g) => Some(g),
        Err(e) => {
            println!("no CUDA device: {e}");
            None
        }
    };
    let fp = Fingerprint::this_machine(gpu.as_ref().map(|g| &g.info));
    // Without a GPU its fields are empty: left out (the line above says why).
    for (k, v) in fp.record().cells().filter(|(_, v)| !v.to_string().is_empty()) {
        println!("{k:26} {v}");
    }
    let ceilings = experiments::measure_ceilings(gpu.as_ref(), false, "hw_ceiling")?;
    for r in &ceilings {
        let (value, unit) =
            crate::records::CEILING_VALUES.iter().find_map(|(k, unit)| r.float(k).map(|v| (v, *unit))).unwrap_or((f64::NAN, ""));
        println!("{:26} {value:.2} {unit}", r.str(col::CEILING));
    }
    if !ceilings.iter().any(|r| r.str(col::CEILING) == "cpu_clock") {
        println!("{:26} not measured on this architecture", "cpu_clock");
    }
    if let Some(g) = &gpu {
        println!("{:26} {:.0} GB/s (from clock and bus width)", "gpu_datasheet_bw", g.info.theoretical_bandwidth_gbs());
    }
    if record {
        println!("recorded: {}", experiments::record_hardware(&fp, ceilings, out)?.display());
    }
    Ok(())
}

fn selfcheck(device: usize, small: bool, seed: Option<u64>, paper: Option<&str>, datasets: &std::path::Path) -> Result<()> {
    // An unknown paper is named before the GPU is looked for.
    let papers = match paper {
        Some(p) => vec![experiments::find(p)?],
        None => experiments::registry(),
    };
    let gpu = Gpu::open(device)?;
    let seed =
        seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64));
    println!("selfcheck on {} (seed {seed})", gpu.info.name);
    let mut failed = 0;
    for e in papers {
        failed += (e.selfcheck)(&gpu, small, seed, datasets)?;
    }
    if failed > 0 {
        anyhow::bail!("{failed} GPU configurations disagree with the CPU reference");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_argument_has_help() {
        let cli = Cli::command();
        let mut missing = Vec::new();
        let nested = cli.get_subcommands().flat_map(|c| c.get_subcommands());
        for command in std::iter::once(&cli).chain(cli.get_subcommands()).chain(nested) {
            for arg in command.get_arguments().filter(|a| !matches!(a.get_id().as_str(), "help" | "version")) {
                if arg.get_help().is_none_or(|h| h.to_string().trim().is_empty()) {
                    missing.push(format!("{} {}", command.get_name(), arg.get_id()));
                }
            }
        }
        assert!(missing.is_empty(), "arguments without help: {missing:?}");
    }
}
