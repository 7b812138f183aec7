#!/usr/bin/env python3
"""Turns package-benchmark's JMH export into the tables of BENCHMARKS.md.

Usage: report.py RESULTS_DIR BENCHMARKS.md
Each section's table is rewritten between <!-- bench:NAME:begin --> and <!-- bench:NAME:end -->;
everything else in the file is kept. Per-operation figures are the per-iteration percentiles
divided by the operations one iteration performs (its scaling factor).
"""
import datetime, json, os, platform, subprocess, sys

# harness name -> (section, what one operation is, operations per iteration, unit, target or None)
BENCHMARKS = {
    "cubic-bezier evaluation (ease)": ("timeline", "one cubic-bezier evaluation", 1000, "ns", ("≤", 50)),
    "spring evaluation (underdamped)": ("timeline", "one spring evaluation", 1000, "ns", None),
    "10-track frame": ("timeline", "one frame of a 10-track timeline", 1000, "ns", ("≤", 2000)),
    "yula-mask-reveal frame": ("timeline", "one frame of the seed 000 reveal (7 tracks, 9 slots)", 1000, "ns", None),
    "varlink round trip (held connection)": ("varlink", "round trip of a trivial call on a held connection", 1, "µs", ("≤", 150)),
    "varlink pipelined calls": ("varlink", "one call among 1000 pipelined on one connection", 1000, "µs", None),
    "varlink streamed replies": ("varlink", "one reply among 1000 streamed to one client", 1000, "µs", None),
}
SCALE = {"ns": 1, "μs": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}

def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip(); break
    except OSError:
        pass
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    return f"{os.cpu_count()} cores, {cpu}; {platform.system()} {platform.release()}; {swift[0] if swift else 'swift ?'}"

def main(results_dir, markdown):
    data = json.load(open(os.path.join(results_dir, "Current_run.jmh.json")))
    sections = {}
    for entry in data:
        name = entry["benchmark"].split(".", 3)[-1].replace("_", " ")
        if name not in BENCHMARKS:
            continue
        section, what, ops, unit, target = BENCHMARKS[name]
        wall = entry["secondaryMetrics"]["Time (wall clock)"]
        per_op = lambda p: wall["scorePercentiles"][p] * SCALE[wall["scoreUnit"]] / ops / SCALE[unit]
        p50, p99 = per_op("50.0"), per_op("99.0")
        rate = 1e9 / (p50 * SCALE[unit])
        rate_text = f"{rate / 1e6:.1f} M/s" if rate >= 1e6 else f"{rate / 1e3:.1f} k/s"
        verdict = ""
        if target:
            ok = p99 <= target[1] if unit == "µs" else p50 <= target[1]
            verdict = f"{'meets' if ok else 'misses'} {target[0]} {target[1]} {unit} ({'p99' if unit == 'µs' else 'p50'})"
        sections.setdefault(section, []).append((what, f"| {what} | {p50:.1f} | {p99:.1f} | {rate_text} | {verdict} |", unit))
    text = open(markdown).read() if os.path.exists(markdown) else ""
    for section, rows in sections.items():
        unit = rows[0][2]
        table = "\n".join([
            f"Measured {datetime.date.today().isoformat()} on {machine()}.",
            "Command: `make bench` (release build, package-benchmark).",
            "",
            f"| what | p50 {unit} | p99 {unit} | rate at p50 | target |",
            "|---|---:|---:|---:|---|",
            *[row for _, row, _ in sorted(rows)],
        ])
        begin, end = f"<!-- bench:{section}:begin -->", f"<!-- bench:{section}:end -->"
        if begin in text and end in text:
            text = text[: text.index(begin) + len(begin)] + "\n" + table + "\n" + text[text.index(end):]
        else:
            text += f"\n{begin}\n{table}\n{end}\n"
        print(table, "\n")
    open(markdown, "w").write(text)

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
