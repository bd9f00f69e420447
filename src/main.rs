//! The `mcpvet` command: parse the command line, run, map the outcome to an exit code.

use std::process::ExitCode;

/// mimalloc instead of the system allocator: an offline scan builds and drops millions of
/// small JSON values one window at a time, interleaved with the outlines it keeps, and the
/// system allocator (glibc) slows down on that churn as the heap fragments (100,000 tools in
/// one file: 21.6 s of CPU with it, 14.5 s with another allocator preloaded, same build).
/// Built without transparent huge pages (the `no_thp` feature, Cargo.toml): advised over the
/// whole arena, they made each first touch of 2 MiB cost the kernel a zeroed huge page, and a
/// live scan random tenths of a second of system time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    mcpvet::cli::main()
}
