#!/usr/bin/env bash
# Binary size before/after the `dist` profile's strip + LTO (README, Install).
# Builds `mcpvet` twice from the same sources into target/size/{before,after}, with the old
# profile (line-tables debug info, no strip, no LTO, 16 codegen units) and the current one,
# given explicitly through cargo's profile environment variables. Slow: two release builds.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
CARGO_PROFILE_RELEASE_DEBUG=line-tables-only CARGO_PROFILE_RELEASE_STRIP=none \
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  cargo build --locked --release --bin mcpvet --target-dir target/size/before
echo "before: $(stat -c %s target/size/before/release/mcpvet) bytes, $((SECONDS - t0)) s"
t0=$SECONDS
cargo build --locked --profile dist --bin mcpvet --target-dir target/size/after
echo "after (dist): $(stat -c %s target/size/after/dist/mcpvet) bytes, $((SECONDS - t0)) s"
