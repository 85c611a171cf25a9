//! Every check of the shipped spec driven to each verdict it can give, on small
//! synthetic record sets.

use super::super::analysis::fixtures::*;
use super::super::spec::IslandSpec;
use super::*;
use crate::claims::testing::every_claim_reaches;
use crate::claims::{Claims, NotRun, Verdict, VerdictKind};
use crate::records::Record;
use crate::report::MachineRecords;
use crate::spec::{PaperHardware, SpecFile};
use std::path::Path;

const SHIPPED: &str = include_str!("../../../experiments/island.toml");

fn bind(text: &str) -> Result<(Claims<Analysis>, PaperHardware), crate::error::SpecError> {
    let file = SpecFile::from_text(Path::new("experiments/island.toml"), text.into());
    let spec: IslandSpec = file.parse()?;
    Ok((Claims::bind(&file, &spec.claims, &spec.paper.hardware, CHECKS)?, spec.paper.hardware))
}

fn shipped() -> (Claims<Analysis>, PaperHardware) {
    bind(SHIPPED).unwrap()
}

fn judge(claims: &Claims<Analysis>, hw: &PaperHardware, id: &str, m: &MachineRecords) -> Outcome {
    let a = Analysis::of(m).unwrap();
    claims.judge_one(id, &a, &Ctx { machine: m, paper: hw }).unwrap()
}

fn kind(claims: &Claims<Analysis>, hw: &PaperHardware, id: &str, m: &MachineRecords) -> VerdictKind {
    judge(claims, hw, id, m).verdict.kind()
}

/// A GPU grid of 1 and 14 islands of 128 and 2048, `runs` runs each: more islands
/// add `islands_gain` to the best fitness, larger ones 1000; runs spread by 0..runs.
fn fitness(runs: usize, islands_gain: f64) -> MachineRecords {
    let mut rows = Vec::new();
    for (i, islands) in [1, 14].into_iter().enumerate() {
        for (j, size) in [128, 2048].into_iter().enumerate() {
            for r in 0..runs {
                let best = 2_700_000.0 + islands_gain * i as f64 + 1000.0 * j as f64 + r as f64;
                rows.push(grid(CUDA, islands, size, best, 0.06).with("run", r));
            }
        }
    }
    machine(rows, Some(132), &[])
}

/// A GPU grid of 1, 7 and 14 islands of 128–2048 whose time per generation is
/// 0.057 ms up to 4000 individuals on the GPU, then proportional to them.
fn knee_grid(sms: Option<usize>) -> MachineRecords {
    let mut rows = Vec::new();
    for islands in [1, 7, 14] {
        for size in [128, 256, 512, 1024, 2048] {
            let n = (islands * size) as f64;
            rows.push(grid(CUDA, islands, size, 2_800_000.0, 0.057 * (n / 4000.0).max(1.0)));
        }
    }
    machine(rows, sms, &[])
}

/// Ring cases at 2048 per island: 6 and 12 islands on one GPU, 12 on two GPUs
/// (6 + 6) taking `ring_ms` per generation with this migration share.
fn ring_machine(ring_ms: f64, share: f64) -> MachineRecords {
    let rows = vec![ring(6, 2048, 0.118, 0.01, ""), ring(12, 2048, 0.21, 0.01, ""), ring(12, 2048, ring_ms, share, "6+6")];
    machine(rows, Some(132), &[])
}

/// Speed runs of one island: one thread at 10 ms per generation, `threads` at
/// `efficiency`, and the GPU `speedup` × faster.
fn speed_machine(threads: usize, efficiency: f64, speedup: f64, ceilings: &[(&str, f64)]) -> MachineRecords {
    let mut rows = Vec::new();
    for size in [128, 2048] {
        rows.push(speed(CPU_1T, size, 10.0, 1));
        rows.push(speed(CPU_MT, size, 10.0 / (efficiency * threads as f64), threads));
        rows.push(speed(CUDA, size, 10.0 / speedup, threads));
        rows.push(speed(CUDA_SPLIT, size, 10.0 / (2.0 * speedup), threads));
    }
    machine(rows, Some(132), ceilings)
}

/// A machine without a GPU: a CPU grid of 2 islands of 256 and GPU rows not run.
fn cpu_only() -> MachineRecords {
    let rows: Vec<Record> = vec![
        grid(CPU_MT, 1, 256, 2_700_000.0, 1.0),
        grid(CPU_MT, 2, 256, 2_700_100.0, 2.0).with("migration_ms", 2.0),
        speed(CPU_1T, 256, 2.0, 1),
        speed(CPU_MT, 256, 1.1, 2),
        not_run("speed", CUDA, "libcuda not found"),
    ];
    machine(rows, None, &[])
}

/// A GPU grid of the paper's island counts of 128 and 2048, `runs` runs each: each count adds `gain` to the best
/// fitness of the one before (1, 6, 7, 12, 14); runs spread by 0..runs.
fn steps_grid(runs: usize, gain: f64) -> MachineRecords {
    let mut rows = Vec::new();
    for (k, islands) in [1, 6, 7, 12, 14].into_iter().enumerate() {
        for size in [128, 2048] {
            for r in 0..runs {
                rows.push(grid(CUDA, islands, size, 2_700_000.0 + gain * k as f64 + r as f64, 0.06).with("run", r));
            }
        }
    }
    machine(rows, Some(132), &[])
}

/// Table runs of `islands` × `size`: one thread at 10 ms per generation, all 16 threads at 1 ms, the GPU at `gpu_ms`
/// (on `gpus` GPUs), on a machine of 24 cores with these ceilings.
fn table_machine(islands: usize, size: usize, gpu_ms: f64, gpus: usize, ceilings: &[(&str, f64)]) -> MachineRecords {
    let rows = vec![
        table(CPU_1T, islands, size, 10.0, 0.0),
        table(CPU_MT, islands, size, 1.0, 0.0),
        table(CUDA, islands, size, gpu_ms, 1e9).with("gpus", gpus),
    ];
    let mut m = machine(rows, Some(132), ceilings);
    for r in &mut m.rows {
        r.set("cpu_physical_cores", 24);
    }
    m
}

/// GPU table runs of one island of 2048 and of 14 islands of 2048 with the paper's instance's counted operations
/// (2.776·10⁸ per island and generation), one island at `one_ms` per generation, on a GPU of this int32 ceiling.
fn rate_machine(one_ms: f64, int32: Option<f64>) -> MachineRecords {
    let ops = crate::gpu::island::operations_per_generation(10_000, 2048, 1, 0.7);
    let rows = vec![table(CUDA, 1, 2048, one_ms, ops), table(CUDA, 14, 2048, 0.24, 14.0 * ops)];
    let ceilings: Vec<(&str, f64)> = int32.map(|g| ("gpu_int32", g)).into_iter().collect();
    machine(rows, Some(132), &ceilings)
}

#[test]
fn every_claim_of_the_shipped_spec_can_be_not_reproduced() {
    let (claims, hw) = shipped();
    let cases: Vec<(&str, MachineRecords)> = vec![
        ("more_islands_better", fitness(10, -1000.0)),
        ("islands_add_no_time", ring_machine(0.24, 0.01)),
        ("saturation_knee", knee_grid(Some(16))),
        ("migration_negligible", ring_machine(0.12, 0.03)),
        ("threads_scale", speed_machine(12, 0.5, 50.0, &[])),
        ("gpu_speedup", speed_machine(12, 0.9, 660.0, &[])),
        ("island_steps_significant", steps_grid(10, 0.0)),
        ("cores_beat_one_gpu", table_machine(1, 128, 0.2, 1, &[])),
        ("fourteen_gpus_over_cores", table_machine(14, 1024, 0.5, 14, &[])),
        ("sustained_rate", rate_machine(0.5, Some(29_415.0))),
    ];
    let cases: Vec<(&str, Analysis, MachineRecords)> = cases.into_iter().map(|(id, m)| (id, Analysis::of(&m).unwrap(), m)).collect();
    every_claim_reaches(&claims, VerdictKind::NotReproduced, &cases, &hw);
}

#[test]
fn fitness_comparisons_need_min_n_runs_and_count_a_tie_as_no_gain() {
    let (claims, hw) = shipped();
    let id = "more_islands_better";
    assert_eq!(kind(&claims, &hw, id, &fitness(10, 1000.0)), VerdictKind::Reproduced);
    let tie = judge(&claims, &hw, id, &fitness(10, 0.0));
    assert_eq!(tie.verdict, Verdict::NotReproduced(None));
    assert!(tie.evidence.contains("1 → 14 islands of 128: ") && tie.evidence.contains("± 2.17 (95% CI, n = 10) (tie)"), "{}", tie.evidence);
    let few = judge(&claims, &hw, id, &fitness(3, 1000.0));
    assert_eq!(few.verdict, crate::claims::testing::too_few(3, 10));
    assert!(few.evidence.contains("(better)"), "{}", few.evidence);
    assert_eq!(kind(&claims, &hw, id, &machine(vec![], None, &[])), VerdictKind::NotRun);
    // One island count only: nothing to compare.
    let one = machine(vec![grid(CUDA, 1, 128, 1.0, 0.1), grid(CUDA, 1, 2048, 2.0, 0.1)], None, &[]);
    assert_eq!(kind(&claims, &hw, id, &one), VerdictKind::NotRun);
}

#[test]
fn islands_on_separate_gpus_are_judged_on_the_ring_and_one_shared_gpu_goes_beyond() {
    let (claims, hw) = shipped();
    let id = "islands_add_no_time";
    let o = judge(&claims, &hw, id, &ring_machine(0.12, 0.01));
    assert_eq!(o.verdict, Verdict::Reproduced);
    assert!(o.evidence.contains("2 GPUs × 6 of 2048: 1.02×") && o.evidence.contains("6 islands per GPU, the paper: 1"), "{}", o.evidence);
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("all islands on one GPU") && b.contains("12 vs 6 islands of 2048: 1.78×")));
    // The gpu profile's grid alone: not the paper's setting.
    let o = judge(&claims, &hw, id, &knee_grid(Some(132)));
    assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("separate GPUs")), "{:?}", o.verdict);
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("14 vs 1 islands of 2048: 7.17×")), "{:?}", o.beyond);
    let o = judge(&claims, &hw, id, &cpu_only());
    assert_eq!(o.verdict, Verdict::NotRun(NotRun::Here("libcuda not found".into())));
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("the CPU's 2 threads")), "{:?}", o.beyond);
}

#[test]
fn the_knee_is_judged_only_when_its_bracket_is_decided() {
    let (claims, hw) = shipped();
    let id = "saturation_knee";
    // 132 SMs: 512 × 132 / 16 = 4224 predicted; flat up to 3584, above from 7168 — inside 2112–8448.
    let o = judge(&claims, &hw, id, &knee_grid(Some(132)));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!((o.ratio.unwrap() - (3584.0f64 * 7168.0).sqrt().round() / 4224.0).abs() < 1e-9);
    assert!(o.evidence.contains("up to 3584 individuals on the GPU, above from 7168"), "{}", o.evidence);
    // 64 SMs: 2048 predicted, band 1024–4096; the bracket 3584–7168 straddles its edge.
    let o = judge(&claims, &hw, id, &knee_grid(Some(64)));
    assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("between 3584 and 7168")), "{:?}", o.verdict);
    assert_eq!(kind(&claims, &hw, id, &knee_grid(None)), VerdictKind::NotRun);
    assert_eq!(judge(&claims, &hw, id, &cpu_only()).verdict, Verdict::NotRun(NotRun::Here("libcuda not found".into())));
}

#[test]
fn migration_is_judged_on_the_ring_and_one_shared_gpu_goes_beyond() {
    let (claims, hw) = shipped();
    let id = "migration_negligible";
    let o = judge(&claims, &hw, id, &ring_machine(0.12, 0.015));
    assert_eq!(o.verdict, Verdict::Reproduced);
    assert!(o.evidence.starts_with("the ring over several GPUs (NCCL), 2048 per island: 12 islands (6+6): 1.50%"), "{}", o.evidence);
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("6 islands: 1.00%")), "{:?}", o.beyond);
    let mut rows = vec![grid(CUDA, 1, 2048, 1.0, 0.06)];
    rows.extend((0..3).map(|r| grid(CUDA, 14, 2048, 1.0, 0.24).with("migration_ms", 1.2).with("run", r)));
    let o = judge(&claims, &hw, id, &machine(rows, Some(132), &[]));
    assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("separate GPUs")), "{:?}", o.verdict);
    assert!(o.beyond.as_deref().is_some_and(|b| b.starts_with("all islands on one GPU, 2048 per island: 14 islands:")), "{:?}", o.beyond);
    let o = judge(&claims, &hw, id, &cpu_only());
    assert_eq!(o.verdict, Verdict::NotRun(NotRun::Here("libcuda not found".into())));
    assert_eq!(o.beyond.as_deref(), Some("all islands on the CPU's threads (sizes of the grid): 0.10%–0.10%"));
    // No run at 2048 per island.
    let rows = vec![ring(6, 256, 0.06, 0.01, ""), ring(6, 256, 0.06, 0.01, "3+3")];
    assert_eq!(kind(&claims, &hw, id, &machine(rows, Some(132), &[])), VerdictKind::NotRun);
    // With a spec asking for repeated runs, one ring run is too few.
    let (strict, hw) = bind(&SHIPPED.replace("size = 2048, min_n = 1", "size = 2048, min_n = 3")).unwrap();
    assert_eq!(judge(&strict, &hw, id, &ring_machine(0.12, 0.015)).verdict, crate::claims::testing::too_few(1, 3));
}

#[test]
fn thread_scaling_is_judged_on_the_papers_thread_counts_only() {
    let (claims, hw) = shipped();
    let id = "threads_scale";
    let o = judge(&claims, &hw, id, &speed_machine(12, 0.9, 50.0, &[]));
    assert_eq!(o.verdict, Verdict::Reproduced);
    assert!((o.ratio.unwrap() - 0.9 / (11.32 / 12.0)).abs() < 1e-9);
    let o = judge(&claims, &hw, id, &speed_machine(16, 0.9, 50.0, &[]));
    assert!(
        matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("are 16, outside the paper's 6–12")),
        "{:?}",
        o.verdict
    );
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("efficiency on 16 threads: 128: 0.900")), "{:?}", o.beyond);
    assert_eq!(kind(&claims, &hw, id, &machine(vec![], None, &[])), VerdictKind::NotRun);
}

#[test]
fn a_gpu_speedup_far_above_the_paper_differs_only_where_the_hardware_predicts_it() {
    let (claims, hw) = shipped();
    let id = "gpu_speedup";
    let o = judge(&claims, &hw, id, &speed_machine(12, 0.9, 60.0, &[]));
    assert_eq!(o.verdict, Verdict::Reproduced);
    assert!(o.beyond.as_deref().is_some_and(|b| b.contains("split kernels (not the paper's): peak 120×")), "{:?}", o.beyond);
    // 660× is 11.7× the paper's: without this machine's int32 rate and clock, no prediction.
    let o = judge(&claims, &hw, id, &speed_machine(12, 0.9, 660.0, &[]));
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("11.7× the paper's") && o.evidence.contains("not measured on this machine"), "{}", o.evidence);
    // An H100's 29241 G int32/s over 790.5, a 3.0 GHz core over 3.06: 37.7× predicted.
    let h100 = [("gpu_int32", 29241.0), ("cpu_clock", 3.0)];
    let o = judge(&claims, &hw, id, &speed_machine(12, 0.9, 2000.0, &h100));
    assert!(matches!(&o.verdict, Verdict::Differs(e) if e.to_string().contains("predicts 37.7×")), "{:?}", o.verdict);
    // … which misses 660× (11.7×) by more than 2×.
    let o = judge(&claims, &hw, id, &speed_machine(12, 0.9, 660.0, &h100));
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("by up to 3.22×"), "{}", o.evidence);
    assert_eq!(judge(&claims, &hw, id, &cpu_only()).verdict, Verdict::NotRun(NotRun::Here("libcuda not found".into())));
}

#[test]
fn every_step_of_figure_4_must_be_a_gain_by_its_welch_interval() {
    let (claims, hw) = shipped();
    let id = "island_steps_significant";
    let o = judge(&claims, &hw, id, &steps_grid(10, 1000.0));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    // 10 runs spread 0..9 on each side: difference 1000, half-width t(18) · sqrt(2 · 9.17 / 10) = 2.84.
    assert!(o.evidence.contains("6 → 7 islands of 128: +1000 ± 3 (Welch 95%, n = 10 / 10, better)"), "{}", o.evidence);
    assert!(o.evidence.contains("12 → 14 islands of 2048: +1000 ± 3"), "{}", o.evidence);
    // 1 → 7 spans two steps of the fixture.
    assert!(o.evidence.contains("1 → 7 islands of 128: +2000 ± 3"), "{}", o.evidence);
    let tie = judge(&claims, &hw, id, &steps_grid(10, 0.0));
    assert_eq!(tie.verdict, Verdict::NotReproduced(None));
    assert!(tie.evidence.contains("(Welch 95%, n = 10 / 10, tie)"), "{}", tie.evidence);
    assert_eq!(judge(&claims, &hw, id, &steps_grid(10, -1000.0)).verdict, Verdict::NotReproduced(None));
    assert_eq!(judge(&claims, &hw, id, &steps_grid(3, 1000.0)).verdict, crate::claims::testing::too_few(3, 10));
    // A grid without 6 and 12 islands: the steps it lacks are named and the claim is not reproduced on the rest.
    let o = judge(&claims, &hw, id, &fitness(10, 1000.0));
    assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("6 → 7 of 128")), "{:?}", o.verdict);
    assert_eq!(kind(&claims, &hw, id, &machine(vec![], None, &[])), VerdictKind::NotRun);
}

#[test]
fn table_two_is_judged_where_the_gpus_held_one_island_each() {
    let (claims, hw) = shipped();
    let id = "cores_beat_one_gpu";
    // All threads 1 ms, the GPU 2 ms: 0.5× against the paper's 0.48×.
    let o = judge(&claims, &hw, id, &table_machine(1, 128, 2.0, 1, &[]));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!(o.evidence.contains("1 island on 1 GPU over all 16 CPU threads, 128 per island, 100 generations"), "{}", o.evidence);
    // The GPU 5× faster than the cores: 10.4× the paper's; without ceilings no prediction.
    let o = judge(&claims, &hw, id, &table_machine(1, 128, 0.2, 1, &[]));
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced);
    assert!(o.evidence.contains("10.4× the paper's"), "{}", o.evidence);
    // 10 × the GTX 580's int32 rate, the same clock and 24 cores: 10× predicted, 10.4× measured.
    let o = judge(&claims, &hw, id, &table_machine(1, 128, 0.2, 1, &[("gpu_int32", 7905.0), ("cpu_clock", 3.06)]));
    assert!(matches!(&o.verdict, Verdict::Differs(e) if e.to_string().contains("predicts 10.0×")), "{:?}", o.verdict);
    assert_eq!(kind(&claims, &hw, id, &machine(vec![], None, &[])), VerdictKind::NotRun);
    let cpu = machine(vec![table(CPU_1T, 1, 128, 10.0, 0.0), table(CPU_MT, 1, 128, 1.0, 0.0), not_run("table", CUDA, "no GPU")], None, &[]);
    assert_eq!(judge(&claims, &hw, id, &cpu).verdict, Verdict::NotRun(NotRun::Here("no GPU".into())));
    // 14 islands sharing one GPU: beyond the paper.
    let id = "fourteen_gpus_over_cores";
    let o = judge(&claims, &hw, id, &table_machine(14, 1024, 0.05, 1, &[]));
    assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("shared 1 GPU")), "{:?}", o.verdict);
    assert!(o.beyond.as_deref().is_some_and(|b| b.ends_with(": 20.0×")), "{:?}", o.beyond);
    assert_eq!(judge(&claims, &hw, id, &table_machine(14, 1024, 1.0 / 35.0, 14, &[])).verdict, Verdict::Reproduced);
}

#[test]
fn the_sustained_rate_is_the_peak_share_of_one_island_and_shared_gpus_go_beyond() {
    let (claims, hw) = shipped();
    let id = "sustained_rate";
    let ops = crate::gpu::island::operations_per_generation(10_000, 2048, 1, 0.7);
    // 0.058 ms per generation on a 29,415 G/s ceiling.
    let share = ops / 0.058e-3 / 29_415e9;
    let o = judge(&claims, &hw, id, &rate_machine(0.058, Some(29_415.0)));
    assert_eq!(o.verdict, Verdict::Reproduced, "{}", o.evidence);
    assert!((o.ratio.unwrap() - share / 0.26).abs() < 1e-9, "{:?}", o.ratio);
    assert!(
        o.evidence.contains("512 pairs, a warp each: 3.88 warps per SM on this GPU's 132 SMs, 32.0 on the paper's 16"),
        "{}",
        o.evidence
    );
    assert!(o.beyond.as_deref().is_some_and(|b| b.starts_with("islands sharing one GPU, peak: 14 × 2048")), "{:?}", o.beyond);
    let o = judge(&claims, &hw, id, &rate_machine(0.5, Some(29_415.0)));
    assert_eq!(o.verdict.kind(), VerdictKind::NotReproduced, "{}", o.evidence);
    // No int32 ceiling in the records: no share.
    let o = judge(&claims, &hw, id, &rate_machine(0.058, None));
    assert!(matches!(&o.verdict, Verdict::NotRun(NotRun::Here(why)) if why.contains("int32 ceiling")), "{:?}", o.verdict);
    assert_eq!(judge(&claims, &hw, id, &cpu_only()).verdict, Verdict::NotRun(NotRun::Here("libcuda not found".into())));
}

#[test]
fn bad_parameters_are_spec_errors_with_line_and_key() {
    let e = bind(&SHIPPED.replace("band = [0.67, 1.5]", "band = [1.5, 0.67]")).err().unwrap().to_string();
    assert!(e.contains("claims.islands_add_no_time.params") && e.contains("not an interval"), "{e}");
    let e =
        bind(&SHIPPED.replace("islands = [1, 14], sizes = [128, 2048], min_n = 10", "islands = [1, 14], sizes = [128, 2048], min_n = 1"))
            .err()
            .unwrap()
            .to_string();
    assert!(e.contains("claims.more_islands_better.params.min_n") && e.contains("at least 2"), "{e}");
    let e = bind(&SHIPPED.replace("flat = 1.1", "flat = 0.9")).err().unwrap().to_string();
    assert!(e.contains("claims.saturation_knee.params.flat"), "{e}");
    let e = bind(&SHIPPED.replace("steps = [[6, 7],", "steps = [[7, 6],")).err().unwrap().to_string();
    assert!(e.contains("claims.island_steps_significant.params.steps") && e.contains("not 7 → 6"), "{e}");
    let e = bind(&SHIPPED.replace("paper_share = 0.26", "paper_share = 26.0")).err().unwrap().to_string();
    assert!(e.contains("claims.sustained_rate.params.paper_share"), "{e}");
    let e = bind(&SHIPPED.replace("max_share = 0.02", "max_share = \"2%\"")).err().unwrap().to_string();
    assert!(e.contains("experiments/island.toml:") && e.contains("invalid type"), "{e}");
}
