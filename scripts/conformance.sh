#!/usr/bin/env bash
# Run the official MCP conformance suite (2026-07-28 server scenarios, Streamable HTTP) against
# ci-insights, or with --kit against examples/conformance_server.rs (the server kit with the
# suite's fixture tools, resources and prompts; expected failures in
# scripts/conformance-kit-expected-failures.txt).
#
# Installs node@22 and @modelcontextprotocol/conformance@0.2.0-alpha.12 from npm into
# .cache/conformance/ (reused when present), starts `ci-insights --http 127.0.0.1:0`
# (the binary named by $CI_INSIGHTS, else a debug build made here), runs every server
# scenario applicable to 2026-07-28, and fails unless:
#   - server-stateless, tools-list, http-header-validation and caching ran and pass (single
#     checks of them may be excused in the expected-failures file, never whole scenarios);
#   - every other failure is listed in scripts/conformance-expected-failures.txt with a reason;
#   - no listed entry has started to pass (stale entries fail the run, as the suite decides).
# The server is killed on exit. Results: .cache/conformance/last-run/.
# Needs: bash, npm (any recent version; it only bootstraps node@22), cargo unless $CI_INSIGHTS.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.cache/conformance"
CONFORMANCE_VERSION="0.2.0-alpha.12"
NODE_PACKAGE="node@22"
EXPECTED_TXT="$ROOT/scripts/conformance-expected-failures.txt"
TARGET="ci-insights"
if [ "${1:-}" = "--kit" ]; then
  TARGET="conformance_server"
  EXPECTED_TXT="$ROOT/scripts/conformance-kit-expected-failures.txt"
fi
REQUIRED=(server-stateless tools-list http-header-validation caching)
SPEC_VERSION="2026-07-28"

log() { printf 'conformance: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- 1. Install node@22 and the conformance CLI into the cache (reuse when present). --------
NODE="$CACHE/node_modules/.bin/node"
CLI="$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
installed_version() {
  [ -f "$CACHE/node_modules/@modelcontextprotocol/conformance/package.json" ] || return 0
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
    "$CACHE/node_modules/@modelcontextprotocol/conformance/package.json" | head -n1
}
node_major() { "$NODE" --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\..*/\1/p'; }

if [ ! -x "$NODE" ] || [ ! -f "$CLI" ] || [ "$(installed_version)" != "$CONFORMANCE_VERSION" ] \
   || [ "$(node_major)" -lt 22 ] 2>/dev/null; then
  command -v npm >/dev/null || die "npm is needed to install $NODE_PACKAGE (apt-get install -y npm)"
  log "installing $NODE_PACKAGE and @modelcontextprotocol/conformance@$CONFORMANCE_VERSION into $CACHE"
  mkdir -p "$CACHE"
  # node@22 fetches its platform binary package in a preinstall script; npm >= 11 runs
  # dependency install scripts only when package.json allows them.
  cat > "$CACHE/package.json" <<'JSON'
{
  "name": "mcpvet-conformance-cache",
  "private": true,
  "allowScripts": { "node": true }
}
JSON
  (cd "$CACHE" && npm install --no-audit --no-fund --loglevel=error \
      "$NODE_PACKAGE" "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >&2)
fi
[ -x "$NODE" ] || die "node was not installed at $NODE"
major="$(node_major)"
[ -n "$major" ] && [ "$major" -ge 22 ] || die "node >= 22 needed, $NODE is $("$NODE" --version 2>&1)"
[ "$(installed_version)" = "$CONFORMANCE_VERSION" ] || die "conformance $CONFORMANCE_VERSION not installed"
log "node $("$NODE" --version), conformance $CONFORMANCE_VERSION"

# --- 2. The expected-failures file -> the suite's YAML baseline. -----------------------------
RUN="$CACHE/last-run"
rm -rf "$RUN"
mkdir -p "$RUN"
BASELINE="$RUN/expected-failures.yml"
{
  lineno=0
  while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    trimmed="${line#"${line%%[![:space:]]*}"}"
    case "$trimmed" in ''|'#'*) continue ;; esac
    entry="${trimmed%%#*}"
    entry="${entry%"${entry##*[![:space:]]}"}"
    reason=""
    case "$trimmed" in *'#'*) reason="${trimmed#*#}"; reason="${reason#"${reason%%[![:space:]]*}"}" ;; esac
    [ -n "$reason" ] || die "$EXPECTED_TXT:$lineno: '$entry' has no reason (write '<entry>  # <reason>')"
    case "$entry" in *[[:space:]]*) die "$EXPECTED_TXT:$lineno: '$entry' must be one word: <scenario>[:<check-id>]" ;; esac
    for required in "${REQUIRED[@]}"; do
      [ "$entry" != "$required" ] \
        || die "$EXPECTED_TXT:$lineno: '$required' must pass; only single checks of it may be listed"
    done
    echo "  - \"$entry\""
  done < "$EXPECTED_TXT"
} > "$BASELINE.entries"
# An empty list must still be a YAML sequence (the suite refuses `server:` with no value).
if [ -s "$BASELINE.entries" ]; then
  { echo "server:"; cat "$BASELINE.entries"; } > "$BASELINE"
else
  echo "server: []" > "$BASELINE"
fi
rm -f "$BASELINE.entries"

# --- 3. Start the server on a free loopback port; kill it on exit. ---------------------------
if [ "$TARGET" = "conformance_server" ]; then
  log "building the kit's conformance_server example"
  (cd "$ROOT" && cargo build --quiet --locked --example conformance_server)
  BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/examples/conformance_server"
elif [ -n "${CI_INSIGHTS:-}" ]; then
  BIN="$CI_INSIGHTS"
else
  log "building ci-insights"
  (cd "$ROOT" && cargo build --quiet --bin ci-insights)
  BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/ci-insights"
fi
[ -x "$BIN" ] || die "$TARGET binary not found at $BIN"

SERVER_LOG="$RUN/server.stderr"
# (Created before the server starts: the redirect below runs in the background child, which a
# loaded machine may schedule after the first read of the log.)
: > "$SERVER_LOG"
"$BIN" --http 127.0.0.1:0 2>"$SERVER_LOG" </dev/null &
SERVER_PID=$!
cleanup() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT INT TERM

URL=""
for _ in $(seq 1 200); do
  URL="$(sed -n "s/^$TARGET listening on \(http:[^ ]*\)\$/\1/p" "$SERVER_LOG" | head -n1)"
  [ -n "$URL" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SERVER_LOG" >&2; die "$TARGET exited before listening"; }
  sleep 0.1
done
[ -n "$URL" ] || die "$TARGET did not report its address within 20 s"
log "$TARGET (pid $SERVER_PID) at $URL"

# --- 4. Run every server scenario applicable to 2026-07-28. ---------------------------------
set +e
"$NODE" "$CLI" server --url "$URL" --suite all --spec-version "$SPEC_VERSION" \
  --expected-failures "$BASELINE" --output-dir "$RUN/results" 2>&1 | tee "$RUN/conformance.log"
status=${PIPESTATUS[0]}
set -e

# --- 5. The four required scenarios must have run. -------------------------------------------
for required in "${REQUIRED[@]}"; do
  compgen -G "$RUN/results/server-$required-*/checks.json" >/dev/null \
    || { log "required scenario '$required' did not run"; status=1; }
done

if [ "$status" -eq 0 ]; then
  log "PASS: required scenarios pass; every other failure is expected (results in $RUN)"
else
  log "FAIL (exit $status): see $RUN/conformance.log"
fi
exit "$status"
