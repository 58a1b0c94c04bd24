# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""Shared setup of the torch backend's tests: a "nexar" world under nexrun, bounded in time."""
import datetime
import sys

import torch
import torch.distributed as dist

import nexar_torch  # noqa: F401  (registers the backend)


def init(timeout_s=60):
    dist.init_process_group("nexar", timeout=datetime.timedelta(seconds=timeout_s))
    return dist.get_rank(), dist.get_world_size()


def expect_error(fn, *needles):
    """Runs fn; it must raise an error whose text holds every needle. Returns the text."""
    try:
        fn()
    except (RuntimeError, ValueError) as e:
        text = str(e)
        for n in needles:
            assert n in text, f"error {text!r} does not name {n!r}"
        return text
    raise AssertionError(f"no error naming {needles}")


def done(name):
    dist.barrier()
    print(f"{name} ok rank {dist.get_rank()} of {dist.get_world_size()}", flush=True)
    dist.destroy_process_group()
    sys.stdout.flush()


def same(a, b, what):
    assert a.dtype == b.dtype and torch.equal(a, b), f"{what}: got {a}, expected {b}"
