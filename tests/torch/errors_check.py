# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""A nexar failure in an async operation surfaces as a Python exception naming it, through
Work.wait() and through the Work's Future (what DDP waits on). Each failure breaks the
communicator of its group (two full-world groups), the world stays usable."""
import torch
import torch.distributed as dist

from common import done, expect_error, init

rank, n = init()
assert n >= 2
count = 4 + rank  # ranks disagree on the count: NEXAR_ERR_MISMATCH on every rank

g1 = dist.new_group(list(range(n)))
work = dist.all_reduce(torch.ones(count), group=g1, async_op=True)
text = expect_error(work.wait, "nexar allreduce failed", "NEXAR_ERR_MISMATCH")
print(f"rank {rank}: wait raised: {text}", flush=True)
assert work.is_completed()
expect_error(lambda: dist.all_reduce(torch.ones(4), group=g1), "NEXAR_ERR_")  # g1 is broken now

g2 = dist.new_group(list(range(n)))
fut = dist.all_reduce(torch.ones(count), group=g2, async_op=True).get_future()
expect_error(fut.wait, "nexar allreduce failed", "NEXAR_ERR_MISMATCH")

t = torch.ones(3)
dist.all_reduce(t)  # the world is unaffected
assert torch.equal(t, torch.full((3,), float(n)))
done("torch_errors")
