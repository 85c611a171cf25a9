//! Issue #38's second round, through the built binary: `reproduce all` checks
//! every paper before any case runs, merge refuses a shard that did not finish,
//! and values that were silently accepted are refused with what to fix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn evorepro_in<S: AsRef<std::ffi::OsStr>>(dir: &Path, args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evorepro")).args(args).current_dir(dir).output().expect("the evorepro binary starts")
}

fn describe(o: &Output) -> String {
    format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", o.status.code(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every file below `dir`, sorted; empty if `dir` is absent.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for p in std::fs::read_dir(&d).into_iter().flatten().flatten().map(|e| e.path()) {
            if p.is_dir() { stack.push(p) } else { out.push(p) }
        }
    }
    out.sort();
    out
}

#[test]
fn reproduce_all_checks_every_paper_s_spec_and_data_before_the_first_case() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::create_dir_all(repo.join("experiments")).unwrap();
    std::fs::create_dir_all(repo.join("datasets")).unwrap();
    let all = ["reproduce", "all", "--profile", "quick", "--backend", "cpu", "--max-cases", "1", "--out", "out"];
    // The third paper's spec is broken: the first two ran before.
    let gboa = std::fs::read_to_string(Path::new(ROOT).join("experiments/gboa.toml")).unwrap();
    let broken = gboa.replacen("generations = 40", "generations = 0", 1);
    let line = broken[..broken.find("generations = 0").unwrap()].matches('\n').count() + 1;
    std::fs::write(repo.join("experiments/gboa.toml"), broken).unwrap();
    let o = evorepro_in(&repo, &all);
    assert!(!o.status.success() && stderr(&o).contains(&format!("gboa.toml:{line}:")), "{}", describe(&o));
    assert_eq!(files(&repo.join("out")), Vec::<PathBuf>::new(), "cases ran before the broken spec was found");
    // The spec mended, BioHEL's data missing (datasets/ is empty): the fourth paper's data, found first.
    std::fs::remove_file(repo.join("experiments/gboa.toml")).unwrap();
    let o = evorepro_in(&repo, &all);
    let missing = repo.join("datasets/biohel").display().to_string();
    assert!(!o.status.success() && stderr(&o).contains(&missing), "{}", describe(&o));
    assert_eq!(files(&repo.join("out")), Vec::<PathBuf>::new(), "cases ran before the missing data was found");
}

#[test]
fn a_dry_run_on_no_gpus_is_refused() {
    let o = evorepro_in(Path::new(ROOT), &["reproduce", "island", "--dry-run", "--gpus", "0"]);
    assert!(!o.status.success() && stderr(&o).contains("--gpus") && stderr(&o).contains("at least 1"), "{}", describe(&o));
}
