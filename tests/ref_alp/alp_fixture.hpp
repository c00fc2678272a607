// Test support for the ALP hub: a lobby with the ALP section under the test's control, and
// blocking helpers that act as real agents (HTTP registration, WebSocket with token and
// agent_id, messages built with the ALP builders). Every frame the lobby sends is checked
// against schemas/alp unless a test turns that off for a fault that breaks the schema on purpose.
#pragma once

#include <thread>

#include "harness/protocols/alp/builders.hpp"
#include "harness/protocols/alp/codec.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/schema/schema_store.hpp"
#include "tests/support/lobby_fixture.hpp"

namespace ac::testing {

namespace alp = proto::alp;

inline const proto::Profile& alp_profile() { return proto::Catalog::builtin().profile(proto::ProtocolId::alp); }

struct Agent {
  std::string id;
  std::string token;
  std::string lobby_id;
  std::string session_id;  // from the REGISTER_CLIENT_ACK, when the helper sent one
  std::shared_ptr<net::WsClient> ws;

  void send(const Json& message) const {
    if (ws) ws->send_text(message.dump());
  }
  void send(const alp::Message& message) const {
    if (ws) ws->send_text(alp::encode(message));
  }
};

class AlpLobby : public LobbyFixture {
 protected:
  static constexpr const char* kLobbyId = "alp-test-lobby";
  static constexpr const char* kAdminToken = "admin-secret";

  Json alp_config = Json::object();  // protocols.alp, applied at every (re)start
  bool validate_frames = true;       // check every frame from the lobby against schemas/alp
  std::string tls_cert, tls_key;     // set before restart() for a TLS lobby

  void configure(ref::LobbyConfig& c) override {
    c.lobby_id = kLobbyId;
    c.admin_token = kAdminToken;
    c.api_keys = {"test-key", "second-key"};
    c.protocols["alp"] = alp_config;
    c.tls_cert_file = tls_cert;
    c.tls_key_file = tls_key;
  }

  void restart(std::set<std::string> faults = {}) { start(std::move(faults)); }

  // ---- HTTP ---------------------------------------------------------------------------------

  net::HttpResult register_raw(const Json& body, net::Headers headers = {}) { return post_json("/api/v1/register", body, headers); }

  // Registers `id` (nullopt: let the lobby provision one) and returns the response body.
  Json register_ok(std::optional<std::string> id, Json extra = Json::object(), int expected_status = 201) {
    Json body = {{"agent_type", "test-agent"}, {"api_key", "test-key"}};
    if (id) body["agent_id"] = *id;
    for (auto& [k, v] : extra.items()) body[k] = v;
    auto r = register_raw(body);
    EXPECT_EQ(r.status, expected_status) << r.body;
    auto j = json::parse_strict(r.body);
    if (!j) {
      ADD_FAILURE() << "register body is not JSON: " << r.body;
      return Json::object();
    }
    if (auto problem = alp_profile().check_document("register_response", *j)) ADD_FAILURE() << problem->describe() << "\n" << r.body;
    return *j;
  }

  // Asserts an HTTP error with the {"error": <§8.2>} body and returns the error object.
  static Json expect_http_error(const net::HttpResult& r, int status, const std::string& code) {
    EXPECT_EQ(r.status, status) << r.body;
    auto j = json::parse_strict(r.body);
    if (!j) {
      ADD_FAILURE() << "error body is not JSON: " << r.body;
      return Json::object();
    }
    if (auto problem = alp_profile().check_document("register_error", *j)) ADD_FAILURE() << problem->describe() << "\n" << r.body;
    EXPECT_EQ(j->value("/error/code"_json_pointer, std::string()), code) << r.body;
    EXPECT_FALSE(j->contains("auth_token"));
    return j->value("error", Json::object());
  }

  net::HttpResult broadcast(const Json& body, std::string token = kAdminToken) {
    net::Headers h;
    if (!token.empty()) h.emplace("authorization", "Bearer " + token);
    return post_json("/api/v1/admin/broadcast", body, h);
  }

  Json agent_status(const std::string& id) {
    auto r = get("/api/v1/agents?agent_id=" + id);
    EXPECT_EQ(r.status, 200) << r.body;
    auto j = json::parse_strict(r.body);
    return j ? *j : Json::object();
  }

  // ---- WebSocket ----------------------------------------------------------------------------

  static std::string query(const std::string& token, const std::string& agent_id) {
    return "/ws/connect?token=" + token + "&agent_id=" + agent_id;
  }

  Expected<std::shared_ptr<net::WsClient>, net::ClientError> try_connect(const std::string& path) {
    net::WsConnectOptions o;
    o.tls.insecure = true;
    return net::WsClient::connect(runtime, ws(path), o);
  }

  // Registers and connects; with `capabilities`, also sends REGISTER_CLIENT and reads the ACK.
  Agent agent(const std::string& id, std::optional<std::vector<alp::Capability>> capabilities = std::nullopt,
              Json extra = Json::object()) {
    Agent a;
    Json reg = register_ok(id, std::move(extra));
    a.id = reg.value("agent_id", id);
    a.token = reg.value("auth_token", "");
    a.lobby_id = reg.value("lobby_id", "");
    auto c = try_connect(query(a.token, a.id));
    EXPECT_TRUE(c) << (c ? "" : c.error().describe());
    if (c) a.ws = *c;
    // The client sees the 101 before the lobby has opened the session: wait until the lobby
    // routes to this agent (a real client knows from its first answer, e.g. the ACK).
    if (a.ws) wait_for([&] { return agent_status(a.id).contains("session_id"); });
    if (capabilities && a.ws) {
      a.send(alp::make_register_client(a.id, a.lobby_id, *capabilities, "1.0.0", "agentconform-tests-0.1"));
      Json ack = next(a);
      EXPECT_EQ(ack.value("message_type", ""), "REGISTER_CLIENT_ACK") << ack.dump();
      EXPECT_EQ(ack.value("/payload/status"_json_pointer, std::string()), "success") << ack.dump();
      a.session_id = ack.value("/payload/session_id"_json_pointer, std::string());
    }
    return a;
  }

  // The next frame from the lobby as JSON, checked against schemas/alp.
  Json next(const Agent& a, std::chrono::milliseconds timeout = 3000ms) {
    if (!a.ws) {
      ADD_FAILURE() << "agent " << a.id << " is not connected";
      return Json();
    }
    Json j = next_json(*a.ws, timeout);
    if (j.is_null()) return Json::object();  // the failure is reported; keep .value() callers safe
    if (validate_frames) {
      auto ok = alp_profile().check(j);
      if (!ok) ADD_FAILURE() << "the lobby sent a message that violates schemas/alp: " << ok.error().describe() << "\n" << j.dump();
    }
    return j;
  }

  // Reads the next frame and asserts it is a PROTOCOL_ERROR with `code`; returns its payload.
  Json expect_error(const Agent& a, const std::string& code, std::optional<std::string> offending = std::nullopt) {
    Json j = next(a);
    if (!j.is_object()) {
      ADD_FAILURE() << "expected PROTOCOL_ERROR " << code << ", got " << j.dump();
      return Json::object();
    }
    EXPECT_EQ(j.value("message_type", ""), "PROTOCOL_ERROR") << j.dump();
    EXPECT_EQ(j.value("/payload/error/code"_json_pointer, std::string()), code) << j.dump();
    EXPECT_EQ(j.value("sender_id", ""), kLobbyId);
    EXPECT_EQ(j.value("receiver_id", ""), a.id);
    EXPECT_FALSE(j.value("/payload/error/message"_json_pointer, std::string()).empty());
    if (offending) {
      EXPECT_EQ(j.value("/payload/offending_message_id"_json_pointer, std::string()), *offending) << j.dump();
    }
    return j.value("payload", Json::object());
  }

  // PING the lobby and expect its PONG: proves the connection still works and that everything
  // sent before was handled (the lobby answers in order).
  void expect_alive(const Agent& a) {
    const std::string nonce = proto::typed::new_uuid_v4();
    a.send(alp::make_ping(a.id, a.lobby_id, nonce));
    Json pong = next(a);
    EXPECT_EQ(pong.value("message_type", ""), "PONG") << pong.dump();
    EXPECT_EQ(pong.value("/payload/nonce"_json_pointer, std::string()), nonce);
  }

  // ---- messages -----------------------------------------------------------------------------

  static alp::Capability capability(const std::string& name, const std::string& version = "1.0.0",
                                    Json input_schema = Json::object(), std::vector<std::string> keywords = {}) {
    alp::Capability c;
    c.name = name;
    c.capability_version = version;
    c.description = "test capability " + name;
    c.input_schema = std::move(input_schema);
    c.output_schema = {{"type", "object"}};
    if (!keywords.empty()) c.keywords = std::move(keywords);
    return c;
  }

  static alp::Capability with_rules(alp::Capability c, const std::string& type, std::vector<std::string> ids = {},
                                    std::vector<std::string> roles = {}) {
    alp::AuthorizationRules r;
    r.type = type;
    if (type == "allow_list") r.allowed_agent_ids = std::move(ids);
    if (type == "requires_role") r.required_roles = std::move(roles);
    c.authorization_rules = std::move(r);
    return c;
  }

  // A raw message envelope as JSON, for tests that need to bend it.
  static Json raw(const std::string& from, const std::string& to, const std::string& type, Json payload) {
    return Json{{"message_id", proto::typed::new_uuid_v4()},
                {"protocol_version", "0.2.0"},
                {"sender_id", from},
                {"receiver_id", to},
                {"message_type", type},
                {"payload", std::move(payload)},
                {"timestamp", proto::typed::utc_now()}};
  }

  static void wait_for(const std::function<bool()>& done, std::chrono::milliseconds limit = 3000ms) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(done()) << "condition not reached within " << limit.count() << " ms";
  }
};

}  // namespace ac::testing
