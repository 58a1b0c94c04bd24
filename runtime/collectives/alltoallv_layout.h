// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// What the two alltoallv algorithms share: where the data to send is read from (an
// in-place call's is copied aside first, since blocks arriving may overwrite blocks not
// yet sent), the own block's copy, and the one tag both use. The two are wire-compatible
// (one message per ordered pair with data, on the same tag, none for a zero count;
// AlgoDesc::wire), so ranks may choose differently between them by their own bytes.
#pragma once

#include "collectives/coll_util.h"
#include "collectives/collective.h"
#include "core/dtype.h"

namespace nexar::coll {

inline constexpr int kTagAlltoallv = 131;

class AlltoallvLayout {
 public:
  // Stages an in-place call's send data; then copies this rank's own block (unless
  // own_block is false: copy_own() later).
  Status prepare(const CollArgs& a, int rank, bool own_block = true) {
    es_ = dtype_size(a.dtype);
    send_ = static_cast<const unsigned char*>(a.sendbuf);
    recv_ = static_cast<unsigned char*>(a.recvbuf);
    if (a.sendbuf != nullptr && a.sendbuf == a.recvbuf) {
      size_t end = 0;  // elements up to the end of the last block sent
      for (int j = 0; j < size_; ++j)
        if (a.sendcounts[j] && a.sdispls[j] + a.sendcounts[j] > end) end = a.sdispls[j] + a.sendcounts[j];
      NX_RETURN_IF_ERROR(aside_.alloc(end * es_, "in-place alltoallv"));
      copy_elems(aside_.data(), a.sendbuf, end, es_);
      send_ = aside_.data();
    }
    if (own_block) copy_own(a, rank);
    return Status::Ok();
  }
  void copy_own(const CollArgs& a, int rank) {
    copy_elems(recv_ + a.rdispls[rank] * es_, send_ + a.sdispls[rank] * es_, a.recvcounts[rank], es_);
  }
  explicit AlltoallvLayout(int size) : size_(size) {}
  const unsigned char* send_base() const { return send_; }  // where sdispls count from
  const unsigned char* send_block(const CollArgs& a, int j) const { return send_ + a.sdispls[j] * es_; }
  unsigned char* recv_block(const CollArgs& a, int j) const { return recv_ + a.rdispls[j] * es_; }
  size_t send_bytes(const CollArgs& a, int j) const { return a.sendcounts[j] * es_; }
  size_t recv_bytes(const CollArgs& a, int j) const { return a.recvcounts[j] * es_; }

 private:
  int size_;
  size_t es_ = 1;
  const unsigned char* send_ = nullptr;
  unsigned char* recv_ = nullptr;
  TempBuf aside_;
};

}  // namespace nexar::coll
