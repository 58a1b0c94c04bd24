// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// This process's flight records, for hang reports and /status (docs/observability.md).
#pragma once

#include <string>

namespace nexar::trace {

// This process's records as one JSON object. Thread-safe, callable from any thread (also a
// library thread while user threads are inside or outside nexar calls); never blocks on a
// call in progress (it copies each entry without locks); bounded by NEXAR_TRACE_BUFFER
// entries per communicator and kind:
// {"rank":R,"world_size":N,"host":"...","pid":P,
//  "current":"<what this rank's user thread is doing: 'allreduce #7 on comm 0x2a' or 'outside nexar'>",
//  "comms":[{"ctx":C,"rank":r,"size":n,"members":[world ranks...],
//            "calls":[{"seq":S,"kind":"allreduce","count":..,"dtype":"float32","op":"sum","root":-1,
//                      "peer":-1,"tag":-1,"bytes":..,"algo":"ring","state":"queued|running|waiting|done|failed",
//                      "waiting_on":[comm ranks...],"t_start_us":..,"t_end_us":..,"error":"..."}]}]}
// t_*_us: microseconds since the Unix epoch (0: not yet). "seq" is the communicator's
// collective sequence number (the same on every rank for the same collective); send and
// recv calls are numbered per communicator and kind of their own. Fields are only ever
// added to this format.
std::string snapshot_json();

// Who this process is (nexar_init): rank and world size as the snapshot names them.
void set_process(int rank, int world_size);

}  // namespace nexar::trace
