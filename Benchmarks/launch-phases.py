#!/usr/bin/env python3
"""Where a launch's time goes, as its caller sees it: make bench's scenario 6 (launches one
after another, the C ready-app, transitions of 10 µs) with the time from each reply of the
Launch call to the next.

    python3 Benchmarks/launch-phases.py BUILD_DIR [LAUNCHES]     # BUILD_DIR/release/curtaind

Prints, per reply (the decision, then each state the launch enters), the median and mean time
since the previous one, and the whole launch. Between `holding` and `revealing` are the app's
spawn, its exec and start-up up to READY=1, and curtaind taking it.
"""
import json, os, socket, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenarios  # the daemon and configuration scenario 6 uses

build = sys.argv[1] + "/release"
launches = int(sys.argv[2]) if len(sys.argv) > 2 else 300
with scenarios.daemon_directory() as directory:
    daemon = scenarios.Daemon(build, directory, scenarios.config(directory, [f"{build}/curtain-ready-app"], appear=0.00001, reveal=0.00001))
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(10)
        connection.connect(daemon.socket)
        call = json.dumps({"method": "io.curtain.Launcher.Launch", "parameters": {"route": {"normal": "bench"}}, "more": True}).encode() + b"\0"
        phases, pending = {}, b""
        for _ in range(launches):
            started = previous = time.perf_counter_ns()
            connection.sendall(call)
            while True:
                while b"\0" not in pending:
                    chunk = connection.recv(65536)
                    if not chunk:
                        raise RuntimeError("curtaind closed the connection")
                    pending += chunk
                message, pending = pending.split(b"\0", 1)
                now = time.perf_counter_ns()
                reply = json.loads(message)
                if "error" in reply:
                    raise RuntimeError(f"Launch failed: {reply}")
                parameters = reply.get("parameters", {})
                event = parameters.get("event")
                name = event.get("to") if event and event.get("kind") == "state" else ("frame" if event else parameters.get("decision"))
                phases.setdefault(name, []).append((now - previous) / 1000)
                previous = now
                if not reply.get("continues"):
                    break
            phases.setdefault("whole launch", []).append((previous - started) / 1000)
        for name, times in phases.items():
            print(f"{name:13s} n={len(times):5d}  p50 {statistics.median(times):8.1f} µs  mean {statistics.mean(times):8.1f} µs")
    finally:
        daemon.stop()
