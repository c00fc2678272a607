// The one list of protocol hubs. Adding a protocol: write reference/<protocol>/, then add its
// factory here (one declaration, one line).
#include "reference/core/hub.hpp"

namespace ac::ref {

// Each defined in reference/<protocol>/<protocol>_hub.cpp.
Expected<std::unique_ptr<Hub>, std::string> make_alp_hub(HubContext& context);
Expected<std::unique_ptr<Hub>, std::string> make_agora_hub(HubContext& context);
Expected<std::unique_ptr<Hub>, std::string> make_agentprotocol_hub(HubContext& context);
Expected<std::unique_ptr<Hub>, std::string> make_a2acp_hub(HubContext& context);
Expected<std::unique_ptr<Hub>, std::string> make_chopsticks_hub(HubContext& context);

const std::vector<std::pair<proto::ProtocolId, HubFactory>>& hub_factories() {
  static const std::vector<std::pair<proto::ProtocolId, HubFactory>> factories = {
      {proto::ProtocolId::alp, &make_alp_hub},
      {proto::ProtocolId::agora, &make_agora_hub},
      {proto::ProtocolId::agentprotocol, &make_agentprotocol_hub},
      {proto::ProtocolId::a2acp, &make_a2acp_hub},
      {proto::ProtocolId::chopsticks, &make_chopsticks_hub},
  };
  return factories;
}

}  // namespace ac::ref
