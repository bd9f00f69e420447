#!/usr/bin/env bash
# "Same findings before and after": scans a fixed set of snapshots with one mcpvet binary and
# writes every JSON report to OUT_DIR, so two builds (before and after a performance change)
# can be compared with `diff -r`. The set: every snapshot fixture under tests/fixtures, the
# labelled corpus (../shared/corpus, each *.jsonl file as one scan, one snapshot per `server`
# field, and every server alone), and synthetic snapshots (examples/synth_tools.rs: 5,000 tools
# in one file and in 50 files). CARGO_TARGET_DIR is honoured.
#
#   scripts/same-findings.sh target/release/mcpvet OUT_DIR [CORPUS_DIR]
#   diff -r BEFORE_DIR AFTER_DIR && echo same
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
out=$(realpath -m "$2")
corpus=${3:-../shared/corpus}
gen=${CARGO_TARGET_DIR:-$PWD/target}/debug/examples/synth_tools
[ -x "$gen" ] || cargo build --locked --example synth_tools >&2
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scan() { # NAME FILE... : one report, the working folder's path replaced
    local name=$1
    shift
    (cd "$work" && "$bin" --max-items 1000000 --max-file-size 4GiB scan --offline --no-policy \
        --format json -o "$out/$name.json" "$@" >/dev/null 2>&1) || true
    sed -i "s#$work#WORK#g" "$out/$name.json" 2>/dev/null || true
}

for f in $(find tests/fixtures -name '*.json' | sort); do
    if grep -q '"tools"' "$f"; then
        scan "fixture-$(echo "$f" | tr '/' '_')" "$PWD/$f"
    fi
done

if [ -d "$corpus" ]; then
    python3 - "$corpus" "$work/corpus" <<'PY'
import json, sys, pathlib, re
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for f in sorted(src.glob("*.jsonl")):
    servers = {}
    for i, line in enumerate(f.read_text().splitlines()):
        if not line.strip():
            continue
        r = json.loads(line)
        if "tool" not in r:
            continue
        s = r.get("server") or f"alone-{i}"
        servers.setdefault(s, []).append(r["tool"])
    d = dst / f.stem
    d.mkdir(parents=True)
    for n, (s, tools) in enumerate(sorted(servers.items())):
        (d / f"s{n:05}.json").write_text(json.dumps(
            {"serverInfo": {"name": s, "version": "1"}, "tools": tools}))
PY
    for d in "$work"/corpus/*/; do
        name=$(basename "$d")
        scan "corpus-$name" "$d"*.json
        # Every seventh server alone (the pre-install case; all of them would take long).
        i=0
        for s in "$d"*.json; do
            i=$((i + 1))
            [ $((i % 7)) -eq 0 ] || continue
            scan "corpus-$name-alone-$(basename "$s" .json)" "$s"
        done
    done
fi

"$gen" 5000 1 "$work/s1" >/dev/null
"$gen" 5000 50 "$work/s50" >/dev/null
scan synth-5000-1 "$work"/s1/*.json
scan synth-5000-50 "$work"/s50/*.json
ls "$out" | wc -l | xargs echo "reports written to $out:"
