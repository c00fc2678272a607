// The one list of protocol drivers (adding a protocol: one declaration, one line).
#include "harness/engine/driver.hpp"

namespace ac::engine {

const Driver& alp_driver();
const Driver& agora_driver();
const Driver& agentprotocol_driver();
const Driver& a2acp_driver();
const Driver& chopsticks_driver();

const Driver& driver_for(proto::ProtocolId id) {
  switch (id) {
    case proto::ProtocolId::alp: return alp_driver();
    case proto::ProtocolId::agora: return agora_driver();
    case proto::ProtocolId::agentprotocol: return agentprotocol_driver();
    case proto::ProtocolId::a2acp: return a2acp_driver();
    case proto::ProtocolId::chopsticks: return chopsticks_driver();
  }
  return chopsticks_driver();
}

}  // namespace ac::engine
