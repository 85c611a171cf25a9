//! `mpirun -np 3 evorepro reproduce …` (`--features mpi`): rank 0 writes, two
//! workers run the cases. The quick profiles of two papers store the same cases
//! and render the same report (numbers masked) as one process; a worker killed
//! mid-run loses only its case in flight, and `--resume` completes the profile.
//! Skips with a message where `mpirun` is missing; CI installs OpenMPI.
#![cfg(feature = "mpi")]

mod common;

use common::{ROOT, describe};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn mpirun(args: &[&str], out: &Path) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-np", "3", env!("CARGO_BIN_EXE_evorepro")])
        .args(args)
        .args(["--backend", "cpu", "--out"])
        .arg(out)
        .current_dir(ROOT);
    c
}

fn no_mpirun() -> bool {
    let missing = Command::new("mpirun").arg("--version").output().is_err();
    if missing {
        println!("skipping: no mpirun on this machine");
    }
    missing
}

fn ok(o: Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {}", describe(&o));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn quick_profiles_over_three_ranks_equal_one_process() {
    if no_mpirun() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for paper in ["island", "layout"] {
        let one = tmp.path().join("one");
        let t = Instant::now();
        common::reproduce_quick_cpu(paper, &one);
        let alone = t.elapsed();
        let over = tmp.path().join("mpi");
        let t = Instant::now();
        let err = ok(mpirun(&["reproduce", paper, "--profile", "quick"], &over).output().unwrap(), paper);
        eprintln!("{paper}: one process {alone:.1?}, 3 ranks {:.1?}", t.elapsed());
        let line = err.lines().find(|l| l.contains("workers in")).unwrap_or_else(|| panic!("no distribution line: {err}"));
        eprintln!("{line}");
        assert!(line.contains("over 2 workers") && line.contains("of the workers' time"), "{line}");
        let one_cases = common::stored_cases(&one, paper);
        assert!(!one_cases.is_empty());
        assert_eq!(one_cases, common::stored_cases(&over, paper), "{paper}: other cases or rows over MPI");
        assert_eq!(
            common::masked_report(&one, paper),
            common::masked_report(&over, paper),
            "{paper}: the reports differ beyond their numbers"
        );
    }
}

/// The pid of `mpirun`'s child that is MPI rank `rank`.
fn rank_pid(mpirun: u32, rank: u32) -> Option<u32> {
    let children = std::fs::read_to_string(format!("/proc/{mpirun}/task/{mpirun}/children")).ok()?;
    children.split_whitespace().filter_map(|p| p.parse().ok()).find(|pid: &u32| {
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        env.split(|&b| b == 0).any(|v| v == format!("OMPI_COMM_WORLD_RANK={rank}").as_bytes())
    })
}

#[test]
fn a_killed_worker_loses_only_its_case_and_resume_completes() {
    if no_mpirun() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut job = mpirun(&["reproduce", "layout", "--profile", "quick"], &out).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    // Wait until two cases are stored, then kill worker rank 1.
    let deadline = Instant::now() + Duration::from_secs(300);
    while common::stored_cases(&out, "layout").len() < 2 {
        assert!(Instant::now() < deadline, "no two cases stored in 300 s");
        assert!(job.try_wait().unwrap().is_none(), "the job ended before the kill");
        std::thread::sleep(Duration::from_millis(100));
    }
    let pid = rank_pid(job.id(), 1).expect("rank 1 is a child of mpirun");
    // SAFETY: sends SIGKILL to a process this test started (through mpirun).
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    let status = job.wait().unwrap();
    assert!(!status.success(), "the job succeeded though rank 1 was killed");
    let kept = common::stored_cases(&out, "layout");
    assert!(kept.len() >= 2, "cases stored before the kill were lost: {kept:?}");
    // mpirun may return before it has reaped rank 0, the writer: the rerun waits for its lock to go.
    let lock = out.join("layout/records/.lock");
    let deadline = Instant::now() + Duration::from_secs(60);
    while let Ok(pid) = std::fs::read_to_string(&lock) {
        if !Path::new(&format!("/proc/{}", pid.trim())).exists() {
            break;
        }
        assert!(Instant::now() < deadline, "rank 0 (pid {pid}) still runs 60 s after mpirun ended");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The rerun resumes: it finds the stored cases and runs only the rest.
    let err = ok(mpirun(&["reproduce", "layout", "--profile", "quick", "--resume"], &out).output().unwrap(), "--resume");
    let all = common::stored_cases(&out, "layout");
    let resumed = format!("resuming: {} of {} cases already stored", kept.len(), all.len());
    assert!(err.contains(&resumed), "`{resumed}` not in: {err}");
    assert!(kept.len() < all.len(), "the kill came after the last case");
    for (case, rows) in &kept {
        assert_eq!(all.get(case), Some(rows), "{case}: rows changed by --resume");
    }
    let report = std::fs::read_to_string(out.join("layout/REPORT.md")).unwrap();
    assert!(report.contains(&format!("| {} / {} |", all.len(), all.len())) && !report.contains("incomplete"), "{report}");
}
