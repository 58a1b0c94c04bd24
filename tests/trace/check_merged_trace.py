#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Test helper: checks the merged trace of tests/trace/trace_probe.c run on NP ranks.

    check_merged_trace.py MERGED.json NP

Prints "ok" and exits 0, or prints what is wrong and exits 1.
"""
import json
import sys


def main():
    path, np = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    ev = d["traceEvents"]
    problems = []

    def expect(cond, what):
        if not cond:
            problems.append(what)

    names = {e["pid"]: e["args"]["name"] for e in ev if e.get("name") == "process_name"}
    expect(sorted(names) == list(range(np)), f"process tracks {sorted(names)}")
    for r, n in names.items():
        expect(n.startswith(f"rank {r} ("), f"rank {r} is named {n!r}")
    xs = [e for e in ev if e.get("ph") == "X"]
    for e in xs:
        expect(e["dur"] >= 0 and e["ts"] > 1.6e15, f"odd times {e}")
    per_rank = {}
    for r in range(np):
        colls = sorted((e for e in xs if e["pid"] == r and e["cat"] == "collective"), key=lambda e: e["ts"])
        done = [(e["tid"] == colls[0]["tid"], e["name"], e["args"]["seq"]) for e in colls if e["args"]["state"] == "done"]
        per_rank[r] = done
        failed = [e for e in colls if e["args"]["state"] == "failed"]
        expect(len(failed) == 1 and failed[0]["args"].get("error"), f"rank {r}'s failed collectives: {failed}")
        expect(all(e["args"].get("algorithm") for e in colls if e["args"]["state"] == "done"),
               f"rank {r}: a finished collective without its algorithm")
        kinds = [e["name"] for e in colls]
        for k in ("allreduce", "broadcast", "barrier"):
            expect(k in kinds, f"rank {r}: no {k} in {kinds}")
        expect(any(e["args"].get("op") == "max" for e in colls), f"rank {r}: the iallreduce (max) is missing")
        p2p = sorted((e["name"], e["args"]["peer"], e["args"]["tag"], e["args"]["state"])
                     for e in xs if e["pid"] == r and e["cat"] == "p2p")
        expect(p2p == [("recv", (r + np - 1) % np, 7, "done"), ("send", (r + 1) % np, 7, "done")],
               f"rank {r}'s point-to-point calls: {p2p}")
        tracks = {e["tid"] for e in xs if e["pid"] == r}
        named = {e["tid"] for e in ev if e.get("name") == "thread_name" and e["pid"] == r}
        expect(tracks <= named, f"rank {r}: unnamed tracks {tracks - named}")
    # The same collectives, with the same sequence numbers, on every rank.
    expect(all(per_rank[r] == per_rank[0] for r in per_rank), f"ranks disagree on their collectives: {per_rank}")
    seqs = [s for _, _, s in per_rank.get(0, [])]
    expect(len(seqs) >= 4, f"too few collectives on rank 0: {per_rank.get(0)}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
