#!/usr/bin/env bash
# Runs the offline engine over LoCoMo conversations and scores the memory trees twice: with
# the Rust scorer (the table printed by the example) and with the benchmark's reference
# scorer, shared/tools/memory_score.py, for cross-checking (they must agree within 0.5).
#
# usage: scripts/eval-locomo.sh [DATA.json] [OUT_DIR] [--every K]
#   DATA.json  default: $AUTODREAM_LOCOMO, else ../shared/data/locomo/locomo_dev.json
#   OUT_DIR    default: target/locomo-eval (one-shot) or target/locomo-eval-every-K
# Run from the workspace root. The data is CC BY-NC: it is read, never copied into the repo.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

data="${AUTODREAM_LOCOMO:-../shared/data/locomo/locomo_dev.json}"
out=""
every=()
positional=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --every) every=(--every "$2"); shift 2 ;;
        *) positional+=("$1"); shift ;;
    esac
done
[[ ${#positional[@]} -ge 1 ]] && data="${positional[0]}"
[[ ${#positional[@]} -ge 2 ]] && out="${positional[1]}"
if [[ -z "$out" ]]; then
    out="target/locomo-eval"
    [[ ${#every[@]} -gt 0 ]] && out="target/locomo-eval-every-${every[1]}"
fi
tools="${AUTODREAM_LOCOMO_TOOLS:-$(dirname "$data")/../../tools}"

if [[ ! -f "$data" ]]; then
    echo "error: no LoCoMo data at $data (set AUTODREAM_LOCOMO)" >&2
    exit 1
fi

cargo run --quiet --release -p autodream-eval --example eval_locomo -- "$data" --out "$out" "${every[@]}"

if command -v python3 >/dev/null && [[ -f "$tools/memory_score.py" ]]; then
    echo
    echo "## Reference scorer ($tools/memory_score.py)"
    python3 "$tools/memory_score.py" "$data" "$out" | tail -n 1
else
    echo "note: python3 or $tools/memory_score.py missing: reference cross-check skipped" >&2
fi
