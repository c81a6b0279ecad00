#!/usr/bin/env bash
# The real Claude Code client with autodream installed by `autodream install claude-code`:
#   1. install into a fake HOME (user scope): the hook on Stop and SessionEnd, autoDreamEnabled
#      false, the /dream command; a second install changes nothing;
#   2. a `claude -p` session: the client runs our hook on Stop, exit 0, and the hook's gates ran
#      (the scan stamp appears in autodream's state folder);
#   3. `claude -p /dream`: the client finds the command file, runs `autodream run` through its
#      `!` syntax and sends the dream's summary to the model;
#   4. `autodream doctor` is clean; uninstall leaves the fake HOME's settings as they were;
#   5. the same hook from the repository as a plugin (marketplace add + plugin install).
# Offline: the client talks only to the scripted fake Messages API on loopback.
#
#   cargo build --release --target-dir target/mine -p autodream-cli -p autodream-hook
#   AUTODREAM=target/mine/release/autodream AUTODREAM_HOOK=target/mine/release/autodream-hook \
#     scripts/real-client/install.sh

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -x "$AUTODREAM" ] || fail "no autodream binary at $AUTODREAM (build it, or set AUTODREAM)"
[ -x "$AUTODREAM_HOOK" ] || fail "no autodream-hook binary at $AUTODREAM_HOOK (build it, or set AUTODREAM_HOOK)"
echo "client: $("$CLAUDE" --version 2>/dev/null)"

# json FILE EXPR: a Python expression over the parsed JSON file `d`, printed.
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# hook_runs OUT EVENT: the hook_response records of EVENT in a stream-json output, one per line:
# "<exit code> <outcome> <command>".
hook_runs() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
started = {}
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("type") != "system":
        continue
    if m.get("subtype") == "hook_started":
        started[m.get("hook_id")] = m
    if m.get("subtype") == "hook_response" and m.get("hook_event") == sys.argv[2]:
        s = started.get(m.get("hook_id"), {})
        print(m.get("exit_code"), m.get("outcome"), m.get("hook_name") or s.get("hook_name"))
EOF
}

# The scratch folders are removed at the end unless KEEP=1.
SCRATCH=()
cleanup() { stop_fake; [ -n "${KEEP:-}" ] || rm -rf "${SCRATCH[@]}"; }
trap cleanup EXIT
start_fake --reply "Noted: the build uses cargo nextest."
SCRATCH+=("$S")
# Both binaries side by side, as an install puts them.
mkdir -p "$S/bin"
cp "$AUTODREAM" "$S/bin/autodream"
cp "$AUTODREAM_HOOK" "$S/bin/autodream-hook"
AD="$S/bin/autodream"
adx() { (cd "$S/proj" && env -i PATH="$PATH" HOME="$S/home" "$AD" "$@"); }
SETTINGS="$S/home/.claude/settings.json"
# A user settings file with a key of the user's own, to see it kept.
printf '{\n  "model": "sonnet"\n}\n' > "$SETTINGS"
cp "$SETTINGS" "$S/settings.before"

step "1. autodream install claude-code"
adx install claude-code | sed "s|$S|\$S|g"
[ "$(json "$SETTINGS" 'd["autoDreamEnabled"]')" = "False" ] || fail "autoDreamEnabled not false"
[ "$(json "$SETTINGS" 'd["model"]')" = "sonnet" ] || fail "the user's key is gone"
[ "$(json "$SETTINGS" 'd["hooks"]["Stop"][0]["hooks"][0]["command"]')" = "$S/bin/autodream-hook" ] || fail "no Stop hook"
[ -f "$S/home/.claude/commands/dream.md" ] || fail "no /dream command file"
again=$(adx install claude-code)
[ "$again" = "already installed, nothing changed" ] || fail "second install: $again"
ok "settings.json keeps the user's key; Stop and SessionEnd hooks by absolute path; a second install changes nothing"

step "2. a claude -p session runs the hook on Stop"
cc -p "Remember: in this project we always run the tests with cargo nextest, never with cargo test." --output-format stream-json --verbose --include-hook-events > "$S/out1.jsonl"
hook_runs "$S/out1.jsonl" Stop | tee "$S/stop.txt"
grep -q "^0 success" "$S/stop.txt" || fail "no successful Stop hook run in the stream"
stamp=$(find "$S/home/.local/state/autodream" -name scan-stamp 2>/dev/null | head -1)
[ -n "$stamp" ] || fail "the hook's gates did not run (no scan stamp under ~/.local/state/autodream)"
ok "Stop hook exit 0; gates ran: scan stamp ${stamp#"$S"/}"
cc -p "Remember: our deploys always go out on Thursdays after the release review." > /dev/null
ok "a second session (two transcripts to dream over)"

step "3. /dream runs autodream run through the client and shows its summary"
before=$(wc -l < "$S/requests.jsonl")
cc -p "/dream" --output-format stream-json --verbose > "$S/out-dream.jsonl"
python3 - "$S/requests.jsonl" "$before" <<'EOF' || fail "the /dream prompt did not reach the model with the dream's output"
import json, sys
lines = open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]
for l in lines:
    r = json.loads(l)
    if not r.get("path", "").startswith("/v1/messages"):
        continue
    text = json.dumps((r.get("body") or {}).get("messages", []))
    if "Output of `autodream run`" in text:
        # The user message the command expanded to, as the model got it.
        for m in r["body"]["messages"]:
            if m.get("role") != "user":
                continue
            c = m["content"]
            parts = [c] if isinstance(c, str) else [b.get("text", "") for b in c if isinstance(b, dict)]
            for p in parts:
                if "Output of `autodream run`" in p:
                    body = p[p.index("Output of `autodream run`"):]
                    print("\n".join("  | " + x for x in body.splitlines()[:14]))
        sys.exit(0)
sys.exit(1)
EOF
json_first() { python3 -c "import json,sys
for l in open(sys.argv[1]):
    m = json.loads(l)
    if m.get('subtype') == 'init':
        print(' '.join(m.get('slash_commands', []))); break" "$1"; }
json_first "$S/out-dream.jsonl" | tr ' ' '\n' | grep -qx dream || fail "/dream is not among the client's slash commands"
ok "the client lists /dream, expanded it, ran autodream run and sent its output to the model"
mem=$(python3 -c "import sys; print(sys.argv[1])" "$S/home/.claude/projects"/*/memory)
[ -f "$mem/MEMORY.md" ] && { echo "MEMORY.md after /dream:"; sed 's/^/  | /' "$mem/MEMORY.md"; }

step "4. autodream doctor, then uninstall"
adx doctor | sed "s|$S|\$S|g" || fail "doctor found a problem"
ok "doctor: no problems"
adx uninstall claude-code | sed "s|$S|\$S|g"
cmp -s "$SETTINGS" "$S/settings.before" || fail "settings.json differs from before the install"
[ ! -e "$S/home/.claude/commands/dream.md" ] || fail "the /dream command is still there"
ok "settings.json byte-identical to before the install; /dream removed"

step "5. the repository as a plugin: marketplace add, plugin install, the plugin's hook runs"
# A fresh HOME and server (the dream above closed the time gate in the first one); the
# binaries come from PATH, as a plugin finds them.
BIN="$S/bin"
stop_fake
start_fake --reply "Hello."
SCRATCH+=("$S")
mkdir -p "$S/market"
(cd "$ROOT" && cp -r .claude-plugin hooks commands .mcp.json "$S/market/")
cc plugin marketplace add "$S/market" > /dev/null
cc plugin install autodream@autodream | tail -1
(PATH="$BIN:$PATH" cc -p "hello again" --output-format stream-json --verbose --include-hook-events) > "$S/out-plugin.jsonl"
hook_runs "$S/out-plugin.jsonl" Stop | tee "$S/stop-plugin.txt"
grep -q "^0 success" "$S/stop-plugin.txt" || fail "the plugin's Stop hook did not run"
stamp=$(find "$S/home/.local/state/autodream" -name scan-stamp 2>/dev/null | head -1)
[ -n "$stamp" ] || fail "the plugin's hook did not reach autodream-hook on PATH"
ok "plugin installed; its Stop hook ran autodream-hook from PATH (scan stamp written)"
(cd "$S/proj" && env -i PATH="$BIN:$PATH" HOME="$S/home" "$AD" doctor) | grep -E '^(ok|warn|PROBLEM) +hook' | sed "s|$S|\$S|g; s|$BIN|\$BIN|g"

printf '\nall install checks passed\n'
