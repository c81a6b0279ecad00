#!/usr/bin/env bash
# Runs every benchmark once, in one go, and prints the headline figures of that run:
#   benches/hook.sh            hook with the gates closed vs /bin/true (goal <= 1.5x)
#   benches/sessions_gate.sh   one sessions scan of 10,000 transcripts vs find | wc -l (<= 1.2x)
#   benches/append.sh          16 concurrent `autodream log` processes (entries/s)
#   benches/stale_check.sh     check --stale over a 50,000-file git project (goal <= 1 s)
#   cargo bench --bench gates --bench daily_log --bench parse   (in-process: gate costs,
#                              16-thread appends, transcript reading in MB/s)
#
# Ratios from different runs are not comparable (the machine's load changes): compare
# the lines of one summary. Results and hyperfine/criterion exports go to $BENCH_OUT
# (default bench-out/ at the repo root, ignored by git).
#
# Usage: benches/run-all.sh           SKIP_CRITERION=1 to leave out the cargo benches
# shellcheck source=lib/common.sh
source "$(dirname "$0")/lib/common.sh"

started="$(date +%s)"
ensure_hyperfine
ensure_json_tool
build_release
rm -f "$BENCH_OUT/summary.tsv"

here="$(dirname "$0")"
bash "$here/hook.sh"
bash "$here/sessions_gate.sh"
bash "$here/append.sh"
bash "$here/stale_check.sh"

# Criterion's mean for one bench, from its estimates (nanoseconds per iteration).
criterion_mean_ns() { # criterion_mean_ns GROUP/BENCH
    local f="$BENCH_OUT/criterion/$1/new/estimates.json"
    [ -f "$f" ] || die "no criterion estimate at $f"
    json_get "$f" .mean.point_estimate 'd["mean"]["point_estimate"]'
}

if [ -z "${SKIP_CRITERION:-}" ]; then
    say "cargo bench -p autodream-core --bench gates --bench daily_log --bench parse"
    log="$BENCH_OUT/criterion.log"
    (cd "$BENCH_ROOT" && CRITERION_HOME="$BENCH_OUT/criterion" \
        cargo bench -p autodream-core --bench gates --bench daily_log --bench parse -- --noplot) | tee "$log" >&2
    sessions="$(sed -n 's/^RESULT sessions_gate_count=[0-9]* of \([0-9]*\) .*/\1/p' "$log")"
    us() { awk -v ns="$1" 'BEGIN { printf "%.1f us", ns / 1000 }'; }
    record "in-process: gates::check, time closed" "$(us "$(criterion_mean_ns hook_gates/time_closed)")" \
        "info" "criterion mean"
    record "in-process: Config::load (no files)" "$(us "$(criterion_mean_ns hook_gates/config_load)")" \
        "info" "criterion mean"
    record "in-process: count_touched_since ${sessions}" \
        "$(us "$(criterion_mean_ns "sessions_gate/count_touched_since_$sessions")")" "info" \
        "criterion mean; gates::check with the scan: $(us "$(criterion_mean_ns "hook_gates/sessions_closed_$sessions")")"
    many="$(sed -n 's/^RESULT append_16_writers_entries_per_sec=\([0-9]*\) .*/\1/p' "$log")"
    one="$(sed -n 's/^RESULT append_1_writer_entries_per_sec=\([0-9]*\) .*/\1/p' "$log")"
    if [ -z "$many" ] || [ -z "$one" ]; then die "the daily_log bench printed no RESULT lines"; fi
    record "in-process: append, 16 threads" "$many/s" "info" \
        "every batch's line count and lines checked; 1 thread: $one/s"
    read_ns="$(criterion_mean_ns parse/read_as_claude)"
    value_ns="$(criterion_mean_ns parse/every_line_to_value)"
    record "in-process: reading transcripts into turns" \
        "$(awk -v r="$read_ns" -v v="$value_ns" 'BEGIN { printf "%.2fx", r / v }')" "info" \
        "criterion means; vs each line parsed to a JSON value"
fi

printf '\n%-44s %10s   %-7s %-7s %s\n' "benchmark" "measured" "goal" "verdict" "detail"
printf '%s\n' "------------------------------------------------------------------------------------------------------"
while IFS=$'\t' read -r name value goal verdict note; do
    printf '%-44s %10s   %-7s %-7s %s\n' "$name" "$value" "$goal" "$verdict" "$note"
done <"$BENCH_OUT/summary.tsv"
printf '\n%s CPUs, load average %s; %s; took %ss\n' "$(nproc 2>/dev/null || echo '?')" \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" "$(hyperfine --version)" "$(($(date +%s) - started))"
