//! gECGA against the CPU reference on fresh random populations: bit-identical
//! group entropy terms and identical greedy and GM search traces (passes with a
//! message where there is no CUDA).

use evorepro::gpu::{self, Gpu, ecga};

#[test]
fn gecga_builds_the_same_models_as_the_cpu() {
    if let Err(why) = gpu::probe() {
        println!("skipping: no CUDA ({why})");
        return;
    }
    let gpu = Gpu::open(0).expect("probe found a device, so device 0 opens");
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    println!("gECGA self check on {} with seed {seed} (rerun with `evorepro selfcheck --paper ecga --seed {seed}`)", gpu.info.name);
    let lines = ecga::self_check(&gpu, seed, &ecga::self_check_sizes(false))
        .unwrap_or_else(|e| panic!("self check failed to run (seed {seed}): {e}"));
    assert!(lines.iter().any(|l| l.merges > 0), "no search merged anything: the check checked nothing");
    let failures: Vec<String> = lines
        .iter()
        .filter(|l| !l.host_search_identical || !l.device_search_identical || l.differing_pairs > 0)
        .map(|l| {
            format!(
                "n={} ell={} {} {}: host search identical={} device search identical={} differing entropies {}/{}",
                l.n, l.ell, l.population, l.search, l.host_search_identical, l.device_search_identical, l.differing_pairs, l.pairs
            )
        })
        .collect();
    assert!(failures.is_empty(), "gECGA differs from the CPU (seed {seed}):\n{}", failures.join("\n"));
}
