// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "collectives/coll_context.h"

namespace nexar::coll {

Status CollContext::send(int peer, int tag, const void* buf, size_t bytes) {
  Pending p;
  NX_RETURN_IF_ERROR(isend(peer, tag, buf, bytes, &p));
  return wait(&p);
}

Status CollContext::recv(int peer, int tag, void* buf, size_t bytes) {
  Pending p;
  NX_RETURN_IF_ERROR(irecv(peer, tag, buf, bytes, &p));
  return wait(&p);
}

Status CollContext::sendrecv(int dst, int stag, const void* sbuf, size_t sbytes, int src, int rtag, void* rbuf,
                             size_t rbytes) {
  Pending r, s;
  NX_RETURN_IF_ERROR(irecv(src, rtag, rbuf, rbytes, &r));
  Status st = isend(dst, stag, sbuf, sbytes, &s);
  Status rs = wait(&r);  // always reap the receive so no request leaks
  if (!st.ok()) return st;
  Status ss = wait(&s);
  return rs.ok() ? ss : rs;
}

}  // namespace nexar::coll
