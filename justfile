# evorepro — common tasks (`just` lists them). Extra flags pass through to evorepro,
# e.g. `just reproduce layout --profile paper --backend cpu`.

# List the recipes.
default:
    @just --list

# The papers, their profiles (what each can judge here, how long) and stored records.
list *ARGS:
    cargo run --release -- list {{ARGS}}

# What a paper's run (default profile quick) would judge here and how long it would take; runs nothing.
dry-run paper *ARGS:
    cargo run --release -- reproduce {{paper}} --dry-run {{ARGS}}

# Run a paper's experiments (or `all`) into runs/ and render its report (`--out reports` adds a reference run).
reproduce paper *ARGS:
    cargo run --release -- reproduce {{paper}} {{ARGS}}

# Re-render a paper's report (or `all`) from its stored records (the references in reports/ by default).
report paper="all" *ARGS:
    cargo run --release -- report {{paper}} {{ARGS}}

# Hardware generations: every machine with records beside the paper's card (or `all`).
compare paper="all" *ARGS:
    cargo run --release -- compare {{paper}} {{ARGS}}

# Every GPU kernel against the CPU reference on fresh random inputs (needs a GPU).
selfcheck *ARGS:
    cargo run --release -- selfcheck {{ARGS}}

# This machine's fingerprint and measured ceilings.
hw *ARGS:
    cargo run --release -- hw {{ARGS}}

# The test suite (GPU tests are ignored here; `just test -- --include-ignored` runs them on a GPU machine).
test *ARGS:
    cargo test --release {{ARGS}}

# The CPU benchmarks.
bench *ARGS:
    cargo bench {{ARGS}}

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
