#!/usr/bin/env bash
# Handshake overhead: `mcpvet snapshot` and `mcpvet scan` against a floor client
# (examples/floor_client.rs: knows the era in advance, starts the server once, handshakes,
# lists what the probe lists, exits) on real servers, paired and interleaved.
#
#   bash scripts/bench-handshake.sh             # 15 rounds
#   ROUNDS=31 bash scripts/bench-handshake.sh
#   ONLY="everything time" bash scripts/bench-handshake.sh   # a subset: everything, time,
#                                                            # ci-insights, ignore-discover
#   BEFORE=/path/to/old/mcpvet bash scripts/bench-handshake.sh  # also time another build's
#                                                            # scan in the same rounds
#   HOG=1 bash scripts/bench-handshake.sh    # with one busy loop on a core throughout
#
# Servers: server-everything (npm, legacy), mcp-server-time (PyPI, modern), ci-insights
# (modern), and the hostile fixture `ignore_discover` (a legacy server that never answers
# server/discover). They are installed into .cache/interop/ by scripts/interop.sh.
# Each round runs every command once per server, in an order that alternates between
# rounds; the overhead is taken pair by pair (mcpvet minus the floor of the same round), so
# a drift in the machine's speed cancels out. The mcpvet commands run with --no-sandbox, like
# the floor, to measure mcpvet itself; the sandboxed (default) `snapshot` and `scan` are timed
# too, and the sandbox's own cost is taken pair by pair (sandboxed minus --no-sandbox).
# The floor also runs `--as-probe` (the probe's own requests in the probe's order: discover
# and initialize back to back, the lists at once): what mcpvet costs over that is mcpvet's
# own; what that floor costs over the plain one is the server answering the extra requests.
# Output: medians with min–max, in milliseconds. Needs cargo, node + npm, python3. The
# binaries are built into CARGO_TARGET_DIR when it is set (else target/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-15}"
cd "$ROOT"

echo "building release binaries (mcpvet, ci-insights, examples/floor_client)" >&2
cargo build --quiet --release --locked --bin mcpvet --bin ci-insights --example floor_client
REL="${CARGO_TARGET_DIR:-$ROOT/target}/release"

# Install the real servers (and nothing else) the way the interop run does.
MCPVET="$REL/mcpvet" CI_INSIGHTS="$REL/ci-insights" INTEROP_ONLY=none \
  bash "$ROOT/scripts/interop.sh" >/dev/null

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
exec python3 - "$ROOT" "$REL" "$ROUNDS" "$PY" "${ONLY:-}" "${BEFORE:-}" "${HOG:-}" <<'PY'
import os, statistics, subprocess, sys, tempfile, time

root, rel, rounds, py, only = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5].split()
before, hog = sys.argv[6], sys.argv[7]
cache = os.path.join(root, ".cache/interop")
mcpvet, floor = os.path.join(rel, "mcpvet"), os.path.join(rel, "examples/floor_client")
servers = [
    ("everything", "server-everything (legacy)", "--legacy",
     [os.path.join(cache, "npm/node_modules/.bin/mcp-server-everything")]),
    ("time", "mcp-server-time (modern)", "--modern",
     [os.path.join(cache, "venv/bin/mcp-server-time")]),
    ("ci-insights", "ci-insights (modern)", "--modern", [os.path.join(rel, "ci-insights")]),
    ("ignore-discover", "ignores server/discover (legacy)", "--legacy",
     [py, os.path.join(root, "tests/fixtures/hostile/hostile.py"), "ignore_discover"]),
]
servers = [s[1:] for s in servers if not only or s[0] in only]
tmp = tempfile.mkdtemp(prefix="mcpvet-bench-")
out = os.path.join(tmp, "s.json")
commands = {
    "floor": lambda era, cmd: [floor, era, "--", *cmd],
    "floor, as probe": lambda era, cmd: [floor, era, "--as-probe", "--", *cmd],
    "snapshot": lambda era, cmd: [mcpvet, "snapshot", "--quiet", "--no-sandbox", "-o", out, "--", *cmd],
    "scan": lambda era, cmd: [mcpvet, "scan", "--quiet", "--no-sandbox", "--no-policy",
                              "--format", "json", "-o", out, "--", *cmd],
    "snapshot, sandboxed": lambda era, cmd: [mcpvet, "snapshot", "--quiet", "-o", out, "--", *cmd],
    "scan, sandboxed": lambda era, cmd: [mcpvet, "scan", "--quiet", "--no-policy",
                                         "--format", "json", "-o", out, "--", *cmd],
}
if before:
    commands["scan, before"] = lambda era, cmd: [before, "scan", "--quiet", "--no-sandbox",
                                                 "--no-policy", "--format", "json", "-o", out,
                                                 "--", *cmd]
if hog:
    # A second load on the machine: one process spinning for the whole run.
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    import atexit
    atexit.register(spin.kill)

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
print(f"{rounds} rounds, paired and interleaved; milliseconds, median [min–max]"
      + ("; one busy loop running throughout" if hog else ""))
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
    for n in ("snapshot", "scan"):
        diff = [a - b for a, b in zip(times[n], times["floor, as probe"])]
        print(f"  {n} over the floor as probe: {fmt(diff)}")
    for boxed, plain in (("snapshot, sandboxed", "snapshot"), ("scan, sandboxed", "scan")):
        diff = [a - b for a, b in zip(times[boxed], times[plain])]
        print(f"  the sandbox's cost ({plain}): {fmt(diff)}")
    if before:
        diff = [a - b for a, b in zip(times["scan"], times["scan, before"])]
        print(f"  scan minus scan, before: {fmt(diff)}")
PY
