//! Where the built binary finds specs and data: the repository root (found from
//! the current folder or the binary, or given by `--root`), data paths relative
//! to the spec file and confined to the root unless `--allow-outside`, and every
//! data file opened and checked before anything is written.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs the binary with `dir` as the current folder.
fn evorepro_in<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_evorepro")).args(args).current_dir(dir).output().expect("the evorepro binary starts")
}

/// Exit status and both streams, for assertion messages.
fn describe(o: &Output) -> String {
    format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", o.status.code(), String::from_utf8_lossy(&o.stdout), stderr(o))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every path below `dir` with the bytes of each file (None for a folder), sorted.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
                out.push((p, None));
            } else {
                out.push((p.clone(), Some(std::fs::read(&p).unwrap())));
            }
        }
    }
    out.sort();
    out
}

/// The shipped spec of `paper` with `from` replaced by `to` (once).
fn shipped_with(paper: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(Path::new(ROOT).join(format!("experiments/{paper}.toml"))).unwrap();
    assert!(text.contains(from), "experiments/{paper}.toml no longer has `{from}`");
    text.replacen(from, to, 1)
}

const INSTANCE: &str = "instance = \"../datasets/knapsack/jaros_knap_10000.txt\"";

/// The island spec naming `instance` (the 40-item instance: its optimum, 4068, replaces
/// the 10,000-item one's, which the certified bounds would refuse), with a profile
/// `tiny` of one short grid run and one speed case.
fn tiny_island(instance: &str) -> String {
    let tiny =
        "[profiles.tiny]\ngrid_islands = [1]\ngrid_sizes = [8]\ngenerations = 4\nruns = 1\nspeed_sizes = [8]\nspeed_generations = 2\n\n";
    shipped_with("island", INSTANCE, &format!("instance = {instance:?}")).replacen("optimum = 2839205", "optimum = 4068", 1).replacen(
        "[profiles.quick]",
        &format!("{tiny}[profiles.quick]"),
        1,
    )
}

/// A repository in `dir`: `experiments/island.toml` (the tiny island spec naming
/// `instance`) and the 40-item instance under `datasets/knapsack/`.
fn tiny_repository(dir: &Path, instance: &str) {
    std::fs::create_dir_all(dir.join("experiments")).unwrap();
    std::fs::create_dir_all(dir.join("datasets/knapsack")).unwrap();
    std::fs::copy(Path::new(ROOT).join("datasets/knapsack/jaros_knap_40.txt"), dir.join("datasets/knapsack/jaros_knap_40.txt")).unwrap();
    std::fs::write(dir.join("experiments/island.toml"), tiny_island(instance)).unwrap();
}

#[test]
fn run_from_another_folder_the_binary_finds_its_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(ROOT).unwrap();
    let o = evorepro_in(tmp.path(), &["list", "--out", "r"]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("island"), "{}", describe(&o));
    // The spec read is the repository's file, not the built-in copy.
    let o = evorepro_in(tmp.path(), &["reproduce", "island", "--profile", "nosuch", "--out", "r"]);
    let want = format!("{}: no profile `nosuch`", root.join("experiments/island.toml").display());
    assert!(!o.status.success() && stderr(&o).contains(&want), "{want}: {}", describe(&o));
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none(), "files were written");
}

#[test]
fn root_option_and_data_paths_relative_to_the_spec() {
    let tmp = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(tmp.path()).unwrap();
    let (repo, elsewhere) = (top.join("repo"), top.join("elsewhere"));
    tiny_repository(&repo, "../datasets/knapsack/jaros_knap_40.txt");
    std::fs::create_dir(&elsewhere).unwrap();
    // From another folder with --root: the root's spec, its data beside it; --out stays relative to the current folder.
    let o = evorepro_in(&elsewhere, &["--root", "../repo", "reproduce", "island", "--profile", "tiny", "--backend", "cpu", "--out", "out"]);
    assert!(o.status.success(), "{}", describe(&o));
    let report = std::fs::read_to_string(elsewhere.join("out/island/REPORT.md")).unwrap();
    assert!(report.contains("(`datasets/knapsack/jaros_knap_40.txt`, optimum"), "the report names the instance from the root");
    // The root found from the current folder when it holds experiments/ and datasets/.
    let o = evorepro_in(&repo, &["reproduce", "island", "--profile", "nosuch"]);
    assert!(stderr(&o).contains(&format!("{}: no profile", repo.join("experiments/island.toml").display())), "{}", describe(&o));
    // A root without experiments/: the built-in spec, its data paths resolved from ROOT/experiments.
    let o = evorepro_in(&elsewhere, &["--root", ".", "reproduce", "island", "--backend", "cpu", "--out", "out2"]);
    let err = stderr(&o);
    let want = elsewhere.join("datasets/knapsack/jaros_knap_10000.txt");
    assert!(err.contains("<built-in>/experiments/island.toml") && err.contains(&want.display().to_string()), "{}", describe(&o));
    assert!(!elsewhere.join("out2").exists(), "files were written");
    let o = evorepro_in(&elsewhere, &["list", "--root", "../nosuch"]);
    assert!(!o.status.success() && stderr(&o).contains("--root ../nosuch: not a folder"), "{}", describe(&o));
}

#[test]
fn data_outside_the_root_is_refused_naming_file_line_and_key_unless_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(tmp.path()).unwrap();
    let repo = top.join("repo");
    tiny_repository(&repo, "../../outside.txt");
    std::fs::write(top.join("outside.txt"), "2\n1 x\n").unwrap();
    let spec = repo.join("experiments/island.toml");
    let line = tiny_island("../../outside.txt").lines().position(|l| l.starts_with("instance =")).unwrap() + 1;
    let args = ["--root", "repo", "reproduce", "island", "--backend", "cpu", "--out", "out"];
    let o = evorepro_in(&top, &args);
    let want = format!(
        "{}:{line}: `settings.instance`: `../../outside.txt` resolves to {}, outside the repository root {}; --allow-outside permits it",
        spec.display(),
        top.join("outside.txt").display(),
        repo.display()
    );
    assert!(!o.status.success() && stderr(&o).contains(&want), "{want}\n{}", describe(&o));
    // Allowed, the file is opened (and found malformed, naming it and its line) before anything is written.
    let o = evorepro_in(&top, &[&args[..], &["--allow-outside"]].concat());
    assert!(!o.status.success() && stderr(&o).contains(&format!("{}:2", top.join("outside.txt").display())), "{}", describe(&o));
    assert!(!top.join("out").exists(), "files were written");
    // A spec outside the root reaches its own folder, not beyond it.
    std::fs::write(top.join("beside.toml"), tiny_island("../elsewhere.txt")).unwrap();
    let o = evorepro_in(&top, &["--root", "repo", "reproduce", "island", "--spec", "beside.toml", "--out", "out"]);
    assert!(!o.status.success() && stderr(&o).contains(&format!("outside the spec's folder {}", top.display())), "{}", describe(&o));
}

/// `reproduce <paper> --spec <spec> --out <out>` with records already in `out`: it
/// must fail within seconds naming `names`, and leave `out` byte for byte as it was.
fn fails_before_any_write(paper: &str, spec: &Path, out: &Path, names: &str) {
    let before = snapshot(out);
    let started = Instant::now();
    let o = evorepro_in(
        Path::new(ROOT),
        &[
            "reproduce".as_ref(),
            paper.as_ref(),
            "--spec".as_ref(),
            spec.as_os_str(),
            "--backend".as_ref(),
            "cpu".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ],
    );
    let took = started.elapsed();
    assert!(!o.status.success() && stderr(&o).contains(names), "stderr does not name {names}: {}", describe(&o));
    eprintln!("{paper}: failed in {took:.2?}");
    assert!(took < Duration::from_secs(5), "{paper}: failed only after {took:?}");
    assert!(snapshot(out) == before, "{paper}: the records folder changed");
}

/// `out/<paper>/records/` holding a copy of the committed record files of `paper`
/// (with their checksums and CSV copies; not the archive).
fn records_copied(out: &Path, paper: &str) {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            if e.path().is_file() {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            } else if e.file_name() != evorepro::records::ARCHIVE_DIR {
                copy(&e.path(), &to.join(e.file_name()));
            }
        }
    }
    let records = out.join(paper).join("records");
    copy(&Path::new(ROOT).join("reports").join(paper).join("records"), &records);
    assert!(!evorepro::records::record_files(&records).is_empty());
}

#[test]
fn a_missing_or_malformed_data_file_fails_before_the_records_are_touched() {
    let tmp = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(tmp.path()).unwrap();
    let out = top.join("out");
    records_copied(&out, "island");
    records_copied(&out, "biohel");
    let spec = top.join("island.toml");
    std::fs::write(&spec, shipped_with("island", INSTANCE, "instance = \"no_such_instance.txt\"")).unwrap();
    fails_before_any_write("island", &spec, &out, &top.join("no_such_instance.txt").display().to_string());
    std::fs::write(top.join("bad.txt"), "3\n1 2 x\n").unwrap();
    std::fs::write(&spec, shipped_with("island", INSTANCE, "instance = \"bad.txt\"")).unwrap();
    fails_before_any_write("island", &spec, &out, &format!("{}:2", top.join("bad.txt").display()));
    std::fs::create_dir(top.join("nodata")).unwrap();
    let spec = top.join("biohel.toml");
    std::fs::write(&spec, shipped_with("biohel", "data_dir = \"../datasets/biohel\"", "data_dir = \"nodata\"")).unwrap();
    fails_before_any_write("biohel", &spec, &out, &top.join("nodata").display().to_string());
}
