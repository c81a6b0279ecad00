#!/usr/bin/env python3
"""Makes a labelling folder from a project's published sessions, for a held-out check.

A project that publishes its agent sessions on an `entire/checkpoints/v1` branch can serve as a
held-out check of the offline engine: its sessions were never read while the rules were written.
This script copies every `<aa>/<id>/<n>/full.jsonl` of the branch into OUT/sessions/ (named
`<name>__<aa>_<id>_<n>_full.jsonl`) and lists every user text turn of the Claude Code ones in
OUT/turns-<name>.jsonl, one JSON object a line: `source`, `line` (1-based), `timestamp`, `text`,
`duplicate` (the same text at the same instant was already listed: a resumed session copies its
history) and `isMeta`.

A careful reader then labels the turns (see LABELLING.md beside this script) into
OUT/utterances-<name>.jsonl and OUT/probes-<name>.json, and the folder is scored like the real
projects:

  python3 scripts/precision/checkpoint_turns.py --repo CLONE.git --name NAME --out DIR
  python3 <tools>/realmem.py run DIR --bin target/release/autodream --out RUN --show

The sessions are the project's, under its licence: keep the folder out of this repository.
"""
import argparse
import json
import os
import subprocess
import sys

BRANCH = "entire/checkpoints/v1"


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], capture_output=True).stdout


def user_text(entry):
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, list):
        content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return content if isinstance(content, str) else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True, help="a git directory holding the checkpoints branch")
    ap.add_argument("--name", required=True, help="the project's short name (file prefix)")
    ap.add_argument("--out", required=True, help="the labelling folder (made)")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "sessions"), exist_ok=True)
    paths = [p for p in git(a.repo, "ls-tree", "-r", "--name-only", BRANCH).decode().splitlines()
             if p.endswith("/full.jsonl")]
    if not paths:
        sys.exit(f"{a.repo}: no {BRANCH} branch with sessions")
    turns, seen, files = [], set(), 0
    for p in paths:
        text = git(a.repo, "show", f"{BRANCH}:{p}").decode("utf-8", "replace")
        if not text.strip():
            continue  # a blob the clone does not hold
        name = f"{a.name}__{p.replace('/', '_')}"
        with open(os.path.join(a.out, "sessions", name), "w", encoding="utf-8") as f:
            f.write(text)
        files += 1
        for line, raw in enumerate(text.splitlines(), 1):
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(entry, dict) or entry.get("type") != "user":
                continue
            said = user_text(entry)
            if not said.strip():
                continue
            key = (entry.get("timestamp"), said)
            turns.append({"source": name, "line": line, "timestamp": entry.get("timestamp"), "text": said,
                          "duplicate": key in seen, "isMeta": bool(entry.get("isMeta"))})
            seen.add(key)
    with open(os.path.join(a.out, f"turns-{a.name}.jsonl"), "w", encoding="utf-8") as f:
        for t in turns:
            f.write(json.dumps(t, ensure_ascii=False) + "\n")
    fresh = sum(not t["duplicate"] and not t["isMeta"] for t in turns)
    print(f"{a.name}: {files} sessions, {len(turns)} user turns, {fresh} to read (not copies, not injected)")


if __name__ == "__main__":
    main()
