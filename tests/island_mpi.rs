//! The island GA over MPI (`--features mpi`): three ranks, one island each, ring
//! migration over MPI, and the binary's own check that every island is
//! bit-identical to the same ring run in one process. Skips with a message where
//! `mpirun` is missing; CI installs OpenMPI and runs it.
#![cfg(feature = "mpi")]

use std::process::Command;

#[test]
fn mpi_ring_of_three_ranks_matches_the_in_process_ring() {
    if Command::new("mpirun").arg("--version").output().is_err() {
        println!("skipping: no mpirun on this machine");
        return;
    }
    let out = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "3", env!("CARGO_BIN_EXE_evorepro-island-mpi")])
        .args(["--island-size", "128", "--generations", "300", "--migration-interval", "50", "--check"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("mpirun starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "mpirun failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("3 islands × 128 individuals"), "{stdout}");
    assert!(stdout.contains("check: all 3 islands bit-identical to the in-process ring"), "{stdout}");
}
