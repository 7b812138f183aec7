#!/usr/bin/env python3
"""curtain-overlay's frame lateness (issue 16): from a frame's scheduled time to its
wl_surface.commit, and the CPU the overlay spends drawing it, at 60 Hz and 1920x1080 under
headless sway (pixman). Seed 000 (yula-appear + yula-mask-reveal) over curtain-test-window,
LAUNCHES launches. Usage: overlay.py BIN_DIR OUT_DIR [LAUNCHES [BENCHMARKS.md]]. Writes
OUT_DIR/overlay.json, prints the table row and, given the markdown file, rewrites its table
between <!-- bench:overlay:begin --> and <!-- bench:overlay:end -->. Root runs sway as nobody (sway 1.7 refuses root)."""
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
    overlay = subprocess.Popen([f"{bin_dir}/curtain-overlay", "--socket", socket, "--trace", trace],
                               env={**os.environ, **wayland}, stdout=overlay_log, stderr=overlay_log, start_new_session=True)
    processes.append(overlay)
    wait(lambda: "on the overlay layer" in open(os.path.join(work, "overlay.log")).read(), 20, "the overlay did not map")
    ctl = [f"{bin_dir}/curtainctl"]
    for _ in range(launches):
        subprocess.run(ctl + ["launch", "--normal", "shop", "--follow"], env={**os.environ, "CURTAIN_SOCKET": socket},
                       stdout=subprocess.DEVNULL, check=True, timeout=60)
    rows = [tuple(map(float, line.split())) for line in open(trace) if line.strip()]
    lateness = [(committed - due) * 1000 for due, committed, _ in rows]
    cpu = [c * 1000 for _, _, c in rows]
    result = {"frames": len(rows), "launches": launches, "size": f"{WIDTH}x{HEIGHT}", "rate": RATE,
              "lateness_ms": {"p50": percentile(lateness, 50), "p99": percentile(lateness, 99), "max": max(lateness)},
              "cpu_ms": {"p50": percentile(cpu, 50), "p99": percentile(cpu, 99), "max": max(cpu)}}
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "overlay.json"), "w") as f:
        json.dump(result, f, indent=2)
    l, c = result["lateness_ms"], result["cpu_ms"]
    row = (f"| curtain-overlay, {RATE} Hz {WIDTH}×{HEIGHT} under headless sway (pixman), seed 000 appear + reveal, "
          f"{launches} launches, {len(rows)} frames committed | lateness (due → wl_surface.commit) p50 {l['p50']:.2f} / "
          f"p99 {l['p99']:.2f} / max {l['max']:.1f} ms; drawing CPU per frame p50 {c['p50']:.2f} / p99 {c['p99']:.2f} ms | "
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
