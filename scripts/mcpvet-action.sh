#!/usr/bin/env bash
# The shell logic of the mcpvet GitHub Action (action.yml), kept in one script so that it can
# be run and tested anywhere: `bash scripts/mcpvet-action.sh install|run|finish`.
#
# Inputs arrive as environment variables, never interpolated into shell code:
#   MCPVET_COMMAND   check | scan (default: check)
#   MCPVET_PATHS     config or snapshot files, one per line (default: the project's configs)
#   MCPVET_POLICY    policy file (default: mcpvet.toml found from the working folder, if any)
#   MCPVET_BASELINE  baseline file: report only findings it does not list
#   MCPVET_FAIL_ON   severity gate (default: the policy's, else high)
#   MCPVET_ARGS      extra arguments, one per line (e.g. --offline, --snapshot-dir, DIR)
#   MCPVET_SARIF     SARIF file to write (default: mcpvet.sarif)
#   MCPVET_ANNOTATIONS  true: also print GitHub annotations (for `check` and `scan --offline`,
#                    which start nothing; a live scan is not run twice)
#   MCPVET_BIN       a prebuilt mcpvet to use instead of installing one
#   MCPVET_SOURCE    the mcpvet source tree to install from (default: this script's repository)
#   MCPVET_INSTALL_ROOT  where `cargo install` puts it (default: $RUNNER_TEMP/mcpvet or ./.mcpvet)
#   GITHUB_OUTPUT, GITHUB_PATH  set by the runner (files; ignored when unset)
#
# install  sets output `mcpvet` (the binary's path): MCPVET_BIN if given, else `mcpvet` on
#          PATH when it is the source's version, else `cargo install --locked --path SOURCE`.
# run      runs mcpvet once with --format sarif; sets outputs `sarif` and `exit-code`. Exits
#          0 when a SARIF file was written (whatever mcpvet found), so the upload step runs;
#          exits with mcpvet's code when none was (2: usage or config error).
# finish   exits with the code `run` recorded (MCPVET_EXIT_CODE): 1 findings at the gate,
#          3 a server could not be probed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

output() { # name value
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  fi
}

die() {
  printf 'mcpvet-action: %s\n' "$*" >&2
  exit 2
}

# Lines of $1 as array elements (empty lines dropped); nothing is evaluated.
lines_to_array() { # var-name text
  local -n out=$1
  out=()
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    if [ -n "${line//[[:space:]]/}" ]; then
      out+=("$line")
    fi
  done <<<"$2"
  return 0
}

source_version() {
  sed -n 's/^version = "\(.*\)"$/\1/p' "$1/Cargo.toml" | head -n 1
}

cmd_install() {
  local src=${MCPVET_SOURCE:-$here}
  local bin
  if [ -n "${MCPVET_BIN:-}" ]; then
    bin=$MCPVET_BIN
    [ -x "$bin" ] || die "MCPVET_BIN=$bin is not an executable file"
  else
    local want
    want=$(source_version "$src")
    [ -n "$want" ] || die "no version in $src/Cargo.toml"
    if command -v mcpvet >/dev/null 2>&1 && [ "$(mcpvet --version)" = "mcpvet $want" ]; then
      bin=$(command -v mcpvet)
    else
      local root=${MCPVET_INSTALL_ROOT:-${RUNNER_TEMP:-$PWD}/.mcpvet}
      command -v cargo >/dev/null 2>&1 || die "cargo is needed to build mcpvet (or set MCPVET_BIN)"
      cargo install --locked --path "$src" --root "$root" --bin mcpvet
      bin=$root/bin/mcpvet
    fi
  fi
  "$bin" --version >/dev/null || die "$bin --version failed"
  if [ -n "${GITHUB_PATH:-}" ]; then
    dirname "$bin" >>"$GITHUB_PATH"
  fi
  output mcpvet "$bin"
  printf 'mcpvet: %s (%s)\n' "$bin" "$("$bin" --version)"
}

cmd_run() {
  local bin=${MCPVET_BIN:-mcpvet}
  local command=${MCPVET_COMMAND:-check}
  case "$command" in
    check | scan) ;;
    *) die "command must be check or scan, not '$command'" ;;
  esac
  local sarif=${MCPVET_SARIF:-mcpvet.sarif}
  local -a paths extra args
  lines_to_array paths "${MCPVET_PATHS:-}"
  lines_to_array extra "${MCPVET_ARGS:-}"
  args=("$command")
  if [ -n "${MCPVET_POLICY:-}" ]; then args+=(--policy "$MCPVET_POLICY"); fi
  if [ -n "${MCPVET_BASELINE:-}" ]; then args+=(--baseline "$MCPVET_BASELINE"); fi
  if [ -n "${MCPVET_FAIL_ON:-}" ]; then args+=(--fail-on "$MCPVET_FAIL_ON"); fi
  args+=("${extra[@]}")
  rm -f -- "$sarif"
  local code=0
  local -a argv=("${args[@]}" --format sarif -o "$sarif" "${paths[@]}")
  printf '+ mcpvet'
  printf ' %q' "${argv[@]}"
  printf '\n'
  "$bin" "${argv[@]}" || code=$?
  output exit-code "$code"
  if [ ! -s "$sarif" ]; then
    output sarif ""
    printf 'mcpvet exited %s without writing %s\n' "$code" "$sarif" >&2
    exit "$code"
  fi
  output sarif "$sarif"
  local offline=false a
  for a in "${extra[@]}"; do
    if [ "$a" = --offline ]; then offline=true; fi
  done
  if [ "${MCPVET_ANNOTATIONS:-true}" = true ] && { [ "$command" = check ] || $offline; }; then
    "$bin" "${args[@]}" --format github "${paths[@]}" || true
  fi
  printf 'mcpvet %s: exit code %s, SARIF in %s\n' "$command" "$code" "$sarif"
}

cmd_finish() {
  local code=${MCPVET_EXIT_CODE:-}
  [[ "$code" =~ ^[0-9]+$ ]] || die "no exit code recorded by the run step"
  case "$code" in
    0) echo "mcpvet: no finding at the gate" ;;
    1) echo "mcpvet: findings at the gate (see the annotations or code scanning)" >&2 ;;
    3) echo "mcpvet: a server could not be probed" >&2 ;;
    *) echo "mcpvet: exit code $code" >&2 ;;
  esac
  exit "$code"
}

case "${1:-}" in
  install) cmd_install ;;
  run) cmd_run ;;
  finish) cmd_finish ;;
  *) die "usage: $0 install|run|finish" ;;
esac
