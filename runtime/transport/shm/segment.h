// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// A POSIX shared-memory segment mapped into this process. The creator makes it with
// O_EXCL and mode 0600 (only this user; never an existing object); an opener checks that
// the object belongs to this user with mode 0600 before mapping it. Names are unlinked as
// soon as every party mapped them, so nothing outlives the job in /dev/shm.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/status.h"

namespace nexar::shm {

class Segment {
 public:
  // Creates name ("/..."), sized bytes, zero-filled, and maps it.
  static Status create(const std::string& name, size_t bytes, std::unique_ptr<Segment>* out);
  // Opens and maps an existing segment of at least min_bytes. NEXAR_ERR_NOT_FOUND-like
  // absence is reported through *absent (true: not there yet, or not yet sized): retry.
  static Status open(const std::string& name, size_t min_bytes, std::unique_ptr<Segment>* out, bool* absent);
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  void* base() const { return base_; }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }
  // Removes the name (the mapping stays). The creator's destructor does it if not yet.
  void unlink();

 private:
  Segment(std::string name, void* base, size_t size, bool owner)
      : name_(std::move(name)), base_(base), size_(size), linked_(owner) {}
  std::string name_;
  void* base_;
  size_t size_;
  bool linked_;  // the creator still has to unlink the name
};

}  // namespace nexar::shm
