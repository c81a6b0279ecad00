#!/usr/bin/env bash
# What the agent reads from memory, and the client's memory stores, with the real client:
#   1. a memory folder where the client loads it (MEMORY.md and three topic files); one
#      `claude -p` session whose scripted model reads a topic whole and in part, greps the
#      folder (file list and content with line numbers) and globs it;
#   2. autodream counts exactly those calls from the transcript (`status --json`: per file and
#      line; "1 of 3 topics read in the last session"), and parses the transcript with 0 lines
#      skipped (`doctor`);
#   3. a dream orders the index by use: the topic read comes first;
#   4. the memory-store stand-down: with CLAUDE_MEMORY_STORES set, the client's Stop hook runs
#      autodream's hook, gate 1 closes with that reason and no dream starts; `doctor` says how
#      to use both; without it, the same hook dreams.
# Offline: the client talks only to the scripted fake Messages API on loopback.
#
#   CC_VERSION=latest scripts/real-client/usage.sh     # or 2.1.197 (the default)
#   KEEP_TRANSCRIPTS=DIR   also copy step 1's transcript there, paths made neutral
#   KEEP=1                 keep the scratch folder
#
#   cargo build --release --target-dir target/mine -p autodream-cli -p autodream-hook
#   AUTODREAM=target/mine/release/autodream AUTODREAM_HOOK=target/mine/release/autodream-hook \
#     scripts/real-client/usage.sh

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -x "$AUTODREAM" ] || fail "no autodream binary at $AUTODREAM (build it, or set AUTODREAM)"
[ -x "$AUTODREAM_HOOK" ] || fail "no autodream-hook binary at $AUTODREAM_HOOK (build it, or set AUTODREAM_HOOK)"
echo "client: $("$CLAUDE" --version 2>/dev/null)"

# The scratch folder first: the script names the memory folder's absolute paths.
S=$(mktemp -d)
mkdir -p "$S/home/.claude" "$S/proj" "$S/bin"
(cd "$S/proj" && git init -q .)
cp "$AUTODREAM" "$S/bin/autodream"
cp "$AUTODREAM_HOOK" "$S/bin/autodream-hook"
adx() { (cd "$S/proj" && env -i PATH="$PATH" HOME="$S/home" ${AD_ENV:-} "$S/bin/autodream" "$@"); }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
MEM=$(adx status --json | json 'd["memory_dir"]')
mkdir -p "$MEM"
printf -- '- [Deploy](deploy.md) — how a release reaches production\n- [Testing](testing.md) — how tests run\n- [Billing](billing.md) — who owns billing\n' > "$MEM/MEMORY.md"
printf -- '---\nname: deploy\ndescription: how a release reaches production\nmetadata:\n  type: project\n---\n# Deploy\n- deploys go out on Tuesdays\n- staging first, then canary\n- rollback is one command\n' > "$MEM/deploy.md"
printf -- '---\nname: testing\ndescription: how tests run\nmetadata:\n  type: feedback\n---\n# Testing\n- use cargo nextest\n' > "$MEM/testing.md"
printf -- '---\nname: billing\ndescription: who owns billing\nmetadata:\n  type: project\n---\n# Billing\n- Priya owns billing\n' > "$MEM/billing.md"
# Billing first, so that ordering by use has something to move.
printf -- '- [Billing](billing.md) — who owns billing\n- [Testing](testing.md) — how tests run\n- [Deploy](deploy.md) — how a release reaches production\n' > "$MEM/MEMORY.md"
python3 - "$MEM" > "$S/script.json" <<'PY'
import json, sys
m = sys.argv[1]
print(json.dumps({"replies": [
    {"tool_use": {"name": "Read", "input": {"file_path": m + "/deploy.md"}}},
    {"tool_use": {"name": "Grep", "input": {"pattern": "nextest", "path": m}}},
    {"tool_use": {"name": "Grep", "input": {"pattern": "Priya", "path": m, "output_mode": "content", "-n": True}}},
    {"tool_use": {"name": "Glob", "input": {"pattern": "*.md", "path": m}}},
    {"tool_use": {"name": "Read", "input": {"file_path": m + "/deploy.md", "offset": 7, "limit": 2}}},
    "Deploys go out on Tuesdays.",
]}))
PY
python3 "$T/fake_anthropic.py" --port-file "$S/port" --log "$S/requests.jsonl" --script "$S/script.json" 2>"$S/server.log" &
FAKE_PID=$!
trap 'stop_fake; [ -n "${KEEP:-}" ] || rm -rf "$S"' EXIT
for _ in $(seq 50); do [ -s "$S/port" ] && break; sleep 0.1; done

step "1. a session that reads memory"
cc -p "when do we deploy?" --allowedTools "Read Grep Glob" > "$S/answer.txt"
transcript=$(ls "$S/home/.claude/projects/"*/*.jsonl | head -1)
ok "$(wc -l < "$transcript") transcript lines; the model said: $(cat "$S/answer.txt")"

step "2. what autodream counted"
adx status --json > "$S/status.json"
python3 - "$S/status.json" <<'PY' || fail "the counts are not the calls the model made"
import json, sys
u = json.load(open(sys.argv[1]))["usage"]
files = u["files"]
want = {
    "deploy.md": {"read": 2, "glob": 1, "lines": {"7": 1, "8": 1}},
    "testing.md": {"grep": 1, "glob": 1},
    "billing.md": {"grep": 1, "glob": 1, "lines": {"8": 1}},
    "MEMORY.md": {"glob": 1},
}
assert files == want, json.dumps(files, indent=1)
assert u["follow_rate"] == "1 of 3 topics read in the last session", u["follow_rate"]
print("ok: deploy.md read 2 times (lines 7-8 once); testing.md and billing.md grepped once (billing.md "
      "line 8); all four files globbed once; " + u["follow_rate"])
PY
adx status | grep -q "1 of 3 topics read in the last session" || fail "status does not show the follow rate"
adx doctor > "$S/doctor.txt" || true
grep -E '^(ok|warn|PROBLEM) +(transcripts|usage)' "$S/doctor.txt"
grep -qE '^ok +transcripts .*0 lines skipped|^ok +transcripts' "$S/doctor.txt" || fail "doctor: transcripts not ok"
if grep -E '^[a-zA-Z]+ +transcripts' "$S/doctor.txt" | grep -q 'skipped' && ! grep -E '^[a-zA-Z]+ +transcripts' "$S/doctor.txt" | grep -q ' 0 lines skipped'; then
  fail "doctor reports skipped transcript lines"
fi
ok "the transcript parses with no line skipped"
if [ -n "${KEEP_TRANSCRIPTS:-}" ]; then
  mkdir -p "$KEEP_TRANSCRIPTS"
  out="$KEEP_TRANSCRIPTS/claude_real_v${CC_VERSION}_memory_reads.jsonl"
  python3 "$(dirname "${BASH_SOURCE[0]}")/neutral_transcript.py" "$S" < "$transcript" > "$out"
  ok "transcript kept as $(basename "$out")"
fi

step "3. a dream orders the index by use"
adx run --engine hygiene > /dev/null
head -1 "$MEM/MEMORY.md" | grep -q 'deploy.md' || { cat "$MEM/MEMORY.md"; fail "the topic read is not first"; }
ok "MEMORY.md after the dream:"
cat "$MEM/MEMORY.md"

step "4. the client's memory stores: autodream stands down"
adx install claude-code > /dev/null
mkdir -p "$S/home/.config/autodream"
printf 'min_hours = 0\nmin_sessions = 1\nscan_interval_minutes = 0\nidle_seconds = 0\n' > "$S/home/.config/autodream/config.toml"
# No blanks: CC_ENV and AD_ENV are split on them.
STORES='[{"path":"'"$S"'/stores/team","mode":"rw","scope":"team"}]'
mkdir -p "$S/stores/team"
before=$(adx history --json | json 'len(d["dreams"])')
asked=$(wc -l < "$S/requests.jsonl")
CC_ENV="CLAUDE_MEMORY_STORES=$STORES" cc -p "remember that the canary runs for an hour" \
  --output-format stream-json --verbose --include-hook-events > "$S/stores-session.jsonl"
python3 - "$S/stores-session.jsonl" <<'PY' || fail "the client did not run autodream's Stop hook"
import json, sys
runs = [m for m in map(json.loads, open(sys.argv[1])) if m.get("type") == "system"
        and m.get("subtype") == "hook_response" and m.get("hook_event") == "Stop"]
assert runs and all(r.get("exit_code") == 0 for r in runs), runs
print(f"ok: the client ran the Stop hook ({len(runs)} run, exit 0)")
PY
python3 - "$S/requests.jsonl" "$asked" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]
main = [json.loads(l) for l in lines]
main = [r for r in main if r.get("path", "").split("?")[0] == "/v1/messages" and (r.get("body") or {}).get("tools")]
body = json.dumps(main[0]["body"]) if main else ""
print("the client under CLAUDE_MEMORY_STORES: MEMORY.md "
      + ("still in its first request" if "how a release reaches production" in body else "not in its first request (hidden)"))
PY
sleep 2
AD_ENV="CLAUDE_MEMORY_STORES=$STORES" adx status --json > "$S/stores.json"
python3 - "$S/stores.json" <<'PY' || fail "gate 1 is not closed by the memory stores"
import json, sys
g = json.load(open(sys.argv[1]))["gates"][0]
assert g["name"] == "enabled" and g["pass"] is False and "CLAUDE_MEMORY_STORES is set" in g["detail"], g
print("ok: gate 1: " + g["detail"])
PY
[ "$(adx history --json | json 'len(d["dreams"])')" = "$before" ] || fail "a dream ran while the memory stores were set"
grep -q 'scan-stamp' <(ls "$(adx status --json | json 'd["state_dir"]')") && fail "the hook scanned sessions past gate 1" || true
ok "the Stop hook ran under the memory stores and started no dream"
AD_ENV="CLAUDE_MEMORY_STORES=$STORES" adx doctor > "$S/doctor-stores.txt" || true
grep -A1 -E '^PROBLEM auto_memory' "$S/doctor-stores.txt" || fail "doctor does not explain the memory stores"
grep -q "to use both" "$S/doctor-stores.txt" || fail "doctor does not say how to use both"
cc -p "and the canary runs in eu-west" > /dev/null
for _ in $(seq 100); do
  [ "$(adx history --json | json 'len(d["dreams"])')" != "$before" ] && break
  sleep 0.2
done
[ "$(adx history --json | json 'len(d["dreams"])')" != "$before" ] || {
  adx status
  cat "$(adx status --json | json 'd["state_dir"]')/worker.log" 2>/dev/null | tail -5
  fail "without the memory stores the hook did not dream"
}
ok "without CLAUDE_MEMORY_STORES the same hook dreams"
echo
echo "all real-client usage checks passed ($CC_VERSION)"
