// A2ACP: a known JWT secret, pools of target agents added to the broker's directory (so parallel
// cases never share one), and short handshake / routing timeouts so the TIMEOUT cases take about
// a second instead of the spec's 5 s and 30 s.
#include "harness/embedded/protocols.hpp"
#include "reference/a2acp/directory.hpp"

namespace ac::embedded {
namespace {

constexpr const char* kSecret = "agentconform-embedded-a2acp-secret-0123456789abcdef";
constexpr std::size_t kDatasetPool = 96, kOtherPool = 16;

Json pool_domains() { return {{"dataset", "a_domain"}, {"remote", "medtronic_poc"}, {"denied", "secret_domain"}}; }

Json dataset_input() {
  return {{"type", "object"},
          {"required", {"test_scenario_id", "dataset_type"}},
          {"properties",
           {{"test_scenario_id", {{"type", "string"}}}, {"dataset_type", {{"type", "string"}}}, {"record_count", {{"type", "integer"}, {"minimum", 1}}}}}};
}
Json dataset_output() {
  return {{"type", "object"},
          {"required", {"dataset_id"}},
          {"properties", {{"dataset_id", {{"type", "string"}}}, {"record_count", {{"type", "integer"}}}, {"connection_string", {{"type", "string"}}}}}};
}

std::vector<std::string> pool_ids(const std::string& pool, std::size_t n) {
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < n; ++i) {
    std::string num = std::to_string(i);
    ids.push_back("agentconform-" + pool + "-" + std::string(num.size() < 3 ? 3 - num.size() : 0, '0') + num);
  }
  return ids;
}

Json embedded_pools() {
  return {{"dataset", pool_ids("dataset", kDatasetPool)}, {"remote", pool_ids("remote", kOtherPool)}, {"denied", pool_ids("denied", kOtherPool)}};
}

// The directory entries of the embedded lobby's pools.
Json embedded_directory() {
  const Json open = {{"input_schema", Json::object()}, {"output_schema", Json::object()}};
  Json quick = open;
  quick["routing_timeout_ms"] = 500;
  const Json dataset_intents = {
      {"provision_test_dataset", {{"input_schema", dataset_input()}, {"output_schema", dataset_output()}, {"required_capabilities", {"read:datasets"}}}},
      {"provision_patient_records",
       {{"input_schema", {{"type", "object"}, {"required", {"cohort_id"}}, {"properties", {{"cohort_id", {{"type", "string"}}}}}}},
        {"output_schema", Json::object()},
        {"required_capabilities", {"read:patients"}}}},
      {"echo", open},
      {"echo_quick", quick}};
  Json out = ref::a2acp::Directory::default_json();
  const Json pools = embedded_pools(), domains = pool_domains();
  for (const auto& [pool, ids] : pools.items()) {
    for (const auto& id : ids) {
      Json entry = {{"agent_id", id}, {"domain", domains[pool]}, {"version", "1.0.0"}};
      entry["intents"] = pool == "dataset" ? dataset_intents : Json{{"echo", open}};
      out.push_back(std::move(entry));
    }
  }
  return out;
}

void configure(ref::LobbyConfig& config) {
  Json& s = config.protocols["a2acp"];
  if (!s.is_object()) s = Json::object();
  if (!s.contains("jwt_secret")) s["jwt_secret"] = kSecret;
  if (!s.contains("handshake_timeout_ms")) s["handshake_timeout_ms"] = 1500;
  if (!s.contains("routing_timeout_ms")) s["routing_timeout_ms"] = 1500;
  if (!s.contains("agents")) s["agents"] = embedded_directory();
}

Description describe(const ref::LobbyConfig& c) {
  const Json& s = c.section("a2acp");
  Json settings = {{"jwt_secret", s.value("jwt_secret", std::string(kSecret))}, {"presence_check", true}, {"target_agents", embedded_pools()}};
  if (!c.api_keys.empty()) settings["api_key"] = c.api_keys.front();
  Description d;
  d.document = {{"settings", settings}, {"features", {"a2acp.pii-policy", "a2acp.cross-domain-policy", "a2acp.payload-encryption"}}};
  return d;
}

}  // namespace

ProtocolWiring a2acp_wiring() { return {"a2acp", configure, describe}; }

}  // namespace ac::embedded
