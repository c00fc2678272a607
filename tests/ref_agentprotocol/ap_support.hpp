// Test support for the reference AgentProtocol hub: a lobby fixture with small limits, mock
// agents with real Ed25519 keys that build and sign messages, and the check every message the
// reference sends must pass (schema-valid per schemas/agentprotocol and signed by its key).
#pragma once

#include <filesystem>
#include <thread>

#include "harness/protocols/agentprotocol/codec.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "tests/support/lobby_fixture.hpp"

namespace ac::testing {

namespace ap = proto::agentprotocol;

struct MockAgent {
  crypto::Ed25519PrivateKey key;
  std::string id;

  static MockAgent make() {
    auto k = crypto::Ed25519PrivateKey::generate();
    EXPECT_TRUE(k);
    MockAgent a{std::move(*k), ""};
    a.id = ap::agent_id(a.key.public_key());
    return a;
  }

  // A complete, unsigned message of `type` to `to`.
  Json unsigned_message(const std::string& type, Json payload, const std::string& to, bool broadcast = false) const {
    return Json{{"protocol", "agentprotocol/0.1"},
                {"id", proto::typed::new_uuid_v4()},
                {"timestamp", proto::typed::utc_now()},
                {"from", {{"agentId", id}, {"name", "test agent"}, {"capabilities", {"agentprotocol:core"}}}},
                {"to", {{"agentId", to}, {"broadcast", broadcast}}},
                {"type", type},
                {"payload", std::move(payload)}};
  }
  Json sign(Json m) const {
    auto s = ap::sign(std::move(m), key);
    EXPECT_TRUE(s);
    return s ? *s : Json();
  }
  Json message(const std::string& type, Json payload, const std::string& to, bool broadcast = false) const {
    return sign(unsigned_message(type, std::move(payload), to, broadcast));
  }
  Json hello(const std::string& to, const std::string& version = "0.1") const {
    return message("hello", {{"version", version}, {"features", {"signed-messages"}}}, to);
  }
  Json request(const std::string& to, const std::string& action, Json params, const std::string& correlation,
               std::optional<std::int64_t> timeout = {}) const {
    Json p = {{"action", action}, {"correlationId", correlation}, {"params", std::move(params)}};
    if (timeout) p["timeout"] = *timeout;
    return message("request", std::move(p), to);
  }
};

class AgentProtocolFixture : public LobbyFixture {
 protected:
  void configure(ref::LobbyConfig& c) override {
    c.protocols["agentprotocol"]["rate_limit_burst"] = burst;
    c.protocols["agentprotocol"]["rate_limit_per_second"] = 1;
    c.protocols["agentprotocol"]["max_sleep_ms"] = 3000;
    if (!exchange_dir.empty()) {
      c.protocols["agentprotocol"]["exchange_dir"] = exchange_dir.string();
      c.protocols["agentprotocol"]["exchange_poll_ms"] = 10;
    }
    extra(c);
  }
  virtual void extra(ref::LobbyConfig&) {}

  void SetUp() override {
    LobbyFixture::SetUp();
    reference_id = lookup_reference_id();
  }

  std::string lookup_reference_id() {
    auto r = get("/healthz");
    auto j = Json::parse(r.body);
    return j["protocols"]["agentprotocol"]["agentId"].get<std::string>();
  }

  void restart(std::set<std::string> faults) {
    start(std::move(faults));
    reference_id = lookup_reference_id();
  }

  // Every message the reference sends: valid per the schemas and signed by the reference's key.
  void expect_valid_from_reference(const Json& m) {
    auto decoded = ap::from_json(m);
    EXPECT_TRUE(decoded) << (decoded ? "" : decoded.error().describe()) << "\n" << m.dump();
    auto verified = ap::verify(m);
    EXPECT_TRUE(verified) << (verified ? "" : verified.error().describe()) << "\n" << m.dump();
    EXPECT_EQ(m.value(Json::json_pointer("/from/agentId"), std::string()), reference_id);
  }

  Json ws_exchange(net::WsClient& c, const Json& message) {
    c.send_text(message.dump());
    Json reply = next_json(c);
    expect_valid_from_reference(reply);
    return reply;
  }

  net::HttpResult post(const std::string& body) {
    auto r = net::http_request(runtime, net::HttpCall{"POST", http("/agentprotocol"), {{"content-type", "application/json"}}, body});
    EXPECT_TRUE(r) << r.error().describe();
    return r ? *r : net::HttpResult{};
  }

  int burst = 1000;
  std::filesystem::path exchange_dir;
  std::string reference_id;
};

}  // namespace ac::testing
