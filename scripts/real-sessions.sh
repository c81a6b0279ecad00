#!/usr/bin/env bash
# One offline dream over a folder of real Claude Code transcripts, timed on one core, then
# every line it wrote, for reading as the agent would.
#
# usage: scripts/real-sessions.sh [TRANSCRIPTS_DIR]
#   TRANSCRIPTS_DIR  default: ../shared/data/transcripts/real (beside the checkout), else
#                    the two fixtures in crates/autodream-offline/tests/fixtures/real
# Needs hyperfine and taskset for the timing (skipped when either is missing).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="${1:-$root/../shared/data/transcripts/real}"
[[ -d "$src" ]] || src="$root/crates/autodream-offline/tests/fixtures/real"
src="$(cd "$src" && pwd)"

cargo build --quiet --release -p autodream-cli --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release/autodream"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sessions" "$work/project" "$work/home"
# The client names transcripts by session id (a UUID); derive one from each file name.
for f in "$src"/*.jsonl; do
  id=$(python3 -c 'import sys, uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, sys.argv[1]))' "$(basename "$f")")
  cp "$f" "$work/sessions/$id.jsonl"
done
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" TZ=UTC
run=("$bin" run --engine offline --memory-dir "$work/memory" --sessions-dir "$work/sessions" --project "$work/project")

bytes=$(cat "$work"/sessions/*.jsonl | wc -c)
echo "== $(ls "$work/sessions" | wc -l) transcripts, $bytes bytes"
if command -v hyperfine >/dev/null && command -v taskset >/dev/null; then
  hyperfine --warmup 2 --runs 10 --prepare "rm -rf '$work/memory'" "taskset -c 0 ${run[*]}"
fi
rm -rf "$work/memory"
"${run[@]}"
echo
echo "== MEMORY.md"
cat "$work/memory/MEMORY.md"
for f in "$work"/memory/*.md; do
  [[ "$(basename "$f")" == MEMORY.md ]] && continue
  echo
  echo "== $(basename "$f")"
  grep '^- \|^## ' "$f"
done
