#!/usr/bin/env python3
"""Turns package-benchmark's JMH export into the tables of BENCHMARKS.md.

Usage: report.py RESULTS_DIR BENCHMARKS.md
Every benchmark iteration runs 1000 evaluations (scalingFactor .kilo), so per-evaluation
figures are the per-iteration ones divided by 1000. The text between the markers
<!-- bench:timeline:begin --> and <!-- bench:timeline:end --> is replaced; the rest is kept.
"""
import json, os, platform, subprocess, sys, datetime

# name in the harness -> (what it is, target per evaluation in ns or None, unit label)
TARGETS = {
    "cubic-bezier evaluation (ease)": ("one cubic-bezier evaluation", 50.0),   # ≥ 20 M/s
    "spring evaluation (underdamped)": ("one spring evaluation", None),
    "10-track frame": ("one frame of a 10-track timeline", 2000.0),            # ≤ 2 µs
    "yula-mask-reveal frame": ("one frame of the seed 000 reveal (9 slots)", None),
}

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
    rows = []
    for entry in data:
        name = entry["benchmark"].split(".", 3)[-1].replace("_", " ")
        wall = entry["secondaryMetrics"]["Time (wall clock)"]
        mallocs = entry["secondaryMetrics"].get("Malloc (total)", {}).get("score", 0)
        scale = {"ns": 1, "μs": 1e3, "ms": 1e6, "s": 1e9}[wall["scoreUnit"]]
        p50 = wall["scorePercentiles"]["50.0"] * scale / 1000
        p99 = wall["scorePercentiles"]["99.0"] * scale / 1000
        what, target = TARGETS.get(name, (name, None))
        verdict = "" if target is None else ("meets" if p50 <= target else "MISSES") + f" ≤ {target:g} ns"
        rows.append(f"| {what} | {p50:.1f} | {p99:.1f} | {1e3 / p50:.1f} M/s | {mallocs / 1000:g} | {verdict} |")
    table = "\n".join([
        f"Measured {datetime.date.today().isoformat()} on {machine()}.",
        "Command: `make bench` (release build, package-benchmark; 1000 evaluations per iteration).",
        "",
        "| what | p50 ns | p99 ns | rate (p50) | mallocs per evaluation | target |",
        "|---|---:|---:|---:|---:|---|",
        *rows,
    ])
    text = open(markdown).read() if os.path.exists(markdown) else ""
    begin, end = "<!-- bench:timeline:begin -->", "<!-- bench:timeline:end -->"
    if begin in text and end in text:
        text = text[: text.index(begin) + len(begin)] + "\n" + table + "\n" + text[text.index(end):]
    else:
        text += f"\n{begin}\n{table}\n{end}\n"
    open(markdown, "w").write(text)
    print(table)

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
