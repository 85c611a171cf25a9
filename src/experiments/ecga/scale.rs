//! Section 5.4, scalability: the device memory gECGA needs (the paper's Table 4
//! and this harness's layout), the largest trap problem each device holds, and
//! the model builds run at the paper's point (ℓ = 9,800, N = 1,912,315).

use super::performance::scale_rate;
use super::rows::{BuildCase, DeviceTimes, SCALE, ScaleRow};
use super::spec::EcgaSpec;
use crate::hardware::Quantity;
use crate::library::ecga::Search;
use crate::records::MachineRecords;
use crate::records::col;
use crate::report::Table;
use crate::spec::PaperHardware;
use std::fmt::Write;

/// Global memory of gECGA in the paper's design, Table 4: population 8·⌈Nℓ/64⌉,
/// model 4ℓ(MAX_L + 1), cache 4ℓ², status ℓ (bytes).
pub fn table4_bytes(n: usize, ell: usize, max_l: usize) -> f64 {
    8.0 * ((n as f64 * ell as f64) / 64.0).ceil() + 4.0 * (ell * (max_l + 1)) as f64 + 4.0 * (ell as f64).powi(2) + ell as f64
}

/// Device memory of this harness's gECGA (`gpu::gecga`): the population as ℓ rows
/// of ⌈N/64⌉ words, the x·log2(x) table, and the device search's state (per
/// pair an entropy term and a ΔCCC, 16 bytes; per slot its loci and counters,
/// and the part counts of a split pair, 2^MAX_L per part).
pub fn harness_bytes(n: usize, ell: usize, max_l: usize) -> f64 {
    8.0 * (ell * n.div_ceil(64)) as f64 + 8.0 * (n + 1) as f64 + crate::gpu::gecga::search_bytes(ell, max_l) as f64
}

/// The memory a CUDA program may use on the paper's GPU (bytes) and its
/// source, from the spec's datasheet (`gpu_memory`, GiB).
pub fn paper_usable_bytes(paper: &PaperHardware) -> Option<(f64, &str)> {
    paper.datasheet.get(&Quantity::GpuMemory).map(|d| (d.value * GIB, d.source.as_str()))
}

const GIB: f64 = (1u64 << 30) as f64;

/// The largest ℓ (a multiple of `k`) whose population N(ℓ) fits in `bytes` by `need`.
fn largest_fitting(k: usize, bytes: f64, pop: impl Fn(usize) -> usize, need: impl Fn(usize, usize) -> f64) -> usize {
    let mut ell = k;
    while need(pop(ell + k), ell + k) <= bytes {
        ell += k;
    }
    ell
}

/// The section's introduction: the paper's point by its own Table 4 against
/// the datasheet, and how far the paper's GPU reaches with each layout.
pub fn intro(spec: &EcgaSpec) -> String {
    let max_l = *spec.settings.max_l;
    let p = &spec.scale_paper;
    let need = table4_bytes(p.n, p.ell, max_l);
    let (usable, source) = paper_usable_bytes(&spec.paper.hardware).expect("checked at load");
    let mut md = format!(
        "The paper's point: ℓ = {} at N = {} needs {:.3} GB (10⁹ bytes) by Table 4 (population 8·⌈Nℓ/64⌉, model \
         4ℓ(MAX_L + 1), cache 4ℓ², status ℓ; MAX_L = {max_l}) against the {:.3} GB ({:.3} GiB) a CUDA program may use on \
         the C2050 ({source}): {:.1}% of it. The theory of the paper's ref. [22] is not in its text, so N(ℓ) past ℓ = 350 \
         below is the power law fitted to Table 5, not the paper's theory, and it disagrees with the paper: it gives N({}) = {} \
         where the paper states {} ({:.2}× it). No model build was run at the memory-limited sizes (hours of device \
         time with this design); the builds at the paper's point are timed per machine.\n\n",
        p.ell,
        p.n,
        need / 1e9,
        usable / 1e9,
        usable / GIB,
        100.0 * need / usable,
        p.ell,
        spec.fitted_population(p.ell, Search::Greedy),
        p.n,
        spec.fitted_population(p.ell, Search::Greedy) as f64 / p.n as f64
    );
    md += &reach_table(spec, &format!("paper: {}", spec.paper.hardware.gpu), usable);
    md
}

/// The largest trap problem `bytes` of device memory hold with each layout.
fn reach_table(spec: &EcgaSpec, device: &str, bytes: f64) -> String {
    let (k, max_l) = (*spec.settings.k, *spec.settings.max_l);
    let pop = |ell: usize| spec.fitted_population(ell, Search::Greedy);
    let a = largest_fitting(k, bytes, pop, |n, ell| table4_bytes(n, ell, max_l));
    let b = largest_fitting(k, bytes, pop, |n, ell| harness_bytes(n, ell, max_l));
    let mut t =
        Table::new(&["device", "memory", "largest ℓ, paper's Table 4 layout", "N there", "largest ℓ, this harness's layout", "N there"]);
    t.row(vec![device.into(), format!("{:.2} GB", bytes / 1e9), a.to_string(), pop(a).to_string(), b.to_string(), pop(b).to_string()]);
    t.render()
}

/// One machine's part: how far its device memory reaches, and its model
/// builds at the paper's point (profile `gpu-scale`).
pub fn section(spec: &EcgaSpec, m: &MachineRecords) -> String {
    let max_l = *spec.settings.max_l;
    let mut md = String::new();
    if let Some(gib) = Quantity::GpuMemory.here(m) {
        md += &reach_table(spec, "this GPU (device total)", gib * GIB);
        md += "\n";
    }
    let mut t = Table::new(&[
        "search",
        "ℓ",
        "N",
        "device data (GB)",
        "population made (s)",
        "model build (s)",
        "device time, events (s)",
        "merges",
        "pairs scored",
        "planted blocks exact",
        "alleles counted per second ÷ int32 rate",
    ]);
    let mut not_run = String::new();
    for r in m.measurements().filter(|r| r.str(col::FIGURE) == SCALE) {
        if r.str(col::STATUS) != "ok" {
            let _ = writeln!(not_run, "Model build not run here ({}).", r.str(col::REASON));
            continue;
        }
        let (Ok(BuildCase { search, ell, n, .. }), Ok(b)) = (r.row::<BuildCase>(), r.row::<ScaleRow>()) else { continue };
        let secs = |ms: f64| format!("{:.1}", ms / 1e3);
        let rate = scale_rate(m, r)
            .map_or("—".into(), |(per_s, int32)| format!("{per_s:.2e} ÷ {int32:.2e} = {}", crate::fmt::share(per_s, int32, 0)));
        t.row(vec![
            search,
            ell.to_string(),
            n.to_string(),
            format!("{:.3}", harness_bytes(n, ell, max_l) / 1e9),
            secs(b.population_ms),
            secs(b.model_ms),
            r.row::<DeviceTimes>().ok().and_then(|d| d.kernel_ms).map_or("—".into(), secs),
            b.merges.to_string(),
            b.pairs_scored.to_string(),
            format!("{:.1}%", 100.0 * b.model_quality),
            rate,
        ]);
    }
    if !t.is_empty() {
        let _ = write!(
            md,
            "One model build with gECGA per search (greedy, and greedy mating: the paper says both scale to this size), \
             MAX_L = {max_l}, on a planted population (every 5-locus block all ones with probability ½, all zeros ¼, else \
             random: the linkage of a converging generation, so that the search makes its ≈ 4ℓ/5 merges; a random first \
             selection stops after a few). *Model build*: upload of the packed population and the whole search on the device; \
             *device data*: this harness's layout (population, x·log2 x table, ΔCCC cache); the counting rate: alleles read \
             by the scoring blocks per second of device time, against the int32 instruction rate measured in the same \
             run.\n\n{}\n",
            t.render()
        );
    }
    md + &not_run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_4_at_the_papers_point() {
        // 8·⌈1912315·9800/64⌉ + 4·9800·11 + 4·9800² + 9800 bytes.
        let need = table4_bytes(1_912_315, 9800, 10);
        assert_eq!(need, 8.0 * 292_823_235.0 + 431_200.0 + 384_160_000.0 + 9800.0);
        assert!((need / 1e9 - 2.727).abs() < 5e-4, "{need}");
        // Fits 2687 MiB (a C2050 with ECC on), not 2.687·10⁹ bytes.
        assert!(need <= 2.624451 * GIB && need > 2.687e9);
    }

    #[test]
    fn the_largest_fitting_size_stops_before_the_first_that_does_not_fit() {
        let ell = largest_fitting(5, 1000.0, |ell| ell, |n, ell| (n * ell) as f64);
        assert_eq!(ell, 30, "30² = 900 fits, 35² = 1225 does not");
    }
}
