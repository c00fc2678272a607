// The WebSocket session (§6 steps 4-8, §7.1, §7.4.2-3, §7.5, §8, §11, §12): REGISTER_CLIENT /
// ACK, UNREGISTER_CLIENT, application PING/PONG, every decoding error with its code and
// offending_message_id (the connection stays open), protocol_version rejection, spoofed senders,
// the rate limit, offline status after a disconnect.
#include "tests/ref_alp/alp_fixture.hpp"

namespace ac::testing {
namespace {

using Session = AlpLobby;

TEST_F(Session, RegisterClientAckCarriesStatusLobbySessionAndTime) {
  Agent a = agent("agent-rc");
  alp::Message rc = alp::make_register_client(a.id, a.lobby_id, {capability("com.example.Echo")}, "1.2.3", "cpp-0.1");
  rc.envelope.conversation_id = proto::typed::new_uuid_v4();
  a.send(rc);
  Json ack = next(a);
  EXPECT_EQ(ack["message_type"], "REGISTER_CLIENT_ACK");
  EXPECT_EQ(ack["sender_id"], kLobbyId);
  EXPECT_EQ(ack["receiver_id"], "agent-rc");
  EXPECT_EQ(ack["conversation_id"], *rc.envelope.conversation_id);
  EXPECT_EQ(ack["payload"]["status"], "success");
  EXPECT_EQ(ack["payload"]["lobby_id"], kLobbyId);
  const std::string session = ack["payload"]["session_id"];
  EXPECT_TRUE(schema::is_uuid(session));
  // server_time_utc is the lobby's time now.
  const std::string t = ack["payload"]["server_time_utc"];
  EXPECT_GE(t, proto::typed::utc_timestamp(std::chrono::system_clock::now() - std::chrono::minutes(1)));
  EXPECT_LE(t, proto::typed::utc_timestamp(std::chrono::system_clock::now() + std::chrono::minutes(1)));
  // A second REGISTER_CLIENT on the same session gets the same session_id.
  a.send(alp::make_register_client(a.id, a.lobby_id, {}, "1.2.3", "cpp-0.1"));
  EXPECT_EQ(next(a)["payload"]["session_id"], session);
  EXPECT_EQ(agent_status("agent-rc")["session_id"], session);
}

TEST_F(Session, RegisterClientReplacesTheCapabilityList) {
  Agent a = agent("agent-caps", std::vector<alp::Capability>{capability("com.example.A"), capability("com.example.B")});
  EXPECT_EQ(agent_status("agent-caps")["capabilities"].size(), 2u);
  a.send(alp::make_register_client(a.id, a.lobby_id, {capability("com.example.C")}, "1", "s"));
  next(a);
  Json caps = agent_status("agent-caps")["capabilities"];
  ASSERT_EQ(caps.size(), 1u);
  EXPECT_EQ(caps[0]["name"], "com.example.C");
}

TEST_F(Session, UnusableCapabilitiesGetAFailureAckWithSessionId) {
  Agent a = agent("agent-bad", std::vector<alp::Capability>{capability("com.example.Keep")});
  // A remote $ref cannot be compiled as an untrusted schema.
  a.send(alp::make_register_client(a.id, a.lobby_id, {capability("com.example.X", "1.0.0", {{"$ref", "http://evil.example/s.json"}})},
                                   "1", "s"));
  Json ack = next(a);
  EXPECT_EQ(ack["payload"]["status"], "failure");
  EXPECT_EQ(ack["payload"]["session_id"], a.session_id);
  EXPECT_NE(ack["payload"]["message"].get<std::string>().find("com.example.X"), std::string::npos);
  // The previous list stays.
  Json caps = agent_status("agent-bad")["capabilities"];
  ASSERT_EQ(caps.size(), 1u);
  EXPECT_EQ(caps[0]["name"], "com.example.Keep");
  // The same name and version twice is refused too.
  a.send(alp::make_register_client(a.id, a.lobby_id, {capability("com.example.D"), capability("com.example.D")}, "1", "s"));
  EXPECT_EQ(next(a)["payload"]["status"], "failure");
}

TEST_F(Session, TooManyCapabilitiesFail) {
  alp_config["max_capabilities"] = 2;
  restart();
  Agent a = agent("agent-many");
  a.send(alp::make_register_client(a.id, a.lobby_id, {capability("a.b"), capability("a.c"), capability("a.d")}, "1", "s"));
  Json ack = next(a);
  EXPECT_EQ(ack["payload"]["status"], "failure");
  EXPECT_NE(ack["payload"]["message"].get<std::string>().find("too many"), std::string::npos);
}

TEST_F(Session, SchemaInvalidCapabilityIsAProtocolError) {
  Agent a = agent("agent-inv");
  Json rc = raw(a.id, a.lobby_id, "REGISTER_CLIENT",
                {{"capabilities", {{{"capability_version", "1.0.0"}, {"description", "d"}, {"input_schema", Json::object()},
                                    {"output_schema", Json::object()}}}},
                 {"agent_version", "1"},
                 {"sdk_version", "s"}});
  a.send(rc);
  Json e = expect_error(a, "MISSING_REQUIRED_FIELD", rc["message_id"].get<std::string>());
  EXPECT_EQ(e["error"]["details"]["pointer"], "/payload/capabilities/0/name");
}

TEST_F(Session, PingIsAnsweredWithTheNonce) {
  Agent a = agent("agent-p");
  alp::Message ping = alp::make_ping(a.id, a.lobby_id, "n-123");
  ping.envelope.conversation_id = proto::typed::new_uuid_v4();
  a.send(ping);
  Json pong = next(a);
  EXPECT_EQ(pong["message_type"], "PONG");
  EXPECT_EQ(pong["payload"]["nonce"], "n-123");
  EXPECT_EQ(pong["receiver_id"], a.id);
  EXPECT_EQ(pong["sender_id"], kLobbyId);
  EXPECT_EQ(pong["conversation_id"], *ping.envelope.conversation_id);
  a.send(alp::make_ping(a.id, a.lobby_id));
  Json bare = next(a);
  EXPECT_EQ(bare["message_type"], "PONG");
  EXPECT_FALSE(bare["payload"].contains("nonce"));
}

TEST_F(Session, MalformedJsonGetsMessageMalformedAndTheConnectionStays) {
  Agent a = agent("agent-mj");
  const std::string id = proto::typed::new_uuid_v4();
  a.ws->send_text("{\"message_id\": \"" + id + "\", \"payload\": {");
  Json e = expect_error(a, "MESSAGE_MALFORMED", id);  // offending id read best-effort
  EXPECT_EQ(e["error"]["details"]["rule"], "json.syntax");
  a.ws->send_text("not json at all");
  Json e2 = expect_error(a, "MESSAGE_MALFORMED");
  EXPECT_FALSE(e2.contains("offending_message_id"));
  a.ws->send_text("[1, 2, 3]");
  expect_error(a, "MESSAGE_MALFORMED");
  a.ws->send_binary(std::string("\x01\x02\x03", 3));
  Json b = expect_error(a, "MESSAGE_MALFORMED");
  EXPECT_EQ(b["error"]["details"]["rule"], "websocket.binary");
  expect_alive(a);
  EXPECT_TRUE(a.ws->transport_open());
}

TEST_F(Session, UnknownTypeIsInvalidMessageType) {
  Agent a = agent("agent-ut");
  Json m = raw(a.id, a.lobby_id, "SUMMON_DRAGON", Json::object());
  a.send(m);
  Json e = expect_error(a, "INVALID_MESSAGE_TYPE", m["message_id"].get<std::string>());
  EXPECT_EQ(e["error"]["details"]["pointer"], "/message_type");
  // Custom types are not routed unless configured (ALP-16).
  a.send(raw(a.id, a.id, "X_MYAPP_EVENT", {{"x", 1}}));
  expect_error(a, "INVALID_MESSAGE_TYPE");
  expect_alive(a);
}

TEST_F(Session, MissingFieldIsMissingRequiredFieldWithPointer) {
  Agent a = agent("agent-mf");
  Agent b = agent("agent-mf-b");
  Json dm = raw(a.id, b.id, "DIRECT_MESSAGE", {{"content", "hi"}});
  a.send(dm);
  Json e = expect_error(a, "MISSING_REQUIRED_FIELD", dm["message_id"].get<std::string>());
  EXPECT_EQ(e["error"]["details"]["pointer"], "/payload/content_type");
  Json no_ts = raw(a.id, b.id, "DIRECT_MESSAGE", {{"content", "hi"}, {"content_type", "text/plain"}});
  no_ts.erase("timestamp");
  a.send(no_ts);
  expect_error(a, "MISSING_REQUIRED_FIELD", no_ts["message_id"].get<std::string>());
  expect_silence(*b.ws);
  expect_alive(a);
}

TEST_F(Session, IllTypedAndUnknownMembersAreMalformed) {
  Agent a = agent("agent-it");
  Json bad_ts = raw(a.id, a.lobby_id, "PING", Json::object());
  bad_ts["timestamp"] = "yesterday";
  a.send(bad_ts);
  expect_error(a, "MESSAGE_MALFORMED", bad_ts["message_id"].get<std::string>());
  Json extra = raw(a.id, a.lobby_id, "PING", Json::object());
  extra["priority"] = 1;
  a.send(extra);
  expect_error(a, "MESSAGE_MALFORMED");
  // metadata and auth_token are fine (ALP-1, ALP-3).
  Json meta = raw(a.id, a.lobby_id, "PING", {{"nonce", "m"}});
  meta["metadata"] = {{"trace_id", "xyz"}, {"nested", {{"deep", true}}}};
  meta["auth_token"] = a.token;
  a.send(meta);
  EXPECT_EQ(next(a)["payload"]["nonce"], "m");
}

TEST_F(Session, OtherProtocolVersionsAreRefusedWithoutProcessing) {
  Agent a = agent("agent-v");
  for (const char* version : {"1.0.0", "0.3.0", "0.1.9", "2.0.0-beta.1"}) {
    Json ping = raw(a.id, a.lobby_id, "PING", {{"nonce", "v"}});
    ping["protocol_version"] = version;
    a.send(ping);
    Json e = expect_error(a, "UNSUPPORTED_PROTOCOL_VERSION", ping["message_id"].get<std::string>());
    EXPECT_EQ(e["error"]["details"]["received"], version);
    EXPECT_EQ(e["error"]["details"]["supported"], Json::array({"0.2.0"}));
  }
  // A 0.2.x patch level is the same protocol line.
  Json patch = raw(a.id, a.lobby_id, "PING", {{"nonce", "patch"}});
  patch["protocol_version"] = "0.2.7";
  a.send(patch);
  EXPECT_EQ(next(a)["message_type"], "PONG");
  // A version that is not SemVer at all is a malformed field.
  Json junk = raw(a.id, a.lobby_id, "PING", Json::object());
  junk["protocol_version"] = "zero point two";
  a.send(junk);
  expect_error(a, "MESSAGE_MALFORMED");
}

TEST_F(Session, SupportedVersionsAreConfigurable) {
  alp_config["supported_versions"] = {"1.1.0"};
  restart();
  Agent a = agent("agent-v1");
  Json ping = raw(a.id, a.lobby_id, "PING", {{"nonce", "x"}});
  ping["protocol_version"] = "1.0.3";  // same major
  a.send(ping);
  EXPECT_EQ(next(a)["message_type"], "PONG");
  a.send(raw(a.id, a.lobby_id, "PING", Json::object()));  // 0.2.0 is now another line
  expect_error(a, "UNSUPPORTED_PROTOCOL_VERSION");
}

TEST_F(Session, SpoofedSenderIsAccessDeniedAndNotRouted) {
  Agent a = agent("agent-honest");
  Agent b = agent("agent-victim");
  Agent c = agent("agent-target");
  alp::Message dm = alp::make_direct_message(b.id, c.id, "text/plain", "I am b");
  a.send(dm);
  Json e = expect_error(a, "ACCESS_DENIED", dm.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["pointer"], "/sender_id");
  expect_silence(*c.ws);
  expect_silence(*b.ws);
  EXPECT_GE(lobby->metrics().errors_total(proto::ProtocolId::alp, "ACCESS_DENIED"), 1u);
}

TEST_F(Session, LobbyOnlyTypesFromAnAgentAreRefused) {
  Agent a = agent("agent-lo");
  a.send(alp::make_lobby_broadcast(a.id, "BROADCAST_ALL", "fake", Json::object()));
  expect_error(a, "INVALID_MESSAGE_TYPE");
  alp::Message rc = alp::make_register_client(a.id, a.lobby_id, {}, "1", "s");
  a.send(alp::make_register_client_ack(rc, a.id));
  expect_error(a, "INVALID_MESSAGE_TYPE");
  // A PROTOCOL_ERROR or PONG sent to the lobby is never answered.
  a.send(alp::make_protocol_error(a.id, a.lobby_id, "INTERNAL_AGENT_ERROR", "oops"));
  alp::Message pong = alp::make_pong(alp::make_ping(a.lobby_id, a.id, "n"), a.id);
  a.send(pong);
  expect_alive(a);
}

TEST_F(Session, RateLimitRefusesTheExcessAndRecovers) {
  alp_config["rate_limit_messages"] = 5;
  alp_config["rate_limit_window_ms"] = 1000;
  restart();
  Agent a = agent("agent-rl");
  for (int i = 0; i < 8; ++i) a.send(alp::make_ping(a.id, a.lobby_id, "n" + std::to_string(i)));
  int pongs = 0, limited = 0;
  std::int64_t retry_after = 0;
  for (int i = 0; i < 8; ++i) {
    Json m = next(a);
    if (m["message_type"] == "PONG") ++pongs;
    if (m["message_type"] == "PROTOCOL_ERROR") {
      EXPECT_EQ(m["payload"]["error"]["code"], "RATE_LIMIT_EXCEEDED");
      EXPECT_EQ(m["payload"]["error"]["retryable"], true);
      EXPECT_TRUE(m["payload"].contains("offending_message_id"));
      retry_after = m["payload"]["error"]["details"]["retry_after_ms"].get<std::int64_t>();
      EXPECT_GT(retry_after, 0);
      EXPECT_EQ(m["payload"]["error"]["details"]["limit"], 5);
      ++limited;
    }
  }
  EXPECT_EQ(pongs, 5);
  EXPECT_EQ(limited, 3);
  std::this_thread::sleep_for(std::chrono::milliseconds(retry_after + 50));
  expect_alive(a);
}

TEST_F(Session, RateLimitZeroDisablesIt) {
  alp_config["rate_limit_messages"] = 0;
  restart();
  Agent a = agent("agent-free");
  for (int i = 0; i < 50; ++i) a.send(alp::make_ping(a.id, a.lobby_id, "n"));
  for (int i = 0; i < 50; ++i) EXPECT_EQ(next(a)["message_type"], "PONG");
}

TEST_F(Session, UnregisterMakesTheAgentOfflineAndTheLobbyClosesAfterTheGrace) {
  alp_config["unregister_grace_ms"] = 300;
  restart();
  Agent a = agent("agent-bye");
  Agent b = agent("agent-other");
  a.send(alp::make_unregister_client(a.id, a.lobby_id, "shutting_down"));
  // No ACK; the agent is offline as soon as the lobby handled it.
  wait_for([&] { return agent_status(a.id)["status"] == "offline"; });
  EXPECT_TRUE(a.ws->transport_open());
  b.send(alp::make_direct_message(b.id, a.id, "text/plain", "still there?"));
  Json e = expect_error(b, "RECEIVER_UNAVAILABLE");
  EXPECT_EQ(e["error"]["retryable"], true);
  auto closed = next_close(*a.ws);  // nothing before the close: no ACK
  EXPECT_EQ(closed.close_code, 1000);
}

TEST_F(Session, UnregisterThenAgentCloseIsClean) {
  Agent a = agent("agent-clean");
  a.send(alp::make_unregister_client(a.id, a.lobby_id));
  a.ws->close(1000, "done");
  auto e = next_close(*a.ws);
  EXPECT_EQ(e.close_code, 1000);
  wait_for([&] { return agent_status("agent-clean")["status"] == "offline"; });
}

TEST_F(Session, RegisterClientAfterUnregisterBringsTheAgentBack) {
  alp_config["unregister_grace_ms"] = 300;
  restart();
  Agent a = agent("agent-back");
  a.send(alp::make_unregister_client(a.id, a.lobby_id));
  a.send(alp::make_register_client(a.id, a.lobby_id, {}, "1", "s"));
  EXPECT_EQ(next(a)["payload"]["status"], "success");
  std::this_thread::sleep_for(500ms);
  EXPECT_TRUE(a.ws->transport_open());
  EXPECT_EQ(agent_status(a.id)["status"], "online");
  expect_alive(a);
}

TEST_F(Session, DisconnectMakesTheAgentOffline) {
  Agent a = agent("agent-gone", std::vector<alp::Capability>{capability("com.example.Gone")});
  Agent b = agent("agent-stays");
  EXPECT_EQ(agent_status(a.id)["status"], "online");
  a.ws->close(1000, "bye");
  wait_for([&] { return agent_status(a.id)["status"] == "offline"; });
  const std::string last_seen = agent_status(a.id)["last_seen_utc"];
  EXPECT_TRUE(schema::is_date_time(last_seen));
  b.send(alp::make_direct_message(b.id, a.id, "text/plain", "hello?"));
  expect_error(b, "RECEIVER_UNAVAILABLE");
  // The last_seen_utc of an offline agent no longer moves.
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(agent_status(a.id)["last_seen_utc"], last_seen);
}

TEST_F(Session, AgentsEndpointListsAndLooksUp) {
  Agent a = agent("agent-l1");
  register_ok("agent-l2");
  auto all = get("/api/v1/agents");
  ASSERT_EQ(all.status, 200);
  Json list = Json::parse(all.body)["agents"];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0]["agent_id"], "agent-l1");
  EXPECT_EQ(list[0]["status"], "online");
  EXPECT_EQ(list[1]["status"], "offline");
  Json missing = expect_http_error(get("/api/v1/agents?agent_id=nobody"), 404, "AGENT_NOT_FOUND");
  expect_http_error(post_json("/api/v1/agents", Json::object()), 405, "METHOD_NOT_ALLOWED");
  EXPECT_FALSE(missing["message"].get<std::string>().empty());
}

TEST_F(Session, HealthzReportsTheHub) {
  Agent a = agent("agent-hz");
  auto r = get("/healthz");
  ASSERT_EQ(r.status, 200);
  Json alp_status = Json::parse(r.body)["protocols"]["alp"];
  EXPECT_EQ(alp_status["online"], 1);
  EXPECT_EQ(alp_status["sessions"], 1);
}

}  // namespace
}  // namespace ac::testing
