#!/usr/bin/env bash
# Measure the definition audit on the labelled corpus and fail below the quality bar
# (in-scan recall >= 97 %, false-positive rate <= 2 % at the default gate `high`).
#
#   scripts/corpus-eval.sh [CORPUS_DIR] [--show]
#
# CORPUS_DIR defaults to ../shared/corpus (CI clones the repo with shared/ beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-../shared/corpus}"
shift || true
if [ ! -d "$dir" ]; then
  echo "corpus-eval: no corpus at $dir" >&2
  exit 2
fi
cargo run --quiet --example corpus_eval -- "$dir" --check "$@"
