//! The GPU self-check of the island kernels: `evorepro selfcheck --paper island`.

use crate::gpu::{self, Gpu};
use anyhow::Result;
use std::path::Path;

/// The island GA's kernels against the CPU islands, generation by generation (exact equality), on this GPU and, where
/// the machine has several and NCCL, with the ring split over all of them, on instances under `datasets/knapsack`;
/// returns the failures.
pub fn selfcheck(gpu: &Gpu, small: bool, seed: u64, datasets: &Path) -> Result<usize> {
    let one = gpu::island::self_check(gpu, seed, small, datasets)?;
    let mut failed = print_island_lines("one GPU", &one);
    if !one.iter().any(|l| l.migrations > 0) {
        println!("FAIL island: no configuration migrated, so the check missed the ring");
        failed += 1;
    }
    let count = gpu::probe()?;
    match gpu::island_ring::probe(count) {
        Ok(()) => {
            let gpus = gpu::island_ring::open_gpus(count)?;
            println!("island ring: NCCL {}", gpu::island_ring::nccl_version()?);
            let ring = gpu::island_ring::ring_check(&gpus, seed, small, datasets)?;
            failed += print_island_lines(&format!("ring over up to {count} GPUs (NCCL)"), &ring);
            // Two islands on two GPUs, one each, must still migrate: every exchange then crosses GPUs.
            if !ring.iter().any(|l| l.islands == 2 && l.migrations > 0) {
                println!("FAIL island: no ring configuration put one migrating island on each of two GPUs");
                failed += 1;
            }
            println!("island ring link: {:.0} GB/s each way (NCCL, 64 MiB)", gpu::island_ring::link_bandwidth(&gpus, 64 << 20, 10)?);
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
