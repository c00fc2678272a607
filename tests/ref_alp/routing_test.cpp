// Agent-to-agent routing (§5 receiver_id, §7.3.1, §10.1 step 6, §11 payloads unaltered, §12
// custom types): delivery byte for byte, every receiver refusal, auth_token stripping.
#include "tests/ref_alp/alp_fixture.hpp"

namespace ac::testing {
namespace {

using Routing = AlpLobby;

TEST_F(Routing, DirectMessageIsDeliveredUnchangedAndNotAnswered) {
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  Json content = {{"text", "héllo ✓"}, {"n", 1.5}, {"list", {1, nullptr, "x"}}, {"nested", {{"deep", {{"er", true}}}}}};
  alp::Message dm = alp::make_direct_message(a.id, b.id, "application/json", content);
  dm.envelope.conversation_id = proto::typed::new_uuid_v4();
  dm.envelope.metadata = Json{{"trace_id", "t-1"}};
  a.send(dm);
  Json got = next(b);
  EXPECT_EQ(got, alp::to_json(dm));  // the whole message, message_id and conversation_id included
  EXPECT_EQ(got["sender_id"], a.id);
  expect_silence(*a.ws);  // §10.1 step 6: no response is mandated
  EXPECT_GE(lobby->metrics().routed_total(proto::ProtocolId::alp), 1u);
}

TEST_F(Routing, ContentOfAnyJsonTypeIsRouted) {
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  for (Json content : {Json("plain"), Json(nullptr), Json(42), Json::array({1, 2}), Json(false)}) {
    a.send(alp::make_direct_message(a.id, b.id, "text/plain", content));
    EXPECT_EQ(next(b)["payload"]["content"], content);
  }
}

TEST_F(Routing, UnknownReceiverIsReceiverNotFound) {
  Agent a = agent("agent-a");
  alp::Message dm = alp::make_direct_message(a.id, "agent-nobody", "text/plain", "hi");
  dm.envelope.conversation_id = proto::typed::new_uuid_v4();
  a.send(dm);
  Json e = expect_error(a, "RECEIVER_NOT_FOUND", dm.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["receiver_id"], "agent-nobody");
}

TEST_F(Routing, RegisteredButNeverConnectedIsReceiverUnavailable) {
  Agent a = agent("agent-a");
  register_ok("agent-sleeping");
  a.send(alp::make_direct_message(a.id, "agent-sleeping", "text/plain", "hi"));
  expect_error(a, "RECEIVER_UNAVAILABLE");
}

TEST_F(Routing, AgentsCannotBroadcastOrWriteToTheLobby) {
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  a.send(alp::make_direct_message(a.id, "BROADCAST_ALL", "text/plain", "everyone!"));
  expect_error(a, "ACCESS_DENIED");
  a.send(alp::make_direct_message(a.id, a.lobby_id, "text/plain", "hello lobby"));
  expect_error(a, "INVALID_MESSAGE_TYPE");
  expect_silence(*b.ws);
}

TEST_F(Routing, AnAgentMayWriteToItself) {
  Agent a = agent("agent-self");
  a.send(alp::make_direct_message(a.id, a.id, "text/plain", "note to self"));
  EXPECT_EQ(next(a)["payload"]["content"], "note to self");
}

TEST_F(Routing, AuthTokenIsNeverForwarded) {
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  alp::Message dm = alp::make_direct_message(a.id, b.id, "text/plain", "secret inside");
  dm.envelope.auth_token = a.token;
  a.send(dm);
  Json got = next(b);
  EXPECT_FALSE(got.contains("auth_token"));
  EXPECT_EQ(got["message_id"], dm.envelope.message_id);
  EXPECT_EQ(got["payload"]["content"], "secret inside");
}

TEST_F(Routing, PingAndPongBetweenAgentsAreRouted) {
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  alp::Message ping = alp::make_ping(a.id, b.id, "agent-nonce");
  a.send(ping);
  Json got = next(b);
  EXPECT_EQ(got["message_type"], "PING");
  EXPECT_EQ(got["sender_id"], a.id);
  alp::Message pong = alp::make_pong(alp::from_json(got).value(), b.id);
  b.send(pong);
  EXPECT_EQ(next(a)["payload"]["nonce"], "agent-nonce");
}

TEST_F(Routing, CustomTypesAreRoutedWhenConfigured) {
  alp_config["route_custom_message_types"] = true;
  restart();
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  Json custom = raw(a.id, b.id, "X_MYAPP_CUSTOM_EVENT", {{"anything", {1, 2, 3}}});
  custom["auth_token"] = a.token;
  a.send(custom);
  validate_frames = false;  // a custom type is unknown to schemas/alp by definition
  Json got = next(b);
  custom.erase("auth_token");
  EXPECT_EQ(got, custom);
  validate_frames = true;
  // The envelope is still checked, and so is the sender.
  Json spoofed = raw(b.id, b.id, "X_MYAPP_CUSTOM_EVENT", Json::object());
  a.send(spoofed);
  expect_error(a, "ACCESS_DENIED");
  Json broken = raw(a.id, b.id, "X_MYAPP_CUSTOM_EVENT", Json::object());
  broken.erase("timestamp");
  a.send(broken);
  expect_error(a, "MISSING_REQUIRED_FIELD");
  a.send(raw(a.id, "agent-nobody", "X_MYAPP_CUSTOM_EVENT", Json::object()));
  expect_error(a, "RECEIVER_NOT_FOUND");
  // Unknown types without the X_ namespace stay invalid.
  a.send(raw(a.id, b.id, "MYAPP_EVENT", Json::object()));
  expect_error(a, "INVALID_MESSAGE_TYPE");
}

TEST_F(Routing, OneBadConnectionDoesNotAffectAnother) {
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  Agent noisy = agent("agent-noisy");
  for (int i = 0; i < 20; ++i) noisy.ws->send_text("{garbage " + std::to_string(i));
  a.send(alp::make_direct_message(a.id, b.id, "text/plain", "unaffected"));
  EXPECT_EQ(next(b)["payload"]["content"], "unaffected");
  for (int i = 0; i < 20; ++i) expect_error(noisy, "MESSAGE_MALFORMED");
}

}  // namespace
}  // namespace ac::testing
