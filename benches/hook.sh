#!/usr/bin/env bash
# The hook hot path as a whole process: `autodream-hook` (the small binary an installed hook
# runs) with the gates closed, against `/bin/true` (the floor: starting any process at all).
# Goal: mean ratio <= 1.5. `autodream hook` (the same code in the full CLI) is shown too.
#
# Scenarios (the memory dir is the agent's layout in a scratch HOME, resolved from the cwd
# as the installed hook resolves it):
#   closed        the lock was refreshed just now, so gate 2 (time) closes: the 99% case.
#   closed+json   the same with a real Stop-hook JSON on stdin, both commands started as
#                 `sh -c 'exec CMD < hook.json'`, as an agent starts a hook: the ratio
#                 includes one shell start on each side (diluted, but no correction).
#   scan          for information: time gate open, scan stamp aged before every run,
#                 3 of 40 sessions new, so gate 4 closes after one directory scan.
#
# Usage: benches/hook.sh            (AUTODREAM_BIN=path skips the build)
#        EXTRA_BINS="static=path/to/autodream" benches/hook.sh   (more builds, same rounds)
#        EXTRA_HOOK_BINS="before=path/to/autodream-hook" benches/hook.sh   (other hook binaries)
#        RUNS=1000 WARMUP=20 ROUNDS=10 benches/hook.sh   (RUNS in total, over ROUNDS rounds)
# shellcheck source=lib/common.sh
source "$(dirname "$0")/lib/common.sh"

RUNS="${RUNS:-1000}"
WARMUP="${WARMUP:-20}"

ensure_hyperfine
ensure_json_tool
build_release
make_scratch
setup_layout

# Forty transcripts: the current one (5 s old), two from the last hours, the rest one to
# forty days old.
# Each holds a finished turn (a prompt and its answer), as a transcript does when the Stop hook
# runs: a lone unanswered prompt would be held back by per-turn capture, which then starts
# again at every hook until the answer is written.
for i in $(seq 1 40); do
    f="$SESSIONS_DIR/$(session_id "$i").jsonl"
    {
        printf '{"type":"user","uuid":"u%s","message":{"role":"user","content":"hello"}}\n' "$i"
        printf '{"type":"assistant","uuid":"a%s","message":{"id":"m%s","role":"assistant","content":[{"type":"text","text":"Hi."}]}}\n' "$i" "$i"
    } >"$f"
    case "$i" in
    1) set_mtime_ago "$f" 5 ;;
    2 | 3) set_mtime_ago "$f" $((i * 3600)) ;;
    *) set_mtime_ago "$f" $((i * 86400)) ;;
    esac
done
CURRENT="$(session_id 1)"
HOOK_JSON="$T/hook.json"
write_hook_json "$HOOK_JSON" "$CURRENT" "$SESSIONS_DIR/$CURRENT.jsonl" "$PROJECT"

# The hook must stay silent with the gates closed; check once before timing anything.
touch "$LOCK"
expect_first_failed_gate time
out="$(cd "$PROJECT" && bench_env "$BIN" hook <"$HOOK_JSON" 2>&1)"
[ -z "$out" ] || die "the hook printed something with its gates closed: $out"
# That first hook read the current transcript's new turn (per-turn capture, detached); once
# the capture has recorded it, a hook has nothing new to read: the 99% case timed below.
record="$STATE_DIR/extract/$CURRENT.json"
size="$(wc -c <"$SESSIONS_DIR/$CURRENT.jsonl" | tr -d ' ')"
for _ in $(seq 1 100); do
    grep -q "\"seen\":$size[,}]" "$record" 2>/dev/null && break
    sleep 0.05
done
grep -q "\"seen\":$size[,}]" "$record" 2>/dev/null || die "per-turn capture did not record the transcript ($record)"

# What the closed-gate hook asks of the kernel: no thread, no event loop (no async
# runtime), a few dozen system calls. Needs strace; skipped without it.
if command -v strace >/dev/null 2>&1; then
    (cd "$PROJECT" && bench_env strace -f -qq -o "$T/hook.trace" "$BIN" hook <"$HOOK_JSON")
    runtime="$(grep -cE '^([0-9]+ +)?(clone3?|fork|vfork|epoll_create1?|eventfd2?|io_uring_setup)\(' "$T/hook.trace" || true)"
    [ "$runtime" = 0 ] || die "the closed-gate hook started a thread or an event loop: $(grep -E 'clone|epoll|eventfd|io_uring' "$T/hook.trace" | head -3)"
    syscalls="$(wc -l <"$T/hook.trace")"
    path_calls="$(grep -cE '^([0-9]+ +)?(openat|statx|newfstatat|stat|lstat|access|rename|readlink)\(' "$T/hook.trace" || true)"
    record "hook closed: system calls" "$((syscalls + 0))" "info" \
        "$path_calls of them open/stat/rename a path; no thread, no epoll (checked)"
fi

say "closed: time gate closed, no shell (-N)"
input=()
closed_name="autodream hook (stdin /dev/null)"
if hyperfine_has_input; then
    input=(--input "$HOOK_JSON")
    closed_name="autodream hook (hook.json on stdin)"
fi
# Other builds of the binary to compare in the same rounds (e.g. other linker flags):
# EXTRA_BINS="name=path name=path".
extra=()
for spec in ${EXTRA_BINS:-}; do
    [ -x "${spec#*=}" ] || die "EXTRA_BINS: no executable at ${spec#*=}"
    extra+=(-n "${spec%%=*}: autodream hook" "${spec#*=} hook")
done
# Other builds of the small hook binary, run as an installed hook runs it (no arguments).
for spec in ${EXTRA_HOOK_BINS:-}; do
    [ -x "${spec#*=}" ] || die "EXTRA_HOOK_BINS: no executable at ${spec#*=}"
    extra+=(-n "${spec%%=*}: autodream-hook" "${spec#*=}")
done
(cd "$PROJECT" && hf_rounds "$BENCH_OUT/hook-closed.json" "$ROUNDS" "$RUNS" "$WARMUP" -N "${input[@]}" \
    -n "${closed_name/autodream hook/autodream-hook}" "$HOOK_BIN" \
    -n "/bin/true" "/bin/true" \
    -n "sh -c true (how the agent starts a hook)" "sh -c true" \
    -n "$closed_name" "$BIN hook" \
    "${extra[@]}")
expect_no_dream

say "closed+json: time gate closed, hook JSON on stdin, both started by sh as an agent does"
(cd "$PROJECT" && hf_rounds "$BENCH_OUT/hook-closed-json.json" "$ROUNDS" "$RUNS" "$WARMUP" -N \
    -n "sh -c 'exec autodream hook < hook.json'" "sh -c \"exec $BIN hook < $HOOK_JSON\"" \
    -n "sh -c 'exec /bin/true < hook.json'" "sh -c \"exec /bin/true < $HOOK_JSON\"")
expect_no_dream

say "scan: time gate open, sessions gate closed after one directory scan"
set_mtime_ago "$LOCK" $((30 * 3600)) # 30 h ago: only the three newest sessions are newer
touch -d "@$LONG_AGO" "$STAMP"
expect_first_failed_gate sessions
out="$(cd "$PROJECT" && bench_env "$BIN" hook <"$HOOK_JSON" 2>&1)"
[ -z "$out" ] || die "the hook printed something with its gates closed: $out"
[ -e "$STAMP" ] || die "the hook did not reach the scan (no scan stamp after a run)"
(cd "$PROJECT" && hf_rounds "$BENCH_OUT/hook-scan.json" "$ROUNDS" "$RUNS" "$WARMUP" -N "${input[@]}" \
    --prepare "touch -d @$LONG_AGO $STAMP" \
    -n "autodream hook (scan of 40 sessions)" "$BIN hook" \
    -n "/bin/true" "/bin/true")
expect_no_dream

say "hook results"
f="$BENCH_OUT/hook-closed.json"
closed="$(hf_ratio "$f" 0 1)"
record "autodream-hook closed / true (-N, mean)" "${closed}x" "<=1.5x" \
    "$(ms "$(hf_stat "$f" 0 mean)") ms vs $(ms "$(hf_stat "$f" 1 mean)") ms; median $(hf_ratio "$f" 0 1 median)x; CPU $(cpu_ratio "$f" 0 1)x" \
    "$(hf_ratio "$f" 0 1 median)x"
record "autodream-hook closed / sh -c true (-N, mean)" "$(hf_ratio "$f" 0 2)x" "info" \
    "sh -c true: $(ms "$(hf_stat "$f" 2 mean)") ms; median $(hf_ratio "$f" 0 2 median)x"
record "autodream hook (the full CLI) closed / true (-N, mean)" "$(hf_ratio "$f" 3 1)x" "info" \
    "$(ms "$(hf_stat "$f" 3 mean)") ms; median $(hf_ratio "$f" 3 1 median)x"
i=4
for spec in ${EXTRA_BINS:-} ${EXTRA_HOOK_BINS:-}; do
    record "hook closed / true: ${spec%%=*}" "$(hf_ratio "$f" "$i" 1)x" "<=1.5x" \
        "$(ms "$(hf_stat "$f" "$i" mean)") ms; median $(hf_ratio "$f" "$i" 1 median)x; CPU $(cpu_ratio "$f" "$i" 1)x" \
        "$(hf_ratio "$f" "$i" 1 median)x"
    i=$((i + 1))
done
f="$BENCH_OUT/hook-closed-json.json"
record "hook closed + JSON / true (via sh, mean)" "$(hf_ratio "$f" 0 1)x" "info" \
    "$(ms "$(hf_stat "$f" 0 mean)") ms vs $(ms "$(hf_stat "$f" 1 mean)") ms, one sh start in each; median $(hf_ratio "$f" 0 1 median)x"
f="$BENCH_OUT/hook-scan.json"
record "hook one scan / true (-N, mean)" "$(hf_ratio "$f" 0 1)x" "info" \
    "$(ms "$(hf_stat "$f" 0 mean)") ms; median $(hf_ratio "$f" 0 1 median)x"
if awk -v r="$closed" -v m="$(hf_ratio "$BENCH_OUT/hook-closed.json" 0 1 median)" 'BEGIN { exit !(r > 1.5 || m > 1.5) }'; then
    printf '\nThe closed-gate hook is above 1.5x /bin/true; see benches/README.md, "When the hook ratio is high".\n' >&2
fi
