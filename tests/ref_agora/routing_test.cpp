// One-shot routing: send -> message with `from` from the binding, reply delivered as reply with
// `from`, frames as-is (payload, extra members), only to the addressee; the relay's error frame
// for unknown recipients and invalid frames; limits of the network layer (1009, 1007).
#include "tests/ref_agora/agora_fixture.hpp"

namespace ac::testing {
namespace {

class Routing : public AgoraTest {};

TEST_F(Routing, OneShotSendIsForwardedAsMessageWithFromAndIdenticalPayload) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  const Json payload = {{"action", "query"}, {"body", {{"question", "2+2? ünï 😀"}, {"n", 1.5}, {"list", {1, "x", nullptr}}}}};
  send(*ca, {{"type", "send"}, {"to", b}, {"payload", payload}});
  EXPECT_EQ(next_json(*cb), Json({{"type", "message"}, {"from", a}, {"payload", payload}}));
  expect_silence(*ca, 150ms);  // no acknowledgement to the sender
}

TEST_F(Routing, ClientFromIsNeverBelieved) {
  const std::string a = id("a"), b = id("b"), c = id("c");
  auto ca = agent(a);
  auto cb = agent(b);
  auto cc = agent(c);
  send(*ca, {{"type", "send"}, {"to", b}, {"from", c}, {"payload", Json::object()}});
  EXPECT_EQ(next_json(*cb)["from"], a);
  send(*ca, {{"type", "reply"}, {"to", b}, {"from", c}, {"payload", Json::object()}});
  Json r = next_json(*cb);
  EXPECT_EQ(r["type"], "reply");
  EXPECT_EQ(r["from"], a);
  expect_silence(*cc, 100ms);
}

TEST_F(Routing, ExtraMembersAndStreamFalseTravelUnchanged) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, {{"type", "send"}, {"to", b}, {"stream", false}, {"stream_id", "s"}, {"x-trace", {{"id", 7}}}, {"payload", {{"k", 1}}}});
  EXPECT_EQ(next_json(*cb),
            Json({{"type", "message"}, {"from", a}, {"stream", false}, {"stream_id", "s"}, {"x-trace", {{"id", 7}}}, {"payload", {{"k", 1}}}}));
  // A one-shot with a stream_id opened no stream.
  send(*ca, chunk_frame(b, "s", "x"));
  expect_error(*ca, "UNKNOWN_STREAM");
}

TEST_F(Routing, ReplyIsDeliveredAsReplyWithRequestIdUnchanged) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, {{"type", "send"}, {"to", b}, {"payload", {{"request_id", 42}, {"q", "?"}}}});
  EXPECT_EQ(next_json(*cb)["payload"]["request_id"], 42);
  send(*cb, {{"type", "reply"}, {"to", a}, {"payload", {{"request_id", 42}, {"answer", "!"}}}});
  EXPECT_EQ(next_json(*ca), Json({{"type", "reply"}, {"to", a}, {"from", b}, {"payload", {{"request_id", 42}, {"answer", "!"}}}}));
}

TEST_F(Routing, FramesGoOnlyToTheAddressee) {
  const std::string a = id("a"), b = id("b"), c = id("c");
  auto ca = agent(a);
  auto cb = agent(b);
  auto cc = agent(c);
  for (int i = 0; i < 10; ++i) send(*ca, {{"type", "send"}, {"to", b}, {"payload", {{"i", i}}}});
  for (int i = 0; i < 10; ++i) EXPECT_EQ(next_json(*cb)["payload"]["i"], i);
  expect_silence(*cc, 150ms);
  expect_silence(*ca, 10ms);
}

TEST_F(Routing, SendingToItselfIsDelivered) {
  const std::string a = id("a");
  auto ca = agent(a);
  send(*ca, {{"type", "send"}, {"to", a}, {"payload", Json::object()}});
  Json m = next_json(*ca);
  EXPECT_EQ(m["type"], "message");
  EXPECT_EQ(m["from"], a);
}

TEST_F(Routing, UnknownRecipientIsAnsweredAndNothingIsDelivered) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  const std::string nobody = id("nobody");
  send(*ca, {{"type", "send"}, {"to", nobody}, {"payload", Json::object()}});
  Json e = expect_error(*ca, "UNKNOWN_RECIPIENT");
  EXPECT_FALSE(e.contains("stream_id"));
  EXPECT_NE(e["message"].get<std::string>().find(nobody), std::string::npos);
  send(*ca, {{"type", "reply"}, {"to", nobody}, {"payload", Json::object()}});
  expect_error(*ca, "UNKNOWN_RECIPIENT");
  send(*ca, start_frame(nobody, "s1"));
  EXPECT_EQ(expect_error(*ca, "UNKNOWN_RECIPIENT")["stream_id"], "s1");
  // That stream was never opened.
  send(*ca, chunk_frame(nobody, "s1", "x"));
  EXPECT_EQ(expect_error(*ca, "UNKNOWN_STREAM")["stream_id"], "s1");
  expect_silence(*cb, 100ms);
}

TEST_F(Routing, InvalidFramesGetInvalidFrameAndTheConnectionStaysUsable) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  const std::vector<std::string> junk = {
      "not json",
      "[1,2]",
      "\"text\"",
      "{}",
      R"({"type":"shout","to":"x"})",
      R"({"type":"send","payload":{}})",                                          // no to
      R"({"type":"send","to":"","payload":{}})",                                  // empty to (AG-8)
      R"({"type":"send","to":5,"payload":{}})",                                   // to not a string
      R"({"type":"send","to":"x"})",                                              // one-shot without payload (AG-3)
      R"({"type":"send","to":"x","stream":true})",                                // stream without stream_id (AG-3)
      R"({"type":"send","to":"x","stream":"yes","stream_id":"s"})",               // stream not a boolean
      R"({"type":"send","to":"x","payload":[1]})",                                // payload not an object
      R"({"type":"send_chunk","to":"x","stream_id":"s","chunk":5})",              // chunk not a string (AG-4)
      R"({"type":"send_chunk","to":"x","stream_id":"s"})",                        // no chunk
      R"({"type":"send_end","to":"x"})",                                          // no stream_id
      R"({"type":"send","to":"x","to":"y","payload":{}})",                        // duplicate key
      R"({"type":"message","from":"x","payload":{}})",                            // a relay-side frame
      R"({"type":"error","code":"X","message":"m"})",                             // idem
  };
  for (const auto& frame : junk) {
    ca->send_text(frame);
    Json e = expect_error(*ca, "INVALID_FRAME");
    EXPECT_FALSE(e["message"].get<std::string>().empty()) << frame;
  }
  ca->send_binary(std::string("\x00\x01\x02", 3));
  expect_error(*ca, "INVALID_FRAME");
  expect_silence(*cb, 50ms);
  expect_usable(*ca, a, *cb, b);
}

TEST_F(Routing, OversizedFrameClosesWith1009) {
  const std::string a = id("a");
  auto ca = agent(a);
  ca->send_text(std::string(1024 * 1024 + 1, ' '));
  auto e = ca->next(3000ms);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ws::Event::Kind::close);
  EXPECT_EQ(e->close_code, 1009);
}

TEST_F(Routing, InvalidUtf8TextClosesWith1007) {
  const std::string a = id("a");
  auto ca = agent(a);
  ca->send_text("{\"type\":\"send\",\"to\":\"\xff\"}");
  auto e = ca->next(3000ms);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->close_code, 1007);
}

class SmallFrames : public AgoraTest {
  Json agora_section() override { return {{"max_frame_bytes", 512}}; }
};

TEST_F(SmallFrames, TheRelaysOwnFrameLimitApplies) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, {{"type", "send"}, {"to", b}, {"payload", {{"text", std::string(400, 'x')}}}});
  EXPECT_EQ(next_json(*cb)["type"], "message");
  send(*ca, {{"type", "send"}, {"to", b}, {"payload", {{"text", std::string(600, 'x')}}}});
  EXPECT_EQ(next_close(*ca).close_code, 1009);
  expect_silence(*cb, 100ms);
}

}  // namespace
}  // namespace ac::testing
