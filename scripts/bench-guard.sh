#!/usr/bin/env bash
# What `mcpvet guard` adds: latency per message and large results.
#
#   bash scripts/bench-guard.sh              # 2000 calls, results of 1, 5 and 10 MB
#   CALLS=5000 bash scripts/bench-guard.sh
#
# 1. Latency: the same sequential `tools/call` (get_build_status) to ci-insights, straight
#    and through the guard, one request in flight; the added latency is the difference of
#    the medians (and of the 90th percentiles), in microseconds.
# 2. Large results: the hostile fixture `big` answers `count` with a text of n bytes; the
#    time for one result straight and through the guard (the output profile reads every
#    byte), and the guard's peak resident memory (VmHWM) after the 10 MB result.
# Release binaries; no sandbox (it measures the guard, not bubblewrap). Needs python3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
echo "building release binaries (mcpvet, ci-insights)" >&2
cargo build --quiet --release --locked --bin mcpvet --bin ci-insights
REL="$ROOT/target/release"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The lock of the `big` server, locked as the guard runs it (the guard refuses a command
# other than the locked launch).
"$REL/mcpvet" lock --no-sandbox --name h --lock-dir "$WORK" --by bench --at 2026-07-28T12:00:00Z \
  -- python3 "$ROOT/tests/fixtures/hostile/hostile.py" big >/dev/null 2>&1

CALLS="${CALLS:-2000}" REL="$REL" ROOT="$ROOT" WORK="$WORK" python3 - <<'PY'
import json, os, statistics, subprocess, time

REL, ROOT, WORK = os.environ["REL"], os.environ["ROOT"], os.environ["WORK"]
CALLS = int(os.environ["CALLS"])
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}

def start(argv):
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)

def rtt(p, msg):
    line = (json.dumps(msg) + "\n").encode()
    t = time.perf_counter()
    p.stdin.write(line)
    p.stdin.flush()
    answer = p.stdout.readline()
    return time.perf_counter() - t, answer

def latencies(argv):
    p = start(argv)
    msg = {"jsonrpc": "2.0", "id": 0, "method": "tools/call",
           "params": {"_meta": META, "name": "get_build_status",
                      "arguments": {"pipeline": "api", "build": 412}}}
    out = []
    for i in range(CALLS + 50):
        msg["id"] = i
        d, _ = rtt(p, msg)
        if i >= 50:
            out.append(d * 1e6)
    p.stdin.close()
    p.wait()
    out.sort()
    return statistics.median(out), out[int(len(out) * 0.9)]

ci = f"{REL}/ci-insights"
guard = [f"{REL}/mcpvet", "guard", "--lock", f"{ROOT}/lockfiles/ci-insights.lock.json", "--", ci]
dm, d90 = latencies([ci])
gm, g90 = latencies(guard)
print(f"latency, {CALLS} sequential tools/call to ci-insights (microseconds)")
print(f"  straight       median {dm:8.1f}   p90 {d90:8.1f}")
print(f"  through guard  median {gm:8.1f}   p90 {g90:8.1f}")
print(f"  added          median {gm - dm:8.1f}   p90 {g90 - d90:8.1f}")

def big(argv, sizes, is_guard):
    p = start(argv)
    init = {"jsonrpc": "2.0", "id": "i", "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "bench", "version": "1"}}}
    rtt(p, init)
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    times = {}
    for n in sizes:
        best = None
        for r in range(3):
            d, answer = rtt(p, {"jsonrpc": "2.0", "id": r, "method": "tools/call",
                                "params": {"name": "count", "arguments": {"n": n}}})
            assert len(answer) > n, answer[:200]
            best = d if best is None else min(best, d)
        times[n] = best * 1e3
    hwm = None
    if is_guard:
        with open(f"/proc/{p.pid}/status") as f:
            for l in f:
                if l.startswith("VmHWM:"):
                    hwm = int(l.split()[1]) / 1024
    p.stdin.close()
    p.wait()
    return times, hwm

sizes = [1_000_000, 5_000_000, 10_000_000]
server = ["python3", f"{ROOT}/tests/fixtures/hostile/hostile.py", "big"]
st, _ = big(server, sizes, False)
gt, hwm = big([f"{REL}/mcpvet", "guard", "--lock", f"{WORK}/h.lock.json", "--"] + server, sizes, True)
print("one large result, best of 3 (milliseconds)")
for n in sizes:
    print(f"  {n / 1e6:4.0f} MB   straight {st[n]:8.1f}   through guard {gt[n]:8.1f}   added {gt[n] - st[n]:8.1f}   ({(gt[n] - st[n]) / (n / 1e6):.1f} ms/MB)")
print(f"guard peak resident memory after the 10 MB result: {hwm:.0f} MiB")
PY
