#!/usr/bin/env bash
# Handshake overhead: `mcpvet snapshot` and `mcpvet scan` against a floor client
# (examples/floor_client.rs: knows the era in advance, starts the server once, handshakes,
# lists what the probe lists, exits) on real servers, paired and interleaved.
#
#   bash scripts/bench-handshake.sh             # 15 rounds
#   ROUNDS=31 bash scripts/bench-handshake.sh
#
# Servers: server-everything (npm, legacy), mcp-server-time (PyPI, modern), ci-insights
# (modern), and the hostile fixture `ignore_discover` (a legacy server that never answers
# server/discover). They are installed into .cache/interop/ by scripts/interop.sh.
# Each round runs every command once per server, in an order that alternates between
# rounds; the overhead is taken pair by pair (mcpvet minus the floor of the same round), so
# a drift in the machine's speed cancels out. The mcpvet commands run with --no-sandbox, like
# the floor, to measure mcpvet itself; a sandboxed `snapshot` is timed too, for reference.
# Output: medians with min–max, in milliseconds. Needs cargo, node + npm, python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-15}"
cd "$ROOT"

echo "building release binaries (mcpvet, ci-insights, examples/floor_client)" >&2
cargo build --quiet --release --locked --bin mcpvet --bin ci-insights --example floor_client
REL="$ROOT/target/release"

# Install the real servers (and nothing else) the way the interop run does.
MCPVET="$REL/mcpvet" CI_INSIGHTS="$REL/ci-insights" INTEROP_ONLY=none \
  bash "$ROOT/scripts/interop.sh" >/dev/null

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
exec python3 - "$ROOT" "$REL" "$ROUNDS" "$PY" <<'PY'
import os, statistics, subprocess, sys, tempfile, time

root, rel, rounds, py = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cache = os.path.join(root, ".cache/interop")
mcpvet, floor = os.path.join(rel, "mcpvet"), os.path.join(rel, "examples/floor_client")
servers = [
    ("server-everything (legacy)", "--legacy",
     [os.path.join(cache, "npm/node_modules/.bin/mcp-server-everything")]),
    ("mcp-server-time (modern)", "--modern", [os.path.join(cache, "venv/bin/mcp-server-time")]),
    ("ci-insights (modern)", "--modern", [os.path.join(rel, "ci-insights")]),
    ("ignores server/discover (legacy)", "--legacy",
     [py, os.path.join(root, "tests/fixtures/hostile/hostile.py"), "ignore_discover"]),
]
tmp = tempfile.mkdtemp(prefix="mcpvet-bench-")
out = os.path.join(tmp, "s.json")
commands = {
    "floor": lambda era, cmd: [floor, era, "--", *cmd],
    "snapshot": lambda era, cmd: [mcpvet, "snapshot", "--quiet", "--no-sandbox", "-o", out, "--", *cmd],
    "scan": lambda era, cmd: [mcpvet, "scan", "--quiet", "--no-sandbox", "--no-policy",
                              "--format", "json", "-o", out, "--", *cmd],
    "snapshot, sandboxed": lambda era, cmd: [mcpvet, "snapshot", "--quiet", "-o", out, "--", *cmd],
}

def timed(argv):
    start = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, cwd=tmp)
    took = (time.perf_counter() - start) * 1000
    # scan exits 1 on findings; anything else above that is a failure to report.
    if r.returncode not in (0, 1):
        sys.exit(f"failed ({r.returncode}): {' '.join(argv)}\n{r.stderr.decode(errors='replace')}")
    return took

def fmt(xs):
    return f"{statistics.median(xs):8.1f} [{min(xs):.1f}–{max(xs):.1f}]"

names = list(commands)
print(f"{rounds} rounds, paired and interleaved; milliseconds, median [min–max]")
for label, era, cmd in servers:
    times = {n: [] for n in names}
    for n in names:  # one warm-up each (page cache, npm/Python bytecode)
        timed(commands[n](era, cmd))
    for i in range(rounds):
        order = names if i % 2 == 0 else names[::-1]
        for n in order:
            times[n].append(timed(commands[n](era, cmd)))
    print(f"\n{label}")
    for n in names:
        line = f"  {n:<20} {fmt(times[n])}"
        if n != "floor":
            diff = [a - b for a, b in zip(times[n], times["floor"])]
            line += f"   over the floor: {fmt(diff)}"
        print(line)
PY
