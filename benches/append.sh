#!/usr/bin/env bash
# Daily-log appends as whole processes: 16 writers, each running `autodream log` PER_WRITER
# times in a row, all at once against one memory directory; and, for comparison, one
# writer doing the same total alone. Reports entries per second (entries of one burst over
# the mean wall time of a burst) and checks that a burst leaves exactly 16 x PER_WRITER
# whole, distinct lines.
#
# The in-process figure (threads calling daily_log::append, no process start-up) is the
# criterion bench `cargo bench -p autodream-core --bench daily_log`.
#
# Usage: benches/append.sh        (WRITERS=16 PER_WRITER=40 RUNS=5; AUTODREAM_BIN=path)
# shellcheck source=lib/common.sh
source "$(dirname "$0")/lib/common.sh"

WRITERS="${WRITERS:-16}"
PER_WRITER="${PER_WRITER:-40}"
RUNS="${RUNS:-5}"
TOTAL=$((WRITERS * PER_WRITER))

ensure_hyperfine
ensure_json_tool
build_release
make_scratch
setup_layout

# A fixed instant: every entry lands in one file with one stamp, whatever the wall clock.
LOG_ENV=(AUTODREAM_NOW=2026-05-08T12:00:00Z)
LOG_FILE="$MEMORY_DIR/logs/2026/05/2026-05-08.md"

# The burst: WRITERS background loops of `autodream log`, then wait for all of them.
BURST="$T/burst.sh"
cat >"$BURST" <<'EOF'
writers="$1" per_writer="$2" bin="$3"
for w in $(seq 1 "$writers"); do
    (
        for i in $(seq 1 "$per_writer"); do
            "$bin" log "writer $w entry $i: the release branch is rebased, never merged" >/dev/null ||
                exit 1
        done
    ) &
done
fail=0
for job in $(jobs -p); do wait "$job" || fail=1; done
exit "$fail"
EOF

say "checking one burst of $WRITERS x $PER_WRITER appends"
(cd "$PROJECT" && bench_env "${LOG_ENV[@]}" bash "$BURST" "$WRITERS" "$PER_WRITER" "$BIN") ||
    die "an autodream log process failed"
lines="$(wc -l <"$LOG_FILE")"
lines=$((lines + 0))
[ "$lines" -eq "$TOTAL" ] || die "expected $TOTAL lines in $LOG_FILE, found $lines"
distinct="$(sort -u "$LOG_FILE" | wc -l)"
[ "$((distinct + 0))" -eq "$TOTAL" ] || die "only $distinct distinct lines of $TOTAL"
bad="$(grep -cvE '^- \[12:00\] writer [0-9]+ entry [0-9]+: the release branch is rebased, never merged$' "$LOG_FILE" || true)"
[ "$bad" = 0 ] || die "$bad malformed (torn or interleaved) lines in $LOG_FILE"
say "$lines lines, all whole and distinct"

say "timing: $WRITERS concurrent writers against one writer, $TOTAL appends each way"
HF_ENV=("${LOG_ENV[@]}")
(cd "$PROJECT" && hf_rounds "$BENCH_OUT/append.json" "$RUNS" "$RUNS" 0 -N \
    --prepare "rm -rf $MEMORY_DIR/logs" \
    -n "$WRITERS writers x $PER_WRITER autodream log" "bash $BURST $WRITERS $PER_WRITER $BIN" \
    -n "1 writer x $TOTAL autodream log" "bash $BURST 1 $TOTAL $BIN")

say "append results"
f="$BENCH_OUT/append.json"
many="$(awk -v n="$TOTAL" -v s="$(hf_stat "$f" 0 mean)" 'BEGIN { printf "%.0f", n / s }')"
one="$(awk -v n="$TOTAL" -v s="$(hf_stat "$f" 1 mean)" 'BEGIN { printf "%.0f", n / s }')"
record "append, $WRITERS autodream log processes" "$many/s" "info" \
    "$TOTAL entries in $(ms "$(hf_stat "$f" 0 mean)") ms (mean of $RUNS bursts); line count checked"
record "append, 1 autodream log process" "$one/s" "info" \
    "$TOTAL entries in $(ms "$(hf_stat "$f" 1 mean)") ms; $(nproc 2>/dev/null || echo '?') CPUs"
