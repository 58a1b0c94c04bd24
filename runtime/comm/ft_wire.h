// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The fault-tolerance control messages (ft_service.h), carried on the engine's control
// context: a fixed head and the sender's list of failed comm ranks.
//   CONTRIB  member -> coordinator: my flag for instance k, the ranks I know failed
//   DECIDE   coordinator -> members: the decision of instance k (flag, failed ranks)
//   QUERY    a new coordinator -> members: do you hold k's decision, or your contribution?
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace nexar::comm::ft {

enum class MsgType : uint8_t { CONTRIB = 1, DECIDE = 2, QUERY = 3 };

struct WireHead {
  uint32_t magic;
  uint8_t type;
  uint8_t pad[3];
  uint32_t comm_id;   // the communicator's context base (the same on every member)
  uint32_t instance;  // the agreement's number on that communicator
  int32_t flag;
  uint32_t nfailed;   // followed by nfailed int32 comm ranks
};
inline constexpr uint32_t kWireMagic = 0x4e584654;  // "NXFT"
// Bounds a message: a communicator larger than this cannot list its failures.
inline constexpr uint32_t kMaxFailedListed = 1u << 20;

struct Msg {
  MsgType type = MsgType::CONTRIB;
  uint32_t comm_id = 0;
  uint32_t instance = 0;
  int32_t flag = 0;
  std::vector<int32_t> failed;
};

inline std::vector<uint8_t> encode(const Msg& m) {
  WireHead h{kWireMagic, static_cast<uint8_t>(m.type), {0, 0, 0}, m.comm_id, m.instance, m.flag,
             static_cast<uint32_t>(m.failed.size())};
  std::vector<uint8_t> out(sizeof(h) + m.failed.size() * sizeof(int32_t));
  std::memcpy(out.data(), &h, sizeof(h));
  if (!m.failed.empty()) std::memcpy(out.data() + sizeof(h), m.failed.data(), m.failed.size() * sizeof(int32_t));
  return out;
}

// False for anything malformed (dropped by the caller).
inline bool decode(const uint8_t* p, size_t n, Msg* m) {
  WireHead h;
  if (n < sizeof(h)) return false;
  std::memcpy(&h, p, sizeof(h));
  if (h.magic != kWireMagic || h.type < 1 || h.type > 3 || h.nfailed > kMaxFailedListed ||
      n != sizeof(h) + size_t{h.nfailed} * sizeof(int32_t))
    return false;
  m->type = static_cast<MsgType>(h.type);
  m->comm_id = h.comm_id;
  m->instance = h.instance;
  m->flag = h.flag;
  m->failed.resize(h.nfailed);
  if (h.nfailed) std::memcpy(m->failed.data(), p + sizeof(h), size_t{h.nfailed} * sizeof(int32_t));
  return true;
}

}  // namespace nexar::comm::ft
