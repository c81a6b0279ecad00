#!/usr/bin/env bash
# Every real-client check, end to end, against the Claude Code CLI from the npm registry and
# the scripted fake Messages API (nothing leaves loopback; not part of `cargo test`, because it
# installs the client):
#   install.sh        install / uninstall claude-code, the Stop hook, /dream, doctor, the plugin
#   dream.sh          six sessions, the hook's dream, MEMORY.md in the next session's request,
#                     the announcement on Stop
#   mcp.sh            autodream mcp registered with the client; memory_log, memory_search,
#                     memory_read, dream_status, dream_run called by a scripted model
#   claude-engine.sh  a dream by the client itself (engine = "claude") under Landlock
#   usage.sh          reads of memory counted from the transcript, the index ordered by use,
#                     the memory-store stand-down; run against each client of CC_VERSIONS
#
#   CC_VERSIONS       the clients usage.sh runs against (default "2.1.197 latest": the one the
#                     other checks were written on, and the newest on the registry)
#
#   scripts/real-client/all.sh            # builds the release binaries first
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
(cd "$ROOT" && cargo build --release -p autodream-cli -p autodream-hook)
export AUTODREAM="${AUTODREAM:-$TARGET/release/autodream}"
export AUTODREAM_HOOK="${AUTODREAM_HOOK:-$TARGET/release/autodream-hook}"
for check in install dream mcp claude-engine; do
  printf '\n######## %s\n' "$check"
  bash "$ROOT/scripts/real-client/$check.sh"
done
for version in ${CC_VERSIONS:-2.1.197 latest}; do
  printf '\n######## usage (client %s)\n' "$version"
  CC_VERSION="$version" bash "$ROOT/scripts/real-client/usage.sh"
done
printf '\nall real-client checks passed\n'
