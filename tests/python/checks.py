# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
# What the package nexar's test scripts share: per-rank data, exact comparison, and the
# check that a call is refused with an error naming what was wrong.
import sys

import numpy as np

import nexar


def data(r, n, dt=np.float64, salt=0):
    """n small values that depend on rank r and salt, exact in every dtype."""
    return ((np.arange(n) + 3 * r + salt) % 7 + 1).astype(dt)


def expect_equal(got, want, what):
    if not np.array_equal(got, want):
        sys.exit(f"rank {nexar.COMM_WORLD.Get_rank()}: {what}: got {got!r}, want {want!r}")


def refused(kind, fn, *words):
    """fn() must raise kind with each of words in its message."""
    try:
        fn()
    except kind as e:
        for w in words:
            assert w in str(e), f"{kind.__name__} {e!s} lacks {w!r}"
        return
    sys.exit(f"rank {nexar.COMM_WORLD.Get_rank()}: {fn} was not refused ({kind.__name__} {words})")
