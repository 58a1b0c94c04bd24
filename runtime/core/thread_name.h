// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// Names the calling thread as /proc/<pid>/task/<tid>/comm, top, perf and gdb show it. A
// thread otherwise carries its creator's name (the application's main thread, or torch's
// "nexar-starter" when the first non-blocking collective starts from there), which hides
// which of libnexar's threads is which. Every thread libnexar starts is named "nexar-" and
// what it does, at most 15 characters (the kernel cuts the rest): by itself first thing,
// or, for a transport's progress thread, by whoever creates the transport for a role (a
// task it posts there).
#pragma once

#include <sys/prctl.h>

namespace nexar {

inline void name_this_thread(const char* name) { ::prctl(PR_SET_NAME, name, 0, 0, 0); }

}  // namespace nexar
