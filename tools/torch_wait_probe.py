# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Where a rank's wall time goes in a loop of 4-byte all_reduces: per call, the calling
thread's time on a CPU and waiting in the run queue (/proc/self/task/TID/schedstat), its
voluntary (slept) and involuntary (yielded or preempted) context switches and migrations,
and the CPU time of all the process's threads (a thread woken per call shows there).

    PYTHONPATH=build/python build/launcher/nexrun -np 4 python3 tools/torch_wait_probe.py
    ... tools/torch_wait_probe.py --way C      # nexar_allreduce by ctypes, same communicator

--way torch calls dist.all_reduce (backend "nexar"), --way C libnexar's nexar_allreduce on
the same group's communicator and tensor. --pin binds rank r to CPU r mod (CPUs), two ranks a
core at np 4 on 2 cores. Rank 0 prints one line per rank: the medians over the reps.
"""
import argparse
import os
import statistics
import sys
import threading
import time

import torch
import torch.distributed as dist

import nexar_torch  # noqa: F401  (registers the backend)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_bench import libnexar_allreduce  # noqa: E402

FIELDS = ("wall", "run", "rq-wait", "voluntary", "involuntary", "migrations", "all threads run")


def thread_counters(tid):
    """Wall clock, run time, run-queue wait (ns), switches and migrations of thread tid,
    and the run time of every thread of the process (ns)."""
    status = {}
    with open(f"/proc/self/task/{tid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            status[key] = value.strip()
    with open(f"/proc/self/task/{tid}/schedstat") as f:
        run, wait, _ = map(int, f.read().split())
    migrations = 0
    with open(f"/proc/self/task/{tid}/sched") as f:
        for line in f:
            if line.startswith("se.nr_migrations"):
                migrations = int(line.split(":")[1])
    every = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/schedstat") as f:
                every += int(f.read().split()[0])
        except FileNotFoundError:  # a thread that ended meanwhile
            pass
    return (time.perf_counter_ns(), run, wait, int(status["voluntary_ctxt_switches"]),
            int(status["nonvoluntary_ctxt_switches"]), migrations, every)


def last_cpu(tid):
    """The CPU thread tid last ran on (/proc's stat, field 39)."""
    with open(f"/proc/self/task/{tid}/stat") as f:
        return int(f.read().rpartition(")")[2].split()[36])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--way", choices=("torch", "C"), default="torch")
    ap.add_argument("--calls", type=int, default=200, help="back-to-back calls a rep")
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--pin", action="store_true", help="bind rank r to CPU r mod the CPUs it may use")
    args = ap.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("nexar")
    rank, n = dist.get_rank(), dist.get_world_size()
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[rank % len(cpus)]})
    t = torch.ones(1)
    group = dist.group.WORLD
    call = libnexar_allreduce(group) if args.way == "C" else (lambda x, _g: dist.all_reduce(x))
    tid = threading.get_native_id()
    for _ in range(300):
        call(t, group)
    reps = []
    for _ in range(args.reps):
        dist.barrier()
        before = thread_counters(tid)
        for _ in range(args.calls):
            call(t, group)
        after = thread_counters(tid)
        reps.append([(b - a) / args.calls for a, b in zip(before, after)])
    mine = torch.tensor([statistics.median(r[i] for r in reps) for i in range(len(FIELDS))] +
                        [last_cpu(tid)], dtype=torch.float64)
    every = [torch.empty_like(mine) for _ in range(n)]
    dist.all_gather(every, mine)
    if rank == 0:
        print(f"np {n}, {args.way}, {args.calls} calls a rep, median of {args.reps} reps, per call:")
        for r, v in enumerate(every):
            wall, run, wait, vol, invol, mig, allrun, cpu = v.tolist()
            print(f"rank {r} (CPU {int(cpu)} at the end): wall {wall / 1e3:.1f} us, run {run / 1e3:.2f} us, "
                  f"run-queue wait {wait / 1e3:.2f} us, switches {vol:.2f} voluntary / {invol:.2f} involuntary, "
                  f"migrations {mig:.3f}, all threads' run {allrun / 1e3:.2f} us")
        sys.stdout.flush()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
