#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Merge the per-rank traces nexar writes under NEXAR_TRACE=DIR into one timeline.

    tools/nexar-trace-merge.py DIR [-o merged.json]
    tools/nexar-trace-merge.py rank0.json rank1.json ... -o merged.json

Each rank's file (nexar-trace-rank<R>.json) is a Chrome/Perfetto trace whose timestamps
are microseconds since the Unix epoch, so ranks on different hosts already share one
time axis (as well as their clocks agree). The merged file keeps every event, puts each
rank in its own process track named "rank N (host)" in rank order, and opens in
ui.perfetto.dev or chrome://tracing. --rebase shifts the times so the job starts at 0.
Python 3 standard library only.
"""
import argparse
import glob
import json
import os
import sys


def rank_files(inputs):
    files = []
    for item in inputs:
        if os.path.isdir(item):
            files += sorted(glob.glob(os.path.join(item, "nexar-trace-rank*.json")))
        else:
            files.append(item)
    return files


def load(path):
    with open(path, encoding="utf-8") as f:
        trace = json.load(f)
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise ValueError(f"{path}: not a trace (no traceEvents list)")
    return trace


def merge(traces, rebase):
    events, ranks, hosts, dropped, world = [], [], {}, 0, 0
    for trace in traces:
        info = trace.get("otherData", {})
        rank = int(info.get("rank", len(ranks)))
        ranks.append(rank)
        hosts[rank] = info.get("host", "?")
        dropped += int(info.get("dropped_events", 0))
        world = max(world, int(info.get("world_size", 0)))
        for ev in trace["traceEvents"]:
            if ev.get("ph") == "M" and ev.get("name") in ("process_name", "process_sort_index"):
                continue  # written again below, one per rank
            ev = dict(ev)
            ev["pid"] = rank
            events.append(ev)
        events.append({"ph": "M", "pid": rank, "name": "process_name",
                       "args": {"name": f"rank {rank} ({hosts[rank]})"}})
        events.append({"ph": "M", "pid": rank, "name": "process_sort_index", "args": {"sort_index": rank}})
    if rebase:
        start = min((ev["ts"] for ev in events if "ts" in ev), default=0)
        for ev in events:
            if "ts" in ev:
                ev["ts"] = round(ev["ts"] - start, 3)
    missing = sorted(set(range(world)) - set(ranks)) if world else []
    merged = {"traceEvents": events, "displayTimeUnit": "ns",
              "otherData": {"ranks": sorted(ranks), "world_size": world, "missing_ranks": missing,
                            "dropped_events": dropped}}
    return merged, missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", help="NEXAR_TRACE directory, or rank trace files")
    ap.add_argument("-o", "--output", default="-", help="merged trace (default: stdout)")
    ap.add_argument("--rebase", action="store_true", help="start the timeline at 0")
    args = ap.parse_args()
    files = rank_files(args.inputs)
    if not files:
        sys.exit(f"nexar-trace-merge: no nexar-trace-rank*.json in {' '.join(args.inputs)}")
    try:
        traces = [load(p) for p in files]
    except (OSError, ValueError) as e:
        sys.exit(f"nexar-trace-merge: {e}")
    merged, missing = merge(traces, args.rebase)
    if missing:
        print(f"nexar-trace-merge: no trace from rank(s) {', '.join(map(str, missing))}", file=sys.stderr)
    text = json.dumps(merged, separators=(",", ":"))
    if args.output == "-":
        sys.stdout.write(text + "\n")
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(f"nexar-trace-merge: {len(files)} rank(s), {len(merged['traceEvents'])} events", file=sys.stderr)


if __name__ == "__main__":
    main()
