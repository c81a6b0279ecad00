#!/usr/bin/env bash
# `autodream mcp` with the real Claude Code client (npm) against the scripted fake Messages API:
# the client starts the server from an --mcp-config, and the scripted model calls
# mcp__autodream__memory_log, memory_search, memory_read (once inside the memory folder, once
# with a path that leaves it), dream_status and dream_run. Checks that the note landed in the
# day's log exactly once, that search ranked it first, that the refused read reached the model
# as an error with its reason, and that the dream dream_run started consolidated the note.
#
#   cargo build --release -p autodream-cli
#   AUTODREAM=target/release/autodream scripts/real-client/mcp.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
[ -x "$AUTODREAM" ] || fail "no autodream binary at $AUTODREAM (build with cargo build --release, or set AUTODREAM)"
AUTODREAM="$(cd "$(dirname "$AUTODREAM")" && pwd)/$(basename "$AUTODREAM")"

NOW=2026-05-08T13:56:00Z
NOTE='Decided: the release train leaves on Thursdays at 10:00, after the smoke tests'
LOG=logs/2026/05/2026-05-08.md

step "a memory folder, and a model scripted to call the tools"
script=$(mktemp)
python3 - "$script" "$NOTE" <<'PY'
import json, sys
path, note = sys.argv[1:3]
tool = lambda name, args: {"tool_use": {"name": "mcp__autodream__" + name, "input": args}}
json.dump({"replies": [
    tool("memory_log", {"text": note}),
    tool("memory_search", {"query": "release Thursdays", "limit": 3}),
    tool("memory_read", {"path": "MEMORY.md"}),
    tool("memory_read", {"path": "../outside.md"}),
    tool("dream_status", {}),
    tool("dream_run", {}),
    "Noted the release day and started a dream.",
]}, open(path, "w"))
PY
start_fake --script "$script"
trap stop_fake EXIT
mkdir -p "$S/mem" "$S/sessions"
INDEX=$'# Memory\n- [Release](release.md) — how a release is cut'
printf '%s\n' "$INDEX" > "$S/mem/MEMORY.md"
printf '%s\n' '# Release' '' '- a release is cut from main' '- the release notes live in CHANGELOG.md' > "$S/mem/release.md"
printf 'outside the memory folder\n' > "$S/outside.md"
step "claude mcp add registers the server"
cc mcp add --scope user autodream -e AUTODREAM_NOW=$NOW -e TZ=UTC -- \
  "$AUTODREAM" mcp --memory-dir "$S/mem" --sessions-dir "$S/sessions" 2>&1 | sed 's/^/  | /'
cc mcp list >"$S/list.out" 2>&1 || true
sed 's/^/  | /' "$S/list.out"
grep -q '^autodream: .* - . Connected$' "$S/list.out" && ok "claude mcp list: autodream connected" \
  || fail "claude mcp list does not show autodream connected"

step "the scripted model calls the autodream MCP tools"
tools=mcp__autodream__memory_log,mcp__autodream__memory_search,mcp__autodream__memory_read
tools=$tools,mcp__autodream__dream_status,mcp__autodream__dream_run
rc=0
cc -p "remember when the release train leaves" --allowedTools "$tools" >"$S/cc.out" 2>&1 || rc=$?
sed 's/^/  | /' "$S/cc.out"
[ "$rc" = 0 ] || { cat "$S/server.log" >&2; fail "claude -p exited $rc"; }
stop_fake

# Every tool call of the session and its result, from the last request the client sent.
python3 - "$S/requests.jsonl" > "$S/calls.jsonl" <<'PY'
import json, sys
last = None
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("path", "").split("?")[0] == "/v1/messages" and isinstance(r.get("body"), dict) and r["body"].get("tools"):
        last = r["body"]
uses, results = {}, {}
for m in last["messages"]:
    content = m.get("content") if isinstance(m.get("content"), list) else []
    for b in content:
        if b.get("type") == "tool_use":
            uses[b["id"]] = b
        elif b.get("type") == "tool_result":
            c = b.get("content")
            text = c if isinstance(c, str) else "".join(x.get("text", "") for x in c or [])
            results[b["tool_use_id"]] = (bool(b.get("is_error")), text)
for i, u in uses.items():
    err, text = results.get(i, (True, "<no result>"))
    print(json.dumps({"tool": u["name"], "input": u["input"], "is_error": err, "text": text}))
PY
while read -r call; do
  python3 -c 'import json,sys; c=json.loads(sys.argv[1]); t=c["text"].replace("\n"," "); print("  call: %s %s -> %s%s" % (c["tool"], json.dumps(c["input"], ensure_ascii=False), "ERROR " if c["is_error"] else "", t[:150] + ("…" if len(t) > 150 else "")))' "$call"
done < "$S/calls.jsonl"
result() { # result TOOL N: the Nth result of TOOL (1-based) as JSON
  python3 -c 'import json,sys; calls=[json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["tool"]==sys.argv[2]]; print(json.dumps(calls[int(sys.argv[3])-1]))' "$S/calls.jsonl" "mcp__autodream__$1" "$2"
}
field() { python3 -c 'import json,sys; v=json.loads(sys.argv[1]); [v := (v[int(k)] if isinstance(v, list) else v[k]) for k in sys.argv[2:]]; print(v if isinstance(v, str) else json.dumps(v))' "$@"; }
body() { field "$(field "$1" text)" "${@:2}"; }

[ "$(wc -l < "$S/calls.jsonl")" = 6 ] && ok "the client made the 6 scripted MCP calls" || fail "$(wc -l < "$S/calls.jsonl") MCP calls"

log=$(result memory_log 1)
[ "$(field "$log" is_error)" = false ] || fail "memory_log failed: $log"
[ "$(body "$log" file)" = "$LOG" ] && ok "memory_log answered file $LOG, line $(body "$log" line)" || fail "memory_log: $log"
[ -f "$S/mem/$LOG" ] || fail "no daily log at $S/mem/$LOG"
count=$(grep -cxF -- "- [13:56] $NOTE" "$S/mem/$LOG" || true)
[ "$count" = 1 ] && ok "the note is in $LOG exactly once: $(cat "$S/mem/$LOG")" || fail "the note is in $LOG $count times"
[ "$(wc -l < "$S/mem/$LOG")" = 1 ] && ok "nothing else was written to the log" || fail "$LOG has $(wc -l < "$S/mem/$LOG") lines"

search=$(result memory_search 1)
[ "$(body "$search" hits 0 file)" = "$LOG" ] && [ "$(body "$search" hits 0 line)" = 1 ] \
  && ok "memory_search ranked the note first (score $(body "$search" hits 0 score), then $(body "$search" hits 1 file):$(body "$search" hits 1 line) with $(body "$search" hits 1 score))" \
  || fail "memory_search: $search"

read1=$(result memory_read 1)
[ "$(field "$read1" text)" = "$INDEX" ] && ok "memory_read MEMORY.md returned the file as it was then" || fail "memory_read: $read1"
read2=$(result memory_read 2)
[ "$(field "$read2" is_error)" = true ] && field "$read2" text | grep -q 'leads out of the memory folder' \
  && ok "memory_read ../outside.md was refused, and the model saw why: $(field "$read2" text)" || fail "memory_read ../outside.md: $read2"

status=$(result dream_status 1)
[ "$(body "$status" failed_gate)" = sessions ] && ok "dream_status: would_dream $(body "$status" would_dream), waiting on the $(body "$status" failed_gate) gate" \
  || fail "dream_status: $status"

run=$(result dream_run 1)
id=$(body "$run" task_id)
[ "$id" = 20260508T135600Z ] && ok "dream_run started dream $id (PID $(body "$run" pid))" || fail "dream_run: $run"
for _ in $(seq 300); do
  state=$(cd "$S/proj" && HOME="$S/home" AUTODREAM_NOW=$NOW TZ=UTC "$AUTODREAM" status --json --memory-dir "$S/mem" --sessions-dir "$S/sessions" \
    | python3 -c 'import json,sys; t=json.load(sys.stdin)["task"] or {}; print(t.get("id"), t.get("state"))')
  [ "$state" = "$id running" ] || break
  sleep 0.1
done
[ "$state" = "$id completed" ] && ok "dream $id completed" || fail "dream $id: $state"
topic=$(grep -lF 'Thursdays' "$S/mem"/*.md | grep -v MEMORY.md | head -1 || true)
[ -n "$topic" ] && grep -qF "]($(basename "$topic"))" "$S/mem/MEMORY.md" \
  && ok "the dream consolidated the note into $(basename "$topic"), which MEMORY.md points to" \
  || fail "no topic file holds the note: $(ls "$S/mem")"
grep -F 'Thursdays' "$topic" | sed 's/^/  topic: /'
printf '\nall MCP checks passed\n'
