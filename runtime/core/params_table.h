// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Every NEXAR_* environment parameter, defined once: X(name, type, default, doc).
// Types: INT, DOUBLE, STRING, BOOL. Read once (params.cc), logged under ENV when set,
// listed by nexar-info. Add a parameter here, never getenv("NEXAR_...") elsewhere.
// clang-format off
#define NEXAR_PARAMS(X) \
  X(NEXAR_DEBUG,            STRING, "",      "Log level: NONE, WARN, INFO or TRACE (default: WARN)") \
  X(NEXAR_DEBUG_SUBSYS,     STRING, "ALL",   "Comma list of subsystems to log (INIT,ENV,NET,TLS,P2P,COLL,BOOT,LAUNCH,ALL); ^ negates") \
  X(NEXAR_DEBUG_FILE,       STRING, "",      "Log to this file instead of stderr; %h host, %p pid, %r rank") \
  X(NEXAR_TIMEOUT,          DOUBLE, "300",   "Seconds any blocking operation may take before NEXAR_ERR_TIMEOUT") \
  X(NEXAR_CONNECT_TIMEOUT,  DOUBLE, "60",    "Seconds to form the mesh and reach the rendezvous at init") \
  X(NEXAR_PEER_TIMEOUT,     DOUBLE, "5",     "Seconds of silence after which a peer is declared lost") \
  X(NEXAR_KEEPALIVE,        DOUBLE, "1",     "Seconds between keep-alive probes on an idle connection") \
  X(NEXAR_UNEXPECTED_LIMIT, INT,    "268435456", "Bytes of unexpected (not yet received) messages buffered per process before back-pressure") \
  X(NEXAR_EAGER_LIMIT,      INT,    "65536", "Messages up to this many bytes travel inline on a peer's control stream") \
  X(NEXAR_ADDR,             STRING, "",      "IP address to bind and advertise (default: 127.0.0.1 for one host)") \
  X(NEXAR_IFACE,            STRING, "",      "Network interface whose address a rank binds and advertises (nexrun --iface)") \
  X(NEXAR_ADDR_CIDR,        STRING, "",      "Bind and advertise the first address inside this range, e.g. 10.1.0.0/16 (nexrun --addr)") \
  X(NEXAR_PORT_RANGE,       STRING, "",      "UDP ports LO-HI every QUIC endpoint binds from, for firewalls (default: ephemeral)") \
  X(NEXAR_REPORT_TIMEOUT,   DOUBLE, "3",     "Seconds nexrun waits for every rank's record for a hang report; a rank that times out or loses a peer waits up to this (+1 s) for the report before it returns the error (0: no reports)") \
  X(NEXAR_AGENT_TIMEOUT,    DOUBLE, "10",    "Seconds nexrun and its launch agents wait for each other (start check, heartbeats)") \
  X(NEXAR_SLURM_DIR,        STRING, "",      "Shared directory for srun direct launch (default: $HOME/.nexar): job secrets and rendezvous") \
  X(NEXAR_QUIC_PACKET_SIZE, INT,    "0",     "UDP payload QUIC sends; 0: the route's MTU and path-MTU discovery decide (65000 on loopback, up to 1472 on a 1500-byte Ethernet link); never more than the route's MTU (DF set, no IP fragments)") \
  X(NEXAR_QUIC_ACK_THRESH,  INT,    "8",     "Packets received before an ACK is sent") \
  X(NEXAR_QUIC_ACK_HOLD_US, INT,   "200",   "How long a QUIC ACK of small packets waits for the connection's next packet to ride on before it is sent alone (at most 5000; 0: at ngtcp2's delay, smoothed RTT / 8)") \
  X(NEXAR_QUIC_CC,          STRING, "cubic", "QUIC congestion control: cubic, bbr, bbr2 or reno; another value fails init") \
  X(NEXAR_HOST_ID,          STRING, "",      "Override of this host's identity (ranks with equal ids share a host)") \
  X(NEXAR_CONNECT,          STRING, "eager", "eager (every QUIC connection opened at init; the default: lazy makes first calls wait for handshakes) or lazy (a peer's QUIC connection opened on the first send to it or receive from it, for worlds too large for N^2 connections; QUIC only; shared memory on a host stays eager; docs/scaling.md)") \
  X(NEXAR_TOPOLOGY,         STRING, "full",  "Which ranks hold direct connections between hosts: full (every pair), kregular:K (each rank K neighbours on a ring with chords) or hypercube; messages to others are relayed through neighbours; the same on every rank; QUIC only (docs/scaling.md)") \
  X(NEXAR_RELAY_BUDGET,     INT,    "4194304", "Sparse NEXAR_TOPOLOGY: credit in bytes each neighbour grants per hop class for relayed fragments (at least 1024); beyond it fragments wait in order until the neighbour passes them on (docs/architecture.md)") \
  X(NEXAR_TRANSPORT,        STRING, "auto",  "auto (shared memory on a host, QUIC between hosts), quic or tcp (that transport for every peer; tcp is unencrypted)") \
  X(NEXAR_SHM_EAGER,        INT,    "65536", "Shared memory: messages up to this many bytes are copied through the ring; larger ones are read by the receiver (CMA)") \
  X(NEXAR_SHM_RING_BYTES,   INT,    "524288", "Shared memory: bytes of each ring (one per pair and direction; a power of two; less with many ranks per host)") \
  X(NEXAR_SHM_CMA,          BOOL,   "1",     "Shared memory: large messages read from the sender's memory (process_vm_readv) where permitted; 0 copies them through the ring") \
  X(NEXAR_SHM_SPIN_US,      DOUBLE, "50",    "Microseconds a waiting thread polls (yielding when ranks outnumber cores) before it sleeps") \
  X(NEXAR_SHM_COLL,         BOOL,   "1",     "Shared memory: collectives of communicators whose ranks all share a host may use slots in the shared segments (flat small-message and direct-read algorithms)") \
  X(NEXAR_SHM_COLL_INLINE,  INT,    "4096",  "Shared memory: largest collective payload (bytes) carried inline in a rank's shared slot") \
  X(NEXAR_SHM_STAGE_MAX,    INT,    "67108864", "Shared memory: largest allreduce (bytes) reduced through a shared staging segment (shm_stage; the segment grows to the largest payload seen)") \
  X(NEXAR_SHM_STAGE_BYTES,  INT,    "67108864", "Shared memory: largest staging segment of allreduce shm_stage; inputs are copied into it (no CMA) while (ranks + 1) * payload fits") \
  X(NEXAR_SHM_PUSH_MAX,     INT,    "16777216", "Shared memory: largest data (bytes) a rank copies into its shared segment for broadcast, allgather and alltoall shm_push (the root's buffer, a rank's block, a rank's whole sendbuf); above it shm_push does not apply") \
  X(NEXAR_SHM_ALLTOALLV_PUSH, INT,  "1048576", "Shared memory: alltoallv shm_direct copies a rank's send data (up to this many bytes) into a shared segment its readers map, and the rank returns without waiting for them (one slot round); larger sends are read from the user's buffer (CMA, a second round). 0: never") \
  X(NEXAR_SHM_STAGE_CHUNK,  INT,    "0",     "Shared memory: bytes of a work chunk in allreduce shm_stage (0: about two per rank, 16-256 KiB)") \
  X(NEXAR_QUIC_SPIN_US,     DOUBLE, "200",   "QUIC: microseconds a waiting thread polls the UDP socket itself before it sleeps (0: leave everything to the progress thread)") \
  X(NEXAR_TCP_CONGESTION,   STRING, "cubic,reno", "TCP: the congestion control of the data connections, the first of this comma-separated list the kernel takes (names in net.ipv4.tcp_available_congestion_control; an unprivileged rank gets only those in tcp_allowed_congestion_control, reno always; empty: the host's default; none taken: nexar_init fails naming it). Why not BBR: docs/tcp.md") \
  X(NEXAR_TCP_SPIN_US,      DOUBLE, "200",   "TCP: microseconds a waiting thread polls the TCP sockets itself before it sleeps (0: leave everything to the TCP thread)") \
  X(NEXAR_WAIT_HOME,        BOOL,   "1",     "An unbound rank (its mask holds several cores) that polls a QUIC or TCP socket while it waits, with no more ranks on its host than cores: its waiting threads and its transport thread, found on another core than the rank's own (one per rank), return there, at most every 2 ms; with more ranks on its host than cores, its threads waiting on shared memory return to the rank's core (its local index modulo the cores) likewise (its mask is kept; 0: the scheduler alone places it)") \
  X(NEXAR_RANK,             INT,    "-1",    "Global rank (set by nexrun)") \
  X(NEXAR_WORLD_SIZE,       INT,    "0",     "World size (set by nexrun)") \
  X(NEXAR_LOCAL_RANK,       INT,    "-1",    "Rank on this host (set by nexrun)") \
  X(NEXAR_LOCAL_SIZE,       INT,    "0",     "Ranks on this host (set by nexrun)") \
  X(NEXAR_NODE_RANK,        INT,    "0",     "Host index (set by nexrun)") \
  X(NEXAR_NUM_NODES,        INT,    "1",     "Host count (set by nexrun)") \
  X(NEXAR_JOB_ID,           STRING, "",      "Unique job id (set by nexrun)") \
  X(NEXAR_RENDEZVOUS,       STRING, "",      "host:port of the job's rendezvous service (set by nexrun)") \
  X(NEXAR_RESTART_COUNT,    INT,    "0",     "0 in a rank's first process; k in its k-th replacement (nexrun --respawn) or the job's k-th gang restart (--max-restarts) (set by nexrun)") \
  X(NEXAR_TRACE_BUFFER,     INT,    "2000",  "Flight recorder: calls kept per communicator and kind (collectives, point to point); 0 turns it off") \
  X(NEXAR_TRACE,            STRING, "",      "Directory where each rank writes a Chrome/Perfetto trace of its calls (nexar-trace-rank<R>.json) when its world ends") \
  X(NEXAR_ALGO,             STRING, "",      "Force collective algorithms: collective:algorithm list, e.g. allreduce:ring,broadcast:binomial (nexar-info lists them)") \
  X(NEXAR_COST_LATENCY_US,  DOUBLE, "60",    "Cost model: microseconds per message over the network (collective algorithm choice; measured on QUIC loopback)") \
  X(NEXAR_COST_BANDWIDTH_GBPS, DOUBLE, "1.9", "Cost model: network bandwidth per rank, GB/s (measured on QUIC loopback)") \
  X(NEXAR_COST_SHM_LATENCY_US, DOUBLE, "2",  "Cost model: microseconds per message over shared memory") \
  X(NEXAR_COST_SHM_BANDWIDTH_GBPS, DOUBLE, "5", "Cost model: shared-memory bandwidth per rank, GB/s") \
  X(NEXAR_COST_CMA_FACTOR,  DOUBLE, "5",     "Cost model: a byte read from another process (CMA, the shared-memory bandwidth) costs this many bytes memcpy'd within a shared segment") \
  X(NEXAR_COST_REDUCE_GBPS, DOUBLE, "4",     "Cost model: local reduction rate, GB/s") \
  X(NEXAR_COST_CACHE_BYTES, INT,    "0",     "Cost model: bytes of the largest CPU cache the ranks of a host share; a copy through shared memory whose call touches more runs at memory speed (0: this CPU's largest, from sysfs)") \
  X(NEXAR_COST_PRIVATE_CACHE_BYTES, INT, "0", "Cost model: bytes of one core's own cache; what a rank wrote stays there, and another core reads it at the cost of a CMA read, while what the rank touches in the call fits (0: this CPU's, from sysfs)") \
  X(NEXAR_RING_SEGMENT_BYTES, INT,  "1048576", "Segment size of the pipelined ring allreduce") \
  X(NEXAR_SCRATCH_KEEP,     INT,    "67108864", "Bytes of freed memory kept for reuse, instead of freed and faulted in again (10-30 us a page on some VMs): collective scratch per thread, and blocks of unexpected messages per process (at most NEXAR_UNEXPECTED_LIMIT); 0: keep none") \
  X(NEXAR_RING_PIPELINE_DEPTH, INT, "4",     "Segments the pipelined ring keeps in flight") \
  X(NEXAR_BUCKET_BYTES,     INT,    "16777216", "Staging chunk of allreduce_bucketed (bytes)") \
  X(NEXAR_NCCL,             BOOL,   "1",     "CUDA: 0 disables the NCCL path (device buffers are then staged through host memory)") \
  X(NEXAR_CUDA_PLUGIN,      STRING, "",      "CUDA: path of libnexar-cuda.so (default: next to libnexar.so)") \
  X(NEXAR_CUDA_CHUNK_BYTES, INT,    "4194304", "CUDA: chunk of the pipelined device<->host staging copies") \
  X(NEXAR_NCCL_SMALL_BYTES, INT,    "1048576", "CUDA: hierarchical allreduce up to this many bytes reduces to one lead rank per host") \
  X(NEXAR_CREDENTIALS,      STRING, "",      "Path of this rank's credential file, mode 0600 (set by nexrun)") \
  X(NEXAR_FAULT_DATAGRAMS,  STRING, "",      "Testing: received QUIC datagrams dropped, duplicated, corrupted or delayed (delivered after the next one) at random, e.g. drop=0.05,dup=0.02,corrupt=0.01,delay=0.05,seed=7 (empty: off)") \
  X(NEXAR_FAULT_KILL,       STRING, "",      "Testing: RANK:POINT[:N] makes world rank RANK kill itself (SIGKILL) the Nth time it reaches POINT: collective (a wait inside a collective), agreement, rendezvous (empty: off)") \
  X(NEXAR_FAULT_STOP,       STRING, "",      "Testing: RANK:POINT[:N] makes rank RANK stop itself (SIGSTOP) the Nth time it reaches POINT: uid_joined (nexar_init_rank counted itself joined, before waiting for the others), alltoallv_read (alltoallv shm_direct, after the arrival round, before reading) (empty: off)") \
  X(NEXAR_FAULT_FAIL,       STRING, "",      "Testing: RANK:POINT[:N] makes world rank RANK fail the Nth time it reaches POINT: shm_map (mapping a peer's shared memory fails with ENOMEM), shm_push (no segment for a rank's pushed data: its readers read its memory by CMA) (empty: off)")
// clang-format on
