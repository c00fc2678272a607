// The reference AgentProtocol agent over real WebSocket connections: hello, the demo actions,
// TIMEOUT, every error code, signatures checked before anything else, relay and broadcast.
#include "tests/ref_agentprotocol/ap_support.hpp"

namespace ac::testing {
namespace {

class ApWs : public AgentProtocolFixture {};

TEST_F(ApWs, HelloIsAnsweredWithOwnCapabilitiesAndFeatures) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  Json reply = ws_exchange(*c, a.hello(reference_id));
  EXPECT_EQ(reply["type"], "hello");
  EXPECT_EQ(reply["to"]["agentId"], a.id);
  EXPECT_EQ(reply["to"]["broadcast"], false);
  EXPECT_EQ(reply["payload"]["version"], "0.1");
  EXPECT_EQ(reply["payload"]["features"], Json::array({"signed-messages"}));
  const auto caps = reply["from"]["capabilities"];
  for (const char* cap : {"agentprotocol:core", "agentconform:echo", "agentconform:reverse", "agentconform:sum", "agentconform:sleep", "agentconform:fail"}) {
    EXPECT_NE(std::find(caps.begin(), caps.end(), Json(cap)), caps.end()) << cap;
  }
}

TEST_F(ApWs, DemoActionsAnswerWithResponsesCarryingTheCorrelationId) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  Json r = ws_exchange(*c, a.request(reference_id, "echo", {{"text", "hi"}, {"n", 1}}, "c-echo"));
  EXPECT_EQ(r["type"], "response");
  EXPECT_EQ(r["payload"]["correlationId"], "c-echo");
  EXPECT_EQ(r["payload"]["status"], "success");
  EXPECT_EQ(r["payload"]["result"], (Json{{"text", "hi"}, {"n", 1}}));
  EXPECT_EQ(r["to"]["agentId"], a.id);

  r = ws_exchange(*c, a.request(reference_id, "agentconform:reverse", {{"text", "añb€"}}, "c-rev"));
  EXPECT_EQ(r["payload"]["result"]["text"], "€bña");

  r = ws_exchange(*c, a.request(reference_id, "sum", {{"numbers", {1, 2, 3.5}}}, "c-sum"));
  EXPECT_DOUBLE_EQ(r["payload"]["result"]["sum"].get<double>(), 6.5);
  r = ws_exchange(*c, a.request(reference_id, "sum", {{"numbers", {40, 2}}}, "c-int"));
  EXPECT_EQ(r["payload"]["result"]["sum"], 42);
  EXPECT_TRUE(r["payload"]["result"]["sum"].is_number_integer());
}

TEST_F(ApWs, EveryReplyHasAFreshIdAndATimestamp) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  Json r1 = ws_exchange(*c, a.request(reference_id, "echo", Json::object(), "x1"));
  Json r2 = ws_exchange(*c, a.request(reference_id, "echo", Json::object(), "x2"));
  EXPECT_NE(r1["id"], r2["id"]);
  EXPECT_TRUE(r1["timestamp"].is_string());
}

TEST_F(ApWs, BadParamsAreInvalidMessageWithThePointer) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  Json r = ws_exchange(*c, a.request(reference_id, "sum", {{"numbers", {1, "two"}}}, "c-bad"));
  EXPECT_EQ(r["type"], "error");
  EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE");
  EXPECT_EQ(r["payload"]["correlationId"], "c-bad");
  EXPECT_EQ(r["payload"]["details"]["pointer"], "/payload/params/numbers/1");
}

TEST_F(ApWs, FailActionIsInternalError) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  Json r = ws_exchange(*c, a.request(reference_id, "fail", Json::object(), "c-fail"));
  EXPECT_EQ(r["payload"]["code"], "INTERNAL_ERROR");
  EXPECT_EQ(r["payload"]["correlationId"], "c-fail");
}

TEST_F(ApWs, UnknownActionIsCapabilityNotSupportedListingAvailable) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  Json r = ws_exchange(*c, a.request(reference_id, "code-review", Json::object(), "req-123"));
  EXPECT_EQ(r["type"], "error");
  EXPECT_EQ(r["payload"]["code"], "CAPABILITY_NOT_SUPPORTED");
  EXPECT_EQ(r["payload"]["correlationId"], "req-123");
  EXPECT_EQ(r["payload"]["details"]["requested"], "code-review");
  EXPECT_EQ(r["payload"]["details"]["available"], Json::array({"echo", "reverse", "sum", "sleep", "fail"}));
}

TEST_F(ApWs, SlowActionAnswersAfterItsDelayAndTimesOutWhenTheTimeoutIsShorter) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  c->send_text(a.request(reference_id, "sleep", {{"ms", 150}}, "slow-ok", 2000).dump());
  c->send_text(a.request(reference_id, "echo", {{"first", true}}, "fast").dump());
  // The fast request overtakes the slow one: actions run concurrently.
  Json fast = next_json(*c);
  EXPECT_EQ(fast["payload"]["correlationId"], "fast");
  Json slow = next_json(*c);
  expect_valid_from_reference(slow);
  EXPECT_EQ(slow["type"], "response");
  EXPECT_EQ(slow["payload"]["result"]["slept_ms"], 150);

  c->send_text(a.request(reference_id, "sleep", {{"ms", 600}}, "slow-late", 50).dump());
  Json t = next_json(*c);
  expect_valid_from_reference(t);
  EXPECT_EQ(t["type"], "error");
  EXPECT_EQ(t["payload"]["code"], "TIMEOUT");
  EXPECT_EQ(t["payload"]["correlationId"], "slow-late");
  expect_silence(*c, 800ms);  // the cancelled action never answers
}

TEST_F(ApWs, NotifyResponseAndErrorAreNotAnswered) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  c->send_text(a.message("notify", {{"event", "started"}}, reference_id).dump());
  c->send_text(a.message("response", {{"correlationId", "z"}, {"status", "success"}}, reference_id).dump());
  c->send_text(a.message("error", {{"code", "TIMEOUT"}, {"message", "late"}}, reference_id).dump());
  expect_silence(*c);
}

TEST_F(ApWs, SignatureIsCheckedBeforeAnythingElse) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  auto other = MockAgent::make();
  // A bad-signature request to a real action: refused, not executed (no response, no delay).
  Json unsigned_req = a.unsigned_message("request", {{"action", "sleep"}, {"correlationId", "sig-1"}, {"params", {{"ms", 200}}}},
                                         reference_id);
  Json tampered = a.sign(unsigned_req);
  tampered["payload"]["params"]["ms"] = 1;
  Json r = ws_exchange(*c, tampered);
  EXPECT_EQ(r["payload"]["code"], "INVALID_SIGNATURE");
  EXPECT_EQ(r["payload"]["correlationId"], "sig-1");
  EXPECT_EQ(r["payload"]["details"]["reason"], "signature-mismatch");

  Json foreign = other.sign(unsigned_req);  // signed by a key other than from.agentId
  EXPECT_EQ(ws_exchange(*c, foreign)["payload"]["code"], "INVALID_SIGNATURE");

  r = ws_exchange(*c, unsigned_req);  // no signature: the reference requires one
  EXPECT_EQ(r["payload"]["code"], "INVALID_SIGNATURE");
  EXPECT_EQ(r["payload"]["details"]["reason"], "missing-signature");

  // A malformed message with a bad signature is INVALID_SIGNATURE: the signature comes first.
  Json malformed = a.unsigned_message("request", {{"correlationId", "sig-2"}}, reference_id);
  malformed["signature"] = std::string(86, 'A') + "==";
  EXPECT_EQ(ws_exchange(*c, malformed)["payload"]["code"], "INVALID_SIGNATURE");
  expect_silence(*c, 400ms);
}

class ApWsOptionalSignatures : public AgentProtocolFixture {
 protected:
  void extra(ref::LobbyConfig& c) override { c.protocols["agentprotocol"]["require_signature"] = false; }
};

TEST_F(ApWsOptionalSignatures, UnsignedMessagesAreAcceptedButPresentSignaturesStillCount) {
  auto ws = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  Json r = ws_exchange(*ws, a.unsigned_message("request", {{"action", "echo"}, {"correlationId", "u"}}, reference_id));
  EXPECT_EQ(r["type"], "response");
  Json bad = a.sign(a.unsigned_message("request", {{"action", "echo"}, {"correlationId", "b"}}, reference_id));
  bad["payload"]["action"] = "reverse";
  EXPECT_EQ(ws_exchange(*ws, bad)["payload"]["code"], "INVALID_SIGNATURE");
}

TEST_F(ApWs, InvalidMessagesGetInvalidMessageWithPointerAndRule) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  Json r = ws_exchange(*c, Json::parse("{}"));
  EXPECT_EQ(r["payload"]["code"], "INVALID_SIGNATURE");  // no signature at all: refused first

  c->send_text("{not json");
  r = next_json(*c);
  expect_valid_from_reference(r);
  EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE");
  EXPECT_EQ(r["to"]["agentId"], "unknown");

  c->send_text(R"({"a":1,"a":2})");
  r = next_json(*c);
  EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE");
  EXPECT_EQ(r["payload"]["details"]["rule"], "json.duplicate-key");

  c->send_text("[1,2]");
  EXPECT_EQ(next_json(*c)["payload"]["code"], "INVALID_MESSAGE");

  c->send_binary("\x01\x02");
  r = next_json(*c);
  EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE");
  EXPECT_EQ(r["payload"]["details"]["rule"], "binary-frame");

  Json no_action = a.message("request", {{"correlationId", "c-na"}}, reference_id);
  r = ws_exchange(*c, no_action);
  EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE");
  EXPECT_EQ(r["payload"]["correlationId"], "c-na");
  EXPECT_EQ(r["payload"]["details"]["pointer"], "/payload/action");
  EXPECT_EQ(r["payload"]["details"]["rule"], "required");
  EXPECT_EQ(r["to"]["agentId"], a.id);

  Json unknown_type = a.message("ping", Json::object(), reference_id);
  EXPECT_EQ(ws_exchange(*c, unknown_type)["payload"]["code"], "INVALID_MESSAGE");

  Json extra = a.unsigned_message("notify", Json::object(), reference_id);
  extra["priority"] = "high";  // top level is closed (AP-5)
  r = ws_exchange(*c, a.sign(extra));
  EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE");
  EXPECT_EQ(r["payload"]["details"]["rule"], "additionalProperties");

  Json custom = a.unsigned_message("request", {{"action", "echo"}, {"correlationId", "m"}, {"custom", 1}}, reference_id);
  custom["metadata"] = {{"priority", "high"}};
  EXPECT_EQ(ws_exchange(*c, a.sign(custom))["type"], "response");  // payload and metadata are open
  EXPECT_TRUE(c->transport_open());
}

TEST_F(ApWs, ProtocolOtherThanZeroOneAndUnsupportedHelloVersionsAreRefused) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  for (const char* proto : {"agentprotocol/0.2", "agentprotocol/1.0", "AgentProtocol/0.1"}) {
    Json m = a.unsigned_message("request", {{"action", "echo"}, {"correlationId", "v"}}, reference_id);
    m["protocol"] = proto;
    Json r = ws_exchange(*c, a.sign(m));
    EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE") << proto;
    EXPECT_EQ(r["payload"]["details"]["pointer"], "/protocol") << proto;
  }
  Json r = ws_exchange(*c, a.hello(reference_id, "1.0"));
  EXPECT_EQ(r["type"], "error");
  EXPECT_EQ(r["payload"]["code"], "INVALID_MESSAGE");
  EXPECT_EQ(r["payload"]["details"]["pointer"], "/payload/version");
  EXPECT_EQ(r["payload"]["details"]["supported"], Json::array({"0.1"}));
  EXPECT_EQ(ws_exchange(*c, a.hello(reference_id, "0.1"))["type"], "hello");
}

TEST_F(ApWs, MessageForAnUnknownAgentIsUnknownAgent) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  auto nobody = MockAgent::make();
  Json r = ws_exchange(*c, a.request(nobody.id, "echo", Json::object(), "u-1"));
  EXPECT_EQ(r["payload"]["code"], "UNKNOWN_AGENT");
  EXPECT_EQ(r["payload"]["correlationId"], "u-1");
  EXPECT_EQ(r["payload"]["details"]["agentId"], nobody.id);
}

TEST_F(ApWs, RelayForwardsByToAgentIdUnchanged) {
  auto ca = connect("/agentprotocol/ws");
  auto cb = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  auto b = MockAgent::make();
  ws_exchange(*cb, b.hello(reference_id));  // b's first verified message binds it to its connection
  ws_exchange(*ca, a.hello(reference_id));
  Json m = a.request(b.id, "translate", {{"text", "hallo"}}, "relay-1");
  m["metadata"] = {{"custom-field", "value"}};
  m = a.sign(m);
  ca->send_text(m.dump());
  Json got = next_json(*cb);
  EXPECT_EQ(got, m);  // same message, signature intact
  EXPECT_TRUE(ap::verify(got));
  expect_silence(*ca);
  // b answers through the relay.
  Json answer = b.message("response", {{"correlationId", "relay-1"}, {"status", "success"}}, a.id);
  cb->send_text(answer.dump());
  EXPECT_EQ(next_json(*ca), answer);
}

TEST_F(ApWs, BroadcastReachesEveryOtherConnectedAgent) {
  auto ca = connect("/agentprotocol/ws");
  auto cb = connect("/agentprotocol/ws");
  auto cc = connect("/agentprotocol/ws");
  auto a = MockAgent::make(), b = MockAgent::make(), cagent = MockAgent::make();
  ws_exchange(*ca, a.hello(reference_id));
  ws_exchange(*cb, b.hello(reference_id));
  ws_exchange(*cc, cagent.hello(reference_id));
  Json n = a.message("notify", {{"event", "hello everyone"}}, "*", /*broadcast=*/true);
  ca->send_text(n.dump());
  EXPECT_EQ(next_json(*cb), n);
  EXPECT_EQ(next_json(*cc), n);
  expect_silence(*ca);  // not echoed to the sender, and a notify gets no answer
}

TEST_F(ApWs, DisconnectedAgentIsUnknownAgain) {
  auto ca = connect("/agentprotocol/ws");
  auto a = MockAgent::make(), b = MockAgent::make();
  {
    auto cb = connect("/agentprotocol/ws");
    ws_exchange(*cb, b.hello(reference_id));
    cb->close(1000, "bye");
    for (int i = 0; i < 100 && cb->transport_open(); ++i) std::this_thread::sleep_for(10ms);
  }
  for (int i = 0; i < 100; ++i) {
    auto r = get("/healthz");
    if (Json::parse(r.body)["protocols"]["agentprotocol"]["connected_agents"] == 0) break;
    std::this_thread::sleep_for(10ms);
  }
  Json r = ws_exchange(*ca, a.message("notify", Json::object(), b.id));
  EXPECT_EQ(r["payload"]["code"], "UNKNOWN_AGENT");
}

TEST_F(ApWs, ReplayedMessageDoesNotTakeOverAnotherAgentsRoute) {
  auto ca = connect("/agentprotocol/ws");
  auto cb = connect("/agentprotocol/ws");
  auto cm = connect("/agentprotocol/ws");  // a mallory that replays b's signed hello
  auto a = MockAgent::make(), b = MockAgent::make();
  Json b_hello = b.hello(reference_id);
  ws_exchange(*cb, b_hello);
  ws_exchange(*cm, b_hello);
  ws_exchange(*ca, a.hello(reference_id));
  Json m = a.message("notify", {{"secret", 1}}, b.id);
  ca->send_text(m.dump());
  EXPECT_EQ(next_json(*cb), m);
  expect_silence(*cm);
}

class ApWsRateLimited : public AgentProtocolFixture {
 protected:
  void extra(ref::LobbyConfig& c) override { c.protocols["agentprotocol"]["rate_limit_burst"] = 5; }
};

TEST_F(ApWsRateLimited, MessagesBeyondTheBurstAreRateLimitedPerSender) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  auto b = MockAgent::make();
  for (int i = 0; i < 5; ++i) c->send_text(a.message("notify", {{"i", i}}, reference_id).dump());
  c->send_text(a.request(reference_id, "echo", Json::object(), "over").dump());
  Json r = next_json(*c);
  expect_valid_from_reference(r);
  EXPECT_EQ(r["payload"]["code"], "RATE_LIMITED");
  EXPECT_EQ(r["payload"]["correlationId"], "over");
  EXPECT_GT(r["payload"]["details"]["retryAfterMs"].get<int>(), 0);
  // Another sender on the same connection has its own budget.
  EXPECT_EQ(ws_exchange(*c, b.request(reference_id, "echo", Json::object(), "b"))["type"], "response");
}

TEST_F(ApWs, TooManyRequestsInFlightAreRefused) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  for (int i = 0; i < 16; ++i) c->send_text(a.request(reference_id, "sleep", {{"ms", 1500}}, "p" + std::to_string(i)).dump());
  Json r = ws_exchange(*c, a.request(reference_id, "sleep", {{"ms", 10}}, "p16"));
  EXPECT_EQ(r["payload"]["code"], "RATE_LIMITED");
  EXPECT_EQ(r["payload"]["correlationId"], "p16");
}

TEST_F(ApWs, ShutdownAnswersPendingRequestsWithInternalError) {
  auto c = connect("/agentprotocol/ws");
  auto a = MockAgent::make();
  c->send_text(a.request(reference_id, "sleep", {{"ms", 3000}}, "pending").dump());
  std::this_thread::sleep_for(100ms);
  std::thread stopper([&] { lobby->stop(); });
  Json r = next_json(*c);
  stopper.join();
  EXPECT_EQ(r["payload"]["code"], "INTERNAL_ERROR");
  EXPECT_EQ(r["payload"]["correlationId"], "pending");
}

TEST_F(ApWs, OversizedFrameClosesWith1009) {
  auto c = connect("/agentprotocol/ws");
  c->send_text(std::string(2 * 1024 * 1024, ' '));
  EXPECT_EQ(next_close(*c).close_code, 1009);
}

}  // namespace
}  // namespace ac::testing
