#!/usr/bin/env python3
"""The reference for TOMLDocumentTests: Python's tomllib (TOML 1.0) on each file given, one
JSON line per file: {"ok": document} or {"error": message}. Dates and times become their
ISO text; floats stay floats (json writes 1.0, not 1), so ints and floats stay apart."""
import json, math, sys, tomllib, datetime


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    return value


for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            print(json.dumps({"ok": plain(tomllib.load(f))}))
    except tomllib.TOMLDecodeError as error:
        print(json.dumps({"error": str(error)}))
