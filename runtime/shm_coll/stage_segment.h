// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A staging segment: shared memory that every member of a slot collective may write, for
// the algorithms that need more than the owner-written slots (allreduce shm_stage). One
// member (the owner, comm rank 0) creates an anonymous memfd (mode 0600, no name in any
// file system), maps it and keeps the descriptor; it publishes a StageRef {pid, fd, bytes,
// token} in its slot; the others open /proc/<pid>/fd/<fd> (the same ptrace check as CMA,
// which these algorithms need anyway), map it and close their descriptor. The memory lives
// until the last mapping goes. The token (random, also in the segment's header) tells a
// mapping of a later segment that reused the descriptor number from a stale one.
// Inline like cma.h: the collectives layer uses it without linking the transport library.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/status.h"

namespace nexar::shm {

// The segment's first page; the data follows at kStageDataOffset.
struct StageHeader {
  alignas(64) std::atomic<uint64_t> claim;  // work counter of the running collective (owner resets)
  alignas(64) uint64_t token;
};
inline constexpr size_t kStageDataOffset = 4096;
static_assert(sizeof(StageHeader) <= kStageDataOffset);

// What the owner publishes; bytes == 0: it has no segment (creating one failed).
struct StageRef {
  uint64_t pid, fd, bytes, token;
};

class StageSegment {
 public:
  StageSegment() = default;
  StageSegment(const StageSegment&) = delete;
  StageSegment& operator=(const StageSegment&) = delete;
  ~StageSegment() { release(); }

  size_t bytes() const { return ref_.bytes; }
  const StageRef& ref() const { return ref_; }
  bool matches(const StageRef& r) const {
    return base_ && r.pid == ref_.pid && r.fd == ref_.fd && r.bytes == ref_.bytes && r.token == ref_.token;
  }
  StageHeader* header() const { return static_cast<StageHeader*>(base_); }
  uint8_t* data() const { return static_cast<uint8_t*>(base_) + kStageDataOffset; }

  // Owner: a new segment of `bytes` data bytes (replacing any mapped one).
  Status create(size_t bytes) {
    release();
    const int fd = ::memfd_create("nexar-stage", MFD_CLOEXEC);
    if (fd < 0) return sys_error("memfd_create for the staging segment");
    uint64_t token = 0;
    if (::fchmod(fd, 0600) != 0 || ::ftruncate(fd, static_cast<off_t>(kStageDataOffset + bytes)) != 0 ||
        ::getrandom(&token, sizeof token, 0) != static_cast<ssize_t>(sizeof token)) {
      Status st = sys_error("sizing the staging segment");
      ::close(fd);
      return st;
    }
    token |= 1;  // never 0, which means "none" to the algorithms
    if (Status st = map(fd, bytes); !st.ok()) {
      ::close(fd);
      return st;
    }
    fd_ = fd;
    header()->token = token;
    ref_ = StageRef{static_cast<uint64_t>(::getpid()), static_cast<uint64_t>(fd), bytes, token};
    return Status::Ok();
  }

  // Member: maps the owner's segment named by r.
  Status open(const StageRef& r) {
    release();
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%llu/fd/%llu", static_cast<unsigned long long>(r.pid),
                  static_cast<unsigned long long>(r.fd));
    const int fd = ::open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return sys_error("opening the owner's staging segment");
    struct stat sb {};
    Status st = ::fstat(fd, &sb) != 0 ? sys_error("stat of the staging segment")
                : static_cast<uint64_t>(sb.st_size) < kStageDataOffset + r.bytes
                    ? Status(NEXAR_ERR_SYSTEM, "the staging segment is smaller than its owner says")
                    : map(fd, r.bytes);
    ::close(fd);
    NX_RETURN_IF_ERROR(st);
    ref_ = r;
    if (header()->token != r.token) {
      release();
      return Status(NEXAR_ERR_SYSTEM, "the staging segment's descriptor names another segment (stale)");
    }
    return Status::Ok();
  }

 private:
  static Status sys_error(const char* what) {
    return Status(NEXAR_ERR_SYSTEM, strprintf("%s: %s", what, std::strerror(errno)));
  }
  Status map(int fd, size_t bytes) {
    void* p = ::mmap(nullptr, kStageDataOffset + bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return sys_error("mapping the staging segment");
    base_ = p;
    map_bytes_ = kStageDataOffset + bytes;
    return Status::Ok();
  }
  void release() {
    if (base_) ::munmap(base_, map_bytes_);
    if (fd_ >= 0) ::close(fd_);
    base_ = nullptr;
    fd_ = -1;
    map_bytes_ = 0;
    ref_ = StageRef{};
  }

  void* base_ = nullptr;
  size_t map_bytes_ = 0;
  int fd_ = -1;  // the owner's descriptor, kept open for the members to open
  StageRef ref_{};
};

}  // namespace nexar::shm
