// ALP: short token lifetimes, rate-limit window and invocation timeout, so the expiry, rate-limit
// and timeout cases take a second or two; a case longer than the token lifetime would see its
// sessions end (every ALP case is far shorter).
#include "harness/embedded/protocols.hpp"

namespace ac::embedded {
namespace {

void configure(ref::LobbyConfig& config) {
  Json& s = config.protocols["alp"];
  if (!s.is_object()) s = Json::object();
  auto def = [&](const char* key, Json value) {
    if (!s.contains(key)) s[key] = std::move(value);
  };
  if (!s.contains("token_ttl_s")) def("token_ttl_ms", 3000);
  def("rate_limit_messages", 40);
  def("rate_limit_window_ms", 1000);
  def("invoke_timeout_ms", 600);
  def("unregister_grace_ms", 400);
}

Description describe(const ref::LobbyConfig& c) {
  const Json& s = c.section("alp");
  Json settings = {{"lobby_id", c.lobby_id},
                   {"admin_token", c.admin_token},
                   {"max_message_bytes", c.max_message_bytes},
                   {"token_ttl_ms", s.value("token_ttl_ms", s.value("token_ttl_s", std::int64_t{3600}) * 1000)},
                   {"invoke_timeout_ms", c.scaled(std::chrono::milliseconds(s.value("invoke_timeout_ms", std::int64_t{60000}))).count()}};
  if (!c.api_keys.empty()) settings["api_key"] = c.api_keys.front();
  Json features = {"alp.token-expiry", "alp.input-schema-validation", "alp.broadcast-admin", "alp.roles"};
  // 0 turns the limit off (agentconform load does): then the lobby has no rate limit to claim.
  const std::int64_t rate = s.value("rate_limit_messages", std::int64_t{1000});
  if (rate > 0) {
    settings["rate_limit_messages"] = rate;
    features.push_back("alp.rate-limit");
  }
  Description d;
  d.document = {{"settings", settings}, {"features", features}};
  return d;
}

}  // namespace

ProtocolWiring alp_wiring() { return {"alp", configure, describe}; }

}  // namespace ac::embedded
