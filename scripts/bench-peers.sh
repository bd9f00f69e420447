#!/usr/bin/env bash
# mcpvet beside its peers, on the same local servers, interleaved: wall time (median and
# range) and each scanner's own peak memory (VmHWM of the scanner's process, sampled until it
# exits; the server it starts is not counted), against a floor client that starts the server
# once, handshakes, lists its tools and exits (examples/floor_client.rs).
#
#   bash scripts/bench-peers.sh                 # 7 rounds, prints the table
#   ROUNDS=11 bash scripts/bench-peers.sh --write   # also rewrites the table in README.md
#
# Peers (PyPI, pinned, installed into .cache/peers/ — the package index comes from pip's own
# configuration): snyk-agent-scan (`inspect`: lists without the remote verification, which
# needs an account and the network), cisco-ai-mcp-scanner (`--analyzers yara stdio`: the
# offline analyzer), agent-bom (`mcp introspect`). Servers: server-everything (npm, legacy),
# mcp-server-time (PyPI, legacy initialize + tools) and ci-insights (2026-07-28 only, which the
# peers cannot start). The servers come from scripts/interop.sh's cache (.cache/interop/).
# Every scanner runs unsandboxed (as the peers do); mcpvet's default sandboxed run is timed too.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-7}"
WRITE="${1:-}"
CACHE="$ROOT/.cache/peers"
cd "$ROOT"

PEERS=(snyk-agent-scan==0.6.9 cisco-ai-mcp-scanner==4.8.6 agent-bom==0.102.0)

echo "building release binaries (mcpvet, ci-insights, examples/floor_client)" >&2
cargo build --quiet --release --locked --bin mcpvet --bin ci-insights --example floor_client
REL="${CARGO_TARGET_DIR:-$ROOT/target}/release"

# The real servers, installed the way the interop run installs them.
MCPVET="$REL/mcpvet" CI_INSIGHTS="$REL/ci-insights" INTEROP_ONLY=none \
  bash "$ROOT/scripts/interop.sh" >/dev/null

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# The peers need a recent Python (cisco-ai-mcp-scanner: ≥ 3.11.4); they run outside any
# sandbox, so the first python3 on PATH may live anywhere. PEERS_PYTHON chooses another.
PEERS_PY="${PEERS_PYTHON:-python3}"
if [ ! -x "$CACHE/venv/bin/python" ]; then
  echo "creating $CACHE/venv with $PEERS_PY" >&2
  "$PEERS_PY" -m venv "$CACHE/venv"
fi
missing=()
for spec in "${PEERS[@]}"; do
  have="$("$CACHE/venv/bin/python" -m pip show "${spec%%==*}" 2>/dev/null | sed -n 's/^Version: //p' || true)"
  [ "$have" = "${spec##*==}" ] || missing+=("$spec")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing ${missing[*]} into $CACHE/venv (a few minutes the first time)" >&2
  "$CACHE/venv/bin/python" -m pip install --quiet --disable-pip-version-check "${missing[@]}" >&2
fi

exec "$PY" - "$ROOT" "$REL" "$CACHE" "$ROUNDS" "$WRITE" <<'PY'
import datetime, json, os, statistics, subprocess, sys, tempfile, threading, time

root, rel, cache, rounds, write = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
interop = os.path.join(root, ".cache/interop")
bin_ = lambda name: os.path.join(cache, "venv/bin", name)
mcpvet, floor = os.path.join(rel, "mcpvet"), os.path.join(rel, "examples/floor_client")
servers = [
    ("server-everything", "--legacy",
     [os.path.join(interop, "npm/node_modules/.bin/mcp-server-everything")], True),
    ("mcp-server-time", "--modern", [os.path.join(interop, "venv/bin/mcp-server-time")], True),
    ("ci-insights", "--modern", [os.path.join(rel, "ci-insights")], False),
]
tmp = tempfile.mkdtemp(prefix="mcpvet-peers-")
out = os.path.join(tmp, "out.json")

def config(cmd):
    path = os.path.join(tmp, "mcp.json")
    with open(path, "w") as f:
        json.dump({"mcpServers": {"s": {"command": cmd[0], "args": cmd[1:]}}}, f)
    return path

# name -> (argv builder, stdin bytes, only for servers the peers can start)
tools = {
    "floor client": (lambda era, cmd: [floor, era, "--", *cmd], b"", False),
    "mcpvet scan": (lambda era, cmd: [mcpvet, "scan", "--quiet", "--no-sandbox", "--no-policy",
                                      "--format", "json", "-o", out, "--", *cmd], b"", False),
    "mcpvet scan (sandboxed, the default)": (
        lambda era, cmd: [mcpvet, "scan", "--quiet", "--no-policy", "--format", "json",
                          "-o", out, "--", *cmd], b"", False),
    "snyk-agent-scan inspect": (lambda era, cmd: [bin_("snyk-agent-scan"), "inspect", config(cmd)],
                                b"y\n", True),
    "cisco mcp-scanner (yara)": (lambda era, cmd: [bin_("mcp-scanner"), "--analyzers", "yara",
                                                  "stdio", "--stdio-command", cmd[0],
                                                  *sum((["--stdio-arg", a] for a in cmd[1:]), [])],
                                 b"", True),
    "agent-bom mcp introspect": (lambda era, cmd: [bin_("agent-bom"), "mcp", "introspect",
                                                   "--command", " ".join(cmd)], b"", True),
}

def peak_kib(pid, stop, box):
    # VmHWM only grows: the last value read before the process exits is its peak (to 5 ms).
    while not stop.is_set():
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        box[0] = max(box[0], int(line.split()[1]))
        except OSError:
            return
        time.sleep(0.005)

def run(argv, stdin):
    env = dict(os.environ, NO_COLOR="1", TERM="dumb")
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, cwd=tmp, env=env)
    stop, box = threading.Event(), [0]
    t = threading.Thread(target=peak_kib, args=(p.pid, stop, box))
    t.start()
    _, err = p.communicate(stdin, timeout=300)
    took = (time.perf_counter() - start) * 1000
    stop.set()
    t.join()
    if p.returncode not in (0, 1):
        sys.exit(f"failed ({p.returncode}): {' '.join(argv)}\n{err.decode(errors='replace')[-2000:]}")
    return took, box[0] / 1024

rows = []
for label, era, cmd, peers_can in servers:
    names = [n for n, (_, _, peer) in tools.items() if peers_can or not peer]
    times = {n: [] for n in names}
    mem = {n: [] for n in names}
    for n in names:  # warm-up: page cache, bytecode
        run(tools[n][0](era, cmd), tools[n][1])
    for i in range(rounds):
        for n in (names if i % 2 == 0 else names[::-1]):
            t, m = run(tools[n][0](era, cmd), tools[n][1])
            times[n].append(t)
            mem[n].append(m)
    base = statistics.median(times["floor client"])
    for n in names:
        med = statistics.median(times[n])
        rows.append((label, n, med, min(times[n]), max(times[n]), med / base,
                     statistics.median(mem[n])))

lines = [
    f"Measured {datetime.date.today().isoformat()} by `bash scripts/bench-peers.sh` on a "
    f"{os.cpu_count()}-core machine: {rounds} interleaved rounds after a warm-up; wall time "
    "median [min–max]; memory is the scanner's own peak resident set (the server it starts "
    "is not counted).",
    "",
    "| server | scanner | wall time, ms | × floor | own peak memory, MB |",
    "|---|---|---:|---:|---:|",
]
for label, n, med, lo, hi, ratio, m in rows:
    lines.append(f"| {label} | {n} | {med:.0f} [{lo:.0f}–{hi:.0f}] | {ratio:.2f} | {m:.0f} |")
lines.append("")
lines.append("The peers cannot start ci-insights: it speaks only the 2026-07-28 revision.")
table = "\n".join(lines)
print(table)

if write == "--write":
    path = os.path.join(root, "README.md")
    text = open(path, encoding="utf-8").read()
    begin, end = "<!-- bench-peers:begin -->", "<!-- bench-peers:end -->"
    if begin not in text or end not in text:
        sys.exit(f"README.md lacks the markers {begin} … {end}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{head}{begin}\n{table}\n{end}{tail}")
    print("README.md updated", file=sys.stderr)
PY
