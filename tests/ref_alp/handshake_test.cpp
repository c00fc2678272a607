// GET /ws/connect (§4.2, §6 steps 2-3, 8): the token and agent_id of the query decide the
// upgrade (401/403 with an §8.2 error body), sessions are one per agent, tokens are reusable
// until they expire, and a token that expires during a session ends it.
#include "tests/ref_alp/alp_fixture.hpp"

namespace ac::testing {
namespace {

using Handshake = AlpLobby;

// Asserts that the upgrade was refused with `status` and an {"error": {"code": code}} body.
void expect_refused(const Expected<std::shared_ptr<net::WsClient>, net::ClientError>& c, int status, const std::string& code) {
  ASSERT_FALSE(c) << "the handshake was accepted";
  EXPECT_EQ(c.error().kind, net::ClientError::Kind::refused) << c.error().describe();
  EXPECT_EQ(c.error().status, status) << c.error().body;
  auto body = json::parse_strict(c.error().body);
  ASSERT_TRUE(body) << c.error().body;
  EXPECT_FALSE(alp_profile().check_document("register_error", *body).has_value()) << c.error().body;
  EXPECT_EQ(body->value("/error/code"_json_pointer, std::string()), code) << c.error().body;
}

TEST_F(Handshake, ValidTokenAndAgentIdConnect) {
  Json reg = register_ok("agent-ok");
  auto c = try_connect(query(reg["auth_token"].get<std::string>(), "agent-ok"));
  ASSERT_TRUE(c) << c.error().describe();
  EXPECT_EQ((*c)->handshake_response().status, 101);
  // No subprotocol is required or imposed (§4.2).
  EXPECT_TRUE(net::header_value((*c)->handshake_response().headers, "sec-websocket-protocol").empty());
}

TEST_F(Handshake, MissingTokenIs401) {
  register_ok("agent-m");
  expect_refused(try_connect("/ws/connect?agent_id=agent-m"), 401, "AUTH_TOKEN_INVALID");
  expect_refused(try_connect("/ws/connect"), 401, "AUTH_TOKEN_INVALID");
}

TEST_F(Handshake, UnknownOrTamperedTokenIs401) {
  Json reg = register_ok("agent-t");
  std::string token = reg["auth_token"];
  token.back() = token.back() == 'A' ? 'B' : 'A';
  expect_refused(try_connect(query(token, "agent-t")), 401, "AUTH_TOKEN_INVALID");
  expect_refused(try_connect(query("not-a-token", "agent-t")), 401, "AUTH_TOKEN_INVALID");
}

TEST_F(Handshake, AgentIdMismatchOrMissingIs403) {
  Json a = register_ok("agent-a");
  register_ok("agent-b");
  expect_refused(try_connect(query(a["auth_token"].get<std::string>(), "agent-b")), 403, "ACCESS_DENIED");
  expect_refused(try_connect("/ws/connect?token=" + a["auth_token"].get<std::string>()), 403, "ACCESS_DENIED");
}

TEST_F(Handshake, ExpiredTokenIs401Expired) {
  alp_config["token_ttl_ms"] = 150;
  restart();
  Json reg = register_ok("agent-e");
  std::this_thread::sleep_for(250ms);
  expect_refused(try_connect(query(reg["auth_token"].get<std::string>(), "agent-e")), 401, "AUTH_TOKEN_EXPIRED");
}

TEST_F(Handshake, TokenIsReusableAfterDisconnectAndSessionsDiffer) {
  Agent a = agent("agent-re", std::vector<alp::Capability>{});
  const std::string first_session = a.session_id;
  EXPECT_TRUE(schema::is_uuid(first_session));
  a.ws->close(1000, "bye");
  wait_for([&] { return agent_status("agent-re")["status"] == "offline"; });
  auto again = try_connect(query(a.token, a.id));
  ASSERT_TRUE(again) << again.error().describe();
  a.ws = *again;
  a.send(alp::make_register_client(a.id, a.lobby_id, {}, "1.0.0", "sdk"));
  Json ack = next(a);
  EXPECT_NE(ack["payload"]["session_id"], first_session);
}

TEST_F(Handshake, NewSessionSupersedesTheOldOne) {
  Agent a = agent("agent-dup");
  Agent b = agent("agent-peer");
  auto second = try_connect(query(a.token, a.id));
  ASSERT_TRUE(second) << second.error().describe();
  auto closed = next_close(*a.ws);
  EXPECT_EQ(closed.close_code, 1008);
  EXPECT_NE(closed.close_reason.find("superseded"), std::string::npos);
  // Messages for the agent now reach the new session.
  Agent a2{a.id, a.token, a.lobby_id, "", *second};
  b.send(alp::make_direct_message(b.id, a.id, "text/plain", "hello"));
  EXPECT_EQ(next(a2)["payload"]["content"], "hello");
  EXPECT_EQ(agent_status(a.id)["status"], "online");
}

TEST_F(Handshake, DuplicateSessionRefusedWhenConfigured) {
  alp_config["duplicate_session"] = "refuse";
  restart();
  Agent a = agent("agent-one");
  expect_refused(try_connect(query(a.token, a.id)), 409, "AGENT_ALREADY_CONNECTED");
  expect_alive(a);
}

TEST_F(Handshake, TokenExpiringDuringTheSessionEndsIt) {
  alp_config["token_ttl_ms"] = 400;
  restart();
  Agent a = agent("agent-short");
  Json e = expect_error(a, "AUTH_TOKEN_EXPIRED");
  EXPECT_EQ(e["error"]["retryable"], false);
  EXPECT_TRUE(schema::is_date_time(e["error"]["details"]["expired_at"].get<std::string>()));
  EXPECT_EQ(next_close(*a.ws).close_code, 1008);
  wait_for([&] { return agent_status("agent-short")["status"] == "offline"; });
  // The agent registers again (the id is free: offline, token expired) and reconnects.
  Json again = register_ok("agent-short", Json::object(), 200);
  EXPECT_TRUE(try_connect(query(again["auth_token"].get<std::string>(), "agent-short")));
}

TEST_F(Handshake, WebSocketPingIsAnswered) {
  Agent a = agent("agent-ping");
  a.ws->ping("keepalive-1");
  auto e = a.ws->next(3000ms);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ws::Event::Kind::pong);
  EXPECT_EQ(e->data, "keepalive-1");
}

TEST_F(Handshake, OversizedMessageClosesWith1009) {
  Agent a = agent("agent-big");
  a.send(alp::make_direct_message(a.id, a.id, "text/plain", std::string(1100 * 1024, 'x')));
  EXPECT_EQ(next_close(*a.ws).close_code, 1009);
}

}  // namespace
}  // namespace ac::testing
