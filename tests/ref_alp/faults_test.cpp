// Every fault of reference/alp/faults.json changes what the lobby does: each test starts the
// lobby with one fault and asserts the observable difference from the behaviour the other tests
// pin down for the faithful lobby (so it would fail without the fault). The catalogue itself is
// checked too: at least 12 ALP faults over the six themes, each breaking known requirement IDs.
#include <fstream>

#include "reference/core/faults.hpp"
#include "tests/ref_alp/alp_fixture.hpp"

namespace ac::testing {
namespace {

class AlpFault : public AlpLobby {
 protected:
  void with(const std::string& fault) { restart({fault}); }
};

TEST(AlpFaultCatalog, FaultsCoverTheThemesAndNameKnownRequirements) {
  auto catalog = ref::FaultCatalog::load(std::filesystem::path(AC_SOURCE_DIR) / "reference");
  ASSERT_TRUE(catalog) << catalog.error();
  std::ifstream in(std::filesystem::path(AC_SOURCE_DIR) / "suites/alp/requirements.json");
  ASSERT_TRUE(in);
  const Json requirements = Json::parse(in);
  std::set<std::string> ids;
  for (const auto& r : requirements["requirements"]) ids.insert(r["id"].get<std::string>());
  std::set<std::string> themes;
  std::size_t count = 0;
  for (const auto& f : catalog->all()) {
    if (f.protocol != "alp") continue;
    ++count;
    themes.insert(f.suite);
    EXPECT_FALSE(f.breaks.empty()) << f.name;
    for (const auto& b : f.breaks) EXPECT_TRUE(ids.count(b)) << f.name << " breaks unknown requirement " << b;
  }
  EXPECT_GE(count, 12u);
  EXPECT_EQ(themes, (std::set<std::string>{"lifecycle", "handshake", "contract-negotiation", "streaming", "version-rejection",
                                           "error-codes"}));
}

TEST_F(AlpFault, UnknownFaultNameIsRefused) {
  ref::LobbyConfig c;
  c.faults = {"alp.no-such-fault"};
  auto started = ref::Lobby::start(c);
  EXPECT_FALSE(started);
}

// ---- lifecycle

TEST_F(AlpFault, AckMissingSessionId) {
  with("alp.ack.missing-session-id");
  validate_frames = false;
  Agent a = agent("agent-a");
  a.send(alp::make_register_client(a.id, a.lobby_id, {}, "1", "s"));
  Json ack = next(a);
  EXPECT_EQ(ack["message_type"], "REGISTER_CLIENT_ACK");
  EXPECT_FALSE(ack["payload"].contains("session_id"));
  EXPECT_FALSE(alp_profile().check(ack));
}

TEST_F(AlpFault, AckReuseSessionId) {
  with("alp.ack.reuse-session-id");
  Agent a = agent("agent-a", std::vector<alp::Capability>{});
  a.ws->close(1000, "bye");
  wait_for([&] { return agent_status(a.id)["status"] == "offline"; });
  auto again = try_connect(query(a.token, a.id));
  ASSERT_TRUE(again);
  Agent a2{a.id, a.token, a.lobby_id, "", *again};
  a2.send(alp::make_register_client(a.id, a.lobby_id, {}, "1", "s"));
  EXPECT_EQ(next(a2)["payload"]["session_id"], a.session_id);
}

TEST_F(AlpFault, OfflineStaleStatus) {
  with("alp.offline.stale-status");
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  a.ws->close(1000, "bye");
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(agent_status(a.id)["status"], "online");
  b.send(alp::make_direct_message(b.id, a.id, "text/plain", "anyone?"));
  expect_silence(*b.ws);  // dropped, no RECEIVER_UNAVAILABLE
}

TEST_F(AlpFault, PingWrongNonce) {
  with("alp.ping.wrong-nonce");
  Agent a = agent("agent-a");
  a.send(alp::make_ping(a.id, a.lobby_id, "n-1"));
  Json pong = next(a);
  EXPECT_EQ(pong["message_type"], "PONG");
  EXPECT_NE(pong["payload"]["nonce"], "n-1");
}

// ---- handshake

TEST_F(AlpFault, SenderTrustClient) {
  with("alp.sender.trust-client");
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  Agent c = agent("agent-c");
  a.send(alp::make_direct_message(b.id, c.id, "text/plain", "I am b"));
  Json got = next(c);
  EXPECT_EQ(got["sender_id"], "agent-b");  // delivered under the claimed identity
  expect_silence(*a.ws);
}

TEST_F(AlpFault, HandshakeAcceptInvalidToken) {
  with("alp.handshake.accept-invalid-token");
  register_ok("agent-a");
  auto c = try_connect(query("forged-token", "agent-a"));
  EXPECT_TRUE(c) << "the forged token was refused";
}

TEST_F(AlpFault, HandshakeAcceptExpiredToken) {
  alp_config["token_ttl_ms"] = 100;
  with("alp.handshake.accept-expired-token");
  Json reg = register_ok("agent-a");
  std::this_thread::sleep_for(200ms);
  auto c = try_connect(query(reg["auth_token"].get<std::string>(), "agent-a"));
  ASSERT_TRUE(c) << c.error().describe();
  Agent a{"agent-a", reg["auth_token"], kLobbyId, "", *c};
  expect_alive(a);
}

TEST_F(AlpFault, HandshakeIgnoreAgentIdMismatch) {
  with("alp.handshake.ignore-agent-id-mismatch");
  Json reg = register_ok("agent-a");
  register_ok("agent-b");
  auto c = try_connect(query(reg["auth_token"].get<std::string>(), "agent-b"));
  EXPECT_TRUE(c) << c.error().describe();
}

TEST_F(AlpFault, RegisterAcceptBadApiKey) {
  with("alp.register.accept-bad-api-key");
  auto wrong = register_raw({{"agent_id", "agent-a"}, {"agent_type", "t"}, {"api_key", "wrong"}});
  EXPECT_EQ(wrong.status, 201) << wrong.body;
  auto none = register_raw({{"agent_id", "agent-b"}, {"agent_type", "t"}});
  EXPECT_EQ(none.status, 201) << none.body;
  EXPECT_TRUE(Json::parse(none.body).contains("auth_token"));
}

TEST_F(AlpFault, RegisterAllowIdTakeover) {
  with("alp.register.allow-id-takeover");
  Agent holder = agent("agent-held");
  auto r = register_raw({{"agent_id", "agent-held"}, {"agent_type", "t"}, {"api_key", "test-key"}});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json::parse(r.body)["agent_id"], "agent-held");
}

// ---- contract negotiation

TEST_F(AlpFault, DiscoverIgnoreVersionMatch) {
  with("alp.discover.ignore-version-match");
  Agent p = agent("agent-p", std::vector<alp::Capability>{capability("c.v", "1.0.0"), capability("c.v", "2.0.0")});
  Agent q = agent("agent-q");
  alp::CapabilityFilter f;
  f.name = "c.v";
  f.version_match = "2.x";
  q.send(alp::make_discover_capabilities(q.id, q.lobby_id, f));
  EXPECT_EQ(next(q)["payload"]["agents"][0]["matching_capabilities"].size(), 2u);
}

TEST_F(AlpFault, DiscoverNoQueryRef) {
  with("alp.discover.no-query-ref");
  Agent q = agent("agent-q");
  alp::Message m = alp::make_discover_capabilities(q.id, q.lobby_id, alp::CapabilityFilter{});
  ASSERT_TRUE(m.envelope.conversation_id.has_value());
  q.send(m);
  Json found = next(q);
  EXPECT_EQ(found["message_type"], "CAPABILITIES_FOUND");
  EXPECT_FALSE(found["payload"].contains("query_ref"));
}

TEST_F(AlpFault, InvokeSkipAuthorization) {
  with("alp.invoke.skip-authorization");
  Agent p = agent("agent-p", std::vector<alp::Capability>{with_rules(capability("c.private"), "allow_list", {"agent-friend"})});
  Agent q = agent("agent-q");
  alp::Message m = alp::make_invoke_request(q.id, p.id, "c.private", Json::object());
  q.send(m);
  EXPECT_EQ(next(p)["message_id"], m.envelope.message_id);
}

TEST_F(AlpFault, InvokeSkipInputSchema) {
  with("alp.invoke.skip-input-schema");
  Agent p = agent("agent-p", std::vector<alp::Capability>{capability("c.typed", "1.0.0", {{"type", "object"}, {"required", {"x"}}})});
  Agent q = agent("agent-q");
  alp::Message m = alp::make_invoke_request(q.id, p.id, "c.typed", Json::object());
  q.send(m);
  EXPECT_EQ(next(p)["message_id"], m.envelope.message_id);
}

TEST_F(AlpFault, InvokeIgnoreCapabilityVersion) {
  with("alp.invoke.ignore-capability-version");
  Agent p = agent("agent-p", std::vector<alp::Capability>{capability("c.x", "1.0.0")});
  Agent q = agent("agent-q");
  alp::Message m = alp::make_invoke_request(q.id, p.id, "c.x", Json::object(), "9.9.9");
  q.send(m);
  EXPECT_EQ(next(p)["message_id"], m.envelope.message_id);
}

TEST_F(AlpFault, CapabilitiesAppend) {
  with("alp.capabilities.append");
  Agent a = agent("agent-a", std::vector<alp::Capability>{capability("c.first")});
  a.send(alp::make_register_client(a.id, a.lobby_id, {capability("c.second")}, "1", "s"));
  next(a);
  EXPECT_EQ(agent_status(a.id)["capabilities"].size(), 2u);
}

// ---- streaming

class AlpStreamFault : public AlpFault {
 protected:
  // Returns the provider's view of a routed request from the requester.
  alp::Message routed_request(Agent& requester, Agent& provider) {
    alp::Message m = alp::make_invoke_request(requester.id, provider.id, "c.job", Json::object());
    requester.send(m);
    return alp::from_json(next(provider)).value();
  }
};

TEST_F(AlpStreamFault, StreamDropProgress) {
  with("alp.stream.drop-progress");
  Agent p = agent("agent-p", std::vector<alp::Capability>{capability("c.job")});
  Agent q = agent("agent-q");
  alp::Message seen = routed_request(q, p);
  p.send(alp::make_invoke_progress(seen, 50, "half"));
  p.send(alp::make_invoke_success(seen, Json::object()));
  EXPECT_EQ(next(q)["payload"]["status"], "success");  // the in_progress never arrived
}

TEST_F(AlpStreamFault, StreamRewriteConversationId) {
  with("alp.stream.rewrite-conversation-id");
  Agent p = agent("agent-p", std::vector<alp::Capability>{capability("c.job")});
  Agent q = agent("agent-q");
  alp::Message seen = routed_request(q, p);
  p.send(alp::make_invoke_success(seen, Json::object()));
  Json got = next(q);
  EXPECT_NE(got["conversation_id"], *seen.envelope.conversation_id);
}

TEST_F(AlpStreamFault, ResponseAcceptFromAnyone) {
  with("alp.response.accept-from-anyone");
  Agent p = agent("agent-p", std::vector<alp::Capability>{capability("c.job")});
  Agent q = agent("agent-q");
  Agent intruder = agent("agent-intruder");
  alp::Message seen = routed_request(q, p);
  alp::Message forged = alp::make_invoke_success(seen, {{"forged", true}});
  forged.envelope.sender_id = intruder.id;
  intruder.send(forged);
  EXPECT_EQ(next(q)["payload"]["output_data"]["forged"], true);
}

// ---- version rejection

TEST_F(AlpFault, VersionAcceptAny) {
  with("alp.version.accept-any");
  Agent a = agent("agent-a");
  Json ping = raw(a.id, a.lobby_id, "PING", {{"nonce", "v"}});
  ping["protocol_version"] = "1.0.0";
  a.send(ping);
  EXPECT_EQ(next(a)["message_type"], "PONG");
}

TEST_F(AlpFault, VersionWrongOutgoingVersion) {
  with("alp.version.wrong-outgoing-version");
  Agent a = agent("agent-a");
  a.send(alp::make_ping(a.id, a.lobby_id, "n"));
  Json pong = next(a);
  EXPECT_EQ(pong["message_type"], "PONG");
  EXPECT_NE(pong["protocol_version"], "0.2.0");
}

// ---- error codes

TEST_F(AlpFault, ErrorWrongCode) {
  with("alp.error.wrong-code");
  Agent a = agent("agent-a");
  a.send(raw(a.id, a.lobby_id, "SUMMON_DRAGON", Json::object()));
  expect_error(a, "MESSAGE_MALFORMED");
}

TEST_F(AlpFault, ErrorWrongOffendingId) {
  with("alp.error.wrong-offending-id");
  Agent a = agent("agent-a");
  Json m = raw(a.id, a.lobby_id, "SUMMON_DRAGON", Json::object());
  a.send(m);
  Json e = next(a);
  EXPECT_EQ(e["payload"]["error"]["code"], "INVALID_MESSAGE_TYPE");
  ASSERT_TRUE(e["payload"].contains("offending_message_id"));
  EXPECT_NE(e["payload"]["offending_message_id"], m["message_id"]);
}

TEST_F(AlpFault, ErrorCloseConnection) {
  with("alp.error.close-connection");
  Agent a = agent("agent-a");
  a.ws->send_text("{not json");
  expect_error(a, "MESSAGE_MALFORMED");
  EXPECT_EQ(next_close(*a.ws).close_code, 1008);
}

TEST_F(AlpFault, RatelimitDisabled) {
  alp_config["rate_limit_messages"] = 3;
  with("alp.ratelimit.disabled");
  Agent a = agent("agent-a");
  for (int i = 0; i < 10; ++i) a.send(alp::make_ping(a.id, a.lobby_id, "n"));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(next(a)["message_type"], "PONG");
}

TEST_F(AlpFault, ReceiverNotFoundAsUnavailable) {
  with("alp.receiver.not-found-as-unavailable");
  Agent a = agent("agent-a");
  a.send(alp::make_direct_message(a.id, "agent-nobody", "text/plain", "hi"));
  expect_error(a, "RECEIVER_UNAVAILABLE");
}

TEST_F(AlpFault, InvokeNoTimeout) {
  alp_config["invoke_timeout_ms"] = 200;
  with("alp.invoke.no-timeout");
  Agent p = agent("agent-p", std::vector<alp::Capability>{capability("c.job")});
  Agent q = agent("agent-q");
  q.send(alp::make_invoke_request(q.id, p.id, "c.job", Json::object()));
  next(p);
  expect_silence(*q.ws, 600ms);  // no TIMEOUT_ERROR
}

}  // namespace
}  // namespace ac::testing
