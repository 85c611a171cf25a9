//! Every GPU layout strategy and block size against the f64 CPU reference on
//! fresh random inputs (passes with a message where there is no CUDA).

use evorepro::gpu::{self, Gpu, layout};

#[test]
fn layout_kernels_match_the_cpu_reference() {
    if let Err(why) = gpu::probe() {
        println!("skipping: no CUDA ({why})");
        return;
    }
    let gpu = Gpu::open(0).expect("probe found a device, so device 0 opens");
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    println!("self check on {} with seed {seed} (rerun with `evorepro selfcheck --seed {seed}`)", gpu.info.name);
    let lines = layout::self_check(&gpu, seed, &layout::self_check_sizes(false), &[32, 64, 128, 256, 512, 1024])
        .unwrap_or_else(|e| panic!("self check failed to run (seed {seed}): {e}"));
    assert!(!lines.is_empty(), "self check checked nothing");

    let mut failures = Vec::new();
    for l in lines.iter().filter(|l| !l.passed()) {
        failures.push(format!(
            "{} {} {}x{} block {}: {:?} repeatable={}",
            l.strategy, l.function, l.pop, l.dim, l.block, l.outcome, l.repeatable
        ));
    }
    let ran = lines.iter().filter(|l| l.outcome.is_ok()).count();
    println!("{} configurations, {ran} ran, {} failed", lines.len(), failures.len());
    for f in &failures {
        println!("FAIL {f}");
    }
    // Every strategy (however many there are) ran somewhere.
    let mut idle = Vec::new();
    for s in layout::Strategy::ALL {
        if !lines.iter().any(|l| l.strategy == s && l.outcome.is_ok()) {
            idle.push(s.to_string());
        }
    }
    assert!(
        failures.is_empty(),
        "{} GPU configurations disagree with the CPU reference (seed {seed}):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(idle.is_empty(), "strategies that ran at no self-check size: {}", idle.join(", "));
}
