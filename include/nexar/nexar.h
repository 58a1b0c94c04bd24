// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
/*
 * nexar: a distributed communication runtime (the public C API).
 *
 * This header is a contract: programs outside this repository are written against it.
 * Names, argument orders and meanings never change; functions and enum values may be added.
 *
 * Conventions that hold for every function unless its comment says otherwise:
 *  - Results: NEXAR_SUCCESS, or a negative nexar_result_t. After a failure,
 *    nexar_comm_last_error(comm) returns a message naming what was wrong (rank, peer,
 *    values). NEXAR_ERR_INVALID_ARGUMENT leaves the communicator usable; NEXAR_ERR_TIMEOUT,
 *    NEXAR_ERR_PEER_LOST, NEXAR_ERR_PROTOCOL and NEXAR_ERR_AUTH make it unusable: every
 *    later call on it returns NEXAR_ERR_ABORTED (NEXAR_ERR_REVOKED once revoked) until it is
 *    destroyed; the fault-tolerance calls below still work on it.
 *  - Timeouts: every blocking call gives up with NEXAR_ERR_TIMEOUT after the
 *    communicator's timeout (NEXAR_TIMEOUT seconds, default 300; nexar_comm_set_timeout).
 *  - Threads: every function may be called from any thread. Calls on one communicator
 *    from several threads are serialised internally; their relative order is the order in
 *    which they enter the library.
 *  - Counts are in elements of the given dtype; a NULL buffer is allowed only with count 0.
 */
#ifndef NEXAR_NEXAR_H
#define NEXAR_NEXAR_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define NEXAR_API __attribute__((visibility("default")))
#else
#define NEXAR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A communicator: a group of ranks with its own message space. Opaque. */
typedef struct nexar_comm *nexar_comm_t;
/** A non-blocking operation in flight. Freed by nexar_wait, a successful nexar_test, or
 *  nexar_waitall. Opaque. */
typedef struct nexar_request *nexar_request_t;

typedef enum {
  NEXAR_SUCCESS = 0,
  NEXAR_IN_PROGRESS = 1,            /* nexar_test: not complete yet */
  NEXAR_ERR_INVALID_ARGUMENT = -1,  /* bad pointer, count, dtype, op, root, peer or tag, found locally */
  NEXAR_ERR_MISMATCH = -2,          /* ranks disagree: count, dtype, op, root, or the order of collectives */
  NEXAR_ERR_TIMEOUT = -3,           /* an operation exceeded its timeout */
  NEXAR_ERR_PEER_LOST = -4,         /* a peer exited, was killed, or its connection broke */
  NEXAR_ERR_AUTH = -5,              /* missing or invalid job credential */
  NEXAR_ERR_PROTOCOL = -6,          /* malformed or unexpected data from a peer */
  NEXAR_ERR_SYSTEM = -7,            /* operating system or allocation failure */
  NEXAR_ERR_UNSUPPORTED = -8,       /* e.g. a device buffer with no CUDA support loaded */
  NEXAR_ERR_ABORTED = -9,           /* communicator aborted, or unusable after an earlier error */
  NEXAR_ERR_INTERNAL = -10,
  NEXAR_ERR_REVOKED = -11           /* a member revoked the communicator (nexar_comm_revoke) */
} nexar_result_t;

typedef enum {
  NEXAR_INT8, NEXAR_UINT8, NEXAR_INT32, NEXAR_UINT32, NEXAR_INT64, NEXAR_UINT64,
  NEXAR_FLOAT16, NEXAR_BFLOAT16, NEXAR_FLOAT32, NEXAR_FLOAT64
} nexar_dtype_t;

/* NEXAR_BAND, NEXAR_BOR, NEXAR_BXOR (bitwise and, or, exclusive or; MPI_BAND / MPI_BOR /
 * MPI_BXOR) are additions to API.md's enum, after NEXAR_AVG: integer dtypes only. */
typedef enum { NEXAR_SUM, NEXAR_PROD, NEXAR_MIN, NEXAR_MAX, NEXAR_AVG, NEXAR_BAND, NEXAR_BOR, NEXAR_BXOR } nexar_op_t;

#define NEXAR_UNDEFINED (-1)   /* split color: this rank joins no new communicator */
#define NEXAR_ANY_SOURCE (-2)  /* receive: match a message from any rank */
#define NEXAR_ANY_TAG (-1)     /* receive: match a message with any tag */

/* ------------------------------------------------------------------------------------ */
/* Lifetime                                                                              */
/* ------------------------------------------------------------------------------------ */

/**
 * Builds the world communicator from the environment a launcher set (nexrun: NEXAR_RANK,
 * NEXAR_WORLD_SIZE, NEXAR_RENDEZVOUS, NEXAR_CREDENTIALS...). With no launcher environment
 * the world has one rank; with torchrun's WORLD_SIZE > 1 but no launcher nexar knows, it
 * fails (NEXAR_ERR_INVALID_ARGUMENT): such processes join with nexar_init_rank. Collective over the world: returns once every rank is connected.
 *
 * *world is owned by the caller and freed by nexar_comm_destroy.
 * Returns NEXAR_ERR_INVALID_ARGUMENT (world NULL, or a malformed launcher environment),
 * NEXAR_ERR_AUTH (credential file missing, unreadable, or not for this job and rank),
 * NEXAR_ERR_TIMEOUT (the rendezvous or a peer was not reached in NEXAR_CONNECT_TIMEOUT
 * seconds), NEXAR_ERR_PEER_LOST, NEXAR_ERR_SYSTEM. On failure *world is NULL and the detail
 * is in nexar_comm_last_error(NULL).
 */
NEXAR_API nexar_result_t nexar_init(nexar_comm_t *world);

/** What a process needs to join a job started without nexrun (nexar_init_rank). */
typedef struct {
  unsigned char bytes[512];
} nexar_unique_id_t;

/**
 * Makes a fresh job for processes that another launcher started (torchrun, srun,
 * Kubernetes, a PyTorch backend holding torch's store), as NCCL's ncclGetUniqueId: call it
 * on one process and pass *id to the others by the program's own means. From then on this
 * process serves the job's rendezvous, in-process, until the world it joins with this id
 * is destroyed (or until it exits, when it joins none). The id holds the rendezvous address
 * (NEXAR_ADDR / NEXAR_IFACE / NEXAR_ADDR_CIDR choose it, else the host's first
 * non-loopback address, else loopback) and a fresh job secret: whoever has the id can
 * join, so pass it only over a channel you trust.
 * Returns NEXAR_ERR_INVALID_ARGUMENT (id NULL, or no address matches NEXAR_IFACE...),
 * NEXAR_ERR_SYSTEM.
 */
NEXAR_API nexar_result_t nexar_get_unique_id(nexar_unique_id_t *id);

/**
 * Joins the job of id as rank `rank` of `size`, as NCCL's ncclCommInitRank. Collective
 * over size processes, each passing its own rank in [0, size) and the same size. Returns
 * the same kind of world as nexar_init: shared memory between the ranks on one host, QUIC
 * between hosts, mutual authentication from the id's secret, the same failure semantics
 * and timeouts (forming the world is bounded by NEXAR_CONNECT_TIMEOUT).
 * Returns NEXAR_ERR_INVALID_ARGUMENT (id or world NULL, rank or size out of range, an id
 * that nexar_get_unique_id did not write or that was garbled, two processes with the same
 * rank: both fail, naming it), NEXAR_ERR_MISMATCH (processes passed different sizes),
 * NEXAR_ERR_TIMEOUT (the rendezvous or a rank did not answer in time, naming the ranks
 * missing), NEXAR_ERR_AUTH (the rendezvous at the id's address is another job's),
 * NEXAR_ERR_PEER_LOST, NEXAR_ERR_SYSTEM. On failure *world is NULL and the detail is in
 * nexar_comm_last_error(NULL).
 */
NEXAR_API nexar_result_t nexar_init_rank(const nexar_unique_id_t *id, int rank, int size, nexar_comm_t *world);

/**
 * Destroys a communicator: collective over comm's ranks, it waits (up to the timeout) for
 * every rank to arrive, so that no message in flight is lost, then frees comm. Pending
 * requests on comm fail with NEXAR_ERR_ABORTED. Destroying the world closes every
 * connection. comm must not be used afterwards. A NULL comm returns NEXAR_SUCCESS.
 * Returns NEXAR_SUCCESS, or the error that the final synchronisation hit (comm is freed
 * in every case).
 */
NEXAR_API nexar_result_t nexar_comm_destroy(nexar_comm_t comm);

/**
 * Aborts comm locally: every pending and later operation on it fails at once with
 * NEXAR_ERR_ABORTED. Does not free comm (call nexar_comm_destroy). Returns
 * NEXAR_ERR_INVALID_ARGUMENT for a NULL comm.
 */
NEXAR_API nexar_result_t nexar_comm_abort(nexar_comm_t comm);

/**
 * Splits comm: collective over comm (in its order of collectives). Ranks passing the same
 * color >= 0 form a new communicator, ranked by (key, rank in comm); color NEXAR_UNDEFINED
 * gives *newcomm = NULL. The new communicator shares comm's connections but has its own
 * message space: its traffic never mixes with comm's or a sibling's, even with equal tags.
 * It is independent of comm afterwards (either may be destroyed first) and is freed with
 * nexar_comm_destroy. Returns NEXAR_ERR_INVALID_ARGUMENT (NULL newcomm, color negative and not
 * NEXAR_UNDEFINED), and the errors of a collective.
 */
NEXAR_API nexar_result_t nexar_comm_split(nexar_comm_t comm, int color, int key, nexar_comm_t *newcomm);
/** A communicator with comm's ranks in the same order and a message space of its own.
 *  Collective over comm; results as nexar_comm_split. */
NEXAR_API nexar_result_t nexar_comm_dup(nexar_comm_t comm, nexar_comm_t *newcomm);

/**
 * Rebuilds the world after failures (API-2.md, fault tolerance). The world only: comm must
 * be the communicator nexar_init returned (or an earlier rebuild). Collective over the
 * surviving ranks AND the replacements the launcher started for failed ranks
 * (`nexrun --respawn N`): returns in *newcomm a world of the original size where each
 * replacement holds its predecessor's rank. A replacement process is told it is one by
 * NEXAR_RESTART_COUNT > 0; its nexar_init returns the rebuilt world once the survivors
 * call nexar_comm_rebuild. With no replacement coming for a failed rank it fails with
 * NEXAR_ERR_PEER_LOST naming that rank within comm's timeout (use shrink instead). comm
 * may be broken (after NEXAR_ERR_PEER_LOST) or not; it stays as it is, with its own
 * connections, until destroyed. The new world is a full communicator (every collective,
 * split, shared memory, point to point). Returns NEXAR_ERR_INVALID_ARGUMENT (NULL newcomm,
 * comm not a world), NEXAR_ERR_PEER_LOST, NEXAR_ERR_TIMEOUT, NEXAR_ERR_SYSTEM.
 */
NEXAR_API nexar_result_t nexar_comm_rebuild(nexar_comm_t comm, nexar_comm_t *newcomm);

/** Writes comm's rank of this process to *rank. NEXAR_ERR_INVALID_ARGUMENT on NULLs. */
NEXAR_API nexar_result_t nexar_comm_rank(nexar_comm_t comm, int *rank);
/** Writes the number of ranks in comm to *size. NEXAR_ERR_INVALID_ARGUMENT on NULLs. */
NEXAR_API nexar_result_t nexar_comm_size(nexar_comm_t comm, int *size);
/** Writes this process's rank among comm's ranks on the same host. */
NEXAR_API nexar_result_t nexar_comm_local_rank(nexar_comm_t comm, int *local_rank);
/** Writes the number of comm's ranks on this host. */
NEXAR_API nexar_result_t nexar_comm_local_size(nexar_comm_t comm, int *local_size);

/**
 * Sets the timeout, in seconds (> 0), of every later blocking call on comm.
 * Returns NEXAR_ERR_INVALID_ARGUMENT for a NULL comm or a non-positive value. Local.
 */
NEXAR_API nexar_result_t nexar_comm_set_timeout(nexar_comm_t comm, double seconds);

/** Static text naming a result ("NEXAR_ERR_TIMEOUT"). Never NULL. */
NEXAR_API const char *nexar_result_string(nexar_result_t result);

/**
 * Detail of this thread's last failure on comm (NULL comm: the last failure of
 * nexar_init or of a call given a NULL communicator). Valid until this thread's next
 * call on comm. "" when there is none. Never NULL.
 */
NEXAR_API const char *nexar_comm_last_error(nexar_comm_t comm);

/* ---- fault tolerance (ULFM-style) ----
 * After NEXAR_ERR_PEER_LOST or NEXAR_ERR_REVOKED a communicator is no longer ABORTED for
 * good: it accepts revoke, agree, shrink, rebuild, failed_ranks, the queries and destroy
 * (every other call keeps returning an error, never hangs). Works on every communicator
 * (world, split, dup), on every transport, on one host and across hosts.
 * docs/fault-tolerance.md has the failure model and a recovery loop. */
NEXAR_API nexar_result_t nexar_comm_revoke(nexar_comm_t comm);
  /* Not collective. Every member's pending and later calls on comm (other than the ones
     above) return NEXAR_ERR_REVOKED, within NEXAR_PEER_TIMEOUT even on members that are
     blocked in a collective with a live peer. */
NEXAR_API nexar_result_t nexar_comm_agree(nexar_comm_t comm, int *flag);
  /* Fault-tolerant agreement among the live members: every live member returns with the
     same *flag, the bitwise AND of the flags the live members passed, and the same result:
     NEXAR_SUCCESS if no member is known failed, NEXAR_ERR_PEER_LOST if one is (so every
     survivor leaves with the same view, even when members die during the call). */
NEXAR_API nexar_result_t nexar_comm_shrink(nexar_comm_t comm, nexar_comm_t *newcomm);
  /* Collective over the live members: a new communicator of the survivors, ranks in the old
     order (renumbered 0..n-1). Every survivor gets the same membership even when more members
     die during the call. comm itself stays revoked/broken; destroy it. */
NEXAR_API nexar_result_t nexar_comm_failed_ranks(nexar_comm_t comm, int *ranks, size_t capacity, size_t *count);
  /* Local: the ranks of comm known failed here, ascending; *count is their number (may
     exceed capacity: then only capacity are written). */

/** The library's version, "MAJOR.MINOR.PATCH". Static. */
NEXAR_API const char *nexar_version(void);

/* ------------------------------------------------------------------------------------ */
/* Point to point                                                                         */
/* ------------------------------------------------------------------------------------ */
/*
 * Matching is MPI's: a receive matches the oldest message from (source, tag) on the same
 * communicator; NEXAR_ANY_SOURCE and NEXAR_ANY_TAG match any. Messages between one pair
 * with one tag arrive in the order sent. Tags are >= 0 on send. A message longer than the
 * posted receive is NEXAR_ERR_INVALID_ARGUMENT on the receiver (the message is discarded);
 * a shorter one is received and the rest of the buffer is left untouched. A rank may send
 * to itself. Messages received before a matching receive is posted are buffered up to
 * NEXAR_UNEXPECTED_LIMIT bytes; past that, senders are held back (flow control) until the
 * receiver posts receives.
 *
 * Results common to all four: NEXAR_ERR_INVALID_ARGUMENT (NULL comm, NULL buffer with a
 * non-zero count, unknown dtype, peer outside [0, size), negative send tag, a receive too
 * short), NEXAR_ERR_PEER_LOST (peer gone), NEXAR_ERR_TIMEOUT, NEXAR_ERR_ABORTED.
 */

/** Sends count elements to peer. Returns when buf may be reused (the data is handed to the
 *  transport or received), which may be before the peer received it. */
NEXAR_API nexar_result_t nexar_send(const void *buf, size_t count, nexar_dtype_t dtype, int peer, int tag, nexar_comm_t comm);
/** Receives up to count elements from peer (or NEXAR_ANY_SOURCE) with tag (or NEXAR_ANY_TAG). */
NEXAR_API nexar_result_t nexar_recv(void *buf, size_t count, nexar_dtype_t dtype, int peer, int tag, nexar_comm_t comm);
/** Starts a send; buf must stay valid and unchanged until the request completes. */
NEXAR_API nexar_result_t nexar_isend(const void *buf, size_t count, nexar_dtype_t dtype, int peer, int tag, nexar_comm_t comm, nexar_request_t *req);
/** Starts a receive; buf must stay valid until the request completes. */
NEXAR_API nexar_result_t nexar_irecv(void *buf, size_t count, nexar_dtype_t dtype, int peer, int tag, nexar_comm_t comm, nexar_request_t *req);

/* ---- messages whose size or source the receiver does not know ----
 * A probe finds the oldest message matching (source, tag) that has arrived or is
 * arriving (its header is here) and has not been received, without receiving it: a
 * receive posted next from status.source with status.tag gets that very message. Results
 * as for nexar_recv (a probe that finds nothing within the communicator's timeout is
 * NEXAR_ERR_TIMEOUT and breaks it, as a receive's would). status may be NULL everywhere;
 * where no message was matched it holds source -1, tag -1, bytes 0. */
typedef struct {
  int source;       /* rank in the communicator */
  int tag;
  size_t bytes;     /* size of the message in bytes */
} nexar_status_t;
/** Blocks until a matching message is there; does not receive it. */
NEXAR_API nexar_result_t nexar_probe(int source, int tag, nexar_comm_t comm, nexar_status_t *status);
/** Never blocks: *flag = 1 and status filled when a matching message is there, else *flag = 0. */
NEXAR_API nexar_result_t nexar_iprobe(int source, int tag, nexar_comm_t comm, int *flag, nexar_status_t *status);
/** nexar_recv that also tells who sent the message, its tag and its size. */
NEXAR_API nexar_result_t nexar_recv_status(void *buf, size_t count, nexar_dtype_t dtype, int source, int tag, nexar_comm_t comm, nexar_status_t *status);
/** nexar_wait that also fills status for a receive (for other requests: -1, -1, 0). */
NEXAR_API nexar_result_t nexar_wait_status(nexar_request_t req, nexar_status_t *status);
  /* A message longer than the receive buffer: NEXAR_ERR_INVALID_ARGUMENT naming both sizes,
     nothing written past the buffer, the message dropped; status still holds its source,
     tag and size. */

/* ---- gather/scatter lists (one message from several regions) ----
 * Regions are host memory (a device region: NEXAR_ERR_UNSUPPORTED), taken in order;
 * regions of 0 bytes are allowed (base may then be NULL). nexar_sendv sends their
 * concatenation as one message (a single non-empty region is sent from where it is;
 * several are packed once), received by any receive form; nexar_recvv scatters one message
 * (from any send form) across its regions in order, their total being the receive's
 * capacity (a longer message: as above). Results as for nexar_send / nexar_recv. */
typedef struct { const void *base; size_t bytes; } nexar_iovec_t;
NEXAR_API nexar_result_t nexar_sendv(const nexar_iovec_t *iov, size_t n, int peer, int tag, nexar_comm_t comm);
/** base is written through. */
NEXAR_API nexar_result_t nexar_recvv(const nexar_iovec_t *iov, size_t n, int source, int tag, nexar_comm_t comm, nexar_status_t *status);

/* ---- groups of point-to-point operations and collectives (NCCL's ncclGroupStart/End) ----
 * Between start and end, nexar_isend/nexar_irecv/nexar_send/nexar_recv (and
 * nexar_recv_status, nexar_sendv, nexar_recvv) and the collectives (blocking and
 * non-blocking, fixed and per-rank counts) on any communicator are only posted;
 * nexar_group_end starts them together (receives, then sends, then the collectives, each
 * queued on its communicator in posting order, so each communicator runs them in the
 * order posted) and returns when all are complete (blocking calls inside a group do not
 * block; their buffers, and statuses filled at the end, must stay valid until
 * nexar_group_end returns; count and pointer arrays are copied when posted). Groups nest (counted): only the
 * outermost end starts the operations. Per thread. An argument error is returned by the
 * call at once and again by nexar_group_end; an operation that fails when started or run
 * makes nexar_group_end return its error, naming the operation ("operation 2 of 4 in the
 * group (receive from rank 1 (tag 0)) failed: ..."), after every other operation finished.
 * Requests of a group are waited for (and freed) with nexar_wait as usual, after
 * nexar_group_end; waiting for one before it returns NEXAR_ERR_INVALID_ARGUMENT (the
 * operation still runs at the end). Probes and communicator creation inside a group run
 * at once.
 * nexar_group_end without a start: NEXAR_ERR_INVALID_ARGUMENT. */
NEXAR_API nexar_result_t nexar_group_start(void);
NEXAR_API nexar_result_t nexar_group_end(void);

/* ------------------------------------------------------------------------------------ */
/* Collectives                                                                            */
/* ------------------------------------------------------------------------------------ */
/*
 * Every rank of comm calls the same collectives in the same order with matching count,
 * dtype, op and root. Counts are elements. sendbuf == recvbuf means in place. The
 * algorithm is chosen at run time from message size, world size and transport by a cost
 * model (NEXAR_ALGO forces one, e.g. "allreduce:ring,broadcast:binomial"; nexar-info lists
 * them). Every rank gets bit-identical results whatever the algorithm. float16 and
 * bfloat16 reduce in float32 and round to nearest even; integers wrap; NEXAR_AVG is the sum
 * divided by the number of ranks (integer division for integer types). NEXAR_BAND,
 * NEXAR_BOR and NEXAR_BXOR take integer dtypes only: with a float dtype every reducing
 * call returns NEXAR_ERR_INVALID_ARGUMENT on every rank, naming the op and the dtype.
 *
 * Results common to all: NEXAR_ERR_INVALID_ARGUMENT, found locally before anything is
 * sent, naming the argument (NULL comm, NULL buffer with a non-zero count, unknown dtype
 * or op, root outside [0, size)); the communicator stays usable. NEXAR_ERR_MISMATCH when
 * ranks disagree (count, dtype, op, root, or which collective they called): every rank
 * gets it, with a message naming what differed and both values. NEXAR_ERR_PEER_LOST,
 * NEXAR_ERR_TIMEOUT, NEXAR_ERR_ABORTED as everywhere.
 *
 * Non-blocking variants (nexar_i*) take the same arguments plus *req; the buffers (and for
 * the bucketed allreduce the bufs and counts arrays) must stay valid until the request
 * completes. Several may be outstanding on one communicator; they complete as if issued
 * in order, also relative to blocking collectives.
 */

/** Reduces count elements across all ranks with op; every rank receives the result. */
NEXAR_API nexar_result_t nexar_allreduce(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm);
/** Copies count elements of root's buf to every rank's buf. */
NEXAR_API nexar_result_t nexar_broadcast(void *buf, size_t count, nexar_dtype_t dtype, int root, nexar_comm_t comm);
/** Reduces count elements with op into root's recvbuf (recvbuf is ignored elsewhere and may be NULL). */
NEXAR_API nexar_result_t nexar_reduce(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op, int root, nexar_comm_t comm);
/** Each rank contributes sendcount elements; every rank receives size * sendcount, rank r's at r * sendcount. */
NEXAR_API nexar_result_t nexar_allgather(const void *sendbuf, void *recvbuf, size_t sendcount, nexar_dtype_t dtype, nexar_comm_t comm);
/** Reduces size * recvcount elements with op; rank r receives block r (elements [r*recvcount, (r+1)*recvcount)).
 *  In place (sendbuf == recvbuf): recvbuf holds the size * recvcount inputs and gets block r at its start. */
NEXAR_API nexar_result_t nexar_reduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm);
/** Root receives size * sendcount elements, rank r's at r * sendcount (recvbuf ignored elsewhere). */
NEXAR_API nexar_result_t nexar_gather(const void *sendbuf, void *recvbuf, size_t sendcount, nexar_dtype_t dtype, int root, nexar_comm_t comm);
/** Rank r receives block r (recvcount elements) of root's sendbuf (size * recvcount elements; ignored elsewhere). */
NEXAR_API nexar_result_t nexar_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, nexar_dtype_t dtype, int root, nexar_comm_t comm);
/** Sends count elements to and receives count elements from each rank: block j of sendbuf goes to rank j,
 *  block i of recvbuf comes from rank i. */
NEXAR_API nexar_result_t nexar_alltoall(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_comm_t comm);
/** Inclusive prefix reduction: rank r receives op over ranks 0..r. */
NEXAR_API nexar_result_t nexar_scan(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm);
/** Exclusive prefix reduction: rank r receives op over ranks 0..r-1; rank 0's recvbuf is set to the identity of op
 *  (SUM and AVG 0, PROD 1, MIN the type's largest value, MAX its lowest, BAND all bits set, BOR and BXOR 0). */
NEXAR_API nexar_result_t nexar_exscan(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm);
/** Returns once every rank of comm has entered the barrier. */
NEXAR_API nexar_result_t nexar_barrier(nexar_comm_t comm);
/** Allreduces nbufs buffers in place (bufs[i] holds counts[i] elements), fused into as few transfers as possible. */
NEXAR_API nexar_result_t nexar_allreduce_bucketed(void *const *bufs, const size_t *counts, size_t nbufs, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm);

NEXAR_API nexar_result_t nexar_iallreduce(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_ibroadcast(void *buf, size_t count, nexar_dtype_t dtype, int root, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_ireduce(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op, int root, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_iallgather(const void *sendbuf, void *recvbuf, size_t sendcount, nexar_dtype_t dtype, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_ireduce_scatter(const void *sendbuf, void *recvbuf, size_t recvcount, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_igather(const void *sendbuf, void *recvbuf, size_t sendcount, nexar_dtype_t dtype, int root, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_iscatter(const void *sendbuf, void *recvbuf, size_t recvcount, nexar_dtype_t dtype, int root, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_ialltoall(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_iscan(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_iexscan(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm, nexar_request_t *req);
/** Starts a barrier; the request completes once every rank has entered it. */
NEXAR_API nexar_result_t nexar_ibarrier(nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_iallreduce_bucketed(void *const *bufs, const size_t *counts, size_t nbufs, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm, nexar_request_t *req);

/* ---- Collectives with a count per rank ------------------------------------------------
 * Counts and displacements are in elements; displacements count from the buffer's start
 * and may leave gaps (never written) and come in any order. Arrays a rank does not use may
 * be NULL (gatherv's recvcounts/displs and scatterv's sendcounts/displs away from the root).
 * Zero counts send nothing. Every rank checks its counts against each peer it exchanges
 * data with before any data moves: a pair that disagrees (alltoallv: my sendcounts[j] !=
 * rank j's recvcounts[me]; allgatherv: rank i's sendcount != my recvcounts[i];
 * reduce_scatter_v: recvcounts differ) gives NEXAR_ERR_MISMATCH on both ranks of the pair,
 * e.g. "alltoallv: rank 1 sends 5 elements to rank 2 where rank 2 expects 4 from rank 1"
 * (the others fail with it too, in this call or, where their own pairs agreed and their
 * data arrived, at their next call: the communicator is broken); never a hang, nothing
 * written between the two ranks of the pair. A rank's block to itself that does not fit its own receive (sendcounts[r] !=
 * recvcounts[r]) is NEXAR_ERR_INVALID_ARGUMENT naming both counts; the communicator stays
 * usable. In place (sendbuf == recvbuf): allgatherv and the gatherv root find their own
 * block at recvbuf + displs[rank] (sendcount is then not read); the scatterv root's block
 * stays in sendbuf (recvcount not read); alltoallv reads its send blocks from recvbuf with
 * sendcounts/sdispls before anything arrives; reduce_scatter_v as nexar_reduce_scatter.
 * The non-blocking forms copy the count and displacement arrays: they may be freed once
 * the call returns; the buffers must stay valid until the request completes. */

/** Rank i contributes sendcount elements; every rank receives recvcounts[i] elements from rank i at recvbuf + displs[i]. */
NEXAR_API nexar_result_t nexar_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts, const size_t *displs, nexar_dtype_t dtype, nexar_comm_t comm);
/** Root receives recvcounts[i] elements from rank i at recvbuf + displs[i] (recvbuf, recvcounts, displs ignored elsewhere). */
NEXAR_API nexar_result_t nexar_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts, const size_t *displs, nexar_dtype_t dtype, int root, nexar_comm_t comm);
/** Rank i receives recvcount elements, the root's sendcounts[i] elements at sendbuf + displs[i]. */
NEXAR_API nexar_result_t nexar_scatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs, void *recvbuf, size_t recvcount, nexar_dtype_t dtype, int root, nexar_comm_t comm);
/** Sends sendcounts[j] elements at sendbuf + sdispls[j] to rank j; receives recvcounts[i] elements from rank i at
 *  recvbuf + rdispls[i]. Algorithms: pairwise (one partner at a time) and scattered (all posted at once, for small
 *  blocks in large worlds), chosen by the cost model or NEXAR_ALGO=alltoallv:pairwise|scattered. */
NEXAR_API nexar_result_t nexar_alltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf, const size_t *recvcounts, const size_t *rdispls, nexar_dtype_t dtype, nexar_comm_t comm);
/** sendbuf holds sum(recvcounts) elements (block i: recvcounts[i] elements, blocks end to end); rank i receives
 *  block i reduced over all ranks with op. recvcounts must be the same on every rank. */
NEXAR_API nexar_result_t nexar_reduce_scatter_v(const void *sendbuf, void *recvbuf, const size_t *recvcounts, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm);
NEXAR_API nexar_result_t nexar_iallgatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts, const size_t *displs, nexar_dtype_t dtype, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_igatherv(const void *sendbuf, size_t sendcount, void *recvbuf, const size_t *recvcounts, const size_t *displs, nexar_dtype_t dtype, int root, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_iscatterv(const void *sendbuf, const size_t *sendcounts, const size_t *displs, void *recvbuf, size_t recvcount, nexar_dtype_t dtype, int root, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_ialltoallv(const void *sendbuf, const size_t *sendcounts, const size_t *sdispls, void *recvbuf, const size_t *recvcounts, const size_t *rdispls, nexar_dtype_t dtype, nexar_comm_t comm, nexar_request_t *req);
NEXAR_API nexar_result_t nexar_ireduce_scatter_v(const void *sendbuf, void *recvbuf, const size_t *recvcounts, nexar_dtype_t dtype, nexar_op_t op, nexar_comm_t comm, nexar_request_t *req);

/* ---- Compressed allreduce (top-k / random-k with error feedback) ----------------------
 * Each rank contributes k = ceil(ratio * count) elements (at least 1) of v = send +
 * residual: top-k the k largest |v| (ties to the lower index), random-k k indices drawn
 * from seed (the same on every rank: pass the same seed everywhere, a new one per call).
 * The residual keeps the rest (v where the rank did not contribute, zero where it did)
 * for the next call. recvbuf gets the sum of every rank's contribution, the same bits on
 * every rank (each contribution added once, in rank order; float16 and bfloat16 summed in
 * float32 and rounded once). Host buffers; sendbuf may equal recvbuf; count at most
 * UINT32_MAX. Ranks passing a different method, ratio, count, dtype or (random-k) seed:
 * NEXAR_ERR_MISMATCH naming both. A failed call leaves the residual as it was.
 * Details: docs/collectives.md "Compressed allreduce". */
typedef enum { NEXAR_COMPRESS_TOPK, NEXAR_COMPRESS_RANDOMK } nexar_compress_method_t;
typedef struct {
  nexar_compress_method_t method;
  double ratio;      /* fraction of elements each rank contributes, 0 < ratio <= 1 */
  uint64_t seed;     /* RANDOMK: same on every rank, change it per call */
} nexar_compress_t;
/** SUM only; FLOAT32, FLOAT16, BFLOAT16, FLOAT64. residual: count elements owned by the
 *  caller, zero at first. Each rank compresses v = send + residual, residual becomes
 *  v - (what it contributed); recvbuf gets the sum of all contributions. ratio = 1 gives
 *  the same bits as nexar_allreduce. For every ratio and world size nothing is lost or
 *  counted twice: recvbuf + (sum over ranks of the new residuals) equals the sum over
 *  ranks of (send + old residual), up to rounding. */
NEXAR_API nexar_result_t nexar_allreduce_compressed(const void *sendbuf, void *recvbuf, size_t count, nexar_dtype_t dtype, const nexar_compress_t *spec, void *residual, nexar_comm_t comm);

/* ------------------------------------------------------------------------------------ */
/* Remote procedure calls                                                                 */
/* ------------------------------------------------------------------------------------ */
/*
 * A rank registers functions by number on a communicator; any member (itself included)
 * calls them with argument bytes and gets result bytes back. No serve loop: handlers run
 * on a library thread of the communicator (started by the first call that arrives), one
 * call at a time per communicator in arrival order, whether the program is inside a nexar
 * call or not. A handler may block and call nexar, but a call from a handler to its own
 * communicator's handlers on the same rank waits behind itself (it times out). Register
 * before the others call (e.g. register, then nexar_barrier): a call that arrives first
 * finds no function. Calls on a communicator being destroyed fail or time out; destroy
 * it once the calls to this rank are done (a barrier after them).
 * Every call waits at most the communicator's timeout (NEXAR_ERR_TIMEOUT, the
 * communicator stays usable and a late reply is dropped); a target that dies gives
 * NEXAR_ERR_PEER_LOST. Details: docs/rpc.md.
 */
typedef struct nexar_rpc_reply *nexar_rpc_reply_t;
/** A handler: caller is the calling rank in comm; args are valid during the call. Its
 *  result is what it passes to nexar_rpc_reply_set (none: empty). A result other than
 *  NEXAR_SUCCESS fails the caller's call with that result. */
typedef nexar_result_t (*nexar_rpc_fn)(void *user, int caller, const void *args, size_t args_bytes, nexar_rpc_reply_t reply);
/** fn runs on a library thread, one call at a time per communicator, while the program is
 *  inside or outside nexar calls; a handler that returns an error fails the caller's call
 *  with that error. Registering an fn_id twice: NEXAR_ERR_INVALID_ARGUMENT. Local. */
NEXAR_API nexar_result_t nexar_rpc_register(nexar_comm_t comm, uint32_t fn_id, nexar_rpc_fn fn, void *user);
/** Sets the result of the call being handled (copies; a second call replaces it).
 *  NEXAR_ERR_INVALID_ARGUMENT for a NULL reply, or NULL data with bytes > 0. */
NEXAR_API nexar_result_t nexar_rpc_reply_set(nexar_rpc_reply_t reply, const void *data, size_t bytes);  /* copies */
/** Calls fn_id at rank target of comm with args (copied at once) and waits for its result:
 *  up to capacity bytes written to result, its size to *result_bytes (may be NULL).
 *  Unknown fn_id at the target: NEXAR_ERR_INVALID_ARGUMENT naming it. A result larger than
 *  capacity: NEXAR_ERR_INVALID_ARGUMENT with the size in *result_bytes (nothing written).
 *  target may be the caller itself. Many calls may be in flight from many threads; each
 *  gets its own reply. Also NEXAR_ERR_PEER_LOST, NEXAR_ERR_TIMEOUT, NEXAR_ERR_ABORTED. */
NEXAR_API nexar_result_t nexar_rpc_call(nexar_comm_t comm, int target, uint32_t fn_id, const void *args, size_t args_bytes, void *result, size_t capacity, size_t *result_bytes);
/** nexar_rpc_call that returns at once: nexar_wait / nexar_test on *req give the call's
 *  result; result and *result_bytes are written by then (keep them valid until). */
NEXAR_API nexar_result_t nexar_rpc_icall(nexar_comm_t comm, int target, uint32_t fn_id, const void *args, size_t args_bytes, void *result, size_t capacity, size_t *result_bytes, nexar_request_t *req);

/* ------------------------------------------------------------------------------------ */
/* Requests                                                                               */
/* ------------------------------------------------------------------------------------ */

/** Waits (up to the communicator's timeout) for req to complete, then frees it, whatever
 *  the result. Returns the operation's result; NEXAR_ERR_INVALID_ARGUMENT for NULL. After a
 *  failure (of this, nexar_test or nexar_waitall) the detail is in both
 *  nexar_comm_last_error(the request's communicator) and nexar_comm_last_error(NULL). */
NEXAR_API nexar_result_t nexar_wait(nexar_request_t req);
/** Never blocks. NEXAR_SUCCESS and *done = 1: complete and freed. NEXAR_IN_PROGRESS and
 *  *done = 0: still running. An error (and *done = 1): the operation failed; req freed. */
NEXAR_API nexar_result_t nexar_test(nexar_request_t req, int *done);
/** Waits for every request of reqs[0..n) and frees them all, even after a failure.
 *  Returns NEXAR_SUCCESS, or the first error in array order. NULL entries are skipped. */
NEXAR_API nexar_result_t nexar_waitall(size_t n, nexar_request_t *reqs);

/* ------------------------------------------------------------------------------------ */
/* Device buffers (CUDA)                                                                  */
/* ------------------------------------------------------------------------------------ */
/*
 * Every call above accepts CUDA device pointers when CUDA support is available at run time:
 * libnexar links no CUDA; it loads its plugin, libnexar-cuda.so (next to libnexar.so, or
 * NEXAR_CUDA_PLUGIN), the first time a program passes a device pointer or calls one of the
 * functions below. Without it such calls return NEXAR_ERR_UNSUPPORTED, naming why. Each rank
 * uses the GPU the program made current, else (unless CUDA_VISIBLE_DEVICES is set) the one
 * at its local rank. With no stream set, calls on device buffers are complete on return.
 * With a stream set, they are ordered on that stream and nexar_comm_sync waits for all of
 * them. Collectives on device buffers run over NCCL inside a host and nexar between hosts
 * (NEXAR_NCCL=0: staged through host memory); then every rank passes device buffers.
 * Streams and events are cudaStream_t and cudaEvent_t values.
 */

/** Orders comm's later device work on cuda_stream (NULL: none, calls complete on return). Local. */
NEXAR_API nexar_result_t nexar_comm_set_cuda_stream(nexar_comm_t comm, void *cuda_stream);
/** Waits until every device operation issued on comm is complete. Local. */
NEXAR_API nexar_result_t nexar_comm_sync(nexar_comm_t comm);
/** Creates a CUDA event without timing (for ordering only); freed by nexar_cuda_event_destroy. */
NEXAR_API nexar_result_t nexar_cuda_event_create(nexar_comm_t comm, void **cuda_event);
NEXAR_API nexar_result_t nexar_cuda_event_destroy(nexar_comm_t comm, void *cuda_event);
/** Records cuda_event on cuda_stream; NULL: on comm's stream (the one set, else comm's own). */
NEXAR_API nexar_result_t nexar_cuda_event_record(nexar_comm_t comm, void *cuda_event, void *cuda_stream);
/** Makes cuda_stream (NULL: comm's stream) wait for cuda_event, without blocking the host. */
NEXAR_API nexar_result_t nexar_cuda_stream_wait_event(nexar_comm_t comm, void *cuda_stream, void *cuda_event);

#ifdef __cplusplus
}
#endif

#endif /* NEXAR_NEXAR_H */
