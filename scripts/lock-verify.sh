#!/usr/bin/env bash
# Verify the shipped approval of ci-insights (lockfiles/ci-insights.lock.json) against the live
# server, over stdio and over Streamable HTTP: any change to what ci-insights shows the model
# fails here until it is reviewed and re-locked (`bash scripts/lock-verify.sh --relock`).
#
# Env: MCPVET, CI_INSIGHTS (binaries; built if unset).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ -z "${MCPVET:-}" ] || [ -z "${CI_INSIGHTS:-}" ]; then
  cargo build --locked --quiet --bins
fi
MCPVET="${MCPVET:-$ROOT/target/debug/mcpvet}"
CI_INSIGHTS="${CI_INSIGHTS:-$ROOT/target/debug/ci-insights}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcpvet-lockverify.XXXXXX")"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

if [ "${1:-}" = "--relock" ]; then
  # The lock records what ci-insights shows the model, not how it is launched, so the same
  # approval verifies over stdio and HTTP.
  "$MCPVET" snapshot --quiet --name ci-insights -o "$work/ci-insights.json" -- "$CI_INSIGHTS"
  "$MCPVET" lock --force --by "mcpvet maintainers" --at "2026-11-30T00:00:00Z" \
    --note "The project's own baseline server; reviewed in examples/reviews/ci-insights.md." \
    "$work/ci-insights.json"
  exit 0
fi

echo "ci-insights over stdio:"
"$MCPVET" diff --name ci-insights -- "$CI_INSIGHTS"

"$CI_INSIGHTS" --http 127.0.0.1:0 2>"$work/http.err" &
server_pid=$!
url=""
for _ in $(seq 1 100); do
  url="$(sed -n 's/^ci-insights listening on \(http:[^ ]*\).*/\1/p' "$work/http.err" | head -n1)"
  [ -n "$url" ] && break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "ci-insights --http did not report its address:" >&2
  cat "$work/http.err" >&2
  exit 1
fi
echo "ci-insights over HTTP ($url):"
"$MCPVET" diff --name ci-insights --url "$url"
echo "lockfiles/ci-insights.lock.json matches the live ci-insights over stdio and HTTP"
