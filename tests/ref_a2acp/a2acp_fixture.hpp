// Test support for the A2ACP hub: a lobby whose protocols.a2acp section is under the test's
// control (a small directory of agents, short timeouts), and blocking helpers that act as real
// agents: tokens from POST /auth/token over HTTP, WebSocket attachment at /a2acp/ws?agent_id=,
// messages built with the A2ACP builders. Every frame an agent receives is checked: it must
// validate against schemas/a2acp (typed codec), errors must carry the retry_after the code's
// Retry? column asks for, and everything the broker itself sends must carry a valid broker
// token addressed to the recipient.
#pragma once

#include <ctime>
#include <map>
#include <thread>

#include "harness/crypto/jwt.hpp"
#include "harness/protocols/a2acp/builders.hpp"
#include "harness/protocols/a2acp/codec.hpp"
#include "harness/protocols/a2acp/token.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "tests/support/lobby_fixture.hpp"

namespace ac::testing {

namespace a2 = proto::a2acp;
namespace jwt = crypto::jwt;

inline const proto::Profile& a2acp_profile() { return proto::Catalog::builtin().profile(proto::ProtocolId::a2acp); }

// An agent attached to the broker.
struct A2Agent {
  a2::Agent id;
  std::shared_ptr<net::WsClient> ws;

  const std::string& name() const { return id.agent_id; }
  void send(const a2::Message& m) const { ws->send_text(a2::encode(m)); }
  void send(const Json& m) const { ws->send_text(m.dump()); }
};

struct Collab {
  std::string collaboration_id, contract_id;
  Json contract;
};

class A2acpLobby : public LobbyFixture {
 protected:
  static constexpr const char* kSecret = "a2acp-hub-test-secret-0123456789-abcdefghijkl";
  static constexpr const char* kBroker = "protocol-broker-agent";

  Json section = default_section();  // protocols.a2acp, applied at every (re)start
  std::set<std::string> faults_on;   // the faults of the current lobby
  bool validate_frames = true;
  double timeout_scale = 1.0;        // the lobby's timeout_scale

  static Json dataset_input() {
    return {{"type", "object"},
            {"required", {"test_scenario_id", "dataset_type"}},
            {"additionalProperties", false},
            {"properties",
             {{"test_scenario_id", {{"type", "string"}}}, {"dataset_type", {{"type", "string"}}}, {"record_count", {{"type", "integer"}}}}}};
  }
  static Json dataset_output() {
    return {{"type", "object"},
            {"required", {"dataset_id"}},
            {"properties", {{"dataset_id", {{"type", "string"}}}, {"record_count", {{"type", "integer"}}}}}};
  }

  static Json default_section() {
    const Json echo = {{"input_schema", Json::object()}, {"output_schema", Json::object()}};
    return {{"jwt_secret", kSecret},
            {"handshake_timeout_ms", 800},
            {"routing_timeout_ms", 800},
            {"pii_intents", {"provision_patient_records"}},
            {"cross_domain_allowed", Json::array({{{"source", "a_domain"}, {"target", "medtronic_poc"}}})},
            {"agents",
             Json::array(
                 {{{"agent_id", "source-agent"}, {"domain", "a_domain"}, {"version", "1.2.3"}},
                  {{"agent_id", "other-agent"}, {"domain", "a_domain"}, {"version", "1.0.0"}},
                  {{"agent_id", "target-agent"},
                   {"domain", "a_domain"},
                   {"version", "2.1.0"},
                   {"intents",
                    {{"provision_test_dataset",
                      {{"input_schema", dataset_input()}, {"output_schema", dataset_output()}, {"required_capabilities", {"read:datasets"}}}},
                     {"provision_patient_records",
                      {{"input_schema",
                        {{"type", "object"}, {"required", {"cohort_id"}}, {"properties", {{"cohort_id", {{"type", "string"}}}}}}},
                       {"output_schema", Json::object()},
                       {"required_capabilities", {"read:patients"}}}},
                     {"echo", echo}}}},
                  {{"agent_id", "remote-agent"}, {"domain", "medtronic_poc"}, {"version", "1.0.0"}, {"intents", {{"echo", echo}}}},
                  {{"agent_id", "denied-agent"}, {"domain", "secret_domain"}, {"version", "1.0.0"}, {"intents", {{"echo", echo}}}},
                  {{"agent_id", "typed-source"},
                   {"domain", "a_domain"},
                   {"version", "1.0.0"},
                   {"uses",
                    {{"provision_test_dataset",
                      {{"input_schema",
                        {{"type", "object"},
                         {"required", {"scenario_id", "type"}},
                         {"properties", {{"scenario_id", {{"type", "string"}}}, {"type", {{"type", "string"}}}}}}}}}}}}})}};
  }

  void configure(ref::LobbyConfig& c) override {
    c.api_keys = {"test-key", "second-key"};
    c.protocols["a2acp"] = section;
    c.timeout_scale = timeout_scale;
  }

  void restart(std::set<std::string> faults = {}) {
    tokens_.clear();
    faults_on = faults;
    start(std::move(faults));
  }
  bool fault(const std::string& name) const { return faults_on.count(name) != 0; }

  // ---- tokens -------------------------------------------------------------------------------

  net::HttpResult token_raw(const Json& body, net::Headers headers = {}) { return post_json("/auth/token", body, headers); }

  // A token from the auth service (cached per sub, aud and capabilities).
  std::string token(const std::string& sub, const std::string& aud, const std::vector<std::string>& caps = {}) {
    std::string key = sub + "\n" + aud;
    for (const auto& c : caps) key += "\n" + c;
    if (auto it = tokens_.find(key); it != tokens_.end()) return it->second;
    auto r = token_raw({{"api_key", "test-key"}, {"agent_id", sub}, {"target_agent_id", aud}, {"requested_capabilities", caps}});
    EXPECT_EQ(r.status, 200) << r.body;
    auto j = json::parse_strict(r.body);
    if (!j || !j->contains("token")) {
      ADD_FAILURE() << "no token: " << r.body;
      return "no-token";
    }
    return tokens_[key] = (*j)["token"].get<std::string>();
  }

  static std::int64_t now() { return static_cast<std::int64_t>(std::time(nullptr)); }

  static Json claims(const std::string& sub, const std::string& aud, std::vector<std::string> caps = {}, std::int64_t ttl = 3600) {
    return {{"sub", sub}, {"iss", "a_domain-auth-service"}, {"aud", aud}, {"iat", now()}, {"exp", now() + ttl},
            {"capabilities", caps}, {"domain", "a_domain"}};
  }

  // A token signed here (for tokens the auth service would never issue).
  static std::string mint(const Json& claims, const std::string& secret = kSecret) {
    auto key = jwt::Key::hmac(secret);
    EXPECT_TRUE(key);
    auto t = jwt::issue(claims, *key);
    EXPECT_TRUE(t);
    return t ? *t : std::string();
  }

  // An unsigned token: {"alg":"none"} header, the claims, empty signature.
  static std::string unsigned_token(const Json& claims) {
    return jwt_segment(R"({"alg":"none","typ":"JWT"})") + "." + jwt_segment(claims.dump()) + ".";
  }
  static std::string jwt_segment(const std::string& text);

  // ---- agents -------------------------------------------------------------------------------

  Json directory_entry(const std::string& id) const {
    for (const auto& a : section.value("agents", Json::array())) {
      if (a.value("agent_id", "") == id) return a;
    }
    return Json();
  }

  a2::Agent identity(const std::string& id) const {
    Json e = directory_entry(id);
    if (e.is_null()) return a2::Agent{id, "a_domain", "1.0.0", Json::object()};
    return a2::Agent{id, e["domain"].get<std::string>(), e["version"].get<std::string>(), Json::object()};
  }
  static a2::Agent broker() { return a2::Agent{kBroker, "a_domain", "1.0.0", Json::object()}; }

  std::vector<std::string> caps_for(const std::string& target, const std::string& intent) const {
    Json e = directory_entry(target);
    if (e.is_null()) return {};
    auto caps = e.value("/intents"_json_pointer, Json::object()).value(intent, Json::object()).value("required_capabilities", Json::array());
    return caps.get<std::vector<std::string>>();
  }

  bool online(const std::string& id) {
    auto r = get("/a2acp/agents");
    auto j = json::parse_strict(r.body);
    if (!j) return false;
    for (const auto& a : (*j)["agents"]) {
      if (a.value("agent_id", "") == id) return a.value("online", false);
    }
    return false;
  }

  static void wait_for(const std::function<bool()>& done, std::chrono::milliseconds limit = 3000ms) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) {
        ADD_FAILURE() << "condition not reached within " << limit.count() << " ms";
        return;
      }
      std::this_thread::sleep_for(10ms);
    }
  }

  // Attaches `id` with ?agent_id= and waits until the broker lists it online.
  A2Agent attach(const std::string& id) {
    A2Agent a{identity(id), connect("/a2acp/ws?agent_id=" + id)};
    wait_for([&] { return online(id); });
    return a;
  }

  // ---- frames -------------------------------------------------------------------------------

  // The next frame, checked (see the header comment).
  Json next(const A2Agent& a, std::chrono::milliseconds timeout = 3000ms) { return check_frame(next_json(*a.ws, timeout), a.name()); }

  Json check_frame(Json j, const std::string& recipient) {
    if (j.is_null() || !validate_frames) return j;
    auto typed = a2::from_json(j);
    if (!typed) {
      ADD_FAILURE() << "the broker sent a message that violates schemas/a2acp: " << typed.error().describe() << "\n" << j.dump();
      return j;
    }
    if (j["message_type"] == "error") {
      const std::string code = j["payload"]["error"]["code"];
      const auto retry = j["payload"]["error"]["retry_after"].get<std::uint64_t>();
      const bool retryable = code == "TIMEOUT" || code == "INTERNAL_ERROR" || code == "RATE_LIMIT_EXCEEDED";
      if (!fault("a2acp.error.no-retry-after")) {
        if (retryable) {
          EXPECT_GT(retry, 0u) << j.dump();
        } else {
          EXPECT_EQ(retry, 0u) << j.dump();
        }
      }
      EXPECT_FALSE(j["payload"]["error"]["message"].get<std::string>().empty());
    }
    if (j["source_agent"]["agent_id"] == kBroker) {
      // The broker's messages carry its own token, addressed to their target_agent (which is
      // the recipient, or for an error the sender the offending message claimed to be).
      EXPECT_EQ(j["protocol_version"], "1.0");
      if (j["message_type"] != "error") {
        EXPECT_EQ(j["target_agent"]["agent_id"], recipient) << j.dump();
      }
      auto key = jwt::Key::hmac(section.value("jwt_secret", std::string(kSecret)));
      a2::Expectations e;
      e.audience = j["target_agent"]["agent_id"].get<std::string>();
      if (e.audience.empty()) e.audience = "unknown-agent";
      e.issuer = section.value("issuer", std::string(a2::kDefaultIssuer));
      auto claims = a2::verify(j["security"]["auth_token"].get<std::string>(), *key, e);
      EXPECT_TRUE(claims) << (claims ? "" : claims.error().describe());
      if (claims) {
        EXPECT_EQ(claims->sub, kBroker);
      }
    }
    return j;
  }

  // Reads the next frame and asserts it is an error from the broker with `code`; returns payload.error.
  Json expect_error(const A2Agent& a, const std::string& code) {
    Json j = next(a);
    EXPECT_EQ(j.value("message_type", ""), "error") << j.dump();
    EXPECT_EQ(j.value("/source_agent/agent_id"_json_pointer, std::string()), kBroker) << j.dump();
    EXPECT_EQ(j.value("/payload/error/code"_json_pointer, std::string()), code) << j.dump();
    return j.value("/payload/error"_json_pointer, Json::object());
  }

  // ---- messages -----------------------------------------------------------------------------

  a2::Message handshake(const A2Agent& src, const std::string& target, const std::string& intent) {
    return a2::make_initiate_handshake(src.id, broker(), token(src.name(), kBroker, caps_for(target, intent)), target, intent);
  }

  a2::Message decision(const Json& offer, const A2Agent& target, bool accepted, std::optional<std::string> reason = {}) {
    auto m = a2::from_json(offer);
    EXPECT_TRUE(m) << offer.dump();
    if (!m) return a2::Message{};
    return a2::make_handshake_decision(*m, token(target.name(), kBroker), accepted, std::move(reason));
  }

  // The whole handshake; the target's contract_established event is consumed.
  Collab establish(const A2Agent& src, const A2Agent& dst, const std::string& intent) {
    src.send(handshake(src, dst.name(), intent));
    Json offer = next(dst);
    EXPECT_EQ(offer.value("intent", ""), "accept_handshake") << offer.dump();
    dst.send(decision(offer, dst, true));
    Json result = next(src);
    EXPECT_EQ(result.value("message_type", ""), "response") << result.dump();
    EXPECT_EQ(result.value("intent", ""), "initiate_handshake") << result.dump();
    Json event = next(dst);
    EXPECT_EQ(event.value("intent", ""), "contract_established") << event.dump();
    Collab c;
    c.collaboration_id = result.value("/payload/collaboration_id"_json_pointer, std::string());
    c.contract_id = result.value("/payload/contract/contract_id"_json_pointer, std::string());
    c.contract = result.value("/payload/contract"_json_pointer, Json::object());
    return c;
  }

  a2::Message request(const A2Agent& src, const A2Agent& dst, const std::string& intent, Json payload, const std::string& contract_id) {
    if (!contract_id.empty()) payload["contract_id"] = contract_id;
    return a2::make_request(src.id, dst.id, token(src.name(), dst.name(), caps_for(dst.name(), intent)), intent, std::move(payload));
  }

  // The target's response to a request it received (same intent, correlation_id and contract_id).
  a2::Message response(const Json& received, const A2Agent& dst, Json payload) {
    auto req = a2::from_json(received);
    EXPECT_TRUE(req) << received.dump();
    if (!req) return a2::Message{};
    if (!payload.contains("contract_id")) payload["contract_id"] = received["payload"].value("contract_id", "");
    return a2::make_response(*req, token(dst.name(), req->envelope.source_agent.agent_id), std::move(payload));
  }

  static Json dataset_request() { return {{"test_scenario_id", "scenario-123"}, {"dataset_type", "patient_demographics"}, {"record_count", 1000}, {"correlation_id", "correlation-789"}}; }

 private:
  std::map<std::string, std::string> tokens_;
};

inline std::string A2acpLobby::jwt_segment(const std::string& text) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : text) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      out += alphabet[(buffer >> (bits - 6)) & 0x3f];
      bits -= 6;
    }
  }
  if (bits > 0) out += alphabet[(buffer << (6 - bits)) & 0x3f];
  return out;
}

}  // namespace ac::testing
