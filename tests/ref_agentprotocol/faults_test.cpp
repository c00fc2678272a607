// Every fault of reference/agentprotocol/faults.json changes what the reference does on the
// wire: each test asserts the faulty behaviour with the fault on (the correct behaviour is what
// agent_ws_test.cpp asserts without it).
#include "reference/core/faults.hpp"
#include "tests/ref_agentprotocol/ap_support.hpp"

namespace ac::testing {
namespace {

class ApFaults : public AgentProtocolFixture {
 protected:
  std::shared_ptr<net::WsClient> with_fault(const std::string& fault) {
    restart({fault});
    return connect("/agentprotocol/ws");
  }
  Json exchange(net::WsClient& c, const Json& m) {
    c.send_text(m.dump());
    return next_json(c);
  }
};

TEST_F(ApFaults, CatalogueListsTwelveFaultsWithKnownSuites) {
  std::size_t n = 0;
  for (const auto& f : ref::FaultCatalog::builtin().all()) {
    if (f.protocol != "agentprotocol" || f.kind != "rule") continue;  // planted bugs: tests/fuzz/
    ++n;
    EXPECT_FALSE(f.breaks.empty()) << f.name;
  }
  EXPECT_EQ(n, 13u);
}

TEST_F(ApFaults, CoerceWrongTypesExecutesARequestWithATimeoutGivenAsAString) {
  auto c = with_fault("agentprotocol.schema.coerce-wrong-types");
  auto a = MockAgent::make();
  Json m = a.unsigned_message("request", {{"action", "echo"}, {"correlationId", "lax"}, {"params", {{"v", 1}}}, {"timeout", "1000"}},
                              reference_id);
  Json r = exchange(*c, a.sign(std::move(m)));
  EXPECT_EQ(r["type"], "response") << r.dump();  // the faithful agent answers INVALID_MESSAGE (AP-GEN cases)
}

TEST_F(ApFaults, SkipVerifyExecutesATamperedRequest) {
  auto c = with_fault("agentprotocol.signature.skip-verify");
  auto a = MockAgent::make();
  Json m = a.request(reference_id, "echo", {{"v", 1}}, "t");
  m["payload"]["params"]["v"] = 2;
  Json r = exchange(*c, m);
  EXPECT_EQ(r["type"], "response");
  EXPECT_EQ(r["payload"]["result"]["v"], 2);
  EXPECT_EQ(exchange(*c, a.unsigned_message("request", {{"action", "echo"}, {"correlationId", "u"}}, reference_id))["type"], "response");
}

TEST_F(ApFaults, HelloWithoutCapabilities) {
  auto c = with_fault("agentprotocol.hello.no-capabilities");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.hello(reference_id));
  expect_valid_from_reference(r);
  EXPECT_EQ(r["type"], "hello");
  EXPECT_EQ(r["from"]["capabilities"], Json::array());
  // It still serves the actions it no longer advertises.
  EXPECT_EQ(exchange(*c, a.request(reference_id, "echo", Json::object(), "e"))["type"], "response");
}

TEST_F(ApFaults, RepliesUnsigned) {
  auto c = with_fault("agentprotocol.reply.unsigned");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.hello(reference_id));
  EXPECT_EQ(r["type"], "hello");
  EXPECT_FALSE(r.contains("signature"));
  EXPECT_TRUE(ap::from_json(r));  // still schema-valid: signature is optional
}

TEST_F(ApFaults, RepliesSignedByAnotherKey) {
  auto c = with_fault("agentprotocol.reply.bad-signature");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.hello(reference_id));
  EXPECT_EQ(r["from"]["agentId"], reference_id);
  ASSERT_TRUE(r.contains("signature"));
  auto v = ap::verify(r);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().reason, ap::SignatureFailure::signature_mismatch);
}

TEST_F(ApFaults, AcceptsAnyProtocolString) {
  auto c = with_fault("agentprotocol.version.accept-any");
  auto a = MockAgent::make();
  Json m = a.unsigned_message("request", {{"action", "echo"}, {"correlationId", "p"}}, reference_id);
  m["protocol"] = "agentprotocol/0.2";
  EXPECT_EQ(exchange(*c, a.sign(m))["type"], "response");
}

TEST_F(ApFaults, AcceptsAnyHelloVersion) {
  auto c = with_fault("agentprotocol.hello.accept-any-version");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.hello(reference_id, "9.9"));
  EXPECT_EQ(r["type"], "hello");
}

TEST_F(ApFaults, WrongCodeForUnsupportedAction) {
  auto c = with_fault("agentprotocol.error.wrong-code");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.request(reference_id, "translate", Json::object(), "w"));
  EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE");
}

TEST_F(ApFaults, ErrorsWithoutCorrelationId) {
  auto c = with_fault("agentprotocol.error.no-correlation-id");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.request(reference_id, "translate", Json::object(), "w"));
  expect_valid_from_reference(r);
  EXPECT_EQ(r["payload"]["code"], "CAPABILITY_NOT_SUPPORTED");
  EXPECT_FALSE(r["payload"].contains("correlationId"));
}

TEST_F(ApFaults, TimeoutIgnored) {
  auto c = with_fault("agentprotocol.timeout.ignored");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.request(reference_id, "sleep", {{"ms", 200}}, "late", 20));
  EXPECT_EQ(r["type"], "response");
  EXPECT_EQ(r["payload"]["correlationId"], "late");
}

TEST_F(ApFaults, ResponseWithWrongCorrelationId) {
  auto c = with_fault("agentprotocol.response.wrong-correlation-id");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.request(reference_id, "echo", Json::object(), "mine"));
  expect_valid_from_reference(r);
  EXPECT_EQ(r["type"], "response");
  EXPECT_NE(r["payload"]["correlationId"], "mine");
}

TEST_F(ApFaults, NotifyAnswered) {
  auto c = with_fault("agentprotocol.notify.answered");
  auto a = MockAgent::make();
  Json r = exchange(*c, a.message("notify", {{"x", 1}}, reference_id));
  expect_valid_from_reference(r);
  EXPECT_EQ(r["type"], "response");
}

TEST_F(ApFaults, BroadcastIgnored) {
  auto ca = with_fault("agentprotocol.relay.broadcast-ignored");
  auto cb = connect("/agentprotocol/ws");
  auto a = MockAgent::make(), b = MockAgent::make();
  ws_exchange(*ca, a.hello(reference_id));
  ws_exchange(*cb, b.hello(reference_id));
  ca->send_text(a.message("notify", {{"all", true}}, "*", true).dump());
  expect_silence(*cb, 400ms);
  // Directed relaying still works.
  Json m = a.message("notify", {{"one", true}}, b.id);
  ca->send_text(m.dump());
  EXPECT_EQ(next_json(*cb), m);
}

}  // namespace
}  // namespace ac::testing
