#!/usr/bin/env python3
"""A burst of hostile clients against curtaind, as the adversarial tests send them, in bulk.

usage: hostile_burst.py SOCKET [SCALE [KIND,...]]   (kinds: storm, big, malformed, watch; default all)
Used by make bench's scenario 5 (Benchmarks/scenarios.py imports it): RSS before and after. Plain sockets: no reply is awaited beyond one read.
"""
import json
import socket
import sys


KINDS = ("storm", "big", "malformed", "watch")


def hostile_burst(path, scale=1.0, patience=1.0, kinds=KINDS):
    """What the adversarial tests send, at once and in bulk, against curtaind at `path`: a storm
    of connects that hang up without reading, messages far past the usual size, malformed and
    ill-typed calls, and frame observers that hang up mid-launch. Returns when every connection
    is closed (the daemon's own connection count is read back by the caller). `patience`
    multiplies how long a client waits to connect, send and read (a daemon under valgrind is
    ≈ 50× slower: with the usual timeouts its clients give up before it reads them). `kinds`
    picks some of the four kinds of client (to see what each leaves behind)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown kind of client: {', '.join(unknown)} (known: {', '.join(KINDS)})")
    n = lambda count: max(1, int(count * scale))
    connections = n(1000)

    def raw(messages, read=False, timeout=2):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout * patience)
            try:
                s.connect(path)
                for message in messages:
                    s.sendall(message)
                if read:
                    s.recv(1 << 16)
            except OSError:
                pass  # the daemon cut the connection (message too large, protocol error)
    call = lambda method, parameters=None, **extra: json.dumps({"method": method, "parameters": parameters or {}, **extra}).encode() + b"\0"
    # 1. A storm: connections held open together, each with a call it never reads the reply of.
    held = []
    for _ in range(connections if "storm" in kinds else 0):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        held.append(s)
        s.settimeout(10 * patience)
        try:
            s.connect(path)
            s.sendall(call("io.curtain.Launcher.List"))
        except OSError:
            pass  # refused past a connection limit: that is hostile traffic too
    for s in held:
        s.close()
    # 2. Big messages: 4 MiB of one unterminated string, and a 1 MiB string in a valid call.
    for _ in range(n(20) if "big" in kinds else 0):
        raw([b'{"method":"io.curtain.Launcher.Ping","parameters":{"x":"' + b"a" * (4 << 20)], read=False)
        raw([call("io.curtain.Launcher.Ping", {"x": "b" * (1 << 20)})], read=True)
    # 3. Malformed and ill-typed calls, pipelined on one connection each.
    bad = [b"{", b"[]", b'{"method":1}', b'{"method":"io.curtain.Launcher.Nope"}', b"\xff\xfe",
           call("io.curtain.Launcher.Launch", {"route": {"normal": 5}}), call("io.curtain.Launcher.Watch", {"fps": 1e-300}, more=True),
           call("io.curtain.Launcher.Get", {"id": -1}), b'{"method":"io.curtain.Launcher.Ping","parameters":' + b"[" * 10000]
    for _ in range(n(200) if "malformed" in kinds else 0):
        raw([m + (b"" if m.endswith(b"\0") else b"\0") for m in bad])
    # 4. Frame observers that hang up after their first reply.
    watchers = []
    for _ in range(n(500) if "watch" in kinds else 0):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        watchers.append(s)
        s.settimeout(10 * patience)
        try:
            s.connect(path)
            s.sendall(call("io.curtain.Launcher.Watch", {"frames": True}, more=True))
        except OSError:
            pass
    for s in watchers:
        s.settimeout(0.2)  # a Watch of no launch may say nothing: its hang-up is what counts
        try:
            s.recv(1 << 12)
        except (socket.timeout, OSError):
            pass
        s.close()


if __name__ == "__main__":
    hostile_burst(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0,
                  kinds=sys.argv[3].split(",") if len(sys.argv) > 3 else KINDS)
    print("burst sent")
