// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Shared by the scenarios of coll_e2e_probe, the rank program of the end-to-end
// collective tests (started by nexrun; see coll_e2e_test.cc). A failed check prints the
// rank, the place, what was wrong and the library's last error, then exits 1.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "e2e_case.h"
#include "nexar/nexar.h"

namespace e2e {

inline int g_rank = -1, g_size = 0;
inline nexar_comm_t g_world = nullptr;

[[noreturn]] void fail_at(const char* file, int line, const std::string& what);

// Runs c (blocking, or non-blocking then nexar_wait) and checks the result on this rank.
void run_checked(const Case& c, bool nonblocking);
// True when every rank passed the same value (checked with an allgather).
bool same_on_all_ranks(uint64_t value);

// Scenarios; each prints "rank R: NAME ok" when it passed.
void scenario_sweep();        // every collective x counts x roots x in place
void scenario_dtypes();       // allreduce: every dtype x op, exact; rounding on 2 ranks
void scenario_identical();    // bit-identical results on every rank with rounding data
void scenario_large();        // above 8 MiB, not a multiple of the ring segment
void scenario_reduce_sizes(); // reduce at sizes around where its blocks are cut, every root, in place
void scenario_nonblocking();  // several outstanding, mixed with blocking, complete in order
void scenario_invalid();      // local argument errors leave the communicator usable
void scenario_algo_error();   // NEXAR_ALGO names an algorithm that cannot run: every rank fails alike
void scenario_one_rank();     // communicators of one rank (split, dup): the above on each, then revoked and aborted
void scenario_passed_call();  // each argument made wrong right after a call that passed
void scenario_bitwise();      // BAND / BOR / BXOR: exact on integers, refused on floats (e2e_bitwise.cc)
// The same on communicator c (e2e_passed_call.cc); every rank of c calls it.
void refused_after_passing(nexar_comm_t c);
// Every blocking collective of a fixed count on c, count int32 elements (at most 4 a rank,
// on at most 2 ranks), on the same buffers every time (e2e_one_rank.cc); what each returned.
std::vector<nexar_result_t> every_call(nexar_comm_t c, size_t count);
// Each of every_call's calls and a non-blocking allreduce on c return want, the message
// names word, and no output is written.
void every_call_fails(nexar_comm_t c, nexar_result_t want, const char* word, size_t count = 4);
// Ranks disagree (what: count, dtype, op, root, kind, order): every rank gets MISMATCH.
void scenario_mismatch(const std::string& what);

}  // namespace e2e

#define E2E_CHECK(cond, what)                                                             \
  do {                                                                                    \
    if (!(cond)) ::e2e::fail_at(__FILE__, __LINE__, std::string(#cond) + ": " + (what)); \
  } while (0)

#define E2E_OK(call)                                                                            \
  do {                                                                                          \
    const nexar_result_t e2e_r_ = (call);                                                       \
    if (e2e_r_ != NEXAR_SUCCESS)                                                                \
      ::e2e::fail_at(__FILE__, __LINE__, std::string(#call) + " returned " + nexar_result_string(e2e_r_)); \
  } while (0)
