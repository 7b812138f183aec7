#!/usr/bin/env python3
"""curtain-overlay's frame lateness (issue 16): from a frame's scheduled time to its
wl_surface.commit, and the CPU the overlay spends drawing it, at 60 Hz and 1920x1080 under
headless sway (pixman). Seed 000 (yula-appear + yula-mask-reveal) over curtain-test-window,
LAUNCHES launches. Usage: overlay.py BIN_DIR OUT_DIR [LAUNCHES [BENCHMARKS.md]]. Writes
OUT_DIR/overlay.json, prints the table row and, given the markdown file, rewrites its table
between <!-- bench:overlay:begin --> and <!-- bench:overlay:end -->. Root runs sway as nobody (sway 1.7 refuses root).
CURTAIN_OVERLAY_BIN=PATH measures another curtain-overlay build with the same curtaind (before/after)."""
import json, os, pwd, shutil, signal, subprocess, sys, tempfile, time

bin_dir, out_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
launches = int(sys.argv[3]) if len(sys.argv) > 3 else 5
markdown = sys.argv[4] if len(sys.argv) > 4 else None
WIDTH, HEIGHT, RATE = 1920, 1080, 60


def wait(condition, seconds, what):
    """Polls; `what` may be a function giving the message (read at the time of failure)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)  # the poll interval of a bounded wait
    raise SystemExit(f"overlay bench: {what() if callable(what) else what} (waited {seconds} s)")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


work = tempfile.mkdtemp(prefix="curtain-overlay-bench-")
runtime = os.path.join(work, "rt")
os.mkdir(runtime, 0o700)
processes = []
try:
    as_nobody = os.getuid() == 0
    if as_nobody:
        user = pwd.getpwnam("nobody")
        os.chown(runtime, user.pw_uid, user.pw_gid)
        os.chmod(work, 0o755)
    config = os.path.join(runtime, "sway.conf")
    with open(config, "w") as f:
        f.write(f"output HEADLESS-1 resolution {WIDTH}x{HEIGHT}@{RATE}Hz\ndefault_border none\n")
    os.chmod(config, 0o644)
    env = {"PATH": "/usr/bin:/bin", "HOME": runtime, "XDG_RUNTIME_DIR": runtime, "WLR_BACKENDS": "headless",
           "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"}
    command = ["sway", "-c", config]
    if as_nobody:
        command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command
    processes.append(subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    wait(lambda: any(n.startswith("wayland-") and not n.endswith(".lock") for n in os.listdir(runtime)), 20, "sway did not start")
    display = next(n for n in os.listdir(runtime) if n.startswith("wayland-") and not n.endswith(".lock"))
    wayland = {"XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": display}

    socket = os.path.join(work, "s")
    toml = os.path.join(work, "curtain.toml")
    with open(toml, "w") as f:
        f.write(f"""[daemon]
notify_socket = "{work}/notify"
min_hold = 0.3
[display]
width = {WIDTH}
height = {HEIGHT}
refresh_rate = {RATE}
[[apps]]
name = "shop"
exec = ["{bin_dir}/curtain-test-window", "2ecc71"]
environment = {{ WAYLAND_DISPLAY = "{display}", XDG_RUNTIME_DIR = "{runtime}" }}
readiness = "ready"
single_instance = false
screens = ["home"]
default_screen = "home"
""")
    daemon_log = open(os.path.join(work, "curtaind.log"), "w")
    processes.append(subprocess.Popen([f"{bin_dir}/curtaind", "--config", toml, "--socket", socket],
                                      stdout=daemon_log, stderr=daemon_log, start_new_session=True))
    wait(lambda: os.path.exists(socket), 20, lambda: "curtaind did not start: " + open(os.path.join(work, "curtaind.log")).read()[-2000:])
    trace = os.path.join(work, "trace")
    overlay_log = open(os.path.join(work, "overlay.log"), "w")
    overlay_bin = os.environ.get("CURTAIN_OVERLAY_BIN", f"{bin_dir}/curtain-overlay")  # another build, to compare
    overlay = subprocess.Popen([overlay_bin, "--socket", socket, "--trace", trace],
                               env={**os.environ, **wayland}, stdout=overlay_log, stderr=overlay_log, start_new_session=True)
    processes.append(overlay)
    wait(lambda: "on the overlay layer" in open(os.path.join(work, "overlay.log")).read(), 20, "the overlay did not map")
    ctl = [f"{bin_dir}/curtainctl"]

    def cpu_seconds(pid):
        """utime + stime of a process (all its threads), from /proc."""
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    cpu_before = cpu_seconds(overlay.pid)
    for _ in range(launches):
        subprocess.run(ctl + ["launch", "--normal", "shop", "--follow"], env={**os.environ, "CURTAIN_SOCKET": socket},
                       stdout=subprocess.DEVNULL, check=True, timeout=60)
    process_cpu = cpu_seconds(overlay.pid) - cpu_before
    # due, committed, drawing CPU [, received, drawing started, rendered, damage known]:
    # seconds. Before frames were drawn straight into the wl_shm buffers the last column was
    # the end of the copy into the buffer; now it is the end of the damage computation.
    rows = [tuple(map(float, line.split())) for line in open(trace) if line.strip()] if os.path.exists(trace) else []
    if not rows:
        raise SystemExit("overlay bench: no frame in the trace; overlay log:\n"
                         + open(os.path.join(work, "overlay.log")).read()[-3000:]
                         + "\ncurtaind log:\n" + open(os.path.join(work, "curtaind.log")).read()[-3000:])
    # A frame committed again without new values (its input region changed as the reveal began,
    # a state event arrived) keeps its due time; its lateness is its first commit's, so later
    # commits of the same frame are counted apart, not as frames 10+ ms late.
    seen, firsts = set(), []
    for r in rows:
        if r[0] not in seen:
            seen.add(r[0])
            firsts.append(r)
    recommits = len(rows) - len(firsts)
    rows = firsts
    lateness = [(r[1] - r[0]) * 1000 for r in rows]
    cpu = [r[2] * 1000 for r in rows]

    def summary(values):
        return {"p50": percentile(values, 50), "p99": percentile(values, 99), "max": max(values)}

    result = {"frames": len(rows), "recommits": recommits, "launches": launches, "size": f"{WIDTH}x{HEIGHT}", "rate": RATE,
              "lateness_ms": summary(lateness), "cpu_ms": summary(cpu),
              "process_cpu_ms_per_frame": process_cpu * 1000 / max(1, len(rows))}
    if rows and len(rows[0]) >= 7:
        # Where the lateness goes: curtaind and the socket (due → the watcher has it), the
        # hand-over to the drawing thread, the render, the copy into the wl_shm buffer (older
        # builds) or the frame's damage (newer), the wait for the last commit's frame callback.
        stages = {"receive": (0, 3), "hand-over": (3, 4), "render": (4, 5), "copy/damage": (5, 6),
                  "callback wait": (6, 1)}
        result["stages_ms"] = {name: summary([(r[b] - r[a]) * 1000 for r in rows]) for name, (a, b) in stages.items()}
        for name, st in result["stages_ms"].items():
            print(f"  {name:14} p50 {st['p50']:6.2f}  p99 {st['p99']:6.2f}  max {st['max']:6.1f} ms")
    print(f"  process CPU per committed frame: {result['process_cpu_ms_per_frame']:.2f} ms (both threads)")
    os.makedirs(out_dir, exist_ok=True)
    shutil.copy(trace, os.path.join(out_dir, "overlay-trace.txt"))  # per frame, for a closer look
    with open(os.path.join(out_dir, "overlay.json"), "w") as f:
        json.dump(result, f, indent=2)
    l, c = result["lateness_ms"], result["cpu_ms"]
    row = (f"| curtain-overlay, {RATE} Hz {WIDTH}×{HEIGHT} under headless sway (pixman), seed 000 appear + reveal, "
          f"{launches} launches, {len(rows)} frames committed (and {recommits} commits again of a frame without new values) | lateness (due → wl_surface.commit) p50 {l['p50']:.2f} / "
          f"p99 {l['p99']:.2f} / max {l['max']:.1f} ms; drawing CPU per frame p50 {c['p50']:.2f} / p99 {c['p99']:.2f} ms, "
          f"process CPU {result['process_cpu_ms_per_frame']:.2f} ms per frame | "
          f"p99 ≤ 8 ms: {'meets' if l['p99'] <= 8 else '**misses**'} |")
    print(row)
    if markdown:
        text = open(markdown).read()
        begin, end = "<!-- bench:overlay:begin -->", "<!-- bench:overlay:end -->"
        if begin in text and end in text:
            table = "| what | measured | target |\n|---|---|---|\n" + row + "\n"
            text = text[:text.index(begin) + len(begin)] + "\n" + table + text[text.index(end):]
            open(markdown, "w").write(text)
finally:
    for p in reversed(processes):
        try:
            p.send_signal(signal.SIGTERM)   # curtaind stops its apps on the way out
            p.wait(timeout=10)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    shutil.rmtree(work, ignore_errors=True)
