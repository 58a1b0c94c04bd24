// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// NEXAR_TRACE: a job that fails still leaves its trace files. Besides the world's
// destruction and exit (trace_log.cc), the file is written when the process is ended by a
// signal: SIGTERM (nexrun's teardown of the ranks), SIGINT, and the fatal ones (SIGABRT
// from abort(), SIGSEGV, SIGBUS, SIGFPE, SIGILL). A handler cannot write JSON (that
// allocates), so it wakes a thread kept for this, waits for it (at most kFlushWaitMs), then
// lets the signal take its default course. Only signals still at their default
// disposition are taken: a program's own handler is left alone.
#pragma once

namespace nexar::trace {

// Installs the handlers and starts the writer thread, once per process (later calls do
// nothing). Called when a recorder that traces is made.
void install_trace_flush();

constexpr int kFlushWaitMs = 2000;

}  // namespace nexar::trace
