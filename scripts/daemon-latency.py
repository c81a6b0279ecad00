#!/usr/bin/env python3
"""How fast `autodream daemon` stops on SIGTERM between ticks, and what one `--once` tick
costs, in a throw-away memory folder (assistant mode, outside the dream window).

Usage: scripts/daemon-latency.py target/release/autodream [RUNS]
"""
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    exe = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(
            os.environ,
            HOME=f"{tmp}/home",
            XDG_CONFIG_HOME=f"{tmp}/xdg",
            AUTODREAM_MEMORY_DIR=f"{tmp}/mem",
            AUTODREAM_SESSIONS_DIR=f"{tmp}/sessions",
            AUTODREAM_STATE_DIR=f"{tmp}/state",
            TZ="UTC",
            AUTODREAM_NOW="2026-05-08T12:00:00Z",
        )
        os.makedirs(f"{tmp}/xdg/autodream")
        os.makedirs(f"{tmp}/sessions")
        with open(f"{tmp}/xdg/autodream/config.toml", "w") as f:
            f.write('mode = "assistant"\n')
        subprocess.run([exe, "init"], env=env, check=True, capture_output=True)

        stop = []
        for _ in range(runs):
            p = subprocess.Popen([exe, "daemon"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            p.stdout.readline()  # the start line
            p.stdout.readline()  # the first tick
            t = time.monotonic()
            p.send_signal(signal.SIGTERM)
            p.wait()
            stop.append((time.monotonic() - t) * 1000)
            assert p.returncode == 0, p.returncode

        tick = []
        for _ in range(runs):
            t = time.monotonic()
            subprocess.run([exe, "daemon", "--once"], env=env, check=True, capture_output=True)
            tick.append((time.monotonic() - t) * 1000)

    for name, xs in [("SIGTERM between ticks -> exit 0", stop), ("daemon --once, one tick, process included", tick)]:
        print(f"{name}: median {statistics.median(xs):.1f} ms, max {max(xs):.1f} ms ({runs} runs)")


if __name__ == "__main__":
    main()
