#!/usr/bin/env bash
# Offline audit at scale: generates realistic tool definitions (examples/synth_tools.rs) and
# times `mcpvet scan` over them on one core (taskset -c 0), release build, every rule; prints
# wall time, CPU time (user + system: what the audit cost, even on a busy machine), time per
# tool, peak RSS and bytes per tool (from /usr/bin/time -v).
#
#   bash scripts/bench-offline.sh            # 10,000 tools in one file; 100,000 tools: one file, and 100 files
#   bash scripts/bench-offline.sh 1000000    # also 1,000,000 tools in one file and in 100 files
#
# Data sets are written once under target/bench-offline/ (about 1.8 KB of pretty JSON per
# tool) and reused until the generator is rebuilt. MCPVET_BIN=PATH times another build (e.g. a
# copy saved before a change). CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."
big=${1:-}
if [ -z "${MCPVET_BIN:-}" ]; then cargo build --release --locked --bin mcpvet >&2; fi
# The generator only writes files: a debug build (no release build of the dev-dependencies).
cargo build --locked --example synth_tools >&2
target=${CARGO_TARGET_DIR:-$PWD/target}
bin=${MCPVET_BIN:-$target/release/mcpvet}
gen=$target/debug/examples/synth_tools
data=$target/bench-offline
mkdir -p "$data"

pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi

dataset() { # TOOLS FILES -> folder
    local dir="$data/t$1-f$2"
    if [ ! "$dir/.done" -nt "$gen" ]; then
        rm -rf "$dir"
        "$gen" "$1" "$2" "$dir"
        touch "$dir/.done"
    fi
    echo "$dir"
}

run() { # TOOLS FILES
    local tools=$1 files=$2 dir
    dir=$(dataset "$tools" "$files")
    local bytes
    bytes=$(cat "$dir"/*.json | wc -c)
    # No policy, no lockfiles: an empty working folder.
    local work
    work=$(mktemp -d "$data/run.XXXXXX")
    local log="$work/time.txt"
    set +e
    (cd "$work" && "${pin[@]}" /usr/bin/time -v "$bin" --max-items "$tools" --max-file-size 4GiB \
        scan --no-policy --format json -o "$work/report.json" "$dir"/*.json) 2>"$log"
    local rc=$?
    set -e
    local wall rss_kb findings user sys
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
    user=$(awk -F': ' '/User time \(seconds\)/ {print $2}' "$log")
    sys=$(awk -F': ' '/System time \(seconds\)/ {print $2}' "$log")
    rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    findings=$(grep -c '"rule"' "$work/report.json" || true)
    python3 - "$tools" "$files" "$bytes" "$wall" "$rss_kb" "$rc" "$findings" "$user" "$sys" <<'EOF'
import sys
tools, files, size, wall, rss_kb, rc, findings, user, sys_ = sys.argv[1:]
cpu = float(user) + float(sys_)
tools, files, size, rss = int(tools), int(files), int(size), int(rss_kb) * 1024
parts = [float(p) for p in wall.split(":")]
secs = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
print(f"{tools:>9,} tools in {files:>3} file(s), {size / 2**20:7.1f} MiB of JSON: "
      f"{secs:6.2f} s wall, {cpu:6.2f} s CPU ({cpu / tools * 1e6:5.1f} µs/tool), peak RSS {rss / 2**20:7.1f} MiB "
      f"({rss / tools / 1024:5.2f} KiB/tool), exit {rc}, {findings} findings")
EOF
    rm -rf "$work"
}

echo "offline audit, release build, one core, every rule ($(date -u +%Y-%m-%d))"
run 10000 1
run 100000 1
run 100000 100
if [ -n "$big" ]; then
    run "$big" 1
    run "$big" 100
fi
