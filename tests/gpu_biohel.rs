//! BioHEL's CUDA evaluators against the serial counts on fresh random rules: equal
//! counts for both designs, over every ILAS window, also when a small memory budget
//! splits rules and instances into passes (passes with a message where there is no
//! CUDA).

use evorepro::gpu::{self, Gpu, biohel};
use evorepro::library::dataset;

#[test]
fn biohel_counts_match_the_serial_evaluator() {
    if let Err(why) = gpu::probe() {
        println!("skipping: no CUDA ({why})");
        return;
    }
    let gpu = Gpu::open(0).expect("probe found a device, so device 0 opens");
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    println!("BioHEL self check on {} with seed {seed} (rerun with `evorepro selfcheck --paper biohel --seed {seed}`)", gpu.info.name);
    let sets = [dataset::scalable(5003, 16, 4, 0.5, seed), dataset::waveform(8000, seed)];
    let lines = biohel::self_check(&gpu, seed, &sets, 4, 96).unwrap_or_else(|e| panic!("self check failed to run (seed {seed}): {e}"));
    assert!(lines.iter().any(|l| l.budget_passes > 1), "the forced budget never split the work: the plan was not exercised");
    let failures: Vec<String> = lines
        .iter()
        .filter(|l| l.differing > 0)
        .map(|l| format!("{} {}: {}/{} counts differ", l.design.label(), l.dataset, l.differing, l.compared))
        .collect();
    assert!(failures.is_empty(), "BioHEL GPU counts differ from serial (seed {seed}):\n{}", failures.join("\n"));
}
