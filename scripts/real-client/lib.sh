# Shared set-up for the real-client checks: the Claude Code CLI from the npm registry,
# driven offline against the scripted fake Messages API in the tools folder beside the project.
# Source it from a script under scripts/real-client/; nothing here leaves loopback.
#
#   AUTODREAM_TOOLS   the folder holding claude-code/fake_anthropic.py (default: ../shared/tools)
#   CC_VERSION        the client's version: 2.1.197 (the default, the one these checks were
#                     written on), any other published version, or `latest` (the newest on the
#                     registry, asked with `npm view`)
#   CC_DIR            where that version is installed (default: one folder per version in the
#                     user's cache folder)

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${AUTODREAM_TOOLS:-$ROOT/../shared/tools}"
T="$(cd "$TOOLS/claude-code" && pwd)"
CC_VERSION="${CC_VERSION:-2.1.197}"
if [ "$CC_VERSION" = latest ]; then
  CC_VERSION="$(npm view @anthropic-ai/claude-code version)"
fi
CC_DIR="${CC_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/claude-code-npm-$CC_VERSION}"
if [ ! -x "$CC_DIR/node_modules/.bin/claude" ]; then
  mkdir -p "$CC_DIR"
  (cd "$CC_DIR" && npm install --silent "@anthropic-ai/claude-code@$CC_VERSION" >/dev/null)
fi
CLAUDE="$CC_DIR/node_modules/.bin/claude"
installed="$("$CLAUDE" --version 2>/dev/null | awk '{print $1}')"
[ "$installed" = "$CC_VERSION" ] || {
  printf 'FAIL: %s holds client %s, not %s (set CC_DIR to another folder)\n' "$CC_DIR" "$installed" "$CC_VERSION" >&2
  exit 1
}
export CC_VERSION

# The autodream binaries under test (built in release by the calling script, or given).
AUTODREAM="${AUTODREAM:-$ROOT/target/release/autodream}"
AUTODREAM_HOOK="${AUTODREAM_HOOK:-$ROOT/target/release/autodream-hook}"

# start_fake ARGS...: a new scratch folder $S (fake HOME in $S/home, project in $S/proj)
# and a fresh fake API server answering from a script or a fixed reply.
start_fake() {
  S=$(mktemp -d)
  mkdir -p "$S/home/.claude" "$S/proj"
  python3 "$T/fake_anthropic.py" --port-file "$S/port" --log "$S/requests.jsonl" "$@" 2>"$S/server.log" &
  FAKE_PID=$!
  for _ in $(seq 50); do [ -s "$S/port" ] && break; sleep 0.1; done
}

stop_fake() { kill "$FAKE_PID" 2>/dev/null || true; wait "$FAKE_PID" 2>/dev/null || true; }

# cc ARGS...: the real client in $S/proj, with a clean environment, talking only to the fake.
# Extra environment: CC_ENV="K=V K2=V2".
cc() {
  # shellcheck disable=SC2086
  (cd "$S/proj" && env -i PATH="$PATH" HOME="$S/home" TERM=dumb LANG=C.UTF-8 \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$S/port")" ANTHROPIC_API_KEY=test \
    DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
    DISABLE_ERROR_REPORTING=1 ${CC_ENV:-} "$CLAUDE" "$@" </dev/null)
}

# ad ARGS...: autodream with the same fake HOME as the client.
ad() { (cd "$S/proj" && HOME="$S/home" "$AUTODREAM" "$@"); }

step() { printf '\n== %s\n' "$*"; }
ok() { printf 'ok: %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
