#!/usr/bin/env bash
# The whole loop with the real Claude Code client, offline:
#   1. `autodream install claude-code` into a fake HOME;
#   2. six `claude -p` sessions, each stating something worth keeping; the Stop hook of the
#      sixth finds five sessions since the last dream and starts a dream in the background;
#   3. the dream (offline engine) writes topic files and MEMORY.md into the folder the client
#      loads, and nothing else there;
#   4. the next session: its first request to the API carries MEMORY.md, and its Stop hook
#      announces the dream ("Improved N files"), which the client records in the transcript;
#      the SessionEnd hooks of the earlier sessions never took the announcement.
#
#   cargo build --release --target-dir target/mine -p autodream-cli -p autodream-hook
#   AUTODREAM=target/mine/release/autodream AUTODREAM_HOOK=target/mine/release/autodream-hook \
#     scripts/real-client/dream.sh

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -x "$AUTODREAM" ] || fail "no autodream binary at $AUTODREAM (build it, or set AUTODREAM)"
[ -x "$AUTODREAM_HOOK" ] || fail "no autodream-hook binary at $AUTODREAM_HOOK (build it, or set AUTODREAM_HOOK)"
echo "client: $("$CLAUDE" --version 2>/dev/null)"

start_fake --reply "Understood."
trap stop_fake EXIT
mkdir -p "$S/bin"
cp "$AUTODREAM" "$S/bin/autodream"
cp "$AUTODREAM_HOOK" "$S/bin/autodream-hook"
adx() { (cd "$S/proj" && env -i PATH="$PATH" HOME="$S/home" "$S/bin/autodream" "$@"); }
(cd "$S/proj" && git init -q .)

step "1. install"
adx install claude-code | sed "s|$S|\$S|g"
# Dream as soon as five sessions are there: no scan throttle, no wait for the user to go idle.
mkdir -p "$S/home/.config/autodream"
printf 'scan_interval_minutes = 0\nidle_seconds = 0\n' > "$S/home/.config/autodream/config.toml"

step "2. six sessions"
said=(
  "We use pnpm in this repository, never npm."
  "The CI runs on GitHub Actions; the main workflow is .github/workflows/ci.yml."
  "Always run cargo nextest before pushing, not cargo test."
  "Priya Raman owns the billing service and reviews every change to it."
  "Deploys go out on Tuesdays after the standup."
  "The staging database is read-only for developers."
)
for i in "${!said[@]}"; do
  cc -p "${said[$i]}" > /dev/null
  sleep 1.1 # distinct mtimes, like sessions spread over a day
done
ok "$(ls "$S/home/.claude/projects/"*/*.jsonl | wc -l) transcripts"

step "3. the dream the sixth Stop hook started"
for _ in $(seq 100); do
  state=$(adx status --json | python3 -c 'import json,sys; t=json.load(sys.stdin).get("task") or {}; print(t.get("state",""))')
  [ "$state" = completed ] || [ "$state" = failed ] && break
  sleep 0.2
done
[ "$state" = completed ] || { adx status; fail "no completed dream (task state: ${state:-none})"; }
mem=$(adx status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_dir"])')
ok "dream completed in ${mem#"$S"/}"
echo "--- MEMORY.md"
cat "$mem/MEMORY.md"
echo "--- today's daily log (per-turn extraction)"
cat "$mem"/logs/*/*/*.md
echo "--- memory folder"
(cd "$mem" && find . -mindepth 1 | sort)
if (cd "$mem" && find . -name '*.md' -path './.*' | grep -q .); then fail "engine files under the memory folder"; fi
grep -qi pnpm "$mem"/*.md || fail "the pnpm rule is not in memory"

step "4. the next session loads MEMORY.md and hears about the dream"
before=$(wc -l < "$S/requests.jsonl")
cc -p "what do you know about this project?" --output-format stream-json --verbose --include-hook-events > "$S/next.jsonl"
python3 - "$S/requests.jsonl" "$before" <<'PY' || fail "the next session's request does not carry MEMORY.md"
import json, sys
lines = open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]
records = [json.loads(l) for l in lines]
main = [r for r in records if r.get("path", "").split("?")[0] == "/v1/messages"
        and isinstance(r.get("body"), dict) and r["body"].get("tools")]
body = json.dumps(main[0]["body"])
assert "auto-memory" in body and "pnpm" in body, "MEMORY.md not in the first request"
print("ok: the first request of the next session carries MEMORY.md (user's auto-memory, mentions pnpm)")
PY
transcript=$(ls -t "$S/home/.claude/projects/"*/*.jsonl | head -1)
grep -q 'Improved [0-9]* file' "$transcript" || fail "no announcement in the next session's transcript"
ok "the Stop hook's announcement is in the transcript: $(grep -o 'Improved [0-9]* files\?' "$transcript" | head -1)"
again=$(adx status --json | python3 -c 'import json,sys; print((json.load(sys.stdin).get("task") or {}).get("announced"))')
[ "$again" = True ] || fail "the task is not marked announced"
ok "announced once"
echo
echo "all real-client dream checks passed"
