// Registration (reading AG-1): the ?agent_id= binding made at the upgrade, refusals, the
// AGENT_ID_TAKEN refusal of a second connection, unbinding on disconnect, the first-frame
// binding alternative and the configuration checks.
#include "tests/ref_agora/agora_fixture.hpp"

namespace ac::testing {
namespace {

class Registration : public AgoraTest {};

TEST_F(Registration, QueryParameterBindsTheIdAndNothingIsSentOnConnect) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  expect_silence(*ca, 150ms);  // no registration acknowledgement: the binding is the URL
  expect_usable(*ca, a, *cb, b);
  EXPECT_EQ(agora_status()["agents_online"], 2);
}

TEST_F(Registration, FrameSentRightAfterTheHandshakeFindsTheRecipient) {
  // The binding is made before the 101 is written, so no frame can overtake it.
  const std::string a = id("a");
  auto ca = agent(a);
  for (int i = 0; i < 20; ++i) {
    const std::string b = id("b");
    auto cb = agent(b);
    send(*ca, {{"type", "send"}, {"to", b}, {"payload", {{"i", i}}}});
    EXPECT_EQ(next_json(*cb)["payload"]["i"], i);
  }
}

TEST_F(Registration, MissingOrEmptyAgentIdIsRefusedWith400) {
  for (const char* path : {"/agora/ws", "/agora/ws?agent_id=", "/agora/ws?other=x"}) {
    auto c = net::WsClient::connect(runtime, ws(path), {});
    ASSERT_FALSE(c) << path;
    EXPECT_EQ(c.error().kind, net::ClientError::Kind::refused);
    EXPECT_EQ(c.error().status, 400);
    EXPECT_EQ(Json::parse(c.error().body)["code"], "INVALID_AGENT_ID");
  }
}

TEST_F(Registration, OverlongAndNonUtf8IdsAreRefused) {
  auto long_id = net::WsClient::connect(runtime, ws("/agora/ws?agent_id=" + std::string(257, 'x')), {});
  ASSERT_FALSE(long_id);
  EXPECT_EQ(long_id.error().status, 400);
  auto bad_utf8 = net::WsClient::connect(runtime, ws("/agora/ws?agent_id=%FF%FE"), {});
  ASSERT_FALSE(bad_utf8);
  EXPECT_EQ(bad_utf8.error().status, 400);
  const std::string tag = id("");
  auto at_limit = agent(tag + std::string(256 - tag.size(), 'y'));  // exactly 256 bytes: accepted
  ASSERT_TRUE(at_limit);
  expect_silence(*at_limit, 100ms);
  EXPECT_TRUE(at_limit->transport_open());
}

TEST_F(Registration, IdsAreDecodedFromTheQuery) {
  const std::string odd = id("agent/ä b?&=");
  auto c_odd = agent(odd);
  const std::string b = id("b");
  auto cb = agent(b);
  send(*c_odd, {{"type", "send"}, {"to", b}, {"payload", Json::object()}});
  EXPECT_EQ(next_json(*cb)["from"], odd);
  send(*cb, {{"type", "send"}, {"to", odd}, {"payload", Json::object()}});
  EXPECT_EQ(next_json(*c_odd)["from"], b);
}

TEST_F(Registration, SecondConnectionForALiveIdGetsAgentIdTakenAndClose1008) {
  const std::string a = id("a"), b = id("b");
  auto first = agent(a);
  auto cb = agent(b);
  auto second = agent(a);
  Json e = expect_error(*second, "AGENT_ID_TAKEN");
  EXPECT_FALSE(e.contains("stream_id"));
  EXPECT_EQ(next_close(*second).close_code, 1008);
  // The first connection keeps the id, during and after the refusal.
  expect_usable(*cb, b, *first, a);
  expect_usable(*first, a, *cb, b);
  expect_silence(*first, 100ms);
}

TEST_F(Registration, RefusedConnectionCannotSendAsTheId) {
  const std::string a = id("a"), b = id("b");
  auto first = agent(a);
  auto cb = agent(b);
  auto second = agent(a);
  send(*second, {{"type", "send"}, {"to", b}, {"payload", {{"spoof", true}}}});
  expect_silence(*cb, 200ms);
}

TEST_F(Registration, DisconnectRemovesTheBindingAndTheIdCanRegisterAgain) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  {
    auto cb = agent(b);
    cb->close(1000, "bye");
    next_close(*cb);
  }
  // The relay may see the close a moment after the client: poll the status.
  for (int i = 0; i < 100 && agora_status()["agents_online"] != 1; ++i) std::this_thread::sleep_for(10ms);
  send(*ca, {{"type", "send"}, {"to", b}, {"payload", Json::object()}});
  expect_error(*ca, "UNKNOWN_RECIPIENT");
  auto again = agent(b);
  expect_silence(*again, 100ms);  // not refused
  expect_usable(*ca, a, *again, b);
}

TEST_F(Registration, AbortedConnectionIsUnboundToo) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  cb->abort();
  for (int i = 0; i < 100 && agora_status()["agents_online"] != 1; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(agora_status()["agents_online"], 1);
  auto again = agent(b);
  expect_usable(*ca, a, *again, b);
}

TEST_F(Registration, MetricsCountConnectionsAndErrors) {
  const std::string a = id("a");
  auto ca = agent(a);
  send(*ca, {{"type", "send"}, {"to", id("nobody")}, {"payload", Json::object()}});
  expect_error(*ca, "UNKNOWN_RECIPIENT");
  EXPECT_GE(lobby->metrics().open_connections(proto::ProtocolId::agora), 1u);
  EXPECT_GE(lobby->metrics().errors_total(proto::ProtocolId::agora, "UNKNOWN_RECIPIENT"), 1u);
}

// --- configurable query parameter ----------------------------------------------------------

class CustomParameter : public AgoraTest {
  Json agora_section() override { return {{"binding", "query"}, {"query_parameter", "id"}}; }
};

TEST_F(CustomParameter, TheConfiguredParameterNamesTheAgent) {
  const std::string a = id("a"), b = id("b");
  auto ca = connect("/agora/ws?id=" + a);
  auto cb = connect("/agora/ws?id=" + b);
  expect_usable(*ca, a, *cb, b);
  auto wrong = net::WsClient::connect(runtime, ws("/agora/ws?agent_id=" + a), {});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().status, 400);
}

// --- first-frame binding -------------------------------------------------------------------

class FirstFrame : public AgoraTest {
  Json agora_section() override { return {{"binding", "first-frame"}}; }

 protected:
  std::shared_ptr<net::WsClient> registered(const std::string& agent_id) {
    auto c = connect("/agora/ws");
    send(*c, {{"type", "register"}, {"agent_id", agent_id}});
    Json ack = next_json(*c);
    EXPECT_EQ(ack, Json({{"type", "registered"}, {"agent_id", agent_id}}));
    return c;
  }
};

TEST_F(FirstFrame, RegisterFrameBindsAndIsAcknowledged) {
  const std::string a = id("a"), b = id("b");
  auto ca = registered(a);
  auto cb = registered(b);
  expect_usable(*ca, a, *cb, b);
}

TEST_F(FirstFrame, FramesBeforeRegisteringAreRefusedWithNotRegistered) {
  auto c = connect("/agora/ws");
  send(*c, {{"type", "send"}, {"to", "x"}, {"payload", Json::object()}});
  expect_error(*c, "NOT_REGISTERED");
  c->send_text("garbage");
  expect_error(*c, "NOT_REGISTERED");
  send(*c, {{"type", "register"}, {"agent_id", ""}});
  expect_error(*c, "INVALID_AGENT_ID");
  const std::string a = id("a");
  send(*c, {{"type", "register"}, {"agent_id", a}});
  EXPECT_EQ(next_json(*c)["type"], "registered");
}

TEST_F(FirstFrame, TakenIdIsRefusedAndTheFirstKeepsIt) {
  const std::string a = id("a"), b = id("b");
  auto first = registered(a);
  auto cb = registered(b);
  auto second = connect("/agora/ws");
  send(*second, {{"type", "register"}, {"agent_id", a}});
  expect_error(*second, "AGENT_ID_TAKEN");
  EXPECT_EQ(next_close(*second).close_code, 1008);
  expect_usable(*cb, b, *first, a);
}

TEST_F(FirstFrame, RegisterAfterRegisteringIsAnInvalidFrame) {
  const std::string a = id("a");
  auto ca = registered(a);
  send(*ca, {{"type", "register"}, {"agent_id", id("other")}});
  expect_error(*ca, "INVALID_FRAME");
}

// --- configuration -------------------------------------------------------------------------

TEST(AgoraConfig, UnknownKeysAndBadValuesAreErrorsNamingTheKey) {
  for (const auto& [section, needle] : std::vector<std::pair<Json, std::string>>{
           {{{"bindng", "query"}}, "protocols.agora.bindng"},
           {{{"binding", "cookie"}}, "protocols.agora.binding"},
           {{{"query_parameter", ""}}, "protocols.agora.query_parameter"},
           {{{"max_open_streams_per_agent", 0}}, "protocols.agora.max_open_streams_per_agent"},
           {{{"max_frame_bytes", "big"}}, "protocols.agora.max_frame_bytes"}}) {
    ref::LobbyConfig config;
    config.port = 0;
    config.protocols["agora"] = section;
    auto lobby = ref::Lobby::start(config);
    ASSERT_FALSE(lobby) << section.dump();
    EXPECT_NE(lobby.error().find(needle), std::string::npos) << lobby.error();
  }
}

}  // namespace
}  // namespace ac::testing
