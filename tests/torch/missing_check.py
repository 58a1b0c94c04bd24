# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Under torchrun, 3 ranks: one rank never creates the "nexar" group; the others must fail
within their bounds with an error naming what is missing. First rank 0 stays away: the
store key of the unique id never comes (the group's timeout, 3 s). Then rank 2 stays away:
nexar_init_rank times out naming it (NEXAR_CONNECT_TIMEOUT, 10 s). Each attempt has its own
FileStore and group name (torch numbers groups per process, and the absent rank made none);
a third store lines the ranks up between the two."""
import datetime
import os
import time

import torch.distributed as dist

import nexar_torch  # noqa: F401  (registers the backend)

rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
assert n == 3 and os.environ.get("NEXAR_CONNECT_TIMEOUT") == "10"
base = os.environ["NEXAR_TEST_STORE"]


def attempt(name, missing, timeout_s, needles):
    if rank == missing:
        print(f"rank {rank} stays away", flush=True)
        return
    start = time.monotonic()
    try:
        dist.init_process_group("nexar", store=dist.FileStore(f"{base}.{name}", n), rank=rank, world_size=n,
                                timeout=datetime.timedelta(seconds=timeout_s), group_name=name)
    except RuntimeError as e:
        text, took = str(e), time.monotonic() - start
        absent = [s for s in needles if s not in text]
        assert not absent, f"error {text!r} does not name {absent}"
        assert took < timeout_s + 30, f"failed after {took:.1f} s"
        print(f"rank {rank}: missing rank {missing} named: {text}", flush=True)
        return
    raise AssertionError(f"rank {rank}: the group formed without rank {missing}")


attempt("without0", 0, 3, ["group 'without0'", "store key 'nexar/unique_id/1'", "global rank 0", "never arrived"])
lineup = dist.FileStore(f"{base}.lineup", n)
lineup.set(f"rank{rank}", "here")
lineup.wait([f"rank{r}" for r in range(n)], datetime.timedelta(seconds=60))
# Rank 1 may be late too on a loaded machine ("ranks 1, 2 of 3"): rank 2 is named either way.
attempt("without2", 2, 60, ["NEXAR_ERR_TIMEOUT", "2 of 3 did not join", "NEXAR_CONNECT_TIMEOUT"])
