// PLACEHOLDER (development only, replaced by the agentprotocol hub author): a hub with no endpoints so
// the lobby links while the real hub is being written.
#include "reference/core/hub.hpp"

namespace ac::ref {
namespace {
class PlaceholderHub final : public Hub {
 public:
  proto::ProtocolId protocol() const override { return proto::ProtocolId::agentprotocol; }
  void install(RouteTable&) override {}
};
}  // namespace

Expected<std::unique_ptr<Hub>, std::string> make_agentprotocol_hub(HubContext&) {
  return std::unique_ptr<Hub>(std::make_unique<PlaceholderHub>());
}

}  // namespace ac::ref
