// The Agora hub: the relay at /agora/ws (reference/agora/relay.hpp). The spec gives a relay no
// HTTP API, and the relay needs none: registration, routing and errors are all on the WebSocket.
// GET /healthz shows {"agents_online", "open_streams", "fast_path_chunks"} under protocols.agora.
#include "reference/agora/relay.hpp"

namespace ac::ref {
namespace agora {
namespace {

class AgoraHub final : public Hub {
 public:
  AgoraHub(HubContext& context, Settings settings) : relay_(std::make_shared<Relay>(context, std::move(settings))) {}
  proto::ProtocolId protocol() const override { return proto::ProtocolId::agora; }
  void install(RouteTable& routes) override { routes.ws.emplace_back("/agora/ws", relay_); }
  Json status() const override { return relay_->status(); }

 private:
  std::shared_ptr<Relay> relay_;
};

}  // namespace
}  // namespace agora

Expected<std::unique_ptr<Hub>, std::string> make_agora_hub(HubContext& context) {
  auto settings = agora::read_settings(context);
  if (!settings) return unexpected(settings.error());
  return std::unique_ptr<Hub>(std::make_unique<agora::AgoraHub>(context, std::move(*settings)));
}

}  // namespace ac::ref
