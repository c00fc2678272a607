// LOBBY_BROADCAST (§7.4.1) through POST /api/v1/admin/broadcast: to BROADCAST_ALL and to one
// agent, and every refusal of the administrative call.
#include "tests/ref_alp/alp_fixture.hpp"

namespace ac::testing {
namespace {

using Broadcast = AlpLobby;

TEST_F(Broadcast, BroadcastAllReachesEveryConnectedAgent) {
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  Agent gone = agent("agent-gone");
  register_ok("agent-never-connected");
  gone.ws->close(1000, "bye");
  wait_for([&] { return agent_status(gone.id)["status"] == "offline"; });
  auto r = broadcast({{"receiver_id", "BROADCAST_ALL"}, {"event_type", "system_maintenance"}, {"data", {{"in_minutes", 5}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json answer = Json::parse(r.body);
  EXPECT_EQ(answer["delivered"], 2);
  EXPECT_EQ(answer["receivers"], Json::array({"agent-a", "agent-b"}));
  Json ma = next(a);
  Json mb = next(b);
  for (const Json& m : {ma, mb}) {
    EXPECT_EQ(m["message_type"], "LOBBY_BROADCAST");
    EXPECT_EQ(m["sender_id"], kLobbyId);
    EXPECT_EQ(m["receiver_id"], "BROADCAST_ALL");
    EXPECT_EQ(m["payload"]["event_type"], "system_maintenance");
    EXPECT_EQ(m["payload"]["data"]["in_minutes"], 5);
    EXPECT_EQ(m["conversation_id"], answer["broadcast_id"]);
  }
  EXPECT_NE(ma["message_id"], mb["message_id"]);  // every message its own id
}

TEST_F(Broadcast, ToOneAgentOnly) {
  Agent a = agent("agent-a");
  Agent b = agent("agent-b");
  auto r = broadcast({{"receiver_id", "agent-b"}, {"event_type", "agent_joined_topic"}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json m = next(b);
  EXPECT_EQ(m["receiver_id"], "agent-b");
  EXPECT_EQ(m["payload"]["data"], Json::object());  // data defaults to {}
  expect_silence(*a.ws);
}

TEST_F(Broadcast, AdminCallRefusals) {
  Agent a = agent("agent-a");
  register_ok("agent-offline");
  const Json good = {{"receiver_id", "BROADCAST_ALL"}, {"event_type", "e"}};
  expect_http_error(broadcast(good, ""), 401, "AUTH_TOKEN_INVALID");
  expect_http_error(broadcast(good, "wrong"), 401, "AUTH_TOKEN_INVALID");
  expect_http_error(broadcast({{"event_type", "e"}}), 400, "MISSING_REQUIRED_FIELD");
  expect_http_error(broadcast({{"receiver_id", "BROADCAST_ALL"}, {"event_type", ""}}), 400, "MESSAGE_MALFORMED");
  expect_http_error(broadcast({{"receiver_id", "BROADCAST_ALL"}, {"event_type", "e"}, {"data", "text"}}), 400, "MESSAGE_MALFORMED");
  expect_http_error(broadcast({{"receiver_id", "BROADCAST_ALL"}, {"event_type", "e"}, {"extra", 1}}), 400, "MESSAGE_MALFORMED");
  expect_http_error(broadcast({{"receiver_id", "agent-nobody"}, {"event_type", "e"}}), 404, "RECEIVER_NOT_FOUND");
  expect_http_error(broadcast({{"receiver_id", "agent-offline"}, {"event_type", "e"}}), 409, "RECEIVER_UNAVAILABLE");
  expect_http_error(get("/api/v1/admin/broadcast"), 405, "METHOD_NOT_ALLOWED");
  expect_silence(*a.ws);
}

}  // namespace
}  // namespace ac::testing
