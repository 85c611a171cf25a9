//! Job arrays through the built binary: `reproduce --shard K/N` for K = 1..3,
//! then `evorepro merge`, stores the same cases and renders the same report
//! (numbers masked: timings differ run to run) as one process; merge refuses
//! a case stored twice, shards of another spec or commit, a missing shard and
//! (without `--partial`) a shard that did not finish;
//! bad `--shard` values are refused by name.

mod common;

use common::{describe, evorepro};
use evorepro::records::col;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The two papers whose quick profiles run fastest on the CPU.
const PAPERS: [&str; 2] = ["island", "layout"];

fn run(args: &[&OsStr]) -> std::process::Output {
    let o = evorepro(args);
    assert!(o.status.success(), "{args:?}: {}", describe(&o));
    o
}

fn shard(paper: &str, out: &Path, k: usize) {
    let s = format!("{k}/3");
    run(&[
        "reproduce".as_ref(),
        paper.as_ref(),
        "--backend".as_ref(),
        "cpu".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        "--shard".as_ref(),
        s.as_ref(),
    ]);
}

fn merge(paper: &str, out: &Path) -> std::process::Output {
    evorepro(&["merge".as_ref(), paper.as_ref(), "--out".as_ref(), out.as_os_str()])
}

fn parquets(dir: &Path) -> Vec<PathBuf> {
    evorepro::records::record_files(dir)
}

#[test]
fn three_shards_merged_equal_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    for paper in PAPERS {
        let one = tmp.path().join("one");
        common::reproduce_quick_cpu(paper, &one);
        let sharded = tmp.path().join("sharded");
        for k in 1..=3 {
            shard(paper, &sharded, k);
        }
        // Each shard has its own folder (its own writer) and no report is rendered before the merge.
        let shards = sharded.join(paper).join("records").join("_shards");
        for k in 1..=3 {
            let files = parquets(&shards.join(format!("quick__shard-{k}-of-3")));
            assert_eq!(files.len(), 1, "shard {k}: {files:?}");
        }
        assert!(!sharded.join(paper).join("REPORT.md").exists());
        let o = merge(paper, &sharded);
        assert!(o.status.success(), "merge {paper}: {}", describe(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("merged 3 shards"), "{}", describe(&o));
        let (a, b) = (common::stored_cases(&one, paper), common::stored_cases(&sharded, paper));
        assert!(!a.is_empty());
        assert_eq!(a, b, "{paper}: the merged shards hold other cases or rows than one process");
        assert_eq!(
            common::masked_report(&one, paper),
            common::masked_report(&sharded, paper),
            "{paper}: the reports differ beyond their numbers"
        );
        // The shard folders are archived only now, the merged file is the only one read.
        assert!(parquets(&shards).is_empty() && std::fs::read_dir(&shards).unwrap().next().is_none());
        assert_eq!(parquets(&sharded.join(paper).join("records")).len(), 1);
        assert_eq!(std::fs::read_dir(sharded.join(paper).join("records/_archive/shards")).unwrap().count(), 3);
    }
}

/// Three shards of island's quick profile under `out`, written once and copied per case.
fn island_shards(out: &Path) {
    for k in 1..=3 {
        shard("island", out, k);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Rewrites the records file `f` (and its checksum) with `edit` applied to every row.
fn rewrite(f: &Path, edit: impl Fn(&mut evorepro::records::Record)) {
    let mut rows = evorepro::records::read_parquet(f).unwrap();
    rows.iter_mut().for_each(edit);
    evorepro::records::write_parquet(&f.with_extension(""), &rows).unwrap();
}

#[test]
fn merge_refuses_duplicates_other_specs_or_commits_and_missing_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let made = tmp.path().join("made");
    island_shards(&made);
    let shard_file = |out: &Path, k: usize| parquets(&out.join(format!("island/records/_shards/quick__shard-{k}-of-3")))[0].clone();
    let fresh = |name: &str| {
        let out = tmp.path().join(name);
        copy_dir(&made, &out);
        out
    };
    let refused = |out: &Path, needles: &[&str]| {
        let o = merge("island", out);
        assert!(!o.status.success(), "merge accepted: {}", describe(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        for n in needles {
            assert!(err.contains(n), "`{n}` not in: {err}");
        }
        // Nothing was merged, nothing moved.
        assert!(parquets(&out.join("island/records")).is_empty());
        assert!(!out.join("island/records/_archive").exists());
    };

    // A case stored by two shards: shard 1's rows copied into shard 2's file.
    let out = fresh("duplicate");
    let (one, two) = (shard_file(&out, 1), shard_file(&out, 2));
    let mut rows = evorepro::records::read_parquet(&two).unwrap();
    let from_one = evorepro::records::read_parquet(&one).unwrap();
    let dup = from_one.iter().find(|r| r.str(col::RECORD_KIND) == "measurement").unwrap().str(col::CASE_ID).to_owned();
    rows.extend(from_one);
    evorepro::records::write_parquet(&two.with_extension(""), &rows).unwrap();
    refused(&out, &["cannot merge", &format!("case `{dup}`"), one.to_str().unwrap(), two.to_str().unwrap()]);

    // Another spec hash, then another commit, in shard 3.
    for (column, value) in [(col::SPEC_HASH, "0123abcd"), (col::GIT_COMMIT, "feedbeef")] {
        let out = fresh(column);
        let three = shard_file(&out, 3);
        rewrite(&three, |r| r.set(column, value));
        let first = shard_file(&out, 1);
        refused(&out, &["cannot merge", column, &format!("`{value}`"), first.to_str().unwrap(), three.to_str().unwrap()]);
    }

    // A shard that has not run.
    let out = fresh("missing");
    std::fs::remove_dir_all(out.join("island/records/_shards/quick__shard-2-of-3")).unwrap();
    refused(&out, &["no records from shard 2/3"]);

    // Unmerged shards are named in the report of what is merged.
    let out = fresh("noted");
    common::reproduce_quick_cpu("island", &out);
    let report = std::fs::read_to_string(out.join("island/REPORT.md")).unwrap();
    assert!(report.contains("Unmerged shards, not in this report") && report.contains("quick__shard-3-of-3"), "{report}");
}

/// A shard killed before its end (here: stopped by `--max-cases 1`) is refused
/// by merge, merged with `--partial` without archiving any shard, continued by
/// `--resume`, then merged whole.
#[test]
fn an_incomplete_shard_is_refused_merged_only_with_partial_and_resumed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    shard("island", &out, 1);
    shard("island", &out, 3);
    let args = |extra: &[&'static str]| -> Vec<std::ffi::OsString> {
        let mut a: Vec<std::ffi::OsString> =
            ["reproduce", "island", "--backend", "cpu", "--shard", "2/3", "--out"].iter().map(Into::into).collect();
        a.push(out.clone().into_os_string());
        a.extend(extra.iter().map(Into::into));
        a
    };
    let run = |a: Vec<std::ffi::OsString>| run(&a.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
    run(args(&["--max-cases", "1"]));
    let records = out.join("island/records");
    let o = merge("island", &out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("shard 2/3 stored 1 of its") && err.contains("--partial"), "{}", describe(&o));
    assert!(err.contains("--shard 2/3 --resume"), "{err}");
    assert!(parquets(&records).is_empty() && !records.join("_archive").exists(), "a refused merge wrote or moved files");
    // --partial merges what is stored and leaves every shard where it was.
    let o = evorepro(&["merge".as_ref(), "island".as_ref(), "--partial".as_ref(), "--out".as_ref(), out.as_os_str()]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("--partial: shard 2/3"), "{}", describe(&o));
    assert_eq!(parquets(&records).len(), 1);
    assert!(!records.join("_archive/shards").exists(), "a partial merge archived shards");
    assert_eq!(std::fs::read_dir(records.join("_shards")).unwrap().count(), 3);
    // --resume continues the shard: its first case is not run again.
    let o = run(args(&["--resume"]));
    assert!(String::from_utf8_lossy(&o.stderr).contains("resuming: 1 of"), "{}", describe(&o));
    let o = merge("island", &out);
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(std::fs::read_dir(records.join("_archive/shards")).unwrap().count(), 3);
}

#[test]
fn bad_shard_values_are_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    for (value, why) in [
        ("0/3", "K = 0 is outside 1..=3"),
        ("4/3", "K = 4 is outside 1..=3"),
        ("1/0", "N must be at least 1"),
        ("2", "no `/`"),
        ("x/3", "K = `x`"),
    ] {
        let o = evorepro(&[
            "reproduce".as_ref(),
            "island".as_ref(),
            "--out".as_ref(),
            tmp.path().as_os_str(),
            "--shard".as_ref(),
            value.as_ref(),
        ]);
        assert!(!o.status.success(), "--shard {value} accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("--shard `{value}`")) && err.contains(why), "--shard {value}: {err}");
    }
    // More shards than cases: the empty shard says so.
    let o = evorepro(&[
        "reproduce".as_ref(),
        "island".as_ref(),
        "--out".as_ref(),
        tmp.path().as_os_str(),
        "--shard".as_ref(),
        "99/99".as_ref(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("none for this shard"), "{}", describe(&o));
    let written: BTreeSet<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().map(|e| e.path()).collect();
    assert!(written.is_empty(), "{written:?}");
}
