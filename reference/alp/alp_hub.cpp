// PLACEHOLDER (development only, replaced by the alp hub author): a hub with no endpoints so
// the lobby links while the real hub is being written.
#include "reference/core/hub.hpp"

namespace ac::ref {
namespace {
class PlaceholderHub final : public Hub {
 public:
  proto::ProtocolId protocol() const override { return proto::ProtocolId::alp; }
  void install(RouteTable&) override {}
};
}  // namespace

Expected<std::unique_ptr<Hub>, std::string> make_alp_hub(HubContext&) {
  return std::unique_ptr<Hub>(std::make_unique<PlaceholderHub>());
}

}  // namespace ac::ref
