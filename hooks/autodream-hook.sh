#!/bin/sh
# The plugin's hook: runs autodream's hook binary from PATH (autodream-hook, else
# `autodream hook`). It never fails the agent: without either binary it says so on stderr
# (the client's debug log) and exits 0. `autodream doctor` reports the missing binary.
if command -v autodream-hook >/dev/null 2>&1; then
  exec autodream-hook "$@"
fi
if command -v autodream >/dev/null 2>&1; then
  exec autodream hook "$@"
fi
echo "autodream plugin: neither autodream-hook nor autodream is on PATH; install them (cargo install autodream-cli autodream-hook)" >&2
exit 0
