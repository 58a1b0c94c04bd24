// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "transport/shm/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/fault.h"

namespace nexar::shm {
namespace {
Status sys_error(const std::string& what, const std::string& name) {
  return Status(NEXAR_ERR_SYSTEM, strprintf("%s of shared memory %s: %s", what.c_str(), name.c_str(), std::strerror(errno)));
}
}  // namespace

Status Segment::create(const std::string& name, size_t bytes, std::unique_ptr<Segment>* out) {
  int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return sys_error("creation", name);
  // The umask may only have removed bits; make sure of exactly 0600.
  if (::fchmod(fd, 0600) != 0 || ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    Status s = sys_error("sizing", name);
    ::close(fd);
    ::shm_unlink(name.c_str());
    return s;
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    Status s = sys_error("mapping", name);
    ::shm_unlink(name.c_str());
    return s;
  }
  out->reset(new Segment(name, p, bytes, true));
  return Status::Ok();
}

Status Segment::open(const std::string& name, size_t min_bytes, std::unique_ptr<Segment>* out, bool* absent) {
  *absent = false;
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    if (errno == ENOENT) {
      *absent = true;
      return Status::Ok();
    }
    return sys_error("opening", name);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = sys_error("fstat", name);
    ::close(fd);
    return s;
  }
  if (st.st_uid != ::geteuid() || (st.st_mode & 0777) != 0600) {
    ::close(fd);
    return Status(NEXAR_ERR_AUTH, strprintf("shared memory %s belongs to uid %u with mode %03o, not to this user with 0600",
                                            name.c_str(), static_cast<unsigned>(st.st_uid),
                                            static_cast<unsigned>(st.st_mode & 0777)));
  }
  if (static_cast<size_t>(st.st_size) < min_bytes) {  // created but not sized yet
    ::close(fd);
    *absent = true;
    return Status::Ok();
  }
  const size_t bytes = static_cast<size_t>(st.st_size);
  if (fault::fail_point("shm_map")) {  // testing only (NEXAR_FAULT_FAIL)
    ::close(fd);
    errno = ENOMEM;
    return sys_error("mapping", name);
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return sys_error("mapping", name);
  out->reset(new Segment(name, p, bytes, false));
  return Status::Ok();
}

void Segment::unlink() {
  if (!linked_) return;
  linked_ = false;
  ::shm_unlink(name_.c_str());
}

Segment::~Segment() {
  unlink();
  ::munmap(base_, size_);
}

}  // namespace nexar::shm
