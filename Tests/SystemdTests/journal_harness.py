"""Runs the systemd-probe against a private systemd-journald and prints the entry it wrote.

Must run inside `unshare --mount --propagation private` (the Swift test does that): tmpfs
goes over journald's socket and storage directories, so the host's journal is never touched.
Waits on events only: journald's READY=1 on a notify socket, then `journalctl --follow` for
the entry; both bounded by timeouts.
    usage: journal_harness.py PROBE (log|log-more|fallback)
"""
import json, os, socket, subprocess, sys, tempfile

probe, mode = sys.argv[1], sys.argv[2]
for directory in ["/run/systemd/journal", "/run/log/journal", "/var/log/journal"]:
    os.makedirs(directory, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", directory], check=True)

if mode == "fallback":
    # No journald at all: the handler must fall back to stderr.
    result = subprocess.run([probe, "log"], capture_output=True, text=True, timeout=30)
    print(json.dumps({"stderr": result.stderr, "status": result.returncode}))
    sys.exit(0)

notify_path = os.path.join(tempfile.mkdtemp(), "notify")
notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
notify.settimeout(20)
journald = subprocess.Popen(["/lib/systemd/systemd-journald"], env=dict(os.environ, NOTIFY_SOCKET=notify_path))
try:
    while b"READY=1" not in notify.recv(4096):
        pass
    subprocess.run([probe, mode], check=True, timeout=30)
    # --all: fields over 4096 bytes too (the large entry of "log-more").
    follow = subprocess.Popen(["timeout", "20", "journalctl", "--follow", "--lines=all", "--output=json", "--all",
                               "SYSLOG_IDENTIFIER=curtain-probe"], stdout=subprocess.PIPE, text=True)
    entries = [json.loads(follow.stdout.readline()) for _ in range(1 if mode == "log" else 2)]
    follow.kill()
    for entry in entries:  # a large message by its length (the test's output is bounded)
        if len(entry.get("MESSAGE", "")) > 4096:
            entry["MESSAGE_LENGTH"] = len(entry.pop("MESSAGE"))
    print(json.dumps(entries[0] if mode == "log" else entries))
finally:
    journald.terminate()
    journald.wait(timeout=20)
