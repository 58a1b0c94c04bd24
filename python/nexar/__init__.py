# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The nexar authors
"""libnexar for Python programs, in mpi4py's shape.

    import nexar
    comm = nexar.COMM_WORLD                  # nexar_init on first use (under nexrun: the job's world)
    comm.Allreduce(sendbuf, recvbuf, op=nexar.SUM)   # numpy arrays, bytearray, memoryview...
    obj = comm.bcast(obj, root=0)            # any picklable object

Capitalized methods move buffers (no copy, the GIL released while they block); lowercase
ones move picklable objects. Every failure is a nexar.Error naming the call and libnexar's
result (.code, .name); bad arguments are ValueError / TypeError naming the argument.
Processes started without nexrun join with get_unique_id / init_rank (docs/python.md).
Communicators made here are freed at exit, newest first; a program that dies of an
uncaught exception aborts them instead, so the other ranks learn at once.
"""
import atexit
import functools
import operator
import pickle
import sys
from array import array

from ._core import (ANY_SOURCE, ANY_TAG, AVG, BAND, BOR, BXOR, IN_PLACE, MAX, MIN, PROD, SUM,  # noqa: F401
                    UNDEFINED, Comm, Error, Op, Request, get_unique_id, version)
from . import _core

_live = []        # communicators made through this package, in creation order
_world = None
_crashed = False  # an uncaught exception ends the program: abort, do not wait for the others


def _track(comm):
    if comm is not None:
        _live.append(comm)
    return comm


def init_rank(unique_id, rank, size):
    """Joins the job of unique_id (from get_unique_id on one process) as rank of size; the
    result becomes COMM_WORLD."""
    global _world
    if _world is not None:
        raise RuntimeError("nexar.init_rank: this process already has a world (COMM_WORLD)")
    _world = _track(_core.init_rank(unique_id, rank, size))
    return _world


def __getattr__(name):  # COMM_WORLD made on first use (PEP 562)
    global _world
    if name == "COMM_WORLD":
        if _world is None:
            _world = _track(_core.init())
        return _world
    raise AttributeError(f"module 'nexar' has no attribute '{name}'")


_split, _dup = Comm.Split, Comm.Dup
Comm.Split = lambda self, color=0, key=0: _track(_split(self, color, key))
Comm.Split.__doc__ = "nexar_comm_split: a new communicator of the ranks with this color (None for UNDEFINED)"
Comm.Dup = lambda self: _track(_dup(self))
Comm.Dup.__doc__ = "nexar_comm_dup: a new communicator of the same ranks"


# --- picklable objects -------------------------------------------------------------
def _lengths(comm, n):
    out = array("q", bytes(8 * comm.Get_size()))
    comm.Allgather(array("q", [n]), out)
    return out


def _bcast(self, obj, root=0):
    data = pickle.dumps(obj) if self.Get_rank() == root else b""
    n = array("q", [len(data)])
    self.Bcast(n, root)
    buf = bytearray(data) if self.Get_rank() == root else bytearray(n[0])
    self.Bcast(buf, root)
    return obj if self.Get_rank() == root else pickle.loads(buf)


def _padded_blocks(self, data):
    lengths = _lengths(self, len(data))
    width = max(lengths)
    return lengths, width, bytes(data) + bytes(width - len(data))


def _unpack(blocks, lengths, width):
    return [pickle.loads(blocks[i * width:i * width + n]) for i, n in enumerate(lengths)]


def _allgather(self, obj):
    lengths, width, mine = _padded_blocks(self, pickle.dumps(obj))
    out = bytearray(width * self.Get_size())
    self.Allgather(mine, out)
    return _unpack(out, lengths, width)


def _gather(self, obj, root=0):
    lengths, width, mine = _padded_blocks(self, pickle.dumps(obj))
    out = bytearray(width * self.Get_size()) if self.Get_rank() == root else None
    self.Gather(mine, out, root)
    return _unpack(out, lengths, width) if self.Get_rank() == root else None


def _scatter(self, objs, root=0):
    size = self.Get_size()
    if self.Get_rank() == root:
        if objs is None or len(objs) != size:
            raise ValueError(f"scatter: the root passes {size} objects, one a rank")
        parts = [pickle.dumps(o) for o in objs]
    width = array("q", [max(len(p) for p in parts) if self.Get_rank() == root else 0])
    self.Bcast(width, root)
    lengths = array("q", [len(p) for p in parts] if self.Get_rank() == root else bytes(8 * size))
    self.Bcast(lengths, root)
    w = width[0]
    send = b"".join(p + bytes(w - len(p)) for p in parts) if self.Get_rank() == root else None
    mine = bytearray(w)
    self.Scatter(send, mine, root)
    return pickle.loads(mine[:lengths[self.Get_rank()]])


_REDUCERS = {SUM: operator.add, PROD: operator.mul, MIN: min, MAX: max,
             BAND: operator.and_, BOR: operator.or_, BXOR: operator.xor}


def _allreduce(self, obj, op=SUM):
    if op not in _REDUCERS:
        raise ValueError(f"allreduce: {op} is not an op for objects (SUM, PROD, MIN, MAX, BAND, BOR, BXOR)")
    return functools.reduce(_REDUCERS[op], _allgather(self, obj))  # rank order: the same on every rank


def _send(self, obj, dest, tag=0):
    self.Send(pickle.dumps(obj), dest, tag)


def _recv(self, source=ANY_SOURCE, tag=ANY_TAG):
    src, tg, n = self.Probe(source, tag)
    buf = bytearray(n)
    self.Recv(buf, src, tg)
    return pickle.loads(buf)


Comm.bcast, Comm.allgather, Comm.gather, Comm.scatter = _bcast, _allgather, _gather, _scatter
Comm.allreduce, Comm.send, Comm.recv = _allreduce, _send, _recv
Comm.barrier = Comm.Barrier


# --- the end of the program ------------------------------------------------------------
_excepthook = sys.excepthook


def _note_crash(kind, value, tb):
    global _crashed
    _crashed = True
    _excepthook(kind, value, tb)


sys.excepthook = _note_crash


@atexit.register
def _finish():
    for comm in reversed(_live):
        if comm.freed:
            continue
        try:
            if _crashed:
                comm.Abort()
            else:
                comm.Free()
        except Error as e:
            print(f"nexar: at exit: {e}", file=sys.stderr)
    _live.clear()
