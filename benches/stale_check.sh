#!/usr/bin/env bash
# The repository check of the stale-fact pass over a 50,000-file git project, as a whole
# process: `autodream check --stale` (one walk honouring .gitignore, the package.json read,
# an environment-variable scan of the source files) against the pipeline that lists the
# same files from git's own index:
#
#     git ls-files | wc -l
#
# Goal: the check under 1 s on one core (both sides run under `taskset -c 0` when it is
# there); the ratio is shown for information. The project has FILES tracked files in
# nested folders and an ignored `node_modules/` of IGNORED files the walk must skip; the
# memory names 40 paths (half of them gone), two scripts and two environment variables,
# one read by a single source file, one only under the ignored folder (so the scan reads
# every source file: the worst case).
#
# No hyperfine: each side is timed once, warm, after one untimed run (RUNS=N times each,
# median shown). The check's own report must count the same files as git.
#
# Usage: benches/stale_check.sh   (FILES=100000 IGNORED=20000 RUNS=5; AUTODREAM_BIN=path)
# shellcheck source=lib/common.sh
source "$(dirname "$0")/lib/common.sh"

FILES="${FILES:-50000}"
IGNORED="${IGNORED:-10000}"
RUNS="${RUNS:-1}"

command -v git >/dev/null || die "git is needed"
ensure_json_tool
if [ -n "${AUTODREAM_BIN:-}" ]; then
    BIN="$(cd "$(dirname "$AUTODREAM_BIN")" && pwd)/$(basename "$AUTODREAM_BIN")" # no hook binary needed
else
    build_release
fi
make_scratch
mkdir -p "$T/home" "$T/project"
PROJECT="$T/project"

say "creating a git project of $FILES files (and $IGNORED ignored)"
python3 - "$PROJECT" "$FILES" "$IGNORED" <<'PY'
import os, sys
root, files, ignored = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def put(rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
put(".gitignore", "node_modules/\ndist/\n")
put("package.json", '{"scripts": {"test:unit": "vitest run", "lint": "eslint ."}}\n')
n = files - 2
for i in range(n):
    # 50 packages x 20 folders x up to 50 files
    rel = f"packages/pkg-{i % 50:02d}/src/mod-{(i // 50) % 20:02d}/file-{i}.ts"
    body = f"export const v{i} = {i};\n"
    if i == n - 1:
        body += "export const url = process.env.LATE_SERVICE_URL;\n"
    put(rel, body)
for i in range(ignored):
    put(f"node_modules/dep-{i % 100}/index-{i}.js", "module.exports = process.env.ONLY_IN_DEPS;\n")
PY
(cd "$PROJECT" && git init -q && git add -A && git -c user.name=bench -c user.email=bench@example.invalid commit -qm fixture)

# The memory: the agent's layout, resolved from the project as the hook resolves it.
(cd "$PROJECT" && bench_env "$BIN" init >/dev/null)
(cd "$PROJECT" && bench_env "$BIN" status --json) >"$T/status.json"
MEMORY_DIR="$(json_get "$T/status.json" .memory_dir 'd["memory_dir"]')"
{
    printf -- '---\nname: project\ndescription: where things are\nmetadata:\n  type: project\n---\n# Project\n\n'
    for i in $(seq 0 19); do
        printf -- '- Module %d lives in `packages/pkg-%02d/src/mod-00/file-%d.ts` (2026-01-01).\n' "$i" "$i" "$i"
        printf -- '- Module x%d lives in `packages/pkg-%02d/src/gone/file-%d.ts` (2026-01-01).\n' "$i" "$i" "$i"
    done
    printf -- '- Unit tests: `npm run test:unit` (2026-01-01).\n- CI runs `npm run test:ci` (2026-01-01).\n'
    printf -- '- The client reads $LATE_SERVICE_URL (2026-01-01).\n- Deps read $ONLY_IN_DEPS (2026-01-01).\n'
} >"$MEMORY_DIR/project.md"
printf -- '- [Project](project.md) — where things are\n' >"$MEMORY_DIR/MEMORY.md"

one_core=()
command -v taskset >/dev/null && one_core=(taskset -c 0)

check() { (cd "$PROJECT" && bench_env "${one_core[@]}" "$BIN" check --stale --json) || true; }
ls_files() { (cd "$PROJECT" && "${one_core[@]}" sh -c 'git ls-files | wc -l'); }

# The scenario before the timing: the walk saw what git tracks, and the check moved what it
# should (20 gone paths, `test:ci`, `ONLY_IN_DEPS` read only under the ignored folder).
check >"$T/check.json"
walked="$(json_get "$T/check.json" .report.files_walked 'd["report"]["files_walked"]')"
tracked="$(ls_files | tr -d ' ')"
[ "$walked" = "$tracked" ] || die "the walk saw $walked files, git tracks $tracked"
moved="$(json_get "$T/check.json" '.report.moved | length' 'len(d["report"]["moved"])')"
incomplete="$(json_get "$T/check.json" .report.incomplete 'd["report"]["incomplete"]')"
# 22 with every bound kept; fewer means a bound cut the variable scan short (say so, and go on:
# the time is the figure).
[ "$moved" = 22 ] || say "only $moved of 22 facts would move (incomplete: $incomplete): a bound cut the scan short"

now_ns() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
check_times=()
git_times=()
for _ in $(seq 1 "$RUNS"); do
    t0="$(now_ns)"
    check >/dev/null
    t1="$(now_ns)"
    ls_files >/dev/null
    t2="$(now_ns)"
    check_times+=("$((t1 - t0))")
    git_times+=("$((t2 - t1))")
done
check_ns="$(printf '%s\n' "${check_times[@]}" | median)"
git_ns="$(printf '%s\n' "${git_times[@]}" | median)"
check_ms="$(awk -v n="$check_ns" 'BEGIN { printf "%.1f", n / 1e6 }')"
git_ms="$(awk -v n="$git_ns" 'BEGIN { printf "%.1f", n / 1e6 }')"
ratio="$(awk -v a="$check_ns" -v b="$git_ns" 'BEGIN { printf "%.2f", a / b }')"
record "check --stale, $tracked files: ms" "$check_ms" "<=1000ms" \
    "one core: ${one_core[*]:-(no taskset)}; git ls-files | wc -l: $git_ms ms; ratio ${ratio}x; $moved of 22 moved; $RUNS run(s), median"
