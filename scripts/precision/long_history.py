#!/usr/bin/env python3
"""One dream over a long real history: the sessions a project publishes on its
`entire/checkpoints/v1` branch, read from a local clone (no data is kept in this repository).

Every `<aa>/<id>/<n>/full.jsonl` of the branch becomes a session transcript (named by a UUID
made from its path, mtime = its last entry); then ONE `autodream run` with the offline engine,
a scratch HOME and AUTODREAM_NOW one hour after the newest entry, timed, with its peak memory
(GNU time). Prints the number of sessions, their size, the time, the throughput, the peak
memory, the number of fact lines written and a random sample of them to read and judge.

  python3 scripts/precision/long_history.py --repo CLONE.git --bin target/release/autodream \
      --work SCRATCH [--min-sessions 300] [--sample 30] [--seed 1]
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone

BRANCH = "entire/checkpoints/v1"


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo, *args], check=True, capture_output=True).stdout


def last_time(text):
    latest = None
    for raw in text.splitlines():
        try:
            e = json.loads(raw)
        except ValueError:
            continue
        t = e.get("timestamp") if isinstance(e, dict) else None
        if isinstance(t, str):
            try:
                t = datetime.fromisoformat(t.replace("Z", "+00:00")).astimezone(timezone.utc)
            except ValueError:
                continue
            latest = t if latest is None or t > latest else latest
    return latest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True, help="a git directory holding the checkpoints branch")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True, help="scratch folder (made; must not exist)")
    ap.add_argument("--min-sessions", type=int, default=300)
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    a.bin = os.path.abspath(a.bin)
    os.makedirs(a.work)
    sess, home, proj, mem = (os.path.join(a.work, d) for d in ("sessions", "home", "project", "memory"))
    for d in (sess, os.path.join(home, ".config"), proj):
        os.makedirs(d, exist_ok=True)
    paths = [p for p in git(a.repo, "ls-tree", "-r", "--name-only", BRANCH).decode().splitlines()
             if p.endswith("/full.jsonl")]
    newest, total, n = None, 0, 0
    missing = 0
    for p in paths:
        try:
            text = git(a.repo, "show", f"{BRANCH}:{p}").decode("utf-8", "replace")
        except subprocess.CalledProcessError:
            missing += 1  # a blob the clone does not hold
            continue
        t = last_time(text)
        if t is None:
            continue
        dst = os.path.join(sess, f"{uuid.uuid5(uuid.NAMESPACE_URL, p)}.jsonl")
        with open(dst, "w", encoding="utf-8") as f:
            f.write(text)
        os.utime(dst, (t.timestamp(), t.timestamp()))
        newest = t if newest is None or t > newest else newest
        total += len(text.encode())
        n += 1
    if n < a.min_sessions:
        sys.exit(f"only {n} sessions with a timestamp on {BRANCH}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTODREAM_", "CLAUDE_", "XDG_"))}
    env.update({"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                "XDG_STATE_HOME": os.path.join(home, ".local", "state"), "TZ": "UTC",
                "AUTODREAM_NOW": (newest + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")})
    subprocess.run([a.bin, "init", "--memory-dir", mem], cwd=proj, env=env, check=True, capture_output=True)
    t0 = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-v", a.bin, "run", "--memory-dir", mem, "--sessions-dir", sess,
                        "--project", proj], cwd=proj, env=env, capture_output=True, text=True)
    secs = time.monotonic() - t0
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
    lines = []
    for fn in sorted(os.listdir(mem)):
        if not fn.endswith(".md") or fn == "MEMORY.md":
            continue
        superseded = False
        for ln in open(os.path.join(mem, fn), encoding="utf-8"):
            if ln.startswith("## "):
                superseded = ln.strip() == "## Superseded"
            elif ln.startswith("- ") and not superseded:
                lines.append(f"{fn}: {ln[2:].strip()}")
    print(f"{len(paths)} transcripts on the branch, {missing} not in the clone")
    print(f"{n} sessions, {total / 1e6:.1f} MB; run rc={r.returncode} in {secs:.2f} s "
          f"({total / 1e6 / secs:.0f} MB/s), peak {int(peak.group(1)) / 1024 if peak else 0:.0f} MB")
    print(f"{len(lines)} fact lines in {len({l.split(':')[0] for l in lines})} topic files")
    print("MEMORY.md:")
    print(open(os.path.join(mem, "MEMORY.md"), encoding="utf-8").read())
    random.seed(a.seed)
    print(f"random sample of {min(a.sample, len(lines))}:")
    for l in random.sample(lines, min(a.sample, len(lines))):
        print("  " + l)


if __name__ == "__main__":
    main()
