// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// nexar.Comm's point to point: Send / Isend, Recv / Irecv (with the message's source, tag and
// size), Sendrecv, Probe / Iprobe.
#include <string>

#include "args.h"
#include "call.h"
#include "collectives.h"
#include "comm.h"
#include "errors.h"

namespace nexar_py {
namespace {

// name / what: the method and the argument its refusals name.
Call send_of(const Comm& comm, const char* name, const char* what, const py::object& buf, int dest, int tag) {
  Call c = call_on(comm, name);
  View v = view_of(buf, Access::READ, name, what);
  const size_t n = v.count;
  const nexar_dtype_t dt = v.dtype;
  set_calls(c, nexar_send, nexar_isend, static_cast<const void*>(c.hold(std::move(v))), n, dt, dest, tag);
  return c;
}

Call recv_of(const Comm& comm, const char* name, const char* what, const py::object& buf, int source, int tag) {
  Call c = call_on(comm, name);
  View v = view_of(buf, Access::WRITE, name, what);
  const size_t n = v.count;
  const nexar_dtype_t dt = v.dtype;
  void* p = c.hold(std::move(v));
  nexar_comm_t h = c.comm;
  c.receive = true;
  c.now = [=](nexar_status_t* st) { return nexar_recv_status(p, n, dt, source, tag, h, st); };
  c.start = [=](nexar_request_t* r) { return nexar_irecv(p, n, dt, source, tag, h, r); };
  return c;
}

Call send(const Comm& comm, const py::object& buf, int dest, int tag) { return send_of(comm, "Send", "buf", buf, dest, tag); }
Call recv(const Comm& comm, const py::object& buf, int source, int tag) {
  return recv_of(comm, "Recv", "buf", buf, source, tag);
}

// Both halves at once, so that two ranks sending to each other do not wait for each other
// (MPI_Sendrecv): the send is started, the receive runs, then the send is waited for.
py::object sendrecv(const Comm& comm, const py::object& sendbuf, int dest, int sendtag, const py::object& recvbuf,
                    int source, int recvtag) {
  Call s = send_of(comm, "Sendrecv", "sendbuf", sendbuf, dest, sendtag);
  Call r = recv_of(comm, "Sendrecv", "recvbuf", recvbuf, source, recvtag);
  nexar_request_t sreq = nullptr;
  nexar_status_t st{-1, -1, 0};
  nexar_result_t started, received = NEXAR_SUCCESS, sent;
  {
    py::gil_scoped_release nogil;
    started = s.start(&sreq);
    if (started == NEXAR_SUCCESS) received = r.now(&st);
    sent = started == NEXAR_SUCCESS ? nexar_wait(sreq) : started;
  }
  check(received, "Sendrecv (its receive)", r.comm);
  check(sent, "Sendrecv (its send)", s.comm);
  return completion(r, st);
}

py::tuple status_tuple(const nexar_status_t& st) { return py::make_tuple(st.source, st.tag, st.bytes); }

py::tuple probe(const Comm& comm, int source, int tag) {
  nexar_comm_t h = comm.handle("Probe");
  nexar_status_t st{};
  nexar_result_t r;
  {
    py::gil_scoped_release nogil;
    r = nexar_probe(source, tag, h, &st);
  }
  check(r, "Probe", h);
  return status_tuple(st);
}

py::object iprobe(const Comm& comm, int source, int tag) {
  nexar_comm_t h = comm.handle("Iprobe");
  nexar_status_t st{};
  int flag = 0;
  check(nexar_iprobe(source, tag, h, &flag, &st), "Iprobe", h);
  if (!flag) return py::none();
  return status_tuple(st);
}

}  // namespace

void define_p2p(py::class_<Comm>& cls) {
  def_both(cls, "Send", &send, py::arg("buf"), py::arg("dest"), py::arg("tag") = 0);
  def_both(cls, "Recv", &recv, py::arg("buf"), py::arg("source") = NEXAR_ANY_SOURCE, py::arg("tag") = NEXAR_ANY_TAG,
           "Receives into buf; returns (source, tag, bytes) of the message (Irecv: its Wait does)");
  cls.def("Sendrecv", &sendrecv, py::arg("sendbuf"), py::arg("dest"), py::arg("sendtag") = 0,
          py::arg("recvbuf") = py::none(), py::arg("source") = NEXAR_ANY_SOURCE, py::arg("recvtag") = NEXAR_ANY_TAG,
          "Sends sendbuf to dest while receiving into recvbuf; returns (source, tag, bytes) of the message received");
  cls.def("Probe", &probe, py::arg("source") = NEXAR_ANY_SOURCE, py::arg("tag") = NEXAR_ANY_TAG,
          "Waits for a matching message without receiving it; returns its (source, tag, bytes)");
  cls.def("Iprobe", &iprobe, py::arg("source") = NEXAR_ANY_SOURCE, py::arg("tag") = NEXAR_ANY_TAG,
          "(source, tag, bytes) of a matching message that is there, else None; never blocks");
}

}  // namespace nexar_py
