#!/usr/bin/env bash
# Per-turn extraction as processes, on a 5 MB transcript (the repository's two real Claude
# Code transcripts repeated, entry ids made unique):
#
#   nothing new   the Stop hook when the transcript did not change since extraction last
#                 read it (one stat, one small read): `autodream-hook` vs `/bin/true`, both
#                 given the same Stop JSON as their one argument, no shell (-N). Goal: mean
#                 ratio <= 1.5. BEFORE_HOOK=path adds a build without extraction to the
#                 same rounds.
#   latency       Stop -> line in today's log: a user turn with a durable statement is
#                 appended to the transcript, the hook runs, and the clock stops when the
#                 line is in the log (polled every 0.2 ms). Median and p95 over LATENCY_RUNS.
#   first read    `autodream __extract` reading the whole 5 MB transcript (no record yet).
#
# Usage: benches/extract.sh            (AUTODREAM_BIN=path skips the build)
#        BEFORE_HOOK=path/to/old/autodream-hook benches/extract.sh
#        RUNS=1000 ROUNDS=5 LATENCY_RUNS=40 benches/extract.sh
# shellcheck source=lib/common.sh
source "$(dirname "$0")/lib/common.sh"

RUNS="${RUNS:-1000}"
WARMUP="${WARMUP:-20}"
LATENCY_RUNS="${LATENCY_RUNS:-40}"

ensure_hyperfine
ensure_json_tool
command -v python3 >/dev/null 2>&1 || die "python3 is needed to build the transcript and time the latency"
build_release
make_scratch
# The engine's state in the scratch folder, for every command of this script.
export AUTODREAM_STATE_DIR="$T/state"
bench_env() {
    env -i PATH="$PATH" HOME="$T/home" TZ="${TZ:-UTC}" LANG=C.UTF-8 AUTODREAM_STATE_DIR="$AUTODREAM_STATE_DIR" "$@"
}
setup_layout
touch "$LOCK" # the time gate is closed: no dream starts, only extraction is measured

SESSION="5e55a0b1-7a1e-4c3d-9b2f-00000000e5e5"
TRANSCRIPT="$SESSIONS_DIR/$SESSION.jsonl"
FIXTURES="$BENCH_ROOT/crates/autodream-offline/tests/fixtures/real"
python3 - "$FIXTURES" "$TRANSCRIPT" <<'EOF'
import pathlib, sys
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
one = "".join(p.read_text() for p in sorted(src.glob("*.jsonl")))
out, k = [], 0
while sum(map(len, out)) < 5 * 1000 * 1000:
    out.append(one.replace('"uuid":"', f'"uuid":"r{k}-'))
    k += 1
dst.write_text("".join(out))
EOF
SIZE="$(wc -c <"$TRANSCRIPT")"
STOP_JSON="$(printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop"}' "$SESSION" "$TRANSCRIPT" "$PROJECT")"
LOG="$MEMORY_DIR/logs/$(date -u +%Y/%m/%Y-%m-%d).md"
RECORD="$AUTODREAM_STATE_DIR"
say "transcript: $SIZE bytes"

say "first read: __extract over the whole transcript"
(cd "$PROJECT" && hf_rounds "$BENCH_OUT/extract-first.json" 1 10 0 -N \
    --prepare "sh -c 'rm -rf $AUTODREAM_STATE_DIR/*/extract $MEMORY_DIR/logs'" \
    -n "autodream __extract (5 MB, first read)" "$BIN __extract --transcript $TRANSCRIPT --current-session $SESSION")
# Every timed run read the whole transcript: it wrote the same entries each time.
first_lines="$(grep -c '(session 5e55a0b1)' "$LOG" || true)"
[ "$first_lines" -gt 0 ] || die "the first read wrote nothing to $LOG"
# Leave the record in place for the next scenarios.
(cd "$PROJECT" && bench_env "$BIN" __extract --transcript "$TRANSCRIPT" --current-session "$SESSION") ||
    die "the extractor failed"
[ -n "$(find "$RECORD" -name '*.json' -path '*extract*' 2>/dev/null)" ] || die "no extraction record in $RECORD"

say "nothing new: the Stop hook vs /bin/true, the Stop JSON as the one argument"
# The hook must start nothing: no clone/fork in its trace (needs strace; skipped without it).
if command -v strace >/dev/null 2>&1; then
    (cd "$PROJECT" && bench_env strace -f -qq -o "$T/hook.trace" "$HOOK_BIN" "$STOP_JSON")
    forks="$(grep -cE '^([0-9]+ +)?(clone3?|fork|vfork)\(' "$T/hook.trace" || true)"
    [ "$forks" = 0 ] || die "the hook started a process with nothing new: $(grep -E 'clone|fork' "$T/hook.trace" | head -3)"
    record "hook nothing new: system calls" "$(wc -l <"$T/hook.trace")" "info" "no process started (checked)"
fi
extra=()
if [ -n "${BEFORE_HOOK:-}" ]; then
    [ -x "$BEFORE_HOOK" ] || die "BEFORE_HOOK: no executable at $BEFORE_HOOK"
    extra=(-n "autodream-hook before extraction" "$BEFORE_HOOK '$STOP_JSON'")
fi
(cd "$PROJECT" && hf_rounds "$BENCH_OUT/extract-nothing-new.json" "$ROUNDS" "$RUNS" "$WARMUP" -N \
    -n "autodream-hook (Stop, nothing new)" "$HOOK_BIN '$STOP_JSON'" \
    -n "/bin/true" "/bin/true '$STOP_JSON'" \
    "${extra[@]}")
[ "$(wc -c <"$TRANSCRIPT")" = "$SIZE" ] || die "the transcript changed during the run"

say "latency: Stop -> line in today's log ($LATENCY_RUNS turns)"
(cd "$PROJECT" && bench_env python3 - "$HOOK_BIN" "$TRANSCRIPT" "$LOG" "$LATENCY_RUNS" "$STOP_JSON" \
    >"$BENCH_OUT/extract-latency.txt") <<'EOF' || die "latency run failed"
import json, os, statistics, subprocess, sys, time
hook, transcript, log, runs, stop = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
lat, ret = [], []
for i in range(runs):
    words = f"The build cache for job{i} lives in the bucket ci-cache-{i} on S3."
    turn = json.dumps({"type": "user", "uuid": f"lat-u{i}", "message": {"role": "user", "content": words}}) + "\n"
    turn += json.dumps({"type": "assistant", "uuid": f"lat-a{i}", "message": {"id": f"lat-m{i}", "role": "assistant",
                        "content": [{"type": "text", "text": "Noted."}]}}) + "\n"
    with open(transcript, "a") as f:
        f.write(turn)
    needle = f"ci-cache-{i} "
    t0 = time.perf_counter()
    subprocess.run([hook, stop], check=True)
    t1 = time.perf_counter()
    while True:
        try:
            with open(log) as f:
                if needle in f.read():
                    break
        except FileNotFoundError:
            pass
        if time.perf_counter() - t0 > 10:
            sys.exit(f"no line for turn {i} after 10 s")
        time.sleep(0.0002)
    lat.append(time.perf_counter() - t0)
    ret.append(t1 - t0)
    time.sleep(0.05)  # let the extractor exit before the next turn
lat.sort(); ret.sort()
p95 = lambda xs: xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
print(f"{statistics.median(lat)*1000:.2f} {p95(lat)*1000:.2f} {statistics.median(ret)*1000:.2f} {p95(ret)*1000:.2f}")
EOF
read -r lat_med lat_p95 ret_med ret_p95 <"$BENCH_OUT/extract-latency.txt"
lines="$(grep -c 'ci-cache-' "$LOG" || true)"
[ "$lines" = "$LATENCY_RUNS" ] || die "expected $LATENCY_RUNS latency lines in the log, found $lines"

say "extraction results"
f="$BENCH_OUT/extract-first.json"
record "first read of 5 MB (__extract, mean)" "$(ms "$(hf_stat "$f" 0 mean)") ms" "info" \
    "$(awk -v s="$(hf_stat "$f" 0 mean)" -v b="$SIZE" 'BEGIN { printf "%.1f MB/s", b / s / 1e6 }') including start-up and the log writes"
f="$BENCH_OUT/extract-nothing-new.json"
record "hook Stop nothing new / true (-N, mean)" "$(hf_ratio "$f" 0 1)x" "<=1.5x" \
    "$(ms "$(hf_stat "$f" 0 mean)") ms vs $(ms "$(hf_stat "$f" 1 mean)") ms; median $(hf_ratio "$f" 0 1 median)x; CPU $(cpu_ratio "$f" 0 1)x" \
    "$(hf_ratio "$f" 0 1 median)x"
if [ -n "${BEFORE_HOOK:-}" ]; then
    record "hook Stop nothing new / before extraction (-N, mean)" "$(hf_ratio "$f" 0 2)x" "info" \
        "before: $(ms "$(hf_stat "$f" 2 mean)") ms, $(hf_ratio "$f" 2 1)x true; median $(hf_ratio "$f" 0 2 median)x"
fi
record "Stop -> line in the log, 5 MB transcript (median)" "$lat_med ms" "info" "p95 $lat_p95 ms over $LATENCY_RUNS turns"
record "Stop hook returns (median)" "$ret_med ms" "info" "p95 $ret_p95 ms, the extractor started detached"
