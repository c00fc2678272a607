// Size limits (1 MB message, 900 KB payload, the 2 MiB transport limit), rate limits per agent,
// per collaboration and global with retry_after, and robustness against junk: every bad frame is
// answered with an error and the connection stays usable.
#include "tests/ref_a2acp/a2acp_fixture.hpp"

namespace ac::testing {
namespace {

class Limits : public A2acpLobby {
 protected:
  void begin() {
    src = attach("source-agent");
    dst = attach("target-agent");
  }
  A2Agent src, dst;
};

TEST_F(Limits, MessageOverOneMegabyteIsRefused) {
  begin();
  Json m = a2::to_json(handshake(src, "target-agent", "echo"));
  m["padding"] = std::string(1024 * 1024 + 10, 'x');  // outside the payload
  const std::string frame = m.dump();
  ASSERT_GT(frame.size(), 1048576u);
  src.ws->send_text(frame);
  Json e = expect_error(src, "SCHEMA_MISMATCH");
  EXPECT_EQ(e["details"]["rule"], "max-message-size");
  EXPECT_EQ(e["details"]["limit_bytes"], 1048576);
  EXPECT_EQ(e["details"]["size_bytes"], frame.size());
  expect_silence(*dst.ws);
  EXPECT_TRUE(src.ws->transport_open());
}

TEST_F(Limits, PayloadOver900KilobytesIsRefusedAndJustUnderIsRouted) {
  begin();
  Collab c = establish(src, dst, "provision_test_dataset");
  Json big = dataset_request();
  big["dataset_type"] = std::string(950 * 1000, 'p');  // ~950 KB payload in a message under 1 MB
  auto m = request(src, dst, "provision_test_dataset", big, c.contract_id);
  ASSERT_LT(a2::encode(m).size(), 1000000u);
  src.send(m);
  Json e = expect_error(src, "SCHEMA_MISMATCH");
  EXPECT_EQ(e["details"]["rule"], "max-payload-size");
  EXPECT_EQ(e["details"]["pointer"], "/payload");
  expect_silence(*dst.ws);

  big["dataset_type"] = std::string(900 * 1024 - 400, 'p');
  m = request(src, dst, "provision_test_dataset", big, c.contract_id);
  ASSERT_LT(Json(a2::to_json(m)["payload"]).dump().size(), 900u * 1024u);
  src.send(m);
  EXPECT_EQ(next(dst)["payload"]["dataset_type"].get<std::string>().size(), big["dataset_type"].get<std::string>().size());
}

TEST_F(Limits, FrameOverTheTransportLimitIsClosed1009) {
  begin();
  src.ws->send_text(std::string(2 * 1024 * 1024 + 100, ' '));
  EXPECT_EQ(next_close(*src.ws).close_code, 1009);
  expect_silence(*dst.ws);
}

TEST_F(Limits, SizeLimitsAreConfigurable) {
  section["max_message_bytes"] = 4096;
  section["max_payload_bytes"] = 1024;
  section["transport_max_bytes"] = 8192;
  restart();
  begin();
  Collab c = establish(src, dst, "echo");
  src.send(request(src, dst, "echo", {{"blob", std::string(2000, 'b')}}, c.contract_id));
  EXPECT_EQ(expect_error(src, "SCHEMA_MISMATCH")["details"]["limit_bytes"], 1024);
  src.send(request(src, dst, "echo", {{"blob", std::string(5000, 'b')}}, c.contract_id));
  EXPECT_EQ(expect_error(src, "SCHEMA_MISMATCH")["details"]["limit_bytes"], 4096);
  src.ws->send_text(std::string(9000, ' '));
  EXPECT_EQ(next_close(*src.ws).close_code, 1009);
}

TEST_F(Limits, PerAgentRateLimit) {
  section["rate_limit_per_agent"] = 5;
  restart();
  begin();
  for (int i = 0; i < 5; ++i) {
    src.ws->send_text("junk");
    expect_error(src, "SCHEMA_MISMATCH");
  }
  src.send(handshake(src, "target-agent", "echo"));
  Json e = expect_error(src, "RATE_LIMIT_EXCEEDED");
  EXPECT_EQ(e["details"]["limit"], "per-agent");
  EXPECT_EQ(e["retry_after"], 12);  // one message every 60 s / 5
  expect_silence(*dst.ws);
  // Another agent is not affected.
  dst.send(a2::make_request(dst.id, broker(), token("target-agent", kBroker), "nothing", Json::object()));
  expect_error(dst, "CAPABILITY_NOT_FOUND");
}

TEST_F(Limits, RateLimitRefillsWithTime) {
  section["rate_limit_per_agent"] = 2;
  section["rate_limit_window_ms"] = 1800;  // one message back every 900 ms
  restart();
  begin();
  for (int i = 0; i < 2; ++i) {
    src.ws->send_text("junk");
    expect_error(src, "SCHEMA_MISMATCH");
  }
  src.ws->send_text("junk");
  EXPECT_EQ(expect_error(src, "RATE_LIMIT_EXCEEDED")["retry_after"], 1);  // rounded up to a whole second
  std::this_thread::sleep_for(1000ms);
  src.ws->send_text("junk");
  expect_error(src, "SCHEMA_MISMATCH");
}

TEST_F(Limits, GlobalRateLimit) {
  section["rate_limit_global"] = 4;
  restart();
  begin();
  for (int i = 0; i < 3; ++i) {
    src.ws->send_text("junk");
    expect_error(src, "SCHEMA_MISMATCH");
  }
  dst.ws->send_text("junk");
  expect_error(dst, "SCHEMA_MISMATCH");
  dst.ws->send_text("junk");
  Json e = expect_error(dst, "RATE_LIMIT_EXCEEDED");
  EXPECT_EQ(e["details"]["limit"], "global");
  EXPECT_GT(e["retry_after"].get<int>(), 0);
}

TEST_F(Limits, PerCollaborationRateLimit) {
  section["rate_limit_per_collaboration"] = 3;
  restart();
  begin();
  Collab c = establish(src, dst, "echo");
  auto event = [&](int i) {
    return a2::make_event(src.id, dst.id, token("source-agent", "target-agent"), std::string("progress"),
                          Json{{"contract_id", c.contract_id}, {"step", i}});
  };
  for (int i = 0; i < 3; ++i) {
    src.send(event(i));
    EXPECT_EQ(next(dst)["payload"]["step"], i);
  }
  src.send(event(3));
  Json e = expect_error(src, "RATE_LIMIT_EXCEEDED");
  EXPECT_EQ(e["details"]["limit"], "per-collaboration");
  EXPECT_EQ(e["details"]["collaboration_id"], c.collaboration_id);
  EXPECT_EQ(e["retry_after"], 20);
  expect_silence(*dst.ws);
  // A second collaboration of the same agents has its own budget.
  Collab d = establish(src, dst, "echo");
  src.send(a2::make_event(src.id, dst.id, token("source-agent", "target-agent"), std::string("progress"), Json{{"contract_id", d.contract_id}}));
  EXPECT_EQ(next(dst)["payload"]["contract_id"], d.contract_id);
}

TEST_F(Limits, JunkNeverBreaksTheConnection) {
  begin();
  const std::vector<std::string> junk = {"", " ", "null", "0", "\"x\"", "{}", "[]", "{\"message_type\":1}", std::string(100000, '['),
                                         "{\"protocol_version\":\"1.0\"}", "\xef\xbb\xbf{}", "{\"a\":\"\\ud800\"}", "1e999999"};
  for (const auto& j : junk) {
    src.ws->send_text(j);
    expect_error(src, "SCHEMA_MISMATCH");
  }
  EXPECT_TRUE(src.ws->transport_open());
  Collab c = establish(src, dst, "echo");
  EXPECT_FALSE(c.contract_id.empty());
  auto h = get("/healthz");
  EXPECT_EQ(Json::parse(h.body)["protocols"]["a2acp"]["collaborations"], 1);
}

TEST_F(Limits, ConcurrentAgentsDoNotInterfere) {
  begin();
  auto remote = attach("remote-agent");
  Collab a = establish(src, dst, "echo");
  Collab b = establish(src, remote, "echo");
  std::thread t1([&] {
    for (int i = 0; i < 50; ++i) src.send(request(src, dst, "echo", {{"i", i}}, a.contract_id));
  });
  std::thread t2([&] {
    for (int i = 0; i < 50; ++i) dst.ws->send_text("junk");
  });
  t1.join();
  t2.join();
  int requests = 0, errors = 0;
  for (int i = 0; i < 100; ++i) {
    Json j = next(dst);
    if (j["message_type"] == "request") {
      EXPECT_EQ(j["payload"]["i"], requests);  // order of one sender is kept
      ++requests;
    } else {
      ++errors;
    }
  }
  EXPECT_EQ(requests, 50);
  EXPECT_EQ(errors, 50);
  expect_silence(*remote.ws);
  (void)b;
}

}  // namespace
}  // namespace ac::testing
