// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// One method of nexar.Comm written once for its blocking and its non-blocking form
// (mpi4py's Allreduce and Iallreduce): the method's spec checks its arguments (raising
// before anything is sent) and returns a Call, which either runs now without the GIL or
// starts and becomes a nexar.Request that holds the buffers until the operation completes.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "buffers.h"
#include "comm.h"
#include "nexar/nexar.h"

namespace nexar_py {

namespace py = pybind11;

struct Call {
  const char* name = "";
  nexar_comm_t comm = nullptr;
  std::vector<View> buffers;                              // held until the operation completes
  std::vector<std::vector<size_t>> arrays;                // counts and displacements the functions read
  std::function<nexar_result_t(nexar_status_t*)> now;     // the blocking call (status: a receive's)
  std::function<nexar_result_t(nexar_request_t*)> start;  // the non-blocking one
  bool receive = false;  // completion tells the message's (source, tag, bytes)

  // Keeps v until the operation completes; returns its address (stable: a View's data is
  // the exporter's).
  void* hold(View v) {
    buffers.push_back(std::move(v));
    return buffers.back().data;
  }
  // Keeps a copy of a; returns its elements' address (stable while Call lives).
  const size_t* hold(std::vector<size_t> a) {
    arrays.push_back(std::move(a));
    return arrays.back().data();
  }
};

// A Call of method `name` on c (raises when c was freed).
Call call_on(const Comm& c, const char* name);

// Sets c's blocking form to fn(a..., comm) and its non-blocking one to ifn(a..., comm, req):
// libnexar's pairs (nexar_allreduce / nexar_iallreduce) take the same arguments.
template <typename F, typename IF, typename... A>
void set_calls(Call& c, F fn, IF ifn, A... a) {
  nexar_comm_t h = c.comm;
  c.now = [=](nexar_status_t*) { return fn(a..., h); };
  c.start = [=](nexar_request_t* r) { return ifn(a..., h, r); };
}

// The result a completed call gives Python: (source, tag, bytes) for a receive, else None.
py::object completion(const Call& c, const nexar_status_t& st);

// Runs c now, without the GIL; raises nexar.Error if it failed.
py::object run_now(Call c);

// nexar.Request: a started Call. Wait() / Test() / Request.Waitall(list) as mpi4py's.
class Request {
 public:
  explicit Request(Call c);  // starts c (raises nexar.Error when it cannot start)
  ~Request();                // one never waited for is waited for here: its buffers stay until then
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  py::object wait();  // completion(); raises nexar.Error. A completed request returns None at once.
  bool test();        // true once complete (a receive's status only through Wait); raises on failure
  bool pending() const { return req_ != nullptr; }

 private:
  Call call_;
  nexar_request_t req_ = nullptr;
};

// Defines `name` (blocking) and its non-blocking form "I" + name with a lower-case first
// letter (Allreduce, Iallreduce) on cls, both from spec; extra: py::arg(...)s and a doc.
template <typename... A, typename... Extra>
void def_both(py::class_<Comm>& cls, const char* name, Call (*spec)(const Comm&, A...), const Extra&... extra) {
  cls.def(name, [spec](const Comm& c, A... a) { return run_now(spec(c, a...)); }, extra...);
  std::string iname = std::string("I") + static_cast<char>(name[0] - 'A' + 'a') + (name + 1);
  cls.def(iname.c_str(), [spec](const Comm& c, A... a) { return std::make_unique<Request>(spec(c, a...)); },
          extra...);
}

// Adds class Request to m.
void define_request(py::module_& m);

}  // namespace nexar_py
