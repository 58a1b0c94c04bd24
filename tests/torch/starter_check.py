# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""How often the starter thread looks (python/nexar_torch/deferred_start.h), counted by its
wake-ups (the thread's voluntary context switches; /proc/self/task/<tid>/status):

1. while every collective is waited for (blocking calls between stretches of computation,
   as in a training loop), the starter starts nothing and looks every 10 ms, not every 1 ms
   (at most 2 looks per 10 ms: a look finding a collective pending gives it a 1 ms one);
2. a collective handed to the group's completer thread (a Future) that this thread cannot
   take yet (it waits on a receive) is started by the starter after a quiet look, and the
   starter stays quiet after it: the completer thread was about to run it anyway;
3. once the starter has started an async collective nobody looked at, it looks every 1 ms.
"""
import os
import time

import torch
import torch.distributed as dist
from nexar_torch import _C

from common import done, init, same

rank, n = init()
assert n == 2, "starter_check runs on 2 ranks"
store = dist.distributed_c10d._get_default_store()


def starter_tid():
    """The starter thread, the one thread named nexar-starter (it names itself once running;
    libnexar's threads it starts, such as the collective worker, carry their own names)."""
    deadline = time.monotonic() + 10
    while True:
        tids = [tid for tid in os.listdir("/proc/self/task")
                if open(f"/proc/self/task/{tid}/comm").read().strip() == "nexar-starter"]
        if tids or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    assert len(tids) == 1, f"threads named nexar-starter: {tids}"
    return tids[0]


def wakeups(tid):
    status = open(f"/proc/self/task/{tid}/status").read()
    return int(status.split("voluntary_ctxt_switches:")[1].split()[0])


def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def count_during(tid, fn):
    """fn's run time in ms and the starter's wake-ups during it."""
    before, start = wakeups(tid), time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3, wakeups(tid) - before


t = torch.ones(4)
dist.all_reduce(t)
tid = starter_tid()


# 1. Blocking calls between 1 ms stretches of computation.
def training_like():
    for _ in range(150):
        busy(0.001)
        dist.all_reduce(t)


ms, woke = count_during(tid, training_like)
assert woke <= ms / 5 + 3, f"rank {rank}: the starter woke {woke} times in {ms:.0f} ms of waited-for collectives"

# 2. Rank 0's completer thread waits on a receive that rank 1 sends only after its all_reduce,
#    which needs rank 0's all_reduce started: handed to the same completer behind the receive,
#    only the starter can start it. It does, and stays quiet after.
t = torch.full((4,), float(rank + 1))
if rank == 0:
    got = torch.zeros(1)
    receive = dist.irecv(got, src=1).get_future()
    reduced = dist.all_reduce(t, async_op=True).get_future()
    reduced.wait()
    receive.wait()
    same(got, torch.ones(1), "the receive behind the handed-over all_reduce")
    assert not _C._starter_short_ticks(), "the starter looks every 1 ms after a handed-over start"
else:
    dist.all_reduce(t)
    dist.send(torch.ones(1), dst=0)
same(t, torch.full((4,), 3.0), "all_reduce handed to a busy completer")
if rank == 0:
    ms, woke = count_during(tid, lambda: time.sleep(0.15))
    assert woke <= ms / 5 + 3, f"the starter woke {woke} times in {ms:.0f} ms after a handed-over start"

# 3. An async all_reduce rank 0 leaves unattended (it waits in torch's store) is started by the
#    starter, which then looks every 1 ms for a while (200 ms; the thread's own account: its
#    wake-ups under load are too few to tell 1 ms looks from 10 ms ones by counting).
t = torch.full((4,), float(rank + 1))
if rank == 0:
    w = dist.all_reduce(t, async_op=True)
    store.wait(["starter_check/reduced1"])
    w.wait()
    assert _C._starter_short_ticks(), "the starter looks every 10 ms after starting an unattended collective"
else:
    dist.all_reduce(t)
    store.set("starter_check/reduced1", "1")
same(t, torch.full((4,), 3.0), "unattended all_reduce started by the starter")
assert starter_tid() == tid, "the starter thread changed"  # and no other thread took its name


done("torch_starter")
