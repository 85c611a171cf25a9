//! The island GA's CUDA kernels against the CPU reference: bit-identical
//! populations and fitness after every generation, migrations included (passes
//! with a message where there is no CUDA).

use evorepro::gpu::{self, Gpu, island};

/// The configurations that failed, a line each.
fn failures(lines: &[island::CheckLine]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !l.passed())
        .map(|l| format!("{} {}×{}: {:?}", l.instance, l.islands, l.island_size, l.first_difference.as_ref().map(|d| d.to_string())))
        .collect()
}

#[test]
fn island_gpu_evolves_the_cpu_populations() {
    if let Err(why) = gpu::probe() {
        println!("skipping: no CUDA ({why})");
        return;
    }
    let gpu = Gpu::open(0).expect("probe found a device, so device 0 opens");
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    println!("island self check on {} with seed {seed} (rerun with `evorepro selfcheck --paper island --seed {seed}`)", gpu.info.name);
    let lines = island::self_check(&gpu, seed, true).unwrap_or_else(|e| panic!("self check failed to run (seed {seed}): {e}"));
    assert!(lines.iter().any(|l| l.migrations > 0), "no configuration migrated: the check missed the ring");
    let failures = failures(&lines);
    assert!(failures.is_empty(), "island GPU differs from the CPU (seed {seed}):\n{}", failures.join("\n"));
}

#[test]
fn island_ring_over_several_gpus_evolves_the_cpu_populations() {
    let Ok(count) = gpu::probe() else {
        println!("skipping: no CUDA");
        return;
    };
    if let Err(why) = gpu::island_ring::probe(count) {
        println!("skipping: {why}");
        return;
    }
    let gpus = gpu::island_ring::open_gpus(count).expect("probe found the devices, so they open");
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    println!("island ring check over {count} GPUs with seed {seed} (rerun with `evorepro selfcheck --paper island --seed {seed}`)");
    let lines = gpu::island_ring::ring_check(&gpus, seed, true).unwrap_or_else(|e| panic!("ring check failed to run (seed {seed}): {e}"));
    // Two islands on two GPUs, one each, must still migrate: every exchange then crosses GPUs.
    assert!(lines.iter().any(|l| l.islands == 2 && l.migrations > 0), "no configuration put one migrating island on each of two GPUs");
    let failures = failures(&lines);
    assert!(failures.is_empty(), "the ring over {count} GPUs differs from the CPU (seed {seed}):\n{}", failures.join("\n"));
}
