fn main() -> std::process::ExitCode {
    // SAFETY: restores the default action for SIGPIPE before any output, so that a
    // closed pipe (`evorepro list | head -1`) ends the process quietly, as it does
    // other Unix tools, instead of making `println!` panic.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = evorepro::cli::parse();
    match evorepro::cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
