// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
#include "device/device_comm.h"

#include <atomic>
#include <unordered_map>

#include "core/params.h"
#include "device/hierarchy.h"

namespace nexar::device {

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<const comm::Comm*, std::shared_ptr<DeviceComm>> map;
  std::atomic<size_t> count{0};
};

Registry& registry() {
  static Registry* r = new Registry;  // outlives static destructors that may release comms
  return *r;
}

}  // namespace

DeviceComm::~DeviceComm() {
  hierarchy.reset();  // NCCL communicator first: it may use the stream
  if (own_stream_) (void)plugin.api->stream_destroy(own_stream_);
}

void DeviceComm::set_user_stream(void* s) {
  std::lock_guard<std::mutex> lock(mu_);
  user_stream_ = s;
}

void* DeviceComm::user_stream() {
  std::lock_guard<std::mutex> lock(mu_);
  return user_stream_;
}

Status DeviceComm::work_stream(void** out, bool* user) {
  std::lock_guard<std::mutex> lock(mu_);
  *user = user_stream_ != nullptr;
  if (user_stream_) {
    *out = user_stream_;
    return Status::Ok();
  }
  if (!own_stream_ && plugin.api->stream_create(&own_stream_) != 0) return plugin_error(plugin, "communicator stream");
  *out = own_stream_;
  return Status::Ok();
}

int gpu_local_rank(const comm::Comm& c) {
  const int64_t env = param::NEXAR_LOCAL_RANK.get();
  return env >= 0 ? static_cast<int>(env) : c.local_rank();
}

Status device_comm(const comm::Comm& c, std::shared_ptr<DeviceComm>* out) {
  Registry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.map.find(&c);
    if (it != r.map.end()) {
      *out = it->second;
      return Status::Ok();
    }
  }
  const CudaPlugin* p = nullptr;
  NX_RETURN_IF_ERROR(cuda_plugin(gpu_local_rank(c), &p));
  std::lock_guard<std::mutex> lock(r.mu);
  auto& slot = r.map[&c];
  if (!slot) {
    slot = std::make_shared<DeviceComm>(*p);
    r.count.fetch_add(1);
  }
  *out = slot;
  return Status::Ok();
}

std::shared_ptr<DeviceComm> find_device_comm(const comm::Comm& c) {
  Registry& r = registry();
  if (r.count.load() == 0) return nullptr;
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.map.find(&c);
  return it == r.map.end() ? nullptr : it->second;
}

void release_comm(const comm::Comm* c) {
  Registry& r = registry();
  if (r.count.load() == 0) return;
  std::shared_ptr<DeviceComm> gone;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.map.find(c);
  if (it == r.map.end()) return;
  gone = std::move(it->second);
  r.map.erase(it);
  r.count.fetch_sub(1);
}

}  // namespace nexar::device
