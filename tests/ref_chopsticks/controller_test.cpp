// The reference Chopsticks controller over real WebSocket connections: version negotiation,
// liveAgents, heartbeats, events, RPC with timeout and addressee check, and every fault.
#include <future>

#include "tests/support/lobby_fixture.hpp"

namespace ac::testing {
namespace {

Json hello(const std::string& agent, std::optional<std::string> version = "1.0.0") {
  Json h = {{"type", "hello"}, {"agentId", agent}, {"botUserId", "1468195142467981395"}, {"tag", "MusicBot#1234"},
            {"ready", true}, {"guildIds", {"1445809891242414226"}}, {"poolId", "pool_goot27"}};
  if (version) h["protocolVersion"] = *version;
  return h;
}

class Chopsticks : public LobbyFixture {
 protected:
  void configure(ref::LobbyConfig& c) override { c.protocols["chopsticks"]["request_timeout_ms"] = 300; }

  std::shared_ptr<net::WsClient> agent(const std::string& id) {
    auto c = connect("/chopsticks/ws");
    c->send_text(hello(id).dump());
    wait_live(id);
    return c;
  }

  Json agents() {
    auto r = get("/chopsticks/agents");
    EXPECT_EQ(r.status, 200);
    return Json::parse(r.body)["agents"];
  }

  bool is_live(const std::string& id) {
    for (const auto& a : agents()) {
      if (a["agentId"] == id) return true;
    }
    return false;
  }

  // The controller answers nothing to a good hello; poll the agents endpoint instead.
  void wait_live(const std::string& id, bool live = true) {
    for (int i = 0; i < 200; ++i) {
      if (is_live(id) == live) return;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << id << (live ? " never became live" : " never left liveAgents");
  }

  // POST /chopsticks/request runs in the background so the test can play the agent meanwhile.
  std::future<net::HttpResult> rpc(const std::string& id, const std::string& op) {
    return std::async(std::launch::async, [this, id, op] {
      return post_json("/chopsticks/request", {{"agentId", id}, {"op", op}, {"data", {{"query", "never gonna"}}}});
    });
  }
};

TEST_F(Chopsticks, CompatibleHelloRegistersWithoutAnswer) {
  auto c = connect("/chopsticks/ws");
  c->send_text(hello("agent-ok").dump());
  expect_silence(*c);
  // The hello is answered by nothing, so 300 ms of silence does not mean it was handled yet (on
  // a loaded machine it was not: is_live failed in 4 of 4 runs beside other ASan tests): poll.
  wait_live("agent-ok");
  ASSERT_FALSE(agents().empty());
  const Json a = agents()[0];
  EXPECT_EQ(a["protocolVersion"], "1.0.0");
  EXPECT_EQ(a["guildIds"], Json::array({"1445809891242414226"}));
}

TEST_F(Chopsticks, MissingVersionGetsErrorThenClose1008) {
  auto c = connect("/chopsticks/ws");
  c->send_text(hello("agent-nov", std::nullopt).dump());
  Json e = next_json(*c);
  EXPECT_EQ(e["type"], "error");
  EXPECT_TRUE(e["error"].is_string());
  EXPECT_EQ(next_close(*c).close_code, 1008);
  EXPECT_FALSE(is_live("agent-nov"));
}

TEST_F(Chopsticks, IncompatibleVersionGetsErrorNamingVersionsThenClose1008) {
  auto c = connect("/chopsticks/ws");
  c->send_text(hello("agent-old", "0.9.0").dump());
  Json e = next_json(*c);
  EXPECT_EQ(e["type"], "error");
  EXPECT_NE(e["error"].get<std::string>().find("0.9.0"), std::string::npos);
  EXPECT_NE(e["error"].get<std::string>().find("1.0.0"), std::string::npos);
  EXPECT_EQ(next_close(*c).close_code, 1008);
}

TEST_F(Chopsticks, NonStringVersionIsIncompatible) {
  auto c = connect("/chopsticks/ws");
  Json h = hello("agent-num");
  h["protocolVersion"] = 1;
  c->send_text(h.dump());
  EXPECT_EQ(next_json(*c)["type"], "error");
  EXPECT_EQ(next_close(*c).close_code, 1008);
}

TEST_F(Chopsticks, MissingAgentIdIsIgnored) {
  auto c = connect("/chopsticks/ws");
  Json h = hello("x");
  h.erase("agentId");
  c->send_text(h.dump());
  expect_silence(*c);
  EXPECT_TRUE(c->transport_open());
  EXPECT_TRUE(agents().empty());
}

TEST_F(Chopsticks, InvalidMessagesAreIgnoredAndConnectionStays) {
  auto c = agent("agent-junk");
  for (const char* junk : {"not json", "{\"type\":1}", "[]", "{\"type\":\"guilds\"}", "{\"type\":\"resp\",\"id\":5}",
                           "{\"a\":1,\"a\":2}"}) {
    c->send_text(junk);
  }
  c->send_binary("\x01\x02");
  expect_silence(*c);
  EXPECT_TRUE(c->transport_open());
  EXPECT_TRUE(is_live("agent-junk"));
}

TEST_F(Chopsticks, GuildsAndEventsUpdateStateWithoutAnswer) {
  auto c = agent("agent-g");
  c->send_text(Json{{"type", "guilds"}, {"guildIds", {"1", "2"}}}.dump());
  c->send_text(Json{{"type", "event"}, {"event", "add"}, {"agentId", "agent-g"}, {"guildId", "1"}, {"voiceChannelId", "9"},
                    {"channelId", "9"}, {"kind", "music"}, {"ok", true}}.dump());
  expect_silence(*c);
  Json a = agents()[0];
  EXPECT_EQ(a["guildIds"], Json::array({"1", "2"}));
  ASSERT_EQ(a["sessions"].size(), 1u);
  c->send_text(Json{{"type", "event"}, {"event", "released"}, {"agentId", "agent-g"}, {"guildId", "1"},
                    {"voiceChannelId", "9"}, {"reason", "USER_LEFT"}, {"kind", "music"}}.dump());
  expect_silence(*c);
  EXPECT_TRUE(agents()[0]["sessions"].empty());
}

TEST_F(Chopsticks, DisconnectRemovesFromLiveAgents) {
  auto c = agent("agent-bye");
  c->close(1000, "bye");
  wait_live("agent-bye", false);
}

TEST_F(Chopsticks, SecondConnectionCannotTakeOverLiveAgent) {
  auto first = agent("agent-dup");
  auto second = connect("/chopsticks/ws");
  second->send_text(hello("agent-dup").dump());
  EXPECT_EQ(next_json(*second)["type"], "error");
  EXPECT_EQ(next_close(*second).close_code, 1008);
  EXPECT_TRUE(first->transport_open());
}

TEST_F(Chopsticks, RpcRoundTripMatchesRespById) {
  auto c = agent("agent-rpc");
  auto result = rpc("agent-rpc", "play");
  Json req = next_json(*c);
  EXPECT_EQ(req["type"], "req");
  EXPECT_EQ(req["op"], "play");
  EXPECT_EQ(req["agentId"], "agent-rpc");
  EXPECT_EQ(req["id"].get<std::string>().size(), 36u);
  c->send_text(Json{{"type", "resp"}, {"id", req["id"]}, {"ok", true}, {"data", {{"action", "playing"}}}}.dump());
  auto r = result.get();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(Json::parse(r.body)["data"]["action"], "playing");
}

TEST_F(Chopsticks, RpcTimesOutWithoutResp) {
  auto c = agent("agent-slow");
  auto result = rpc("agent-slow", "status");
  next_json(*c);
  EXPECT_EQ(result.get().status, 504);
}

TEST_F(Chopsticks, RespFromAnotherAgentIsIgnored) {
  auto target = agent("agent-target");
  auto intruder = agent("agent-intruder");
  auto result = rpc("agent-target", "skip");
  Json req = next_json(*target);
  intruder->send_text(Json{{"type", "resp"}, {"id", req["id"]}, {"ok", true}, {"data", "forged"}}.dump());
  EXPECT_EQ(result.get().status, 504);  // the forged resp did not complete it
}

TEST_F(Chopsticks, RpcToUnknownAgentIs404) {
  EXPECT_EQ(post_json("/chopsticks/request", {{"agentId", "nobody"}, {"op", "play"}}).status, 404);
  EXPECT_EQ(post_json("/chopsticks/request", {{"op", "play"}}).status, 400);
}

// Faults: each one changes exactly the behaviour it names.
TEST_F(Chopsticks, FaultAcceptAnyVersion) {
  start({"chopsticks.version.accept-any"});
  auto c = connect("/chopsticks/ws");
  c->send_text(hello("agent-old", "0.9.0").dump());
  expect_silence(*c);
  EXPECT_TRUE(is_live("agent-old"));
}

TEST_F(Chopsticks, FaultAcceptMissingVersion) {
  start({"chopsticks.version.accept-missing"});
  auto c = connect("/chopsticks/ws");
  c->send_text(hello("agent-nov", std::nullopt).dump());
  expect_silence(*c);
  EXPECT_TRUE(is_live("agent-nov"));
}

TEST_F(Chopsticks, FaultNoErrorFrame) {
  start({"chopsticks.version.no-error-frame"});
  auto c = connect("/chopsticks/ws");
  c->send_text(hello("agent-old", "0.9.0").dump());
  EXPECT_EQ(next_close(*c).close_code, 1008);  // straight to the close, no error first
}

TEST_F(Chopsticks, FaultWrongCloseCode) {
  start({"chopsticks.version.wrong-close-code"});
  auto c = connect("/chopsticks/ws");
  c->send_text(hello("agent-old", "0.9.0").dump());
  next_json(*c);
  EXPECT_EQ(next_close(*c).close_code, 1000);
}

TEST_F(Chopsticks, FaultAllowTakeover) {
  start({"chopsticks.hello.allow-takeover"});
  auto first = agent("agent-dup");
  auto second = connect("/chopsticks/ws");
  second->send_text(hello("agent-dup").dump());
  expect_silence(*second);
  EXPECT_TRUE(second->transport_open());
}

TEST_F(Chopsticks, FaultAnswerMissingAgentId) {
  start({"chopsticks.hello.answer-missing-agent-id"});
  auto c = connect("/chopsticks/ws");
  Json h = hello("x");
  h.erase("agentId");
  c->send_text(h.dump());
  EXPECT_EQ(next_json(*c)["type"], "error");
}

TEST_F(Chopsticks, FaultAcceptRespFromAnyone) {
  start({"chopsticks.rpc.accept-resp-from-anyone"});
  auto target = agent("agent-target");
  auto intruder = agent("agent-intruder");
  auto result = rpc("agent-target", "skip");
  Json req = next_json(*target);
  intruder->send_text(Json{{"type", "resp"}, {"id", req["id"]}, {"ok", true}, {"data", "forged"}}.dump());
  EXPECT_EQ(result.get().status, 200);
}

}  // namespace
}  // namespace ac::testing
