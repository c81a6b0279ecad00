#!/usr/bin/env python3
"""Team memory with N simulated machines (default 8) and a bare repository as the remote.

Each machine is a sealed environment of its own (HOME, XDG folders, state folder with its
clone, memory folder) running the real `autodream` and the real `git`. The script:

  1. joins every machine to the branch;
  2. races dreams: ROUNDS rounds in which every machine runs `team run` at once; it counts
     the dreams that landed per round (must be 1) and walks the branch's history to check
     that no two machines ever held the lease at the same time;
  3. writes log entries on every machine, syncs all machines at once, twice, and checks that
     every entry is in every machine's memory;
  4. times `team sync` with nothing new against `git fetch` of the same branch alone.

Usage: scripts/team-sim.py target/debug/autodream [MACHINES] [ROUNDS] [TIMING_RUNS]
Exit code 1 when a guarantee does not hold.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BRANCH = "autodream/memory"


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


class Machine:
    def __init__(self, root, i, binary):
        self.name = f"m{i}"
        self.root = os.path.join(root, self.name)
        self.mem = os.path.join(self.root, "mem")
        self.binary = binary
        for d in ("home", "xdg", "sessions", "project", "mem"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)

    def env(self, now):
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.path.join(self.root, "home"),
            "XDG_CONFIG_HOME": os.path.join(self.root, "xdg"),
            "TZ": "UTC",
            "AUTODREAM_MEMORY_DIR": self.mem,
            "AUTODREAM_SESSIONS_DIR": os.path.join(self.root, "sessions"),
            "AUTODREAM_TEAM_MACHINE": self.name,
            "AUTODREAM_NOW": now,
        }

    def popen(self, args, now="2026-05-08T13:56:00Z"):
        return subprocess.Popen(
            [self.binary, *args],
            env=self.env(now),
            cwd=os.path.join(self.root, "project"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def run(self, args, now="2026-05-08T13:56:00Z", check=True):
        p = self.popen(args, now)
        out, err = p.communicate(timeout=300)
        if check and p.returncode != 0:
            raise SystemExit(f"{self.name}: autodream {' '.join(args)} exited {p.returncode}: {err}")
        return p.returncode, out, err


def messy(mem):
    files = {
        "MEMORY.md": "# Memory\n- [Build tips](build.md) — how the workspace is built and tested\n"
        "- [Old notes](old-notes.md) — a topic file that was deleted by hand\n",
        "build.md": "# Build tips\n\n- cargo build -p autodream-cli builds the binary\n",
        "deploy.md": "# Deploy\n\n- staging first, then canary\n",
    }
    for name, text in files.items():
        with open(os.path.join(mem, name), "w") as f:
            f.write(text)


def all_logs(mem):
    text = ""
    for dirpath, _, files in os.walk(os.path.join(mem, "logs")):
        for f in files:
            with open(os.path.join(dirpath, f)) as fh:
                text += fh.read()
    return text


def lease_history(remote):
    commits = git("--git-dir", remote, "rev-list", "--first-parent", "--reverse", BRANCH).split()
    states = []
    for c in commits:
        try:
            lease = json.loads(git("--git-dir", remote, "show", f"{c}:lease.json"))
        except subprocess.CalledProcessError:
            lease = {}
        states.append((c, lease))
    return states


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    timing_runs = int(sys.argv[4]) if len(sys.argv) > 4 else 20
    root = tempfile.mkdtemp(prefix="team-sim")
    failures = []
    try:
        remote = os.path.join(root, "remote.git")
        git("init", "--quiet", "--bare", remote)
        machines = [Machine(root, i, binary) for i in range(n)]
        messy(machines[0].mem)
        t0 = time.monotonic()
        for m in machines:
            m.run(["team", "init", "--remote", remote])
        for m in machines:
            m.run(["team", "sync"])
        print(f"machines: {n}; joined in {time.monotonic() - t0:.1f} s")

        # 2. racing dreams
        for r in range(rounds):
            now = f"2026-05-{8 + r:02d}T13:56:00Z"
            t = time.monotonic()
            procs = [m.popen(["team", "run", "--engine", "hygiene"], now) for m in machines]
            codes = [p.wait(timeout=600) for p in procs]
            for p in procs:
                p.communicate()
            landed, refused = codes.count(0), codes.count(3)
            print(f"round {r + 1}: {n} machines raced, {landed} dream landed, {refused} refused "
                  f"({time.monotonic() - t:.1f} s)")
            if landed != 1 or refused != n - 1:
                failures.append(f"round {r + 1}: exit codes {codes}")
            for m in machines:
                m.run(["team", "sync"], now)
        held, dreams, max_holders, last_token = None, 0, 0, 0
        for c, lease in lease_history(remote):
            holder = (lease.get("holder") or {}).get("machine")
            token = lease.get("token", 0)
            if held is None and holder:
                if token != last_token + 1:
                    failures.append(f"{c}: token {token} after {last_token}")
                held = (holder, token)
            elif held and holder:
                if (holder, token) != held:
                    failures.append(f"{c}: {holder} took the lease while {held[0]} held it")
                    max_holders = 2
            elif held and not holder:
                dreams += 1
                held = None
            max_holders = max(max_holders, 1 if holder else 0)
            last_token = token
        print(f"lease history: {len(lease_history(remote))} commits, {dreams} dreams landed in "
              f"{rounds} rounds, at most {max_holders} holder at any time")
        if dreams != rounds:
            failures.append(f"{dreams} dreams landed in {rounds} rounds")

        # 3. log entries everywhere
        entries = []
        for i, m in enumerate(machines):
            for k in range(3):
                text = f"machine {i} note {k}: the staging cluster is kestrel-{i}-{k}"
                m.run(["log", text])
                entries.append(text)
        t = time.monotonic()
        for _ in range(2):
            procs = [m.popen(["team", "sync"]) for m in machines]
            for p in procs:
                p.communicate(timeout=600)
                if p.returncode != 0:
                    failures.append(f"a concurrent sync exited {p.returncode}")
        missing = sum(1 for m in machines for e in entries if e not in all_logs(m.mem))
        print(f"logs: {len(entries)} entries on {n} machines, 2 concurrent sync rounds "
              f"({time.monotonic() - t:.1f} s): {missing} missing")
        if missing:
            failures.append(f"{missing} entries missing")

        # 4. the cost of a sync with nothing new, against `git fetch` alone
        m = machines[0]
        m.run(["team", "sync"])
        scratch = os.path.join(root, "fetch.git")
        git("init", "--quiet", "--bare", scratch)
        fetch = ["git", "--git-dir", scratch, "fetch", "--quiet", "--no-tags", remote,
                 f"+refs/heads/{BRANCH}:refs/remotes/team/memory"]

        def timed(cmd, env=None):
            best = []
            for _ in range(timing_runs):
                t = time.perf_counter()
                subprocess.run(cmd, check=True, env=env, capture_output=True,
                               cwd=os.path.join(m.root, "project"))
                best.append(time.perf_counter() - t)
            best.sort()
            return best[len(best) // 2]

        f = timed(fetch)
        s = timed([binary, "team", "sync"], m.env("2026-05-08T13:56:00Z"))
        print(f"sync with nothing new: median {s * 1000:.1f} ms; git fetch alone: median {f * 1000:.1f} ms; "
              f"ratio {s / f:.2f} ({timing_runs} runs each)")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("all guarantees held")
    return 0


if __name__ == "__main__":
    sys.exit(main())
