#!/usr/bin/env bash
# Interop run: install real MCP servers (pinned) into .cache/interop/ and probe each with
# `mcpvet snapshot`, asserting era, protocol version and tool count; then the official
# TypeScript MCP SDK client (pinned, same cache) lists and calls tools through
# `mcpvet guard` for a legacy server (guard-everything) and a modern one (guard-ci-insights).
#
#   bash scripts/interop.sh            # everything
#   INTEROP_ONLY="time git" bash scripts/interop.sh   # a subset (names below)
#
# Env: MCPVET (mcpvet binary; built if unset), CI_INSIGHTS (ci-insights binary; built if
# unset), INTEROP_TIMEOUT (seconds per server, default 120), INTEROP_PYTHON (the Python the
# venv is made with; default /usr/bin/python3 — it must live outside your home, which
# mcpvet's default sandbox hides). Every stdio server runs in mcpvet's default sandbox, with
# no network: none of these needs any at start-up.
# Needs: node + npm, python3 (with venv), cargo (unless both binaries are given).
# Exit status: 0 if every server matched, 1 otherwise (an install failure is a failure).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache/interop"
NPM_PREFIX="$CACHE/npm"
VENV="$CACHE/venv"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/mcpvet-interop.XXXXXX")"
TIMEOUT="${INTEROP_TIMEOUT:-120}"
ONLY="${INTEROP_ONLY:-}"

NPM_PACKAGES=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
  "@modelcontextprotocol/sdk@1.32.2"
)
PY_PACKAGES=(
  "mcp-server-time==2026.10.19"
  "mcp-server-git==2026.10.19"
  "fastmcp==4.1.6"
)

PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]:-}"; do
    [ -n "$p" ] || continue
    # Each background server runs in its own process group (setsid): kill the group.
    kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || true
  done
  sleep 0.2
  for p in "${PIDS[@]:-}"; do
    [ -n "$p" ] || continue
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null || true
  done
  rm -rf "$OUT"
}
trap cleanup EXIT INT TERM

log() { printf '%s\n' "$*" >&2; }
die() { log "interop: $*"; exit 1; }

wanted() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

# ---- install (reused when already present at the pinned versions) ----
install_npm() {
  local want have=1 spec name version
  for spec in "${NPM_PACKAGES[@]}"; do
    name="${spec%@*}"; version="${spec##*@}"
    want="$NPM_PREFIX/node_modules/$name/package.json"
    if [ ! -f "$want" ] || ! grep -q "\"version\": \"$version\"" "$want"; then have=0; fi
  done
  if [ "$have" = 0 ]; then
    log "installing npm packages into $NPM_PREFIX"
    mkdir -p "$NPM_PREFIX"
    npm install --prefix "$NPM_PREFIX" --no-audit --no-fund --loglevel=error "${NPM_PACKAGES[@]}" >&2 \
      || die "npm install failed"
  fi
}

# The servers run in mcpvet's default sandbox, which hides the home: the venv's Python must
# live outside it (a pyenv/asdf Python under ~ would be refused), so the system's is preferred.
VENV_PYTHON="${INTEROP_PYTHON:-}"
if [ -z "$VENV_PYTHON" ]; then
  if [ -x /usr/bin/python3 ]; then VENV_PYTHON=/usr/bin/python3; else VENV_PYTHON=python3; fi
fi

install_py() {
  if [ -x "$VENV/bin/python" ] && [ -n "${HOME:-}" ] && [ "$HOME" != / ] \
    && [[ "$(readlink -f "$VENV/bin/python")" == "$HOME"/* ]]; then
    log "recreating $VENV: its Python lives in your home, which the sandbox hides"
    rm -rf "$VENV"
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating $VENV with $VENV_PYTHON"
    "$VENV_PYTHON" -m venv "$VENV" || die "$VENV_PYTHON -m venv failed (install python3-venv)"
  fi
  local spec missing=()
  for spec in "${PY_PACKAGES[@]}"; do
    if [ "$("$VENV/bin/python" -m pip show "${spec%%==*}" 2>/dev/null | sed -n 's/^Version: //p')" != "${spec##*==}" ]; then
      missing+=("$spec")
    fi
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]} into $VENV"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${missing[@]}" >&2 \
      || die "pip install failed"
  fi
}

install_npm
install_py

# ---- binaries ----
if [ -z "${MCPVET:-}" ] || { [ -z "${CI_INSIGHTS:-}" ] && { wanted ci-insights-stdio || wanted ci-insights-http || wanted guard-ci-insights; }; }; then
  log "building mcpvet and ci-insights"
  (cd "$ROOT" && cargo build --quiet --bin mcpvet --bin ci-insights) || die "cargo build failed"
fi
MCPVET="${MCPVET:-$ROOT/target/debug/mcpvet}"
CI_INSIGHTS="${CI_INSIGHTS:-$ROOT/target/debug/ci-insights}"
[ -x "$MCPVET" ] || die "no mcpvet binary at $MCPVET"

BIN="$NPM_PREFIX/node_modules/.bin"
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Start a background server in its own process group; remember it for cleanup.
start_bg() { # LOGFILE CMD...
  local logfile="$1"; shift
  setsid "$@" >"$logfile" 2>&1 </dev/null &
  PIDS+=("$!")
}

# Wait until something accepts TCP connections on 127.0.0.1:PORT.
wait_port() { # PORT NAME
  local i
  for i in $(seq 1 150); do
    if python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),timeout=0.2).close()' "$1" 2>/dev/null; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}

FAILED=0
RESULTS=()

# probe NAME WANT_ERA WANT_VERSION WANT_TOOLS SNAPSHOT-ARGS... (`-- CMD…` or `--url URL`)
probe() {
  local name="$1" era="$2" version="$3" tools="$4"; shift 4
  local file="$OUT/$name.json" start end ms got
  start=$(date +%s%N)
  if ! "$MCPVET" snapshot --quiet --timeout "$TIMEOUT" --name "$name" -o "$file" "$@" 2>"$OUT/$name.err"; then
    end=$(date +%s%N); ms=$(( (end - start) / 1000000 ))
    RESULTS+=("$(printf '%-20s FAIL  probe failed after %s ms: %s' "$name" "$ms" "$(head -c 400 "$OUT/$name.err" | tr '\n' ' ')")")
    FAILED=1
    return
  fi
  end=$(date +%s%N); ms=$(( (end - start) / 1000000 ))
  got=$(python3 - "$file" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(s.get("era"), s.get("protocolVersion"), len(s.get("tools", [])))
PY
)
  local line
  line=$(printf '%-20s era=%-7s version=%-11s tools=%-3s time=%s ms' "$name" $got "$ms")
  if [ "$got" = "$era $version $tools" ]; then
    RESULTS+=("$(printf '%s  ok' "$line")")
  else
    RESULTS+=("$(printf '%s  MISMATCH (want era=%s version=%s tools=%s)' "$line" "$era" "$version" "$tools")")
    FAILED=1
  fi
}

# The servers run in mcpvet's default sandbox, which hides the host's /tmp and the home:
# the folders they are given live under the repository's cache instead.
WORK="$CACHE/work"
rm -rf "$WORK"
mkdir -p "$WORK/files" "$WORK/repo"
printf 'hello\n' >"$WORK/files/a.txt"
git -C "$WORK/repo" init -q
git -C "$WORK/repo" -c user.name=interop -c user.email=interop@localhost commit -q --allow-empty -m init

# Expected values were observed with the pinned versions above.
wanted everything-stdio && probe everything-stdio legacy 2025-11-25 13 -- "$BIN/mcp-server-everything"
if wanted everything-http; then
  port=$(free_port)
  start_bg "$OUT/everything-http.log" env PORT="$port" "$BIN/mcp-server-everything" streamableHttp
  if wait_port "$port"; then
    probe everything-http legacy 2025-11-25 13 --url "http://127.0.0.1:$port/mcp"
  else
    RESULTS+=("everything-http      FAIL  did not listen: $(head -c 300 "$OUT/everything-http.log")"); FAILED=1
  fi
fi
wanted filesystem && probe filesystem legacy 2025-11-25 14 -- "$BIN/mcp-server-filesystem" "$WORK/files"
wanted memory && probe memory legacy 2025-11-25 9 -- "$BIN/mcp-server-memory"
wanted time && probe time modern 2026-07-28 2 -- "$VENV/bin/mcp-server-time"
wanted git && probe git modern 2026-07-28 12 -- "$VENV/bin/mcp-server-git" --repository "$WORK/repo"
if wanted fastmcp-http; then
  port=$(free_port)
  start_bg "$OUT/fastmcp.log" "$VENV/bin/python" "$ROOT/scripts/interop/fastmcp_server.py" "$port"
  if wait_port "$port"; then
    probe fastmcp-http modern 2026-07-28 3 --url "http://127.0.0.1:$port/mcp"
  else
    RESULTS+=("fastmcp-http         FAIL  did not listen: $(head -c 300 "$OUT/fastmcp.log")"); FAILED=1
  fi
fi
if wanted ci-insights-stdio; then
  probe ci-insights-stdio modern 2026-07-28 2 -- "$CI_INSIGHTS"
fi
if wanted ci-insights-http; then
  start_bg "$OUT/ci-insights.log" "$CI_INSIGHTS" --http 127.0.0.1:0
  url=""
  for _ in $(seq 1 100); do
    url=$(sed -n 's/.*ci-insights listening on \(http:[^ ]*\).*/\1/p' "$OUT/ci-insights.log" | head -1)
    [ -n "$url" ] && break
    sleep 0.1
  done
  if [ -n "$url" ]; then
    probe ci-insights-http modern 2026-07-28 2 --url "$url"
  else
    RESULTS+=("ci-insights-http     FAIL  no 'ci-insights listening on' line: $(head -c 300 "$OUT/ci-insights.log")"); FAILED=1
  fi
fi

# ---- guard: the official TypeScript SDK client through `mcpvet guard` ----
# guard_sdk NAME LOCK EXPECT_TOOLS CALL_TOOL CALL_ARGS -- SERVER...
# The SDK client (legacy era: initialize) launches `mcpvet guard --lock LOCK -- SERVER…`
# over stdio, lists the tools (all of EXPECT_TOOLS, nothing withheld) and calls one.
SDK_DIR="$NPM_PREFIX/node_modules/@modelcontextprotocol/sdk"
guard_sdk() {
  local name="$1" lock="$2" expect="$3" tool="$4" targs="$5"; shift 6
  local start end ms got
  start=$(date +%s%N)
  if got=$(node "$ROOT/scripts/interop/guard_client.mjs" "$SDK_DIR" "$expect" "$tool" "$targs" \
      -- "$MCPVET" guard --lock "$lock" --timeout "$TIMEOUT" -- "$@" 2>"$OUT/$name.err"); then
    end=$(date +%s%N); ms=$(( (end - start) / 1000000 ))
    RESULTS+=("$(printf '%-20s %s time=%s ms  ok' "$name" "$got" "$ms")")
  else
    end=$(date +%s%N); ms=$(( (end - start) / 1000000 ))
    RESULTS+=("$(printf '%-20s FAIL  after %s ms: %s' "$name" "$ms" "$(tail -c 600 "$OUT/$name.err" | tr '\n' ' ')")")
    FAILED=1
  fi
}
if wanted guard-everything; then
  # Lock server-everything first (into a temporary lock folder), then guard it.
  if "$MCPVET" lock --quiet --timeout "$TIMEOUT" --name everything --lock-dir "$OUT/locks" \
      --by interop --at 2026-01-01T00:00:00Z --accept "interop: a test server" \
      -- "$BIN/mcp-server-everything" >"$OUT/guard-lock.log" 2>&1; then
    guard_sdk guard-everything "$OUT/locks/everything.lock.json" echo,get-sum echo '{"message":"through the guard"}' \
      -- "$BIN/mcp-server-everything"
  else
    RESULTS+=("guard-everything     FAIL  mcpvet lock failed: $(head -c 400 "$OUT/guard-lock.log" | tr '\n' ' ')"); FAILED=1
  fi
fi
if wanted guard-ci-insights; then
  [ -x "$CI_INSIGHTS" ] || die "no ci-insights binary at $CI_INSIGHTS"
  guard_sdk guard-ci-insights "$ROOT/lockfiles/ci-insights.lock.json" get_build_status,list_flaky_tests \
    get_build_status '{"pipeline":"api","build":412}' -- "$CI_INSIGHTS"
fi

printf '%s\n' "${RESULTS[@]}"
exit "$FAILED"
