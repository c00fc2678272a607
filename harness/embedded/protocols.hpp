// One entry per protocol: how the reference lobby is configured for a conformance run and the
// target document that describes it (see embedded.hpp). Adding a protocol: one file, one line
// in wirings().
#pragma once

#include <vector>

#include "harness/embedded/embedded.hpp"

namespace ac::embedded {

struct ProtocolWiring {
  const char* protocol;
  void (*configure)(ref::LobbyConfig& config);
  Description (*describe)(const ref::LobbyConfig& config);
};

const std::vector<ProtocolWiring>& wirings();

ProtocolWiring alp_wiring();
ProtocolWiring agora_wiring();
ProtocolWiring agentprotocol_wiring();
ProtocolWiring a2acp_wiring();
ProtocolWiring chopsticks_wiring();

}  // namespace ac::embedded
