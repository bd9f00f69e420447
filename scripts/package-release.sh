#!/usr/bin/env bash
# Package a release binary (the `dist` profile: strip + LTO) as the archive `cargo binstall` looks for (Cargo.toml,
# [package.metadata.binstall]): dist/mcpvet-<target>-v<version>.tar.gz holding
# mcpvet-<target>-v<version>/{mcpvet,ci-insights,README.md,LICENSE*}.
#   bash scripts/package-release.sh [TARGET]      (default: the host's target)
# With MCPVET_PREBUILT_DIR set, the binaries are taken from there instead of being built;
# MCPVET_DIST_DIR replaces dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-$(rustc -vV | sed -n 's/^host: //p')}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
name=mcpvet-$target-v$version
if [ -n "${MCPVET_PREBUILT_DIR:-}" ]; then
  bins=$MCPVET_PREBUILT_DIR
else
  cargo build --locked --profile dist --target "$target" --bins
  bins=target/$target/dist
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dist=${MCPVET_DIST_DIR:-dist}
mkdir -p "$stage/$name" "$dist"
cp "$bins/mcpvet" "$bins/ci-insights" "$stage/$name/"
cp README.md "$stage/$name/"
for f in LICENSE*; do
  if [ -e "$f" ]; then cp "$f" "$stage/$name/"; fi
done
tar -C "$stage" -czf "$dist/$name.tar.gz" "$name"
echo "$dist/$name.tar.gz"
