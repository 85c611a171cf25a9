//! The ECGA paper through the built binary: the quick profile end to end on the
//! CPU, and a spec with an impossible value rejected with file, line and key.

use std::path::Path;
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn evorepro<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evorepro")).args(args).current_dir(ROOT).output().expect("the evorepro binary starts")
}

fn describe(o: &Output) -> String {
    format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", o.status.code(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn ecga_quick_profile_on_cpu_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().as_os_str();
    let o = evorepro(&[
        "reproduce".as_ref(),
        "ecga".as_ref(),
        "--profile".as_ref(),
        "quick".as_ref(),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--out".as_ref(),
        out,
    ]);
    assert!(o.status.success(), "reproduce ecga: {}", describe(&o));
    let dir = tmp.path().join("ecga");
    let report = std::fs::read_to_string(dir.join("REPORT.md")).expect("REPORT.md written");
    for s in ["## Table 5", "## Figure 5", "## Figure 6", "## Figure 7", "## Claims", "not run here (--backend cpu)"] {
        assert!(report.contains(s), "REPORT.md lacks `{s}`");
    }
    let records: Vec<_> = std::fs::read_dir(dir.join("records")).unwrap().flatten().map(|e| e.path()).collect();
    let parquet = records.iter().find(|p| p.extension().is_some_and(|e| e == "parquet")).expect("a Parquet record file");
    assert!(records.iter().any(|p| p.extension().is_some_and(|e| e == "csv")), "no CSV copy: {records:?}");
    let rows = evorepro::records::read_parquet(parquet).unwrap();
    // Every CPU scorer of every Figure 5 run reproduced the first scorer's run exactly.
    let fig5: Vec<_> = rows.iter().filter(|r| r.str("figure") == "fig5" && r.str("status") == "ok").collect();
    assert!(fig5.len() >= 6, "too few Figure 5 rows: {}", fig5.len());
    for r in &fig5 {
        assert_eq!(
            r.get("identical"),
            &evorepro::records::Value::Bool(true),
            "scorer {} diverged in {}",
            r.str("scorer"),
            r.str("case_id")
        );
    }
    // Bisections found populations within a factor of 3 of the paper's Table 5.
    for r in rows.iter().filter(|r| r.str("figure") == "table5") {
        let (ell, n) = (r.int("ell").unwrap(), r.int("n_min").unwrap());
        let paper = if ell == 50 { 2376 } else { 6670 };
        assert!(n * 3 > paper && n < paper * 3, "ℓ = {ell}: bisection gave {n}, paper {paper}");
    }
    for ext in ["png", "svg"] {
        let figures: Vec<_> =
            std::fs::read_dir(dir.join("figures")).unwrap().flatten().filter(|e| e.path().extension().is_some_and(|x| x == ext)).collect();
        assert!(figures.len() >= 2, "expected Table 5 and Figure 5 charts as {ext}");
    }
}

#[test]
fn ecga_spec_with_impossible_trap_order_names_file_line_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(Path::new(ROOT).join("experiments/ecga.toml")).unwrap();
    let edited = original.replacen("k = 5\n", "k = 7\n", 1);
    assert_ne!(edited, original, "the spec no longer has `k = 5`");
    let line = edited[..edited.find("k = 7").unwrap()].matches('\n').count() + 1;
    let spec = tmp.path().join("bad.toml");
    std::fs::write(&spec, &edited).unwrap();
    let out = tmp.path().join("out");
    let o = evorepro(&["reproduce".as_ref(), "ecga".as_ref(), "--spec".as_ref(), spec.as_os_str(), "--out".as_ref(), out.as_os_str()]);
    assert!(!o.status.success(), "a trap order of 7 with MAX_L = 10 was accepted: {}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for needle in [format!("bad.toml:{line}"), "settings.k".into(), "7".into()] {
        assert!(err.contains(&needle), "stderr does not name `{needle}`:\n{err}");
    }
    assert!(!out.exists(), "files were written for a rejected spec");
}
