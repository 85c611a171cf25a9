//! gBOA against the CPU reference (single scores, whole networks, whole runs on the
//! device) and the timings of the network kernel's designs and of a device run.

use super::{Design, DeviceRun, GROUPS, GpuFamilyScorer, Shape, run_on_device};
use crate::gpu::Gpu;
use crate::library::boa::{BoaConfig, Construction, Family, FamilyScorer, LnFactorial, Network, Randomness, build_pboa};
use crate::library::ecga::{DeviceStats, Population};
use crate::library::trap::Trap;
use anyhow::Result;
use std::time::Instant;

/// One population checked by [`self_check`].
#[derive(Clone, Debug)]
pub struct CheckLine {
    pub n: usize,
    pub ell: usize,
    /// Families scored, and those whose GPU score differs (bitwise) from the CPU's.
    pub families: usize,
    pub differing: usize,
    /// Whether the network kernel built the network CPU pBOA builds (parents,
    /// score bits, families scored and rounds), on planted linkage and on the
    /// uniformly random population (many near-equal gains: the tie rule).
    pub identical_network: bool,
    /// The same for the paper's network kernel (`gboa-paper`, [`Design::Paper`]).
    pub identical_paper: bool,
    pub edges: usize,
}

/// Checks gBOA against the CPU on fresh random inputs: random families of every
/// size up to `k` + 1 loci must score bit-identically, and pBOA on a population
/// with planted trap-5 linkage must build the identical network.
pub fn self_check(gpu: &Gpu, seed: u64, sizes: &[(usize, usize)], k: usize) -> Result<Vec<CheckLine>> {
    use crate::library::boa::{CpuFamilyScorer, random_permutation};
    use crate::library::ecga::{Popcount, PrefixFastCount};
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut lines = Vec::new();
    for (i, &(n, ell)) in sizes.iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(i as u64));
        let table = LnFactorial::new(n);
        let mut cpu = CpuFamilyScorer::new(PrefixFastCount { popcount: Popcount::Hardware });
        let mut dev = GpuFamilyScorer::new(gpu)?;
        // Random families on a uniformly random population.
        let pop = Population::random(n, ell, rng.random())?;
        let families: Vec<Family> = (0..64)
            .map(|_| {
                let loci = crate::gpu::gecga::random_group(ell, rng.random_range(1..=k.min(ell - 1) + 1), &mut rng);
                Family { node: loci[0], parents: loci[1..].to_vec() }
            })
            .collect();
        let (mut want, mut got) = (Vec::new(), Vec::new());
        cpu.load(&pop, &table)?;
        dev.load(&pop, &table)?;
        cpu.score(&families, &mut want)?;
        dev.score(&families, &mut got)?;
        let differing = want.iter().zip(&got).filter(|(a, b)| a.to_bits() != b.to_bits()).count() + want.len().abs_diff(got.len());
        // Whole pBOA networks on planted linkage.
        let planted = Population::planted(n, ell, 5, rng.random())?;
        let perm = random_permutation(ell, &mut rng);
        let same = |a: &Network, b: &Network| {
            a.parents == b.parents && a.score.to_bits() == b.score.to_bits() && a.families_scored == b.families_scored && a.steps == b.steps
        };
        let a = build_pboa(&planted, &mut cpu, k, &table, &perm)?;
        let random_perm = random_permutation(ell, &mut rng);
        let c = build_pboa(&pop, &mut cpu, k, &table, &random_perm)?;
        // Every block shape splits the candidates differently among the groups:
        // each must reduce to the same edges (the tie rule across groups).
        let mut identical = true;
        for shape in shape_choices() {
            let mut dev = GpuFamilyScorer::new(gpu)?.with_shape(shape)?;
            let b = build_pboa(&planted, &mut dev, k, &table, &perm)?;
            let d = build_pboa(&pop, &mut dev, k, &table, &random_perm)?;
            identical &= same(&a, &b) && same(&c, &d);
        }
        let mut paper = GpuFamilyScorer::new(gpu)?.paper_design();
        let identical_paper = same(&a, &build_pboa(&planted, &mut paper, k, &table, &perm)?)
            && same(&c, &build_pboa(&pop, &mut paper, k, &table, &random_perm)?);
        lines.push(CheckLine {
            n,
            ell,
            families: families.len(),
            differing,
            identical_network: identical,
            identical_paper,
            edges: a.edges(),
        });
    }
    Ok(lines)
}

/// One whole run checked by [`run_check`].
#[derive(Clone, Debug)]
pub struct RunCheckLine {
    pub n: usize,
    pub ell: usize,
    pub generations: usize,
    pub stop_on_convergence: bool,
    /// The first generation whose network or population differs (None: none does).
    pub first_difference: Option<usize>,
    /// Whether the results (history, best, solved, converged, families scored) agree.
    pub same_result: bool,
    /// Most edges of a generation's network (a check that networks were built).
    pub edges: usize,
}

/// BOA on the device against the CPU reference run with counter-based randomness
/// (`library::boa::run_traced`, multi-threaded pBOA), from fresh seeds: every
/// generation's network (parents and score bits) and population hash, and the
/// result, must be identical. `(n, ℓ, generations, stop on convergence)` per line.
pub fn run_check(gpu: &Gpu, seed: u64, runs: &[(usize, usize, usize, bool)]) -> Result<Vec<RunCheckLine>> {
    use crate::library::boa::{ParallelFamilyScorer, run_traced};
    use crate::library::ecga::{Popcount, PrefixFastCount};
    let mut lines = Vec::new();
    for (i, &(n, ell, generations, stop)) in runs.iter().enumerate() {
        let run_seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i as u64);
        let trap = Trap { k: 5, m: ell / 5 };
        let cfg = BoaConfig {
            n,
            max_generations: generations,
            stop_on_convergence: stop,
            rng: Randomness::Counter,
            ..BoaConfig::paper(Construction::Permutation)
        };
        let (mut cpu_trace, mut dev_trace) = (Vec::new(), Vec::new());
        let cpu = run_traced(
            &trap,
            &cfg,
            run_seed,
            &mut ParallelFamilyScorer::new(PrefixFastCount { popcount: Popcount::Hardware }),
            Some(&mut cpu_trace),
        )?;
        let dev = run_on_device(gpu, &trap, &cfg, run_seed, Some(&mut dev_trace))?.result;
        let first_difference = (0..cpu_trace.len().max(dev_trace.len())).find(|&g| cpu_trace.get(g) != dev_trace.get(g));
        let same_result = (cpu.generations, cpu.best_fitness, cpu.best_solved, cpu.converged, cpu.families_scored, &cpu.history)
            == (dev.generations, dev.best_fitness, dev.best_solved, dev.converged, dev.families_scored, &dev.history);
        let edges = cpu.history.iter().map(|g| g.edges).max().unwrap_or(0);
        lines.push(RunCheckLine { n, ell, generations, stop_on_convergence: stop, first_difference, same_result, edges });
    }
    Ok(lines)
}

/// Runs for [`run_check`]: `small` for compute-sanitizer. Odd N and N − S not a
/// multiple of 64 on purpose (padding bits, partial blocks); one run stops on
/// convergence (the per-generation check on the device).
pub fn run_check_sizes(small: bool) -> Vec<(usize, usize, usize, bool)> {
    let mut v = vec![(64, 10, 4, false), (201, 30, 6, false), (130, 20, 60, true)];
    if !small {
        v.extend([(1000, 60, 20, false), (2047, 120, 12, false), (4800, 190, 8, false)]);
    }
    v
}

/// Wall time and the device's phase times of one whole BOA run on the device at
/// `n` × `ell` for `generations` generations (the paper's setting: 4800, 190, 200).
pub fn time_device_run(gpu: &Gpu, seed: u64, n: usize, ell: usize, generations: usize) -> Result<DeviceRun> {
    let cfg = BoaConfig { n, max_generations: generations, rng: Randomness::Counter, ..BoaConfig::paper(Construction::Permutation) };
    run_on_device(gpu, &Trap { k: 5, m: ell / 5 }, &cfg, seed, None)
}

/// Block shapes the self-check builds every network with, and [`time_designs`] times.
pub fn shape_choices() -> Vec<Shape> {
    GROUPS.into_iter().flat_map(|group| [8, 16, 32].map(|warps| Shape { warps, group })).collect()
}

/// Mean wall time (ms) of one pBOA network on the device per block shape of
/// [`shape_choices`] and for the paper's design, with the device's share: `repeats`
/// networks of a random population of `n` × `ell` with planted trap-5 linkage, after
/// one untimed warm-up each.
pub fn time_designs(gpu: &Gpu, seed: u64, n: usize, ell: usize, k: usize, repeats: usize) -> Result<Vec<(Design, f64, DeviceStats)>> {
    use crate::library::boa::random_permutation;
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let table = LnFactorial::new(n);
    let pop = Population::planted(n, ell, 5, rng.random())?;
    let perm = random_permutation(ell, &mut rng);
    let mut out = Vec::new();
    for design in shape_choices().into_iter().map(Design::Packed).chain([Design::Paper]) {
        let mut dev = match design {
            Design::Packed(shape) => GpuFamilyScorer::new(gpu)?.with_shape(shape)?,
            Design::Paper => GpuFamilyScorer::new(gpu)?.paper_design(),
        };
        build_pboa(&pop, &mut dev, k, &table, &perm)?;
        let before = dev.stats;
        let t0 = Instant::now();
        for _ in 0..repeats {
            build_pboa(&pop, &mut dev, k, &table, &perm)?;
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3 / repeats as f64;
        let per = |x: f64, y: f64| (x - y) / repeats as f64;
        let stats = DeviceStats {
            kernel_ms: per(dev.stats.kernel_ms, before.kernel_ms),
            calls_ms: per(dev.stats.calls_ms, before.calls_ms),
            alleles: per(dev.stats.alleles, before.alleles),
        };
        out.push((design, ms, stats));
    }
    Ok(out)
}

/// Sizes for [`self_check`]: `small` for compute-sanitizer. ℓ = 300 and 700 give
/// the paper's kernel more probable parents than one pass of its Count_DS holds
/// (256 at three parents' families), so it counts them in several passes.
pub fn self_check_sizes(small: bool) -> Vec<(usize, usize)> {
    let mut v = vec![(1, 5), (63, 10), (65, 20), (2400, 30), (40, 300)];
    if !small {
        v.extend([(2400, 90), (4097, 60), (9600, 120), (481, 700)]);
    }
    v
}
