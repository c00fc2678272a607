// PLACEHOLDER (development only, replaced by the a2acp driver author).
#include "harness/engine/drivers/common.hpp"

namespace ac::engine {
namespace {
class PlaceholderDriver final : public Driver {
 public:
  proto::ProtocolId protocol() const override { return proto::ProtocolId::a2acp; }
  std::string primary_path() const override { return "ws"; }
  void defaults(TargetConfig&) const override {}
  std::set<std::string> reference_features() const override { return {}; }
  ConnectResult connect(AgentSession&, const Json&, CaseEnv&) const override {
    return {ConnectResult::Outcome::harness_error, 0, "", "driver not written yet"};
  }
  Expected<Json, std::string> fill(Json m, AgentSession&, const Json&, CaseEnv&) const override { return m; }
};
}  // namespace
const Driver& a2acp_driver() {
  static const PlaceholderDriver d;
  return d;
}
}  // namespace ac::engine
