//! Every paper's GPU kernels against their CPU references on fresh random inputs,
//! through the registry (`Experiment::selfcheck`, as `evorepro selfcheck` runs
//! them). Ignored by default, so a machine without a GPU counts it as ignored,
//! never as passed: on the GPU machine run the test binary with
//! `--include-ignored` (it fails there if CUDA does not open).

use evorepro::experiments::registry;
use evorepro::gpu::{self, Gpu};

#[test]
#[ignore = "needs a CUDA GPU: run with --include-ignored on the GPU machine"]
fn every_papers_kernels_match_the_cpu_reference() {
    if let Err(why) = gpu::probe() {
        panic!("no CUDA here ({why}): this test runs on the GPU machine");
    }
    let gpu = Gpu::open(0).expect("probe found a device, so device 0 opens");
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    println!("self check on {} with seed {seed} (rerun with `evorepro selfcheck --seed {seed}`)", gpu.info.name);
    let datasets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets");
    let mut failed = Vec::new();
    for e in registry() {
        let n = (e.selfcheck)(&gpu, false, seed, &datasets)
            .unwrap_or_else(|err| panic!("{}: the self check failed to run (seed {seed}): {err}", e.id));
        if n > 0 {
            failed.push(format!("{}: {n} configurations", e.id));
        }
    }
    assert!(failed.is_empty(), "GPU kernels disagree with the CPU reference (seed {seed}): {}", failed.join(", "));
}
