// Chopsticks: a short RPC timeout keeps the timeout cases fast.
#include "harness/embedded/protocols.hpp"

namespace ac::embedded {
namespace {

void configure(ref::LobbyConfig& config) {
  Json& s = config.protocols["chopsticks"];
  if (!s.is_object()) s = Json::object();
  if (!s.contains("request_timeout_ms")) s["request_timeout_ms"] = 1500;
}

Description describe(const ref::LobbyConfig&) {
  Description d;
  d.document = {{"features", {"chopsticks.rpc", "chopsticks.admin-api"}}};
  return d;
}

}  // namespace

ProtocolWiring chopsticks_wiring() { return {"chopsticks", configure, describe}; }

}  // namespace ac::embedded
