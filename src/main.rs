fn main() -> std::process::ExitCode {
    let cli = evorepro::cli::parse();
    // SAFETY: sets SIGPIPE's action before any output. Commands that only print
    // take the default, so that a closed pipe (`evorepro list | head -1`) ends
    // them quietly, as it does other Unix tools. Commands that write records
    // (`reproduce`, `merge`) ignore it: their output goes through `say!`, which
    // drops what a closed pipe cannot take, so the run goes on and releases its
    // lock at the end.
    #[cfg(unix)]
    unsafe {
        let action = if cli.command.writes_records() { libc::SIG_IGN } else { libc::SIG_DFL };
        libc::signal(libc::SIGPIPE, action);
    }
    match evorepro::cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
