//! gBOA against the CPU reference on fresh random populations: bit-identical K2
//! family scores and identical pBOA networks (passes with a message where there
//! is no CUDA).

use evorepro::gpu::{self, Gpu, boa};

#[test]
fn gboa_scores_and_networks_match_the_cpu() {
    if let Err(why) = gpu::probe() {
        println!("skipping: no CUDA ({why})");
        return;
    }
    let gpu = Gpu::open(0).expect("probe found a device, so device 0 opens");
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    println!("gBOA self check on {} with seed {seed} (rerun with `evorepro selfcheck --paper gboa --seed {seed}`)", gpu.info.name);
    let lines = boa::self_check(&gpu, seed, &boa::self_check_sizes(false), 3)
        .unwrap_or_else(|e| panic!("self check failed to run (seed {seed}): {e}"));
    assert!(lines.iter().any(|l| l.edges > 0), "no network had an edge: the check checked nothing");
    let failures: Vec<String> = lines
        .iter()
        .filter(|l| !l.identical_network || l.differing > 0)
        .map(|l| {
            format!("n={} ell={}: network identical={} differing scores {}/{}", l.n, l.ell, l.identical_network, l.differing, l.families)
        })
        .collect();
    assert!(failures.is_empty(), "gBOA differs from the CPU (seed {seed}):\n{}", failures.join("\n"));
}
