// The ALP 0.2.0 hub of the reference lobby: the Core (reference/alp/core.hpp) behind
//   GET  /ws/connect?token=<auth_token>&agent_id=<agent_id>   (WebSocket, §4.2)
//   POST /api/v1/register                                     (§4.1)
//   GET  /api/v1/agents[?agent_id=<id>]                        (reference extension)
//   POST /api/v1/admin/broadcast                               (reference extension, LOBBY_BROADCAST)
// Settings come from the `protocols.alp` section and the faults of reference/alp/faults.json;
// both are documented in reference/alp/README.md.
#include "reference/alp/endpoints.hpp"

namespace ac::ref {
namespace alp {
namespace {

class AlpHub final : public Hub {
 public:
  AlpHub(HubContext& context, Settings settings) : core_(std::make_shared<Core>(context, std::move(settings))) {}
  proto::ProtocolId protocol() const override { return proto::ProtocolId::alp; }
  void install(RouteTable& routes) override {
    routes.ws.emplace_back("/ws/connect", core_);
    routes.http.emplace_back("/api/v1/register", make_register_endpoint(core_));
    routes.http.emplace_back("/api/v1/agents", make_agents_endpoint(core_));
    routes.http.emplace_back("/api/v1/admin/broadcast", make_broadcast_endpoint(core_));
  }
  void shutdown() override { core_->shutdown(); }
  nlohmann::json status() const override { return core_->status(); }

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace
}  // namespace alp

Expected<std::unique_ptr<Hub>, std::string> make_alp_hub(HubContext& context) {
  auto settings = alp::read_settings(context);
  if (!settings) return unexpected(settings.error());
  return std::unique_ptr<Hub>(std::make_unique<alp::AlpHub>(context, std::move(*settings)));
}

}  // namespace ac::ref
