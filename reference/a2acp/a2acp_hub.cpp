// The A2ACP hub of the reference lobby: the a_domain auth service and the ProtocolBrokerAgent.
//   POST /auth/token   the auth service (auth_endpoint.cpp)
//   GET  /a2acp/ws     the broker (broker.hpp): agents attach and exchange A2ACP messages as JSON
//                      text frames, one message per frame (reading A2-6)
//   GET  /a2acp/agents the broker's directory and who is attached (the reference's own view)
// Settings from protocols.a2acp (settings.hpp, reference/a2acp/README.md); faults from
// reference/a2acp/faults.json, read once here.
#include "reference/a2acp/endpoints.hpp"

namespace ac::ref {
namespace a2acp {
namespace {

class A2acpHub final : public Hub {
 public:
  A2acpHub(HubContext& context, std::shared_ptr<const Settings> settings, std::shared_ptr<Authenticator> auth)
      : context_(context), settings_(settings), auth_(auth), broker_(std::make_shared<Broker>(context, settings, auth)) {}

  proto::ProtocolId protocol() const override { return proto::ProtocolId::a2acp; }
  void install(RouteTable& routes) override {
    routes.http.emplace_back("/auth/token", make_token_endpoint(context_, settings_, auth_));
    routes.http.emplace_back("/a2acp/agents", make_agents_endpoint(broker_));
    routes.ws.emplace_back("/a2acp/ws", broker_);
  }
  void shutdown() override { broker_->shutdown(); }
  Json status() const override { return broker_->status(); }

 private:
  HubContext& context_;
  std::shared_ptr<const Settings> settings_;
  std::shared_ptr<Authenticator> auth_;
  std::shared_ptr<Broker> broker_;
};

}  // namespace
}  // namespace a2acp

Expected<std::unique_ptr<Hub>, std::string> make_a2acp_hub(HubContext& context) {
  auto settings = a2acp::read_settings(context);
  if (!settings) return unexpected(settings.error());
  auto shared = std::make_shared<const a2acp::Settings>(std::move(*settings));
  auto auth = a2acp::Authenticator::create(*shared, [&context] { return context.clock(); });
  if (!auth) return unexpected(auth.error());
  return std::unique_ptr<Hub>(std::make_unique<a2acp::A2acpHub>(context, shared, *auth));
}

}  // namespace ac::ref
