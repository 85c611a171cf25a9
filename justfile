# evorepro — common tasks (`just` lists them).

# List the recipes.
default:
    @just --list

# Run a paper's experiments (or `all`) and render its report.
reproduce paper profile="quick":
    cargo run --release -- reproduce {{paper}} --profile {{profile}}

# Re-render a paper's report (or `all`) from its stored records.
report paper="all":
    cargo run --release -- report {{paper}}

# Hardware generations: every machine with records beside the paper's card (or `all`).
compare paper="all":
    cargo run --release -- compare {{paper}}

# Every GPU kernel against the CPU reference on fresh random inputs (needs a GPU).
selfcheck:
    cargo run --release -- selfcheck

# This machine's fingerprint and measured ceilings.
hw:
    cargo run --release -- hw

# The test suite (GPU tests are ignored here; `--include-ignored` runs them on a GPU machine).
test:
    cargo test --release

# The CPU benchmarks.
bench:
    cargo bench

# Formatting and clippy, warnings as errors.
lint:
    cargo fmt --all -- --check
    cargo clippy --all-targets -- -D warnings

# What CI runs.
ci:
    bash .ci/run

# A release binary in .device/ for a GPU machine (the release profile strips it).
device-bundle:
    cargo build --release
    mkdir -p .device && cp target/release/evorepro .device/ && ls -la .device
