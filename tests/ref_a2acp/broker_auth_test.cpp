// The broker's front door over real WebSocket connections: attachment (?agent_id=, optional
// token, first message), decoding errors (SCHEMA_MISMATCH, AUTH_FAILED at /security), and the
// five token validation rules applied before anything is routed: the target never sees a
// message whose token fails.
#include "tests/ref_a2acp/a2acp_fixture.hpp"

namespace ac::testing {
namespace {

class BrokerAuth : public A2acpLobby {
 protected:
  void SetUp() override {
    A2acpLobby::SetUp();
    src = attach("source-agent");
    dst = attach("target-agent");
  }

  // Sends a handshake for provision_test_dataset carrying `token`; expects AUTH_FAILED and that
  // the target is never contacted. Returns payload.error.
  Json refused(const std::string& token, std::optional<int> rule = std::nullopt) {
    auto m = a2::make_initiate_handshake(src.id, broker(), token, "target-agent", "provision_test_dataset");
    src.send(m);
    Json e = expect_error(src, "AUTH_FAILED");
    if (rule) {
      EXPECT_EQ(e.value("/details/rule"_json_pointer, 0), *rule) << e.dump();
    }
    expect_silence(*dst.ws);
    return e;
  }

  Json good_claims() { return claims("source-agent", kBroker, {"read:datasets"}); }

  A2Agent src, dst;
};

TEST_F(BrokerAuth, ValidTokenReachesTheTarget) {
  src.send(handshake(src, "target-agent", "provision_test_dataset"));
  Json offer = next(dst);
  EXPECT_EQ(offer["intent"], "accept_handshake");
  EXPECT_EQ(offer["message_type"], "request");
}

TEST_F(BrokerAuth, Rule1BadSignatureIsRefused) {
  Json e = refused(mint(good_claims(), "another-secret-of-32-bytes-at-least-xyz"), 1);
  EXPECT_EQ(e["details"]["reason"], "signature");
  // A token whose claims were altered after signing.
  std::string t = mint(good_claims());
  const auto d1 = t.find('.'), d2 = t.rfind('.');
  Json tampered = good_claims();
  tampered["capabilities"] = {"read:datasets", "admin"};
  t = t.substr(0, d1 + 1) + jwt_segment(tampered.dump()) + t.substr(d2);
  refused(t, 1);
}

TEST_F(BrokerAuth, Rule1AlgNoneIsRefused) {
  Json e = refused(unsigned_token(good_claims()), 1);
  EXPECT_NE(e["message"].get<std::string>().find("alg"), std::string::npos);
}

TEST_F(BrokerAuth, Rule2ExpiredTokenIsRefused) {
  Json c = good_claims();
  c["iat"] = now() - 100;
  c["exp"] = now() - 10;
  Json e = refused(mint(c), 2);
  EXPECT_EQ(e["details"]["reason"], "expired");
}

TEST_F(BrokerAuth, Rule3AudienceMustBeTheTargetAgent) {
  // A token for the target agent used on a message addressed to the broker.
  Json e = refused(token("source-agent", "target-agent", {"read:datasets"}), 3);
  EXPECT_EQ(e["details"]["reason"], "audience");
}

TEST_F(BrokerAuth, Rule4CapabilitiesOfTheIntentAreRequired) {
  Json e = refused(token("source-agent", kBroker, {"write:test_scenarios"}), 4);
  EXPECT_NE(e["message"].get<std::string>().find("read:datasets"), std::string::npos);
}

TEST_F(BrokerAuth, Rule5IssuerMustBeTheAuthService) {
  Json c = good_claims();
  c["iss"] = "someone-else";
  Json e = refused(mint(c), 5);
  EXPECT_EQ(e["details"]["reason"], "issuer");
}

TEST_F(BrokerAuth, MissingClaimOrGarbageIsRefused) {
  Json c = good_claims();
  c.erase("domain");
  refused(mint(c));
  refused("not-a-jwt");
  refused("");
  refused("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...");  // the spec's truncated example
}

TEST_F(BrokerAuth, SubjectMustBeTheSourceAgent) {
  Json e = refused(token("other-agent", kBroker, {"read:datasets"}));
  EXPECT_EQ(e["details"]["reason"], "subject");
}

TEST_F(BrokerAuth, SubjectCheckCanBeTurnedOff) {
  section["require_sub_match"] = false;
  restart();
  src = attach("source-agent");
  dst = attach("target-agent");
  src.send(a2::make_initiate_handshake(src.id, broker(), token("other-agent", kBroker, {"read:datasets"}), "target-agent",
                                        "provision_test_dataset"));
  EXPECT_EQ(next(dst)["intent"], "accept_handshake");
}

TEST_F(BrokerAuth, MissingSecurityIsAuthFailedAtSecurity) {
  Json m = a2::to_json(handshake(src, "target-agent", "provision_test_dataset"));
  m.erase("security");
  src.send(m);
  Json e = expect_error(src, "AUTH_FAILED");
  EXPECT_EQ(e["details"]["pointer"], "/security");
  m["security"] = {{"encryption", "none"}};
  src.send(m);
  EXPECT_EQ(expect_error(src, "AUTH_FAILED")["details"]["pointer"], "/security/auth_token");
  m["security"] = {{"auth_token", token("source-agent", kBroker, {"read:datasets"})}, {"encryption", "rot13"}};
  src.send(m);
  EXPECT_EQ(expect_error(src, "AUTH_FAILED")["details"]["pointer"], "/security/encryption");
  expect_silence(*dst.ws);
}

TEST_F(BrokerAuth, DecodingErrorsAreSchemaMismatchAndTheConnectionStays) {
  Json good = a2::to_json(handshake(src, "target-agent", "provision_test_dataset"));
  struct Case {
    std::string frame;
    std::string pointer;
  };
  std::vector<Case> cases = {{"not json", ""}, {"[1,2,3]", ""}, {R"({"a":1,"a":2})", ""}};
  auto bent = [&](const std::function<void(Json&)>& f, const std::string& pointer) {
    Json j = good;
    f(j);
    cases.push_back({j.dump(), pointer});
  };
  bent([](Json& j) { j.erase("message_id"); }, "/message_id");
  bent([](Json& j) { j["message_id"] = "770g0600-g40d-63f6-c938-668877662222"; }, "/message_id");  // the spec's error example id
  bent([](Json& j) { j["timestamp"] = "yesterday"; }, "/timestamp");
  bent([](Json& j) { j["message_type"] = "command"; }, "/message_type");
  bent([](Json& j) { j["source_agent"]["version"] = "1.2"; }, "/source_agent/version");
  bent([](Json& j) { j["payload"].erase("requested_intent"); }, "/payload/requested_intent");
  bent([](Json& j) { j["payload"] = "x"; }, "/payload");
  for (const auto& c : cases) {
    src.ws->send_text(c.frame);
    Json e = expect_error(src, "SCHEMA_MISMATCH");
    if (!c.pointer.empty()) {
      EXPECT_EQ(e.value("/details/pointer"_json_pointer, std::string("?")), c.pointer) << c.frame;
    }
  }
  src.ws->send_binary(std::string("\x00\x01\x02", 3));
  EXPECT_EQ(expect_error(src, "SCHEMA_MISMATCH")["details"]["rule"], "frame.binary");
  expect_silence(*dst.ws);
  EXPECT_TRUE(src.ws->transport_open());
  // Still usable.
  src.send(handshake(src, "target-agent", "provision_test_dataset"));
  EXPECT_EQ(next(dst)["intent"], "accept_handshake");
}

TEST_F(BrokerAuth, ErrorsEchoIntentCorrelationAndSender) {
  Json m = a2::to_json(handshake(src, "target-agent", "provision_test_dataset"));
  m["payload"]["correlation_id"] = "corr-1";
  m["security"]["auth_token"] = "bad";
  src.send(m);
  Json j = next(src);
  EXPECT_EQ(j["intent"], "initiate_handshake");
  EXPECT_EQ(j["payload"]["error"]["correlation_id"], "corr-1");
  EXPECT_EQ(j["target_agent"], m["source_agent"]);
  EXPECT_EQ(j["source_agent"], Json({{"agent_id", kBroker}, {"domain", "a_domain"}, {"version", "1.0.0"}}));
}

TEST_F(BrokerAuth, AConnectionSpeaksOnlyForItsAgent) {
  auto m = a2::make_initiate_handshake(identity("other-agent"), broker(), token("other-agent", kBroker, {"read:datasets"}),
                                       "target-agent", "provision_test_dataset");
  src.send(m);
  Json e = expect_error(src, "AUTH_FAILED");
  EXPECT_EQ(e["details"]["attached_agent_id"], "source-agent");
  expect_silence(*dst.ws);
}

TEST_F(BrokerAuth, SecondConnectionForALiveAgentIsRefused) {
  auto c = net::WsClient::connect(runtime, ws("/a2acp/ws?agent_id=source-agent"), {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().status, 409);
  EXPECT_NE(c.error().body.find("AUTH_FAILED"), std::string::npos);
}

TEST_F(BrokerAuth, AnonymousConnectionAttachesWithItsFirstAuthenticatedMessage) {
  auto anon = connect("/a2acp/ws");
  A2Agent other{identity("other-agent"), anon};
  EXPECT_FALSE(online("other-agent"));
  other.send(a2::make_initiate_handshake(other.id, broker(), token("other-agent", kBroker), "target-agent", "echo"));
  EXPECT_EQ(next(dst)["intent"], "accept_handshake");
  EXPECT_TRUE(online("other-agent"));
  // Now bound: it cannot speak for someone else.
  other.send(a2::make_initiate_handshake(identity("stranger"), broker(), token("stranger", kBroker), "target-agent", "echo"));
  expect_error(other, "AUTH_FAILED");
}

TEST_F(BrokerAuth, AnonymousConnectionCannotClaimALiveAgent) {
  auto anon = connect("/a2acp/ws");
  A2Agent imp{identity("source-agent"), anon};
  imp.send(handshake(imp, "target-agent", "echo"));
  EXPECT_NE(expect_error(imp, "AUTH_FAILED")["message"].get<std::string>().find("already attached"), std::string::npos);
  expect_silence(*dst.ws);
}

TEST_F(BrokerAuth, UnlistedAgentsCanBeRefused) {
  section["allow_unlisted_agents"] = false;
  restart();
  auto c = net::WsClient::connect(runtime, ws("/a2acp/ws?agent_id=stranger"), {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().status, 403);
  auto anon = connect("/a2acp/ws");
  A2Agent s{identity("stranger"), anon};
  s.send(a2::make_initiate_handshake(s.id, broker(), mint(claims("stranger", kBroker)), "target-agent", "echo"));
  expect_error(s, "AUTH_FAILED");
}

TEST_F(BrokerAuth, AttachTokenWhenRequired) {
  section["require_attach_token"] = true;
  restart();
  auto no_token = net::WsClient::connect(runtime, ws("/a2acp/ws?agent_id=source-agent"), {});
  ASSERT_FALSE(no_token);
  EXPECT_EQ(no_token.error().status, 401);
  auto anonymous = net::WsClient::connect(runtime, ws("/a2acp/ws"), {});
  ASSERT_FALSE(anonymous);
  EXPECT_EQ(anonymous.error().status, 401);
  auto wrong_sub = net::WsClient::connect(runtime, ws("/a2acp/ws?agent_id=source-agent&token=" + token("other-agent", kBroker)), {});
  ASSERT_FALSE(wrong_sub);
  EXPECT_EQ(wrong_sub.error().status, 401);
  auto wrong_aud = net::WsClient::connect(runtime, ws("/a2acp/ws?agent_id=source-agent&token=" + token("source-agent", "target-agent")), {});
  ASSERT_FALSE(wrong_aud);
  EXPECT_EQ(wrong_aud.error().status, 401);
  auto ok = net::WsClient::connect(runtime, ws("/a2acp/ws?agent_id=source-agent&token=" + token("source-agent", kBroker)), {});
  ASSERT_TRUE(ok) << ok.error().describe();
  wait_for([&] { return online("source-agent"); });
  // The Authorization header works too.
  net::WsConnectOptions o;
  o.headers.emplace("authorization", "Bearer " + token("target-agent", kBroker));
  auto header = net::WsClient::connect(runtime, ws("/a2acp/ws?agent_id=target-agent"), o);
  ASSERT_TRUE(header) << header.error().describe();
}

TEST_F(BrokerAuth, TheBrokersOwnIdCannotAttach) {
  auto c = net::WsClient::connect(runtime, ws(std::string("/a2acp/ws?agent_id=") + kBroker), {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().status, 403);
}

TEST_F(BrokerAuth, DirectoryEndpointShowsAgentsAndAttachment) {
  auto r = get("/a2acp/agents");
  ASSERT_EQ(r.status, 200);
  Json j = Json::parse(r.body);
  EXPECT_EQ(j["broker"]["agent_id"], kBroker);
  bool saw_target = false;
  for (const auto& a : j["agents"]) {
    if (a["agent_id"] == "target-agent") {
      saw_target = true;
      EXPECT_TRUE(a["online"].get<bool>());
      EXPECT_TRUE(a["intents"].contains("provision_test_dataset"));
      EXPECT_EQ(a["intents"]["provision_test_dataset"]["required_capabilities"], Json::array({"read:datasets"}));
    }
    if (a["agent_id"] == "remote-agent") {
      EXPECT_FALSE(a["online"].get<bool>());
    }
  }
  EXPECT_TRUE(saw_target);
  dst.ws->close(1000, "bye");
  wait_for([&] { return !online("target-agent"); });
}

TEST_F(BrokerAuth, FailuresAreCountedInMetrics) {
  refused("garbage");
  EXPECT_GE(lobby->metrics().errors_total(proto::ProtocolId::a2acp, "AUTH_FAILED"), 1u);
  auto m = get("/metrics");
  EXPECT_NE(m.body.find("AUTH_FAILED"), std::string::npos);
}

}  // namespace
}  // namespace ac::testing
