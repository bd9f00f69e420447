#!/usr/bin/env bash
# Runs the two set-up commands at the top of README.md exactly as written, so they stay true.
#   readme-commands.sh main   # the first command: the main job on the shipped example
#   readme-commands.sh test   # the second command: the test suite
# The main job scans an example with poisoned servers, so exit code 1 (findings at the gate)
# is its expected outcome; 2 (usage/config error) or 3 (probe failure) fail.
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:?usage: readme-commands.sh main|test}"
# The first fenced ```sh block of README.md holds the two commands, one per line.
mapfile -t cmds < <(awk '/^```sh$/{f=1; next} /^```$/{if(f) exit} f && NF' README.md)
if [ "${#cmds[@]}" -ne 2 ]; then
  echo "README.md: the first \`\`\`sh block must hold exactly two commands, found ${#cmds[@]}" >&2
  exit 2
fi
case "$which" in
  main)
    echo "+ ${cmds[0]}"
    set +e
    bash -c "${cmds[0]}"
    rc=$?
    set -e
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
      echo "README main command exited $rc" >&2
      exit 1
    fi
    ;;
  test)
    echo "+ ${cmds[1]}"
    bash -c "${cmds[1]}"
    ;;
  *) echo "usage: readme-commands.sh main|test" >&2; exit 2 ;;
esac
