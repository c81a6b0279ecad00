# Shared helpers for the benchmark scripts in benches/. Source it; do not run it.
#
# Every script:
#   - builds the release binary once (or uses $AUTODREAM_BIN when it is set),
#   - works in a fresh temporary directory (under $BENCH_TMPDIR when set) removed on exit,
#   - runs the benchmarked commands with a minimal, fixed environment (a temporary HOME,
#     no AUTODREAM_* or agent variables from the caller), so a developer's own memory,
#     config file or settings never leak into the figures,
#   - writes hyperfine's JSON exports to $BENCH_OUT (default: bench-out/ at the repo root),
#   - appends its headline figures to $BENCH_OUT/summary.tsv for run-all.sh.

set -euo pipefail

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BENCH_OUT="${BENCH_OUT:-$BENCH_ROOT/bench-out}"
mkdir -p "$BENCH_OUT"
# Rounds per comparison (see hf_rounds) and extra environment for the timed commands.
ROUNDS="${ROUNDS:-5}"
HF_ENV=()

say() { printf '\n== %s\n' "$*" >&2; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# hyperfine is required; as root on a Debian/Ubuntu machine we install it, otherwise we say how.
ensure_hyperfine() {
    command -v hyperfine >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing hyperfine (apt-get)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 &&
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null 2>&1; } ||
            die "could not install hyperfine with apt-get"
    else
        die "hyperfine is not installed: 'sudo apt-get install hyperfine', 'brew install hyperfine' or 'cargo install hyperfine'"
    fi
}

# A JSON reader for the exports: python3 when present, jq otherwise.
ensure_json_tool() {
    if command -v python3 >/dev/null 2>&1; then
        JSON_TOOL=python3
    elif command -v jq >/dev/null 2>&1; then
        JSON_TOOL=jq
    else
        die "python3 or jq is needed to read hyperfine's JSON export"
    fi
}

# hyperfine >= 1.16 can feed a file on stdin without a shell (--input).
hyperfine_has_input() {
    hyperfine --help 2>/dev/null | grep -q -- '--input'
}

# Builds the release binaries unless $AUTODREAM_BIN points at one; sets BIN (autodream)
# and HOOK_BIN (autodream-hook, the small binary an installed hook runs, next to BIN).
build_release() {
    if [ -n "${AUTODREAM_BIN:-}" ]; then
        BIN="$AUTODREAM_BIN"
    else
        say "cargo build --release -p autodream-cli -p autodream-hook"
        (cd "$BENCH_ROOT" && cargo build --release -p autodream-cli -p autodream-hook >&2)
        BIN="${CARGO_TARGET_DIR:-$BENCH_ROOT/target}/release/autodream"
    fi
    [ -x "$BIN" ] || die "no autodream binary at $BIN"
    BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
    HOOK_BIN="$(dirname "$BIN")/autodream-hook"
    [ -x "$HOOK_BIN" ] || die "no autodream-hook binary next to $BIN"
    export AUTODREAM_BIN="$BIN"
}

# A fresh scratch directory, removed on exit; sets T (its physical path, symlinks resolved,
# because the memory directory's name is derived from the project's real path).
make_scratch() {
    T="$(mktemp -d "${BENCH_TMPDIR:-${TMPDIR:-/tmp}}/autodream-bench.XXXXXX")"
    T="$(cd "$T" && pwd -P)"
    trap 'rm -rf "$T"' EXIT
}

# Runs a command with the benchmark environment: only PATH, a scratch HOME, TZ, and
# whatever NAME=VALUE pairs are given before the command.
bench_env() {
    env -i PATH="$PATH" HOME="$T/home" TZ="${TZ:-UTC}" LANG=C.UTF-8 "$@"
}

# `autodream status --json` from the project, with the benchmark environment plus the
# NAME=VALUE pairs given.
status_json() {
    (cd "$T/project" && bench_env "$@" "$BIN" status --json)
}

json_get() { # json_get FILE JQ_EXPR PY_EXPR (PY_EXPR sees the document as `d`)
    if [ "$JSON_TOOL" = python3 ]; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print("null" if v is None else v)' "$1" "$3"
    else
        jq -r "$2" "$1"
    fi
}

# The first gate that fails in a status JSON file ("none" when every gate passes).
first_failed_gate() {
    json_get "$1" '[.gates[] | select(.pass == false) | .name] | first // "none"' \
        'next((g["name"] for g in d["gates"] if not g["pass"]), "none")'
}

gate_value() { # gate_value FILE NAME
    json_get "$1" ".gates[] | select(.name == \"$2\") | .value" \
        "next(g[\"value\"] for g in d[\"gates\"] if g[\"name\"] == \"$2\")"
}

# Runs one hyperfine comparison in ROUNDS rounds of RUNS/ROUNDS runs each and merges the
# rounds into one export (same schema: mean, median, stddev, min, max, user, system, times).
# On a shared machine the load drifts; hyperfine runs all of command A, then all of B, so
# a drift lands on one side. Rounds interleave A and B at a coarse grain and spread it.
# hyperfine runs in the benchmark environment (bench_env) plus the NAME=VALUE pairs in the
# array HF_ENV, from the current directory.
# Usage: hf_rounds OUT.json ROUNDS RUNS WARMUP hyperfine-args... (commands, -n, -N, ...)
hf_rounds() {
    local out="$1" rounds="$2" runs="$3" warmup="$4" r per
    shift 4
    per=$(((runs + rounds - 1) / rounds))
    rm -f "$out.log"
    for r in $(seq 1 "$rounds"); do
        # hyperfine's warnings (outliers, a slow first run) go to OUT.log, not the screen.
        bench_env "${HF_ENV[@]}" hyperfine --style none --warmup "$warmup" --runs "$per" \
            --export-json "$out.round$r" "$@" >/dev/null 2>>"$out.log" ||
            die "hyperfine failed: $(tail -n 5 "$out.log")"
    done
    if [ "$JSON_TOOL" = python3 ]; then
        python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
parts = [json.load(open(f"{out}.round{r}"))["results"] for r in range(1, rounds + 1)]
results = []
for i, first in enumerate(parts[0]):
    times = [t for p in parts for t in p[i]["times"]]
    results.append({
        "command": first["command"],
        "mean": statistics.fmean(times),
        "stddev": statistics.stdev(times) if len(times) > 1 else 0.0,
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "user": statistics.fmean(p[i]["user"] for p in parts),
        "system": statistics.fmean(p[i]["system"] for p in parts),
        "times": times,
        "rounds": rounds,
    })
json.dump({"results": results}, open(out, "w"), indent=1)
PY
    else
        local files=()
        for r in $(seq 1 "$rounds"); do files+=("$out.round$r"); done
        jq -s '[.[].results] as $p | {results: [range(0; $p[0] | length) as $i
            | [$p[][$i]] as $rs | ([$rs[].times[]]) as $t | ($t | sort) as $s
            | ($t | add / length) as $m
            | {command: $rs[0].command, mean: $m,
               stddev: (if ($t | length) > 1 then (([$t[] | (. - $m) * (. - $m)] | add) / (($t | length) - 1) | sqrt) else 0 end),
               median: (if ($s | length) % 2 == 1 then $s[($s | length) / 2 | floor]
                        else ($s[($s | length) / 2 - 1] + $s[($s | length) / 2]) / 2 end),
               min: $s[0], max: $s[-1],
               user: ([$rs[].user] | add / length), system: ([$rs[].system] | add / length),
               times: $t, rounds: ($rs | length)}]}' "${files[@]}" >"$out"
    fi
    rm -f "$out".round*
    hf_table "$out"
}

# Prints a merged export as a small table (milliseconds).
hf_table() { # hf_table FILE
    local n i
    n="$(json_get "$1" '.results | length' 'len(d["results"])')"
    printf '  %-58s %9s %9s %9s %9s %9s\n' command "mean" "± sd" median min "user+sys" >&2
    for i in $(seq 0 $((n - 1))); do
        printf '  %-58s %9s %9s %9s %9s %9s\n' \
            "$(json_get "$1" ".results[$i].command" "d['results'][$i]['command']" | cut -c1-58)" \
            "$(ms "$(hf_stat "$1" "$i" mean)")" "$(ms "$(hf_stat "$1" "$i" stddev)")" \
            "$(ms "$(hf_stat "$1" "$i" median)")" "$(ms "$(hf_stat "$1" "$i" min)")" \
            "$(ms "$(cpu_time "$1" "$i")")" >&2
    done
    printf '  (ms; %s runs per command in %s interleaved rounds)\n' \
        "$(json_get "$1" '.results[0].times | length' 'len(d["results"][0]["times"])')" \
        "$(json_get "$1" '.results[0].rounds // 1' 'd["results"][0].get("rounds", 1)')" >&2
}

# Mean CPU time (user + system, seconds) of result IDX.
cpu_time() { # cpu_time FILE IDX
    awk -v u="$(hf_stat "$1" "$2" user)" -v s="$(hf_stat "$1" "$2" system)" 'BEGIN { print u + s }'
}

# Ratio of two results' mean CPU time (A / B), two decimals.
cpu_ratio() { # cpu_ratio FILE A B
    awk -v a="$(cpu_time "$1" "$2")" -v b="$(cpu_time "$1" "$3")" 'BEGIN { printf "%.2f", a / b }'
}

# Mean, median and standard deviation (seconds) of result IDX (0-based) of a hyperfine export.
hf_stat() { # hf_stat FILE IDX mean|median|stddev
    json_get "$1" ".results[$2].$3" "d['results'][$2]['$3']"
}

# Ratio of two results' statistic (A / B), two decimals.
hf_ratio() { # hf_ratio FILE A B [mean|median]
    local stat="${4:-mean}" a b
    a="$(hf_stat "$1" "$2" "$stat")"
    b="$(hf_stat "$1" "$3" "$stat")"
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }'
}

ms() { awk -v s="$1" 'BEGIN { printf "%.3f", s * 1000 }'; }

# The verdict of a ratio VALUE ("1.23x") against a GOAL ("<=1.5x"): "met" or "MISSED";
# with a second ratio (the median), "noisy" when the two disagree about the goal (outliers
# from other load moved one mean: run again on a quieter machine). "-" without a goal.
verdict() { # verdict VALUE GOAL [MEDIAN_VALUE]
    case "$2" in
    '<='*x)
        awk -v v="${1%x}" -v m="${3:-$1}" -v g="${2#<=}" 'BEGIN {
            g = substr(g, 1, length(g) - 1); sub(/x$/, "", m)
            a = (v + 0 <= g + 0); b = (m + 0 <= g + 0)
            print (a && b) ? "met" : (!a && !b) ? "MISSED" : "noisy" }'
        ;;
    '<='*ms)
        awk -v v="$1" -v m="${3:-$1}" -v g="${2#<=}" 'BEGIN {
            g = substr(g, 1, length(g) - 2)
            a = (v + 0 <= g + 0); b = (m + 0 <= g + 0)
            print (a && b) ? "met" : (!a && !b) ? "MISSED" : "noisy" }'
        ;;
    *) echo - ;;
    esac
}

# Appends one headline figure to the summary run-all.sh prints.
record() { # record NAME VALUE GOAL NOTE [MEDIAN_VALUE]
    local v
    v="$(verdict "$2" "$3" "${5:-}")"
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$v" "$4" >>"$BENCH_OUT/summary.tsv"
    printf '%-44s %10s   goal %-7s %-6s %s\n' "$1" "$2" "$3" "$v" "$4" >&2
}

# A realistic Stop-hook JSON, as the agent writes it on the hook's stdin.
write_hook_json() { # write_hook_json FILE SESSION_ID TRANSCRIPT CWD
    printf '{"session_id":"%s","transcript_path":"%s","cwd":"%s","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false}\n' \
        "$2" "$3" "$4" >"$1"
}

# A UUID-shaped session id, deterministic from a number.
session_id() { printf '%08x-7a1e-4c3d-9b2f-%012x' "$1" "$(($1 * 2654435761 % 281474976710656))"; }

# An instant long past (2000-01-01): the scan stamp set to it opens the scan throttle
# without deleting the file, as it is between two real scans.
LONG_AGO=946684800

# Sets a file's mtime to N seconds before now.
set_mtime_ago() { touch -d "@$(($(date +%s) - $2))" "$1"; }

# The agent's layout in the scratch dir: $T/home (HOME), $T/project (the agent's working
# directory, not a git repository), the memory dir created by `autodream init`. Sets
# PROJECT, MEMORY_DIR, SESSIONS_DIR, STATE_DIR, LOCK, STAMP as the binary itself resolves them.
# shellcheck disable=SC2034 # the variables are for the scripts that source this file
setup_layout() {
    mkdir -p "$T/home" "$T/project"
    PROJECT="$T/project"
    (cd "$PROJECT" && bench_env "$BIN" init >/dev/null)
    status_json >"$T/status.json"
    MEMORY_DIR="$(json_get "$T/status.json" .memory_dir 'd["memory_dir"]')"
    SESSIONS_DIR="$(json_get "$T/status.json" .sessions_dir 'd["sessions_dir"]')"
    STATE_DIR="$(json_get "$T/status.json" .state_dir 'd["state_dir"]')"
    [ -d "$MEMORY_DIR" ] || die "autodream init did not create $MEMORY_DIR"
    mkdir -p "$SESSIONS_DIR"
    LOCK="$MEMORY_DIR/.consolidate-lock"
    STAMP="$STATE_DIR/scan-stamp"
}

# Checks that the gates are in the state a scenario claims, before timing it.
expect_first_failed_gate() { # expect_first_failed_gate NAME [env...]
    local want="$1" got
    shift
    status_json "$@" >"$T/status.json"
    got="$(first_failed_gate "$T/status.json")"
    [ "$got" = "$want" ] || die "expected the $want gate to be the first closed one, but it is: $got"
}

# Fails when a hook started a worker or left a task behind: a benchmark must not dream.
expect_no_dream() {
    [ ! -e "$STATE_DIR/task.json" ] || die "a dream was started (task.json exists in the state folder)"
    [ ! -s "$STATE_DIR/worker.log" ] || die "a worker ran: $(head -c 400 "$STATE_DIR/worker.log")"
}
