//! The island-GA paper through the built binary: the quick profile end to end on
//! the CPU, and impossible spec values rejected with file, line and key (a
//! missing or malformed instance: `tests/paths.rs`).

use evorepro::experiments::island::rows::{IslandsCase, RunRow};
use evorepro::experiments::plan::CASE_SECONDS;
use evorepro::records::col;

mod common;

#[test]
fn island_quick_profile_on_cpu_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    common::reproduce_quick_cpu("island", tmp.path());
    let dir = tmp.path().join("island");
    let report = common::report_with_pages(&dir);
    for s in ["## Figure 4", "## Figure 5", "## Figure 7", "## Tables I and II", "## Claims", "not run here (--backend cpu)"] {
        assert!(report.contains(s), "REPORT.md and its machine pages lack `{s}`");
    }
    let parquet =
        std::fs::read_dir(dir.join("records")).unwrap().flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|e| e == "parquet"));
    let rows = evorepro::records::read_parquet(&parquet.expect("a Parquet record file")).unwrap();
    let grid: Vec<_> = rows.iter().filter(|r| r.str(col::FIGURE) == "grid" && r.is_ok()).collect();
    assert_eq!(grid.len(), 3 * 2 * 2, "quick grid: 3 island counts × 2 sizes × 2 runs");
    for r in &grid {
        // The best solution is feasible, below the optimum, and the phases add up.
        let case = r.str(col::CASE_ID);
        let run: RunRow = r.row().unwrap();
        let gap = run.gap.unwrap();
        assert!(gap > 0.0 && gap < 0.5, "{case}: gap {gap}");
        assert!(run.feasible, "{case}");
        // Half-density starts sit at the paper's capacity (half the total weight): feasible individuals from
        // generation 0, on every island.
        let individuals = run.feasible_individuals.unwrap();
        assert!(individuals > 0.0 && individuals <= 1.0, "{case}: {individuals}");
        assert_eq!((run.feasible_islands, run.first_feasible), (Some(1.0), Some(0)), "{case}");
        let phases: f64 =
            [run.manipulation_ms, run.evaluation_ms.unwrap(), run.replacement_ms.unwrap(), run.migration_ms, run.statistics_ms.unwrap()]
                .iter()
                .sum();
        let total = run.total_ms;
        assert!((phases - total).abs() <= 1e-6 * total.max(1.0), "{case}: phases {phases} ms vs total {total} ms");
    }
    // Speed cases ran on one thread and on all threads, with identical results
    // (the case would have failed otherwise).
    let speed = |method: &str| rows.iter().filter(|r| r.str(col::FIGURE) == "speed" && r.str(col::METHOD) == method).count();
    assert_eq!(speed("cpu-1t"), 3);
    assert_eq!(speed("cpu-mt"), 3);
    // Table cases: the same islands and generations on one thread and on all threads (identical results, or the
    // case fails), the GPU's row not run with --backend cpu.
    for islands in [1, 2] {
        let table: Vec<_> = rows.iter().filter(|r| r.str(col::CASE_ID) == format!("table/i{islands}/n128")).collect();
        let methods: Vec<(&str, &str)> = table.iter().map(|r| (r.str(col::METHOD), r.str(col::STATUS))).collect();
        assert_eq!(methods, [("cpu-1t", "ok"), ("cpu-mt", "ok"), ("cuda", "not_run")], "table/i{islands}/n128");
        let runs: Vec<(RunRow, IslandsCase)> = table[..2].iter().map(|r| (r.row().unwrap(), r.row().unwrap())).collect();
        assert_eq!(runs[0].0.best, runs[1].0.best, "table/i{islands}/n128");
        assert_eq!((runs[0].1.generations, runs[1].1.generations), (20, 20));
    }
    assert!(report.contains("Table II — speedup of the GPU over all "), "REPORT.md lacks Table II");
    // Each row carries its case's time, from which a dry run estimates: every
    // case is stored and timed on this machine, and the dry run writes nothing.
    assert!(grid.iter().all(|r| r.float(CASE_SECONDS).is_some_and(|s| s > 0.0)));
    let listing = |d: &std::path::Path| {
        let mut l: Vec<_> = walk(d).into_iter().map(|p| (std::fs::metadata(&p).unwrap().modified().unwrap(), p)).collect();
        l.sort();
        l
    };
    let before = listing(tmp.path());
    let o = common::evorepro(&["reproduce".as_ref(), "island".as_ref(), "--dry-run".as_ref(), "--out".as_ref(), tmp.path().as_os_str()]);
    assert!(o.status.success(), "{}", common::describe(&o));
    let plan = String::from_utf8_lossy(&o.stdout);
    for needle in ["| grid | 12 | 12 |", "this machine (12)", "| speed | 3 | 3 |", "| table | 2 | 2 |", "17 cases, 17 already stored here"]
    {
        assert!(plan.contains(needle), "the dry run lacks `{needle}`:\n{plan}");
    }
    assert_eq!(listing(tmp.path()), before, "the dry run wrote something");
}

/// Every file below `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}

#[test]
fn island_spec_with_impossible_values_names_file_line_and_key() {
    common::assert_spec_edit_rejected("island", "mutation = 0.001", "mutation = 1.5", &["settings.mutation", "1.5"]);
    common::assert_spec_edit_rejected("island", "optimum = 2839205", "optimum = 0", &["settings.optimum"]);
    common::assert_spec_edit_rejected("island", "grid_sizes = [128, 256]", "grid_sizes = [128, 257]", &["profiles.quick", "257"]);
}

#[test]
fn an_optimum_that_contradicts_the_instance_names_file_line_and_value() {
    // Above Dantzig's bound, and below the greedy solution: both refused before any write, naming the spec's line.
    let root = env!("CARGO_MANIFEST_DIR");
    let shipped = std::fs::read_to_string(format!("{root}/experiments/island.toml")).unwrap();
    let instance = format!("instance = \"{root}/datasets/knapsack/jaros_knap_10000.txt\"");
    for (optimum, says) in [("3000000", "exceeds Dantzig's linear-relaxation bound"), ("1000", "a feasible solution worth")] {
        let tmp = tempfile::tempdir().unwrap();
        let edited = shipped.replacen("instance = \"../datasets/knapsack/jaros_knap_10000.txt\"", &instance, 1).replacen(
            "optimum = 2839205",
            &format!("optimum = {optimum}"),
            1,
        );
        let line = edited.lines().position(|l| l.starts_with("optimum = ")).unwrap() + 1;
        let spec = tmp.path().join("bad.toml");
        std::fs::write(&spec, &edited).unwrap();
        let out = tmp.path().join("out");
        let args = ["reproduce".as_ref(), "island".as_ref(), "--spec".as_ref(), spec.as_os_str(), "--out".as_ref(), out.as_os_str()];
        let o = common::evorepro(&args);
        assert!(!o.status.success(), "optimum {optimum} was accepted: {}", common::describe(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        for needle in [format!("bad.toml:{line}"), "settings.optimum".into(), optimum.into(), says.into()] {
            assert!(err.contains(&needle), "stderr does not name `{needle}`:\n{err}");
        }
        assert!(!out.exists(), "files were written for a rejected spec");
    }
}

#[test]
fn a_grid_too_big_for_this_machine_is_refused_before_any_write() {
    // Each value is within its limit; together 1024 islands × 65,536 individuals
    // of 10,000 items need about 157 GiB, more than a CI machine or a GPU holds.
    let tmp = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let shipped = std::fs::read_to_string(format!("{root}/experiments/island.toml")).unwrap();
    let from = "grid_islands = [1, 2, 4]\ngrid_sizes = [128, 256]";
    assert!(shipped.contains(from), "experiments/island.toml no longer has `{from}`");
    let instance = format!("{root}/datasets/knapsack/jaros_knap_10000.txt");
    let edited = shipped.replacen(from, "grid_islands = [1024]\ngrid_sizes = [65536]", 1).replacen(
        "instance = \"../datasets/knapsack/jaros_knap_10000.txt\"",
        &format!("instance = {instance:?}"),
        1,
    );
    let line = edited[..edited.find("grid_sizes = [65536]").unwrap()].matches('\n').count() + 1;
    let spec = tmp.path().join("big.toml");
    std::fs::write(&spec, &edited).unwrap();
    let out = tmp.path().join("out");
    let o = common::evorepro(&[
        "reproduce".as_ref(),
        "island".as_ref(),
        "--spec".as_ref(),
        spec.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--backend".as_ref(),
        "cpu".as_ref(),
    ]);
    assert!(!o.status.success(), "the grid was accepted: {}", common::describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for needle in
        [format!("big.toml:{line}"), "profiles.quick.grid_sizes".into(), "grid/i1024/n65536/r0".into(), "GiB of host memory".into()]
    {
        assert!(err.contains(&needle), "stderr does not name `{needle}`:\n{err}");
    }
    assert!(!out.exists(), "files were written for a profile that cannot fit");
}

#[test]
fn max_cases_runs_that_many_and_resume_completes_the_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["reproduce", "island", "--profile", "quick", "--backend", "cpu", "--out", out];
        args.extend(extra);
        let o = common::evorepro(&args);
        assert!(o.status.success(), "{}", common::describe(&o));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let err = run(&["--max-cases", "2"]);
    assert!(err.contains("--max-cases 2: running 2 of the "), "{err}");
    let first = common::stored_cases(tmp.path(), "island");
    assert_eq!(first.len(), 2, "{first:?}");
    // The rest, in the same order, with the first two kept as they were.
    run(&["--resume"]);
    let all = common::stored_cases(tmp.path(), "island");
    assert!(all.len() > 2, "{all:?}");
    for (case, rows) in &first {
        assert_eq!(all.get(case), Some(rows), "{case}: rows changed by --resume");
    }
}

#[test]
fn max_cases_zero_is_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = common::evorepro(&["reproduce", "island", "--profile", "quick", "--max-cases", "0", "--out", out.to_str().unwrap()]);
    assert!(!o.status.success(), "{}", common::describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--max-cases") && err.contains('0'), "{err}");
    assert!(!out.exists(), "files were written for a refused --max-cases 0");
}
