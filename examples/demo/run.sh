#!/usr/bin/env bash
# The bundled example: a small project with five sessions and two days of daily logs.
# Copies it to a scratch folder, dreams over it with the offline engine (no network, no API
# key), and prints what autodream wrote. The example itself is never modified.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cp -R "$here/memory" "$work/memory"
cp -R "$here/sessions" "$work/sessions"
# Each transcript was last written at the end of its session.
for f in "$work"/sessions/*.jsonl; do
  last=$(tail -n 1 "$f" | python3 -c 'import json,sys; print(json.load(sys.stdin)["timestamp"])' 2>/dev/null || true)
  [ -n "$last" ] && touch -d "$last" "$f"
done

cargo build --quiet --release -p autodream-cli --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release/autodream"

# A fixed "now", a clean configuration, and the scratch copies.
export AUTODREAM_NOW=2026-05-09T09:00:00Z TZ=UTC
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config"
export AUTODREAM_MEMORY_DIR="$work/memory" AUTODREAM_SESSIONS_DIR="$work/sessions"

echo "== autodream status"
"$bin" status --project "$here"
echo
echo "== autodream run"
"$bin" run --project "$here"
echo
echo "== MEMORY.md"
cat "$work/memory/MEMORY.md"
for f in "$work"/memory/*.md; do
  [ "$(basename "$f")" = MEMORY.md ] && continue
  echo
  echo "== $(basename "$f")"
  cat "$f"
done
echo
echo "== autodream check"
"$bin" check --project "$here"
