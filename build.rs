//! Records the git commit the binary was built from (every record carries it).
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    // Dirty means the sources differ from the commit, not the reports or docs a
    // run rewrites: a reproduction that updates `reports/` keeps its build clean.
    let sources = ["src", "kernels", "experiments", "benches", "Cargo.toml", "Cargo.lock", "build.rs"];
    let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
    status.extend(sources);
    let dirty = git(&status).is_some_and(|s| !s.is_empty());
    println!("cargo:rustc-env=EVOREPRO_GIT_COMMIT={commit}{}", if dirty { "-dirty" } else { "" });
    // The sources too: an edit that git has not seen yet must still mark the
    // binary dirty (cargo watches every file under a listed directory). Git's
    // own files where git keeps them: in a worktree `.git` is a file, and a
    // path that does not exist would rerun this script, and rebuild the crate,
    // at every build.
    for p in ["HEAD", "index", "refs/heads"] {
        if let Some(path) = git(&["rev-parse", "--git-path", p]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    for p in ["src", "kernels", "experiments", "Cargo.toml", "build.rs"] {
        println!("cargo:rerun-if-changed={p}");
    }
}
