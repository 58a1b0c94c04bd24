// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The nexar authors
// The launch agent's control lines (read from ssh/srun stdin and stdout): a line that
// decodes encodes back to a line that decodes to the same message, and escaping any
// bytes unescapes to them.
#include "fuzz_input.h"
#include "launcher/agent_protocol.h"

namespace agent = nexar::launcher::agent;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = nexar::fuzz::text_of(data, size);
  std::string raw;
  nexar::fuzz::require(agent::unescape(agent::escape(text), &raw) && raw == text, "escape round trip");
  agent::Message m;
  if (!agent::decode(text, &m)) return 0;
  std::string line = agent::encode(m.type, m.target, m.fields);
  nexar::fuzz::require(!line.empty() && line.back() == '\n', "an encoded line ends in a newline");
  line.pop_back();
  agent::Message again;
  nexar::fuzz::require(agent::decode(line, &again), "an encoded message decodes");
  nexar::fuzz::require(again.type == m.type && again.target == m.target && again.fields == m.fields,
                       "decode(encode(m)) == m");
  return 0;
}
