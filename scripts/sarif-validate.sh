#!/usr/bin/env bash
# Validate SARIF logs with Microsoft's SARIF multitool (npm package @microsoft/sarif-multitool),
# running both its SARIF rules and its GitHub-ingestion rules ("Gh"). Fails on any error-level
# result, a log that does not parse, or a validator that did not run; warnings are printed.
#
# Usage: bash scripts/sarif-validate.sh FILE.sarif [FILE.sarif ...]
#
# The validator is installed on first use into .cache/sarif/ (git-ignored) with npm; after
# that no network is needed. Needs node and npm (Debian: apt-get install -y nodejs npm).
set -euo pipefail

VERSION="5.7.0"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/sarif"

if [ "$#" -eq 0 ]; then
    echo "usage: $0 FILE.sarif [FILE.sarif ...]" >&2
    exit 2
fi

case "$(uname -s)" in
    Linux) platform=linux ;;
    Darwin) platform=darwin ;;
    *) echo "sarif-validate: unsupported platform $(uname -s)" >&2; exit 2 ;;
esac
bin="$cache/node_modules/@microsoft/sarif-multitool-$platform/Sarif.Multitool"
installed="$cache/node_modules/@microsoft/sarif-multitool/package.json"

if ! [ -f "$installed" ] || ! grep -q "\"version\": \"$VERSION\"" "$installed" || ! [ -f "$bin" ]; then
    command -v npm >/dev/null || { echo "sarif-validate: npm is required (apt-get install -y nodejs npm)" >&2; exit 2; }
    mkdir -p "$cache"
    echo "sarif-validate: installing @microsoft/sarif-multitool@$VERSION into $cache" >&2
    npm install --prefix "$cache" --no-audit --no-fund --no-save --loglevel=error \
        "@microsoft/sarif-multitool@$VERSION" >&2
fi
# npm may skip the package's postinstall (which only marks the binary executable).
chmod u+x "$bin"

# The multitool is a .NET app: run it without ICU and without telemetry.
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for file in "$@"; do
    if ! [ -f "$file" ]; then
        echo "sarif-validate: $file: no such file" >&2
        status=1
        continue
    fi
    out="$work/validation.sarif"
    rm -f "$out"
    # Called directly (not through the npm wrapper, whose shell would split "Gh;Sarif").
    if ! "$bin" validate "$file" --output "$out" --log ForceOverwrite \
        --rule-kind "Gh;Sarif" --level "Error;Warning" >"$work/stdout" 2>&1; then
        cat "$work/stdout" >&2
        echo "sarif-validate: $file: the validator failed to run" >&2
        status=1
        continue
    fi
    if ! [ -f "$out" ]; then
        cat "$work/stdout" >&2
        echo "sarif-validate: $file: the validator wrote no result log" >&2
        status=1
        continue
    fi
    # Count error-level results and tool failures in the validator's own SARIF log.
    if ! node - "$out" "$file" <<'JS'
const fs = require("fs");
const [log, file] = process.argv.slice(2);
const run = JSON.parse(fs.readFileSync(log, "utf8")).runs[0];
let errors = 0;
for (const r of run.results || []) {
    const level = r.level || "warning";
    const args = (r.message && r.message.arguments) || [];
    const where = (r.locations || []).map(l => {
        const reg = (l.physicalLocation || {}).region || {};
        return `${reg.startLine || "?"}:${reg.startColumn || "?"}`;
    }).join(",");
    console.error(`${file}:${where}: ${level} ${r.ruleId}: ${args.join(" | ")}`);
    if (level === "error") errors++;
}
for (const inv of run.invocations || []) {
    if (inv.executionSuccessful === false) { console.error(`${file}: validator run failed`); errors++; }
    for (const n of inv.toolExecutionNotifications || []) {
        if (n.level === "error") { console.error(`${file}: ${n.message && n.message.text}`); errors++; }
    }
}
if (errors > 0) { console.error(`${file}: ${errors} error(s)`); process.exit(1); }
console.log(`${file}: valid SARIF (0 errors)`);
JS
    then
        status=1
    fi
done
exit "$status"
