#!/usr/bin/env bash
# The sessions gate over 10,000 transcripts, as a whole process: `autodream hook` with the
# time gate and the scan throttle open (the scan stamp is aged before every run), so it
# performs its one directory scan, against the shell pipeline that counts the same thing:
#
#     find DIR -maxdepth 1 -newer LOCK -name '*.jsonl' | wc -l
#
# Goal: mean ratio <= 1.2. Half the transcripts are older than the lock, half newer, so
# every entry needs its `stat`; `min_sessions` is set above the count so the gate closes
# after the scan and no dream starts.
#
# Two comparisons, both with hyperfine -N (no shell of hyperfine's, no correction):
#   sh     `sh -c 'exec autodream hook < hook.json'` against `sh -c 'find … | wc -l'`: each
#          side starts one shell, the pipeline as written in the issue. The headline.
#   -N     the hook (stdin /dev/null) against `find` alone (no shell, no wc).
#
# Usage: benches/sessions_gate.sh   (SESSIONS=20000 to change the count; AUTODREAM_BIN=path)
# shellcheck source=lib/common.sh
source "$(dirname "$0")/lib/common.sh"

SESSIONS="${SESSIONS:-10000}"
RUNS="${RUNS:-100}"
WARMUP="${WARMUP:-3}"
BUCKETS=100 # distinct mtimes, one hour apart; the lock sits in the middle

ensure_hyperfine
ensure_json_tool
build_release
make_scratch
setup_layout

say "creating $SESSIONS transcripts in $SESSIONS_DIR"
now="$(date +%s)"
per_bucket=$(((SESSIONS + BUCKETS - 1) / BUCKETS))
for b in $(seq 0 $((BUCKETS - 1))); do
    files=()
    for j in $(seq 0 $((per_bucket - 1))); do
        i=$((b * per_bucket + j))
        [ "$i" -lt "$SESSIONS" ] || break
        f="$SESSIONS_DIR/$(session_id "$i").jsonl"
        printf '{"type":"user","message":{"role":"user","content":"note %d"}}\n' "$i" >"$f"
        files+=("$f")
    done
    [ "${#files[@]}" -eq 0 ] || touch -d "@$((now - (b + 1) * 3600))" "${files[@]}"
done
# The lock between bucket BUCKETS/2 - 1 and BUCKETS/2: the newer half is touched since.
touch -d "@$((now - (BUCKETS / 2) * 3600 - 1800))" "$LOCK"
newer_expected="$(find "$SESSIONS_DIR" -maxdepth 1 -newer "$LOCK" -name '*.jsonl' | wc -l)"
newer_expected="$((newer_expected + 0))"
# The current session is one of the newer ones: the hook excludes it, find does not.
CURRENT="$(session_id 0)"
HOOK_JSON="$T/hook.json"
write_hook_json "$HOOK_JSON" "$CURRENT" "$SESSIONS_DIR/$CURRENT.jsonl" "$PROJECT"

# The gate must scan everything and still close: raise min_sessions above the count.
GATE_ENV=(AUTODREAM_MIN_SESSIONS=$((SESSIONS + 1)))
touch -d "@$LONG_AGO" "$STAMP"
expect_first_failed_gate sessions "${GATE_ENV[@]}"
counted="$(gate_value "$T/status.json" sessions)"
[ "$counted" = "$newer_expected" ] ||
    die "autodream counts $counted sessions touched since the lock, find counts $newer_expected"
say "both count $counted of $SESSIONS transcripts as touched since the lock"
out="$(cd "$PROJECT" && bench_env "${GATE_ENV[@]}" "$BIN" hook <"$HOOK_JSON" 2>&1)"
[ -z "$out" ] || die "the hook printed something with its gates closed: $out"
[ -e "$STAMP" ] || die "the hook did not reach the scan (no scan stamp after a run)"

HF_ENV=("${GATE_ENV[@]}")

say "sh: hook (one scan) against find | wc -l"
(cd "$PROJECT" && hf_rounds "$BENCH_OUT/sessions-gate.json" "$ROUNDS" "$RUNS" "$WARMUP" -N \
    --prepare "touch -d @$LONG_AGO $STAMP" \
    -n "sh -c 'exec autodream hook < hook.json' (scan of $SESSIONS)" "sh -c \"exec $BIN hook < $HOOK_JSON\"" \
    -n "sh -c 'find | wc -l'" "sh -c \"find $SESSIONS_DIR -maxdepth 1 -newer $LOCK -name '*.jsonl' | wc -l\"")
expect_no_dream

say "-N: hook (one scan) against find alone"
(cd "$PROJECT" && hf_rounds "$BENCH_OUT/sessions-gate-noshell.json" "$ROUNDS" "$RUNS" "$WARMUP" -N \
    --prepare "touch -d @$LONG_AGO $STAMP" \
    -n "autodream hook (scan of $SESSIONS)" "$BIN hook" \
    -n "find" "find $SESSIONS_DIR -maxdepth 1 -newer $LOCK -name '*.jsonl'")
expect_no_dream

say "sessions gate results"
f="$BENCH_OUT/sessions-gate.json"
record "sessions gate $SESSIONS / find|wc (via sh, mean)" "$(hf_ratio "$f" 0 1)x" "<=1.2x" \
    "$(ms "$(hf_stat "$f" 0 mean)") ms vs $(ms "$(hf_stat "$f" 1 mean)") ms; median $(hf_ratio "$f" 0 1 median)x; CPU $(cpu_ratio "$f" 0 1)x" \
    "$(hf_ratio "$f" 0 1 median)x"
f="$BENCH_OUT/sessions-gate-noshell.json"
record "sessions gate $SESSIONS / find (-N, mean)" "$(hf_ratio "$f" 0 1)x" "info" \
    "$(ms "$(hf_stat "$f" 0 mean)") ms vs $(ms "$(hf_stat "$f" 1 mean)") ms; median $(hf_ratio "$f" 0 1 median)x; CPU $(cpu_ratio "$f" 0 1)x"
