//! The `evorepro` command line: parse → options → run → export.

use crate::experiments::{self, BackendChoice, RunOptions};
use crate::gpu::{self, Gpu};
use crate::hardware::{self, Fingerprint};
use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "evorepro", version, about = "Reproduces the tables and figures of papers on GPU-accelerated evolutionary computation")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The papers, their profiles and stored records.
    List {
        #[arg(long, default_value = "reports")]
        out: PathBuf,
    },
    /// Runs a paper's experiments (or `all`) and renders its report.
    Reproduce {
        paper: String,
        #[arg(long, default_value = "quick")]
        profile: String,
        #[arg(long, value_enum, default_value_t = BackendChoice::Auto)]
        backend: BackendChoice,
        /// CUDA device ordinal.
        #[arg(long, default_value_t = 0)]
        device: usize,
        /// Root of the reports (records go to OUT/<paper>/records/).
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        /// Keep this machine's stored records and run only the missing cases
        /// (without it, earlier records of this machine and profile are archived).
        #[arg(long)]
        resume: bool,
        /// A spec file instead of experiments/<paper>.toml.
        #[arg(long)]
        spec: Option<PathBuf>,
    },
    /// Re-renders a paper's report from its raw records, without rerunning.
    Report {
        paper: String,
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        #[arg(long)]
        spec: Option<PathBuf>,
    },
    /// Side by side: every machine with records for a paper, and the paper's own hardware.
    Compare {
        paper: String,
        #[arg(long, default_value = "reports")]
        out: PathBuf,
    },
    /// Checks every GPU kernel against the CPU reference on fresh random inputs.
    Selfcheck {
        #[arg(long, default_value_t = 0)]
        device: usize,
        /// Few, small sizes (for compute-sanitizer).
        #[arg(long)]
        small: bool,
        /// Seed of the random inputs (default: from the clock, printed).
        #[arg(long)]
        seed: Option<u64>,
        /// Only this paper's kernels (default: every paper with kernels).
        #[arg(long)]
        paper: Option<String>,
    },
    /// This machine's fingerprint and measured ceilings.
    Hw {
        #[arg(long, default_value_t = 0)]
        device: usize,
    },
}

fn papers(id: &str) -> Result<Vec<&'static dyn experiments::Experiment>> {
    if id == "all" { Ok(experiments::registry()) } else { Ok(vec![experiments::find(id)?]) }
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::List { out } => {
            for e in experiments::registry() {
                let paper = experiments::load_paper(e, None)?;
                let machines = crate::report::by_machine(experiments::load_records(&out, e.id())?, None);
                println!("{:8} {}", e.id(), e.title());
                println!("         profiles: {}", paper.profiles().join(", "));
                for m in machines {
                    println!("         records: {} ({} rows)", m.hw_id, m.rows.len());
                }
            }
        }
        Command::Reproduce { paper, profile, backend, device, out, resume, spec } => {
            let list = papers(&paper)?;
            if spec.is_some() && list.len() > 1 {
                anyhow::bail!("--spec names one paper's spec; use it with one paper, not `all`");
            }
            for e in list {
                let opts = RunOptions { profile: profile.clone(), backend, device, out: out.clone(), resume, spec: spec.clone() };
                let path = experiments::reproduce(e, &opts)?;
                println!("{}", path.display());
            }
        }
        Command::Report { paper, out, spec } => {
            for e in papers(&paper)? {
                let this = Fingerprint::this_machine(None).hw_id;
                let path = experiments::render(e, &out, Some(&this), spec.as_deref())?;
                println!("{}", path.display());
            }
        }
        Command::Compare { paper, out } => {
            for e in papers(&paper)? {
                println!("{}", experiments::compare(e, &out, None)?);
            }
        }
        Command::Hw { device } => hw(device)?,
        Command::Selfcheck { device, small, seed, paper } => selfcheck(device, small, seed, paper.as_deref())?,
    }
    Ok(())
}

fn hw(device: usize) -> Result<()> {
    let gpu = match Gpu::open(device) {
        Ok(g) => Some(g),
        Err(e) => {
            println!("GPU: not available ({e})");
            None
        }
    };
    let fp = Fingerprint::this_machine(gpu.as_ref().map(|g| &g.info));
    for (k, v) in fp.record().cells() {
        println!("{k:20} {v}");
    }
    let cpu = hardware::measure_cpu(512 << 20, 5);
    println!("{:20} {:.1} GB/s", "cpu_read_1t", cpu.read_1t_gbs);
    println!("{:20} {:.1} GB/s", "cpu_read_all", cpu.read_all_gbs);
    if let Some(g) = &gpu {
        let c = gpu::ceilings::measure(g, 512 << 20, 10)?;
        println!("{:20} {:.0} GB/s (datasheet-style {:.0} GB/s)", "gpu_d2d", c.d2d_gbs, g.info.theoretical_bandwidth_gbs());
        println!("{:20} {:.1} GB/s", "gpu_h2d_pinned", c.h2d_pinned_gbs);
        println!("{:20} {:.1} GB/s", "gpu_d2h_pinned", c.d2h_pinned_gbs);
        println!("{:20} {:.0} G int32 instructions/s", "gpu_int32", c.int32_gops);
    }
    Ok(())
}

fn selfcheck(device: usize, small: bool, seed: Option<u64>, paper: Option<&str>) -> Result<()> {
    let gpu = Gpu::open(device)?;
    let seed =
        seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64));
    println!("selfcheck on {} (seed {seed})", gpu.info.name);
    let known = ["layout", "ecga", "gboa", "biohel", "island"];
    if let Some(p) = paper.filter(|p| !known.contains(p)) {
        anyhow::bail!("selfcheck: no GPU kernels for paper `{p}` (papers with kernels: {})", known.join(", "));
    }
    let wanted = |id: &str| paper.is_none_or(|p| p == id);
    let mut failed = 0;
    if wanted("layout") {
        failed += selfcheck_layout(&gpu, small, seed)?;
    }
    if wanted("ecga") {
        failed += selfcheck_ecga(&gpu, small, seed)?;
    }
    if wanted("gboa") {
        failed += selfcheck_gboa(&gpu, small, seed)?;
    }
    if wanted("biohel") {
        failed += selfcheck_biohel(&gpu, small, seed)?;
    }
    if wanted("island") {
        failed += selfcheck_island(&gpu, small, seed)?;
    }
    if failed > 0 {
        anyhow::bail!("{failed} GPU configurations disagree with the CPU reference");
    }
    Ok(())
}

/// Layout kernels S1–S4 against the f64 CPU reference; returns the failures.
fn selfcheck_layout(gpu: &Gpu, small: bool, seed: u64) -> Result<usize> {
    let blocks = if small { vec![32, 256] } else { vec![32, 64, 128, 256, 512, 1024] };
    let lines = gpu::layout::self_check(gpu, seed, &gpu::layout::self_check_sizes(small), &blocks)?;
    let mut failed = 0;
    let (mut ran, mut cannot) = (0, 0);
    for l in &lines {
        match &l.outcome {
            Ok(c) => {
                ran += 1;
                if !l.passed() {
                    failed += 1;
                    println!(
                        "FAIL layout {} {} {}x{} block {}: {c:?} repeatable={}",
                        l.strategy, l.function, l.pop, l.dim, l.block, l.repeatable
                    );
                }
            }
            Err(_) => cannot += 1,
        }
    }
    let worst = lines.iter().filter_map(|l| l.outcome.as_ref().ok()).map(|c| c.worst_ratio).fold(0.0, f64::max);
    println!(
        "layout kernels: {ran} configurations checked, {cannot} cannot run (S3 beyond its limits), {failed} failed; worst error / tolerance = {worst:.3}"
    );
    Ok(failed)
}

/// gECGA against the CPU scorer and searches (exact equality); returns the failures.
fn selfcheck_ecga(gpu: &Gpu, small: bool, seed: u64) -> Result<usize> {
    let lines = gpu::ecga::self_check(gpu, seed, &gpu::ecga::self_check_sizes(small))?;
    let mut failed = 0;
    for l in &lines {
        let ok = l.host_search_identical && l.device_search_identical && l.differing_pairs == 0;
        if !ok {
            failed += 1;
        }
        println!(
            "{} ecga n={} ell={} {} {} max_l={}: {} merges, trace identical: host search={} device search={}, group entropies differing {}/{}",
            if ok { "ok  " } else { "FAIL" },
            l.n,
            l.ell,
            l.population,
            l.search,
            l.max_l,
            l.merges,
            l.host_search_identical,
            l.device_search_identical,
            l.differing_pairs,
            l.pairs
        );
    }
    println!("ecga kernels: {} searches checked, {failed} failed", lines.len());
    Ok(failed)
}

/// gBOA against the CPU K2 scores and pBOA networks (exact equality); returns the failures.
fn selfcheck_gboa(gpu: &Gpu, small: bool, seed: u64) -> Result<usize> {
    let lines = gpu::boa::self_check(gpu, seed, &gpu::boa::self_check_sizes(small), 3)?;
    let mut failed = 0;
    for l in &lines {
        let ok = l.identical_network && l.differing == 0;
        failed += usize::from(!ok);
        println!(
            "{} gboa n={} ell={}: network of {} edges identical={}, family scores differing {}/{}",
            if ok { "ok  " } else { "FAIL" },
            l.n,
            l.ell,
            l.edges,
            l.identical_network,
            l.differing,
            l.families
        );
    }
    println!("gboa kernels: {} populations checked, {failed} failed", lines.len());
    if !small {
        // The block size of the network kernel, measured (docs/gpu-notes.md): one
        // network at the paper's 192 bits (ℓ = 190) and N = 4800 (2400 selected).
        for (shape, ms, d) in gpu::boa::time_shapes(gpu, seed, 2400, 190, 3, 50)? {
            println!(
                "time gboa network n=2400 ell=190 warps={:2} lanes/family={:2}: {ms:.3} ms per network, kernel {:.3} ms, device call {:.3} ms, \
                 {:.2e} alleles",
                shape.warps, shape.group, d.kernel_ms, d.calls_ms, d.alleles
            );
        }
    }
    Ok(failed)
}

/// BioHEL's evaluation kernels against the serial counts (exact equality), on
/// synthetic mixed sets and, unless `small`, on vendored real sets; returns the
/// failures.
fn selfcheck_biohel(gpu: &Gpu, small: bool, seed: u64) -> Result<usize> {
    use crate::library::dataset;
    let mut sets = vec![dataset::scalable(3001, 12, 3, 0.5, seed), dataset::parmx()];
    if !small {
        sets.push(dataset::waveform(20_000, seed));
        let dir = std::path::Path::new("datasets/biohel");
        for name in ["adu", "c-4"] {
            let mut d = dataset::load_named(dir, name).with_context(|| format!("data set `{name}` under {}", dir.display()))?;
            let all: Vec<usize> = (0..d.instances()).collect();
            d.impute_missing(&all);
            sets.push(d);
        }
    }
    let (windows, rules) = if small { (3, 40) } else { (5, 200) };
    let lines = gpu::biohel::self_check(gpu, seed, &sets, windows, rules)?;
    let mut failed = 0;
    for l in &lines {
        let ok = l.differing == 0;
        failed += usize::from(!ok);
        let budget =
            if l.budget_passes > 0 { format!("forced budget, {} passes per window", l.budget_passes) } else { "device budget".into() };
        println!(
            "{} biohel {} {} ({budget}): {} rules × {} windows, counts differing {}/{}",
            if ok { "ok  " } else { "FAIL" },
            l.design.label(),
            l.dataset,
            l.rules,
            l.windows,
            l.differing,
            l.compared
        );
    }
    println!("biohel kernels: {} configurations checked, {failed} failed", lines.len());
    Ok(failed)
}

/// The island GA's kernels against the CPU islands, generation by generation (exact equality), on this GPU and, where
/// the machine has several and NCCL, with the ring split over all of them; returns the failures.
fn selfcheck_island(gpu: &Gpu, small: bool, seed: u64) -> Result<usize> {
    let mut failed = print_island_lines("one GPU", &gpu::island::self_check(gpu, seed, small)?);
    let count = gpu::probe()?;
    match gpu::island_ring::probe(count) {
        Ok(()) => {
            let gpus = gpu::island_ring::open_gpus(count)?;
            println!("island ring: NCCL {}", gpu::island_ring::nccl_version()?);
            failed +=
                print_island_lines(&format!("ring over up to {count} GPUs (NCCL)"), &gpu::island_ring::ring_check(&gpus, seed, small)?);
        }
        Err(why) => println!("island ring over several GPUs: not run here ({why})"),
    }
    Ok(failed)
}

/// Prints the island checks of `lines` run on `devices`; returns the failures.
fn print_island_lines(devices: &str, lines: &[gpu::island::CheckLine]) -> usize {
    let mut failed = 0;
    for l in lines {
        let ok = l.passed();
        failed += usize::from(!ok);
        let difference = l.first_difference.as_ref().map_or_else(|| "states identical".to_string(), |d| format!("first difference {d}"));
        println!(
            "{} island {devices} {:?} {} ({} items) {}×{}: {} generations, {} migrations, {difference}, statistics agree={}, run agrees={}",
            if ok { "ok  " } else { "FAIL" },
            l.design,
            l.instance,
            l.items,
            l.islands,
            l.island_size,
            l.generations,
            l.migrations,
            l.statistics_agree,
            l.run_agrees
        );
    }
    println!("island kernels, {devices}: {} configurations checked, {failed} failed", lines.len());
    failed
}
