#!/usr/bin/env bash
# A `claude`-engine dream with the real Claude Code client (npm) against the scripted fake
# Messages API: the scripted model Reads MEMORY.md, Writes a topic file and Edits MEMORY.md by
# relative paths (they land in the staging copy and the dream applies them), and tries to
# Write a file outside the staging copy, which must be refused. Run twice: once as a user
# would have it (the client's permissions refuse the outside write), once with a user setting
# that allows every Write (Landlock refuses it). Also checks that the dream's session was not
# saved among the user's sessions, that nothing under the user's HOME changed (the client ran on a
# private copy of its config folder), and that `status` shows the dream's cost.
#
#   AUTODREAM=target/release/autodream scripts/real-client/claude-engine.sh
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
trap '[ -n "${FAKE_PID:-}" ] && stop_fake' EXIT
[ -x "$AUTODREAM" ] || fail "no autodream binary at $AUTODREAM (build with cargo build --release, or set AUTODREAM)"

INITIAL='- [Testing](feedback_testing.md) — how the user wants tests run'
ADDED='- [Release process](project_release.md) — deploy day'
TOPIC=$'---\nname: Release process\ndescription: When and how the shop is deployed\ntype: project\nupdated: 2026-05-08\n---\n- Deploys go out on Tuesdays (2026-05-06).\n'
TESTING=$'---\nname: Testing\ndescription: How the user wants tests run\ntype: feedback\nupdated: 2026-04-01\n---\n- Run the integration tests against a real database (2026-04-01).\n'

# dream_once LABEL USER_SETTINGS_JSON
dream_once() {
  local label=$1 settings=$2
  step "$label"
  local script outside
  script=$(mktemp)
  outside=$(mktemp -d)
  python3 - "$script" "$INITIAL" "$ADDED" "$TOPIC" "$outside/pwned.md" <<'PY'
import json, sys
path, initial, added, topic, outside = sys.argv[1:6]
json.dump({"replies": [
    {"tool_use": {"name": "Read", "input": {"file_path": "MEMORY.md"}}, "text": "Orienting."},
    {"tool_use": {"name": "Write", "input": {"file_path": "project_release.md", "content": topic}}},
    {"tool_use": {"name": "Edit", "input": {"file_path": "MEMORY.md", "old_string": initial,
                                             "new_string": initial + "\n" + added}}},
    {"tool_use": {"name": "Write", "input": {"file_path": outside, "content": "pwned\n"}}},
    "Added project_release.md and its index line.",
]}, open(path, "w"))
PY
  start_fake --script "$script"
  mkdir -p "$S/mem" "$S/sessions"
  printf '%s\n' "$INITIAL" > "$S/mem/MEMORY.md"
  printf '%s' "$TESTING" > "$S/mem/feedback_testing.md"
  [ -n "$settings" ] && printf '%s\n' "$settings" > "$S/home/.claude/settings.json"
  local -a env_vars=(PATH="$PATH" HOME="$S/home" TERM=dumb LANG=C.UTF-8 TZ=UTC
    ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$S/port")" ANTHROPIC_API_KEY=test
    DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1
    AUTODREAM_MEMORY_DIR="$S/mem" AUTODREAM_SESSIONS_DIR="$S/sessions"
    AUTODREAM_CLAUDE_COMMAND="$CLAUDE" AUTODREAM_NOW=2026-05-08T12:00:00Z)
  local home_before
  home_before=$(cd "$S/home" && { find .claude .claude.json -type f 2>/dev/null || true; } | sort)
  local rc=0
  (cd "$S/proj" && env -i "${env_vars[@]}" "$AUTODREAM" run --engine claude </dev/null) >"$S/run.out" 2>&1 || rc=$?
  sed 's/^/  | /' "$S/run.out"
  [ "$rc" = 0 ] || { cat "$S/server.log" >&2; fail "autodream run --engine claude exited $rc"; }
  stop_fake

  python3 -c 'import json,sys; [print("  api:", json.loads(l).get("answer", {}).get("label")) for l in open(sys.argv[1]) if json.loads(l).get("path", "").startswith("/v1/messages") and json.loads(l).get("answer")]' "$S/requests.jsonl"
  cmp -s "$S/mem/project_release.md" <(printf '%s' "$TOPIC") && ok "the topic file was written in staging and applied" \
    || fail "project_release.md missing or different"
  grep -qxF -- "$ADDED" "$S/mem/MEMORY.md" && ok "the Edit of MEMORY.md was applied" || fail "MEMORY.md lacks the new line"
  [ ! -e "$outside/pwned.md" ] && ok "the write outside staging was refused (outside/pwned.md does not exist)" \
    || fail "a file was written outside staging"
  python3 - "$S/requests.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    body = r.get("body")
    if not isinstance(body, dict):
        continue
    for m in body.get("messages", []):
        for b in m.get("content", []) if isinstance(m.get("content"), list) else []:
            if b.get("type") == "tool_result" and b.get("is_error"):
                c = b.get("content")
                text = c if isinstance(c, str) else " ".join(x.get("text", "") for x in c)
                print("  refused:", text.splitlines()[0][:160])
                break
PY
  local saved
  saved=$(find "$S/home/.claude" "$S/sessions" -name '*.jsonl' 2>/dev/null | wc -l)
  [ "$saved" = 0 ] && ok "the dream's session was not saved (no transcript under the client's folder or the sessions folder)" \
    || fail "$saved session transcript(s) were saved"
  local home_after
  home_after=$(cd "$S/home" && { find .claude .claude.json -type f 2>/dev/null || true; } | sort)
  [ "$home_after" = "$home_before" ] \
    && ok "no file appeared in the user's ~/.claude or ~/.claude.json (the client ran on a private copy)" \
    || fail "files appeared in the user's client folder: $(echo "$home_after" | tr '\n' ' ')"
  ls "$S/mem" | sed 's/^/  memory: /'
  (cd "$S/proj" && env -i "${env_vars[@]}" "$AUTODREAM" status) | sed -n '/^cost/,/^[a-z]/p' | sed '$d' | sed 's/^/  | /'
}

dream_once "claude engine, the client's own permissions" ""
dream_once "claude engine, a user setting that allows every Write (Landlock must refuse)" \
  '{"permissions": {"allow": ["Write", "Edit"]}}'
printf '\nall claude-engine checks passed\n'
