// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include <cstdio>
#include <string>

#include "call.h"
#include "errors.h"

namespace nexar_py {

py::object completion(const Call& c, const nexar_status_t& st) {
  if (!c.receive) return py::none();
  return py::make_tuple(st.source, st.tag, st.bytes);
}

py::object run_now(Call c) {
  nexar_status_t st{-1, -1, 0};
  nexar_result_t r;
  {
    py::gil_scoped_release nogil;
    r = c.now(&st);
  }
  check(r, c.name, c.comm);
  return completion(c, st);
}

Request::Request(Call c) : call_(std::move(c)) {
  nexar_result_t r;
  {
    py::gil_scoped_release nogil;
    r = call_.start(&req_);
  }
  if (r != NEXAR_SUCCESS) req_ = nullptr;
  check(r, call_.name, call_.comm);
}

Request::~Request() {
  if (!req_) return;
  // Dropped while running: the operation still reads or writes the buffers held here, so
  // they go only once it is over (bounded by the communicator's timeout). The GIL stays:
  // this may run while the interpreter ends.
  std::fprintf(stderr, "nexar: a Request of %s was dropped before it completed; waiting for it\n", call_.name);
  const nexar_result_t r = nexar_wait(req_);
  if (r != NEXAR_SUCCESS) std::fprintf(stderr, "nexar: the dropped %s failed: %s\n", call_.name, nexar_result_string(r));
}

py::object Request::wait() {
  nexar_status_t st{-1, -1, 0};
  if (!req_) return py::none();
  nexar_result_t r;
  {
    py::gil_scoped_release nogil;
    r = nexar_wait_status(req_, &st);
  }
  req_ = nullptr;  // freed by the wait, whatever its result
  check(r, call_.name, call_.comm);
  return completion(call_, st);
}

bool Request::test() {
  if (!req_) return true;
  int done = 0;
  const nexar_result_t r = nexar_test(req_, &done);
  if (r == NEXAR_IN_PROGRESS) return false;
  req_ = nullptr;  // complete or failed: freed
  check(r, call_.name, call_.comm);
  return true;
}

void define_request(py::module_& m) {
  py::class_<Request>(m, "Request", "A started non-blocking operation (Isend, Iallreduce...)")
      .def("Wait", &Request::wait,
           "Waits for completion; returns (source, tag, bytes) for a receive, else None. Raises nexar.Error.")
      .def("Test", &Request::test, "True once complete (never blocks); raises nexar.Error if it failed")
      .def_property_readonly("pending", &Request::pending)
      .def_static(
          "Waitall",
          [](const py::list& requests) {
            // Every request is waited for even after one failed; the first failure is raised.
            for (const py::handle& h : requests)
              if (!py::isinstance<Request>(h)) {
                PyErr_SetString(PyExc_TypeError, ("Waitall: " + std::string(py::str(py::type::of(h))) +
                                                  " in the list is not a nexar.Request").c_str());
                throw py::error_already_set();
              }
            py::list out;
            py::object first_error;
            for (const py::handle& h : requests) {
              try {
                out.append(h.cast<Request&>().wait());
              } catch (py::error_already_set& e) {
                out.append(py::none());
                if (!first_error) first_error = py::reinterpret_borrow<py::object>(e.value());
              }
            }
            if (first_error) {
              PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(first_error.ptr())), first_error.ptr());
              throw py::error_already_set();
            }
            return out;
          },
          py::arg("requests"), "Waits for each request in order; returns their Wait() results");
}

}  // namespace nexar_py
