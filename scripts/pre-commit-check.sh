#!/usr/bin/env bash
# Exercise .pre-commit-hooks.yaml with the real pre-commit framework: install pre-commit (from
# PyPI, pinned) into .cache/pre-commit/, make a scratch git repository with an MCP config, and
# run this repository's `mcpvet-system` hook on it with `pre-commit try-repo`. A clean config
# must pass; a config with a literal token must stop the commit, and the token must not show.
# Needs: python3 (venv), git, and a built mcpvet ($MCPVET, default target/debug/mcpvet).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
mcpvet=${MCPVET:-$root/target/debug/mcpvet}
[ -x "$mcpvet" ] || { echo "build mcpvet first (cargo build --locked)" >&2; exit 2; }
version=4.7.0
venv=$root/.cache/pre-commit/venv
if ! "$venv/bin/pre-commit" --version 2>/dev/null | grep -q " $version\$"; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "pre-commit==$version"
fi
export PRE_COMMIT_HOME=$root/.cache/pre-commit/home
bindir=$(mktemp -d "$root/target/pre-commit-bin.XXXXXX")
repo=$(mktemp -d "$root/target/pre-commit-demo.XXXXXX")
trap 'rm -rf "$bindir" "$repo"' EXIT
ln -s "$mcpvet" "$bindir/mcpvet"
export PATH="$bindir:$PATH"
cd "$repo"
git init -q .
git config user.email ci@example.invalid
git config user.name ci
cat >.mcp.json <<'JSON'
{
  "mcpServers": {
    "ci-insights": { "command": "ci-insights", "env": { "CI_TOKEN": "${CI_READ_TOKEN}" } }
  }
}
JSON
git add .mcp.json
"$venv/bin/pre-commit" try-repo "$root" mcpvet-system --all-files
echo "clean config: hook passed"
cat >.mcp.json <<'JSON'
{
  "mcpServers": {
    "tracker": {
      "command": "npx",
      "args": ["-y", "example-tracker-mcp@latest"],
      "env": { "TRACKER_TOKEN": "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" }
    }
  }
}
JSON
git add .mcp.json
set +e
out=$("$venv/bin/pre-commit" try-repo "$root" mcpvet-system --all-files 2>&1)
rc=$?
set -e
printf '%s\n' "$out"
[ "$rc" -eq 1 ] || { echo "expected the hook to fail (exit 1), got $rc" >&2; exit 1; }
grep -q literal-secret <<<"$out" || { echo "the hook did not report literal-secret" >&2; exit 1; }
if grep -q ghp_0123456789abcdefghijklmnopqrstuvwxyzAB <<<"$out"; then
  echo "the hook printed the token" >&2
  exit 1
fi
echo "leaky config: hook stopped the commit"
