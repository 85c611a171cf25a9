use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = evorepro::cli::Cli::parse();
    match evorepro::cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
