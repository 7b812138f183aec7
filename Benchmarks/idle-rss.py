#!/usr/bin/env python3
"""Idle RSS of curtaind builds side by side, by mapping (BENCHMARKS.md, "curtaind's memory").

    Benchmarks/idle-rss.py [--rounds N] [--top N] NAME=PATH/TO/curtaind [NAME=PATH ...]

Each binary is started alone with a minimal configuration, answers one Ping, is left idle for
IDLE_SECONDS, makes one launch (LAUNCH=0: not), is idle again, answers a Ping, is idle again for
IDLE_SECONDS (default 4), and then VmRSS, the thread count and /proc/PID/smaps summed per mapped file
(Rss, Private_Dirty, Shared_Clean, Private_Clean; anonymous mappings as "[anon]") are read.
A program that is not a curtaind (a reference such as a do-nothing Swift program that waits on
stdin) is measured the same way when given as NAME=!PATH: it is started and sampled after
IDLE_SECONDS, without the Ping.
"""
import collections
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Before each start: written out (a binary just written is dirty page cache, and would count as
# Private_Dirty) and dropped (what is mapped of a binary depends on how it came into the cache).
from scenarios import cold_page_cache, varlink_call  # noqa: E402

IDLE_SECONDS = float(os.environ.get("IDLE_SECONDS", "2"))
# LAUNCH=0: sampled after start-up and one Ping only; otherwise after a launch and a Ping too.
LAUNCH = os.environ.get("LAUNCH", "1") != "0"

CONFIG = """
[daemon]
socket = "{d}/curtain.sock"
notify_socket = "{d}/notify"

[[apps]]
name = "bench"
exec = ["/bin/true"]
readiness = "ready"
"""


def sample(pid):
    status = {}
    for line in open(f"/proc/{pid}/status"):
        key, _, value = line.partition(":")
        status[key] = value.strip()
    maps = collections.defaultdict(lambda: collections.Counter())
    name = None
    for line in open(f"/proc/{pid}/smaps"):
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5 and not fields[0].endswith(":"):
            path = fields[5] if len(fields) > 5 else "[anon]"
            name = os.path.basename(path) if path.startswith("/") else path
        elif fields[0] in ("Rss:", "Private_Dirty:", "Shared_Clean:", "Private_Clean:", "Shared_Dirty:"):
            maps[name][fields[0][:-1]] += int(fields[1])
    names = collections.Counter(open(f"/proc/{pid}/task/{t}/comm").read().strip() for t in os.listdir(f"/proc/{pid}/task"))
    return {
        "names": names,
        "rss": int(status["VmRSS"].split()[0]),
        "threads": int(status["Threads"]),
        "private_dirty": sum(m["Private_Dirty"] for m in maps.values()),
        "maps": maps,
    }


def measure(path, reference):
    cold_page_cache()
    with tempfile.TemporaryDirectory(prefix="curtain-idle-") as d:
        if reference:
            process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        else:
            config = os.path.join(d, "c.toml")
            open(config, "w").write(CONFIG.format(d=d))
            process = subprocess.Popen([path, "--config", config, "--socket", f"{d}/curtain.sock"],
                                       stdout=subprocess.DEVNULL, stderr=open(f"{d}/log", "w"))
            deadline = time.monotonic() + 30
            while True:
                try:
                    varlink_call(f"{d}/curtain.sock", "io.curtain.Launcher.Ping")
                    break
                except OSError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise RuntimeError(f"{path} did not start: " + open(f"{d}/log").read()[-500:])
                    time.sleep(0.02)  # polling for the socket, bounded by the deadline
        time.sleep(IDLE_SECONDS)  # what is measured is the idle process
        if not reference and LAUNCH:
            # After some work: one launch (the app exits without READY=1: it fails) and a Ping.
            varlink_call(f"{d}/curtain.sock", "io.curtain.Launcher.Launch", {"route": {"normal": "bench"}})
            time.sleep(IDLE_SECONDS)  # the launch ends (its app exits at once); idle again
            varlink_call(f"{d}/curtain.sock", "io.curtain.Launcher.Ping")
            time.sleep(IDLE_SECONDS)  # idle after that call too
        result = sample(process.pid)
        process.terminate()
        process.wait(timeout=30)
        return result


def main(argv):
    rounds, top = 2, 12
    builds = []
    while argv:
        a = argv.pop(0)
        if a == "--rounds":
            rounds = int(argv.pop(0))
        elif a == "--top":
            top = int(argv.pop(0))
        else:
            name, _, path = a.partition("=")
            builds.append((name, path.lstrip("!"), path.startswith("!")))
    for r in range(rounds):
        for name, path, reference in builds:
            s = measure(path, reference)
            maps = sorted(s["maps"].items(), key=lambda kv: -kv[1]["Rss"])
            parts = ", ".join(f"{k} {v['Rss']}/{v['Private_Dirty']}" for k, v in maps[:top] if v["Rss"])
            print(f"round {r + 1} {name}: VmRSS {s['rss']} KiB ({s['rss'] / 1024:.1f} MiB), "
                  f"private dirty {s['private_dirty']} KiB, threads {s['threads']} ({dict(s['names'])})")
            print(f"    Rss/Private_Dirty KiB by mapping: {parts}")
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
