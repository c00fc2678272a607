// The list of reference agents (agents.hpp). Adding a protocol's agent: write its
// reference/agents/<protocol>_agent.cpp with a `ReferenceAgent <protocol>_reference_agent()` and
// add it below.
#include "reference/agents/agents.hpp"

namespace ac::ref {

ReferenceAgent alp_reference_agent();
ReferenceAgent agora_reference_agent();
ReferenceAgent chopsticks_reference_agent();
ReferenceAgent agentprotocol_reference_agent();
ReferenceAgent a2acp_reference_agent();

const std::vector<ReferenceAgent>& reference_agents() {
  static const std::vector<ReferenceAgent> agents = {
      alp_reference_agent(),
      agora_reference_agent(),
      chopsticks_reference_agent(),
      agentprotocol_reference_agent(),
      a2acp_reference_agent(),
  };
  return agents;
}

const ReferenceAgent* find_reference_agent(const std::string& protocol) {
  for (const auto& a : reference_agents())
    if (a.protocol == protocol) return &a;
  return nullptr;
}

}  // namespace ac::ref
