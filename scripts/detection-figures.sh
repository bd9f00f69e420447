#!/usr/bin/env bash
# Print the detection figures the README quotes, each server audited alone at the default gate
# (high): mcpvet's own training split, the frozen test split and its paraphrases
# (tests/corpus/), and the shared public corpus. Informational: it gates nothing (the gate on the
# shared corpus is scripts/corpus-eval.sh); the frozen split's hashes are checked by
# `cargo test` (lexicon::frozen_test_split_is_unchanged).
#
#   scripts/detection-figures.sh [SHARED_CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${1:-../shared/corpus}"
cargo build --locked --quiet --release --example corpus_eval
eval_bin="${CARGO_TARGET_DIR:-target}/release/examples/corpus_eval"
for dir in tests/corpus/train tests/corpus/test "$shared"; do
  if [ ! -d "$dir" ]; then
    echo "detection-figures: no corpus at $dir (skipped)" >&2
    continue
  fi
  echo "## $dir"
  "$eval_bin" "$dir" | sed -n '/== per-server ==/,/^$/p'
  "$eval_bin" "$dir" | sed -n '/^summary:/,$p'
  echo
done
