// The fuzzer's oracles against independent peers that read the spec their own way (tests/peers/):
// each test replays a hand-written session that once drew a false finding from a conformant
// target, on a peer that behaves that way, and the replay must not trip. Each also checks that
// the session did reach the behaviour (the transcript shows the frame that drew the finding), so
// a test cannot pass because nothing happened.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "harness/fuzz/profile.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace ac::fuzz {
namespace {

using Json = nlohmann::json;

bool have_aiohttp() { return std::system("/usr/bin/python3 -c 'import aiohttp' > /dev/null 2>&1") == 0; }

Json step(const std::string& action, const std::string& conn, const std::string& data) {
  return Json{{"action", action}, {"conn", conn}, {"data", data}};
}

// Replays `file` twice against the Agora peer (tests/peers/agora/peer.py) started with `peer_args`.
int replay_on_agora(const std::filesystem::path& dir, const std::filesystem::path& file, const std::string& peer_args, std::string& log) {
  std::ofstream(dir / "agora.target.json") << R"({"settings": {"binding": "query"}, "features": ["agora.streaming"]})";
  return test::replay_against_peer(dir, file, "agora", "/agora/ws", peer_args, 2, "--config " + (dir / "agora.target.json").string(), log);
}

// A binary frame that names its recipient addresses it: a relay that reads binary frames as JSON
// and forwards them delivered to an agent "no frame addressed", because only text frames counted.
TEST(FuzzOracles, ABinaryFrameAddressesItsRecipient) {
  if (!have_aiohttp()) GTEST_SKIP() << "python3-aiohttp missing";
  const auto dir = test::scratch("oracle-binary");
  const Json steps = Json::array({step("connect", "a", "${path.ws}?${query}=${a}"), step("connect", "b", "${path.ws}?${query}=${b}"),
                                  step("binary", "a", R"({"type":"send","to":"${b}","payload":{"text":"in a binary frame"}})")});
  std::ofstream(dir / "binary.json") << test::handwritten_reproducer("agora", "isolation", "message delivered to an agent no frame addressed", steps).dump(1);
  std::string log;
  EXPECT_EQ(replay_on_agora(dir, dir / "binary.json", "--quirk binary-as-text", log), 0) << log;
  EXPECT_NE(log.find("trips 0 of 2"), std::string::npos) << log;
  EXPECT_NE(log.find(R"("type":"message")"), std::string::npos) << "b received the forwarded message\n" << log;
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

// A stateless relay (the spec's Summary: "stateless; only forwards") forwards a chunk sent before
// its stream's start; the stream then delivers one chunk more than it tracked, which is not a
// chunk lost or reordered.
TEST(FuzzOracles, AStatelessRelayForwardsAChunkBeforeItsStart) {
  if (!have_aiohttp()) GTEST_SKIP() << "python3-aiohttp missing";
  const auto dir = test::scratch("oracle-early-chunk");
  const Json steps = Json::array(
      {step("connect", "a", "${path.ws}?${query}=${a}"), step("connect", "b", "${path.ws}?${query}=${b}"),
       step("text", "a", R"({"type":"send_chunk","to":"${b}","stream_id":"s1","chunk":"ahead of the start"})"),
       step("text", "a", R"({"type":"send","to":"${b}","stream":true,"stream_id":"s1","payload":{"text":"start"}})"),
       step("text", "a", R"({"type":"send_chunk","to":"${b}","stream_id":"s1","chunk":"one"})"),
       step("text", "a", R"({"type":"send_end","to":"${b}","stream_id":"s1"})")});
  std::ofstream(dir / "early.json") << test::handwritten_reproducer("agora", "isolation", "stream chunks lost or reordered", steps).dump(1);
  std::string log;
  EXPECT_EQ(replay_on_agora(dir, dir / "early.json", "", log), 0) << log;
  EXPECT_NE(log.find("trips 0 of 2"), std::string::npos) << log;
  EXPECT_NE(log.find("message_chunk"), std::string::npos) << "b received the early chunk\n" << log;
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

// AgentProtocol: the peer's answer to a request reaches the agent that asked. Over HTTP the answer
// is the body of that agent's own POST, so it cannot stray, whatever the request looked like; and
// a request the oracle holds broken (unsigned here) still counts as asked when a lenient peer
// answers it. A response under a correlationId this connection never used still trips over a
// WebSocket, where a peer could misdeliver it.
TEST(FuzzOracles, AnAnswerToTheAgentsOwnRequestNeverStrays) {
  const Profile& ap = profile_for(Protocol::agentprotocol);
  auto answer = [](const std::string& correlation) {
    net::WsEvent e;
    e.kind = ws::Event::Kind::text;
    e.data = Json{{"protocol", "agentprotocol/0.1"}, {"id", "5b0e6c1e-8f57-4a8e-9d6b-1c3f6f0a9e21"}, {"timestamp", "2026-12-02T10:00:00Z"},
                  {"from", {{"agentId", "PEER"}, {"capabilities", {"agentprotocol:core"}}}}, {"to", {{"agentId", "A"}, {"broadcast", false}}},
                  {"type", "response"}, {"payload", {{"correlationId", correlation}, {"status", "success"}, {"result", {{"ok", true}}}}}}
                 .dump();
    return e;
  };
  auto exec_with = [&](bool http) {
    Exec exec;
    exec.vars = {{"peer", "PEER"}, {"a", "A"}, {"b", "B"}};
    ConnRecord c;
    c.label = "a";
    c.id = "A";
    c.http = http;
    exec.conns.push_back(std::move(c));
    return exec;
  };
  // Unsigned, so not a request the oracle verifies; a lenient peer answers it all the same.
  const std::string unsigned_request =
      Json{{"protocol", "agentprotocol/0.1"}, {"id", "0f8fad5b-d9cb-469f-a165-70867728950e"}, {"timestamp", "2026-12-02T10:00:00Z"},
           {"from", {{"agentId", "A"}, {"capabilities", {"agentprotocol:core"}}}}, {"to", {{"agentId", "PEER"}, {"broadcast", false}}},
           {"type", "request"}, {"payload", {{"action", "echo"}, {"correlationId", "asked-1"}, {"params", {{"text", "hi"}}}}}}
          .dump();
  {
    Exec exec = exec_with(false);
    ap.sent(exec, exec.conns[0], unsigned_request);
    // The error an unsigned message is owed, so the judgement reaches isolation.
    net::WsEvent error;
    error.data = Json{{"type", "error"}, {"from", {{"agentId", "PEER"}}}, {"payload", {{"code", "INVALID_MESSAGE"}}}}.dump();
    exec.conns[0].events.emplace_back(error);
    exec.conns[0].events.emplace_back(answer("asked-1"));
    auto trip = ap.judge(exec);
    EXPECT_TRUE(!trip || trip->oracle != "isolation") << trip->signature << ": " << trip->detail;
  }
  {
    Exec exec = exec_with(true);
    exec.conns[0].events.emplace_back(answer("never-asked"));
    auto trip = ap.judge(exec);
    EXPECT_TRUE(!trip || trip->oracle != "isolation") << trip->signature << ": " << trip->detail;
  }
  {
    Exec exec = exec_with(false);
    exec.conns[0].events.emplace_back(answer("never-asked"));
    auto trip = ap.judge(exec);
    ASSERT_TRUE(trip) << "a response under a correlationId nobody on this WebSocket used";
    EXPECT_EQ(trip->oracle, "isolation");
    EXPECT_EQ(trip->signature, "a response reached an agent that did not send its request");
  }
}

}  // namespace
}  // namespace ac::fuzz
