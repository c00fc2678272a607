// Streams: start/chunk/end forwarded incrementally and in order, interleaving across streams,
// senders and receivers (also from concurrent threads), streaming replies with the same or a new
// stream_id, the stream errors (UNKNOWN_STREAM, STREAM_ENDED, STREAM_ID_IN_USE,
// UNKNOWN_RECIPIENT mid-stream) and the caps (TOO_MANY_STREAMS, the remembered ends).
#include <thread>

#include "reference/agora/streams.hpp"
#include "tests/ref_agora/agora_fixture.hpp"

namespace ac::testing {
namespace {

class Streaming : public AgoraTest {};

TEST_F(Streaming, StartChunksAndEndAreForwardedEachAsItArrives) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  Json s = start_frame(b, "stream-1");
  s["payload"] = {{"action", "query"}};
  send(*ca, s);
  EXPECT_EQ(next_json(*cb), Json({{"type", "message"}, {"from", a}, {"stream_id", "stream-1"}, {"stream", true}, {"payload", {{"action", "query"}}}}));
  send(*ca, chunk_frame(b, "stream-1", "This is"));
  // Delivered before the sender ends the stream.
  EXPECT_EQ(next_json(*cb), Json({{"type", "message_chunk"}, {"from", a}, {"stream_id", "stream-1"}, {"chunk", "This is"}}));
  send(*ca, chunk_frame(b, "stream-1", ""));
  EXPECT_EQ(next_json(*cb)["chunk"], "");
  send(*ca, end_frame(b, "stream-1"));
  EXPECT_EQ(next_json(*cb), Json({{"type", "message_end"}, {"from", a}, {"stream_id", "stream-1"}}));
  expect_silence(*ca, 100ms);
  EXPECT_EQ(agora_status()["open_streams"], 0);
}

TEST_F(Streaming, StartWithoutPayloadIsForwardedWithoutPayload) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "s"));
  EXPECT_FALSE(next_json(*cb).contains("payload"));
}

TEST_F(Streaming, ThousandChunksArriveInOrder) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "big"));
  for (int i = 0; i < 1000; ++i) send(*ca, chunk_frame(b, "big", std::to_string(i)));
  send(*ca, end_frame(b, "big"));
  EXPECT_EQ(next_json(*cb)["type"], "message");
  for (int i = 0; i < 1000; ++i) {
    Json c = next_json(*cb);
    ASSERT_EQ(c["chunk"], std::to_string(i));
  }
  EXPECT_EQ(next_json(*cb)["type"], "message_end");
}

TEST_F(Streaming, ConcurrentSendersInterleaveAndEachStreamKeepsItsOrder) {
  constexpr int kSenders = 4, kStreams = 3, kChunks = 200;
  const std::string r = id("r");
  auto cr = agent(r);
  std::vector<std::string> ids;
  std::vector<std::shared_ptr<net::WsClient>> senders;
  for (int s = 0; s < kSenders; ++s) {
    ids.push_back(id("s"));
    senders.push_back(agent(ids.back()));
  }
  std::vector<std::thread> threads;
  for (int s = 0; s < kSenders; ++s) {
    threads.emplace_back([&, s] {
      for (int k = 0; k < kStreams; ++k) send(*senders[s], start_frame(r, "st" + std::to_string(k)));
      for (int i = 0; i < kChunks; ++i) {
        for (int k = 0; k < kStreams; ++k) send(*senders[s], chunk_frame(r, "st" + std::to_string(k), std::to_string(i)));
      }
      for (int k = 0; k < kStreams; ++k) send(*senders[s], end_frame(r, "st" + std::to_string(k)));
    });
  }
  for (auto& t : threads) t.join();
  std::map<std::pair<std::string, std::string>, int> next;  // (from, stream) -> next chunk index
  std::map<std::pair<std::string, std::string>, bool> ended;
  const int total = kSenders * kStreams * (kChunks + 2);
  for (int n = 0; n < total; ++n) {
    Json f = next_json(*cr);
    ASSERT_TRUE(f.is_object());
    const auto key = std::make_pair(f["from"].get<std::string>(), f["stream_id"].get<std::string>());
    if (f["type"] == "message") {
      ASSERT_EQ(next.count(key), 0u);
      next[key] = 0;
    } else if (f["type"] == "message_chunk") {
      ASSERT_EQ(next.count(key), 1u) << "chunk before start";
      ASSERT_EQ(f["chunk"], std::to_string(next[key]++));
    } else {
      ASSERT_EQ(f["type"], "message_end");
      ASSERT_EQ(next[key], kChunks);
      ended[key] = true;
    }
  }
  EXPECT_EQ(ended.size(), static_cast<std::size_t>(kSenders * kStreams));
  for (auto& s : senders) expect_silence(*s, 10ms);
}

TEST_F(Streaming, StreamsToDifferentReceiversStayApart) {
  const std::string a = id("a"), b = id("b"), c = id("c");
  auto ca = agent(a);
  auto cb = agent(b);
  auto cc = agent(c);
  send(*ca, start_frame(b, "same"));
  send(*ca, start_frame(c, "other"));
  for (int i = 0; i < 50; ++i) {
    send(*ca, chunk_frame(b, "same", "b" + std::to_string(i)));
    send(*ca, chunk_frame(c, "other", "c" + std::to_string(i)));
  }
  EXPECT_EQ(next_json(*cb)["stream_id"], "same");
  EXPECT_EQ(next_json(*cc)["stream_id"], "other");
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(next_json(*cb)["chunk"], "b" + std::to_string(i));
    EXPECT_EQ(next_json(*cc)["chunk"], "c" + std::to_string(i));
  }
}

TEST_F(Streaming, TwoSendersMayUseTheSameStreamId) {
  const std::string a = id("a"), b = id("b"), r = id("r");
  auto ca = agent(a);
  auto cb = agent(b);
  auto cr = agent(r);
  send(*ca, start_frame(r, "s"));
  EXPECT_EQ(next_json(*cr)["from"], a);
  send(*cb, start_frame(r, "s"));
  EXPECT_EQ(next_json(*cr)["from"], b);
  send(*cb, chunk_frame(r, "s", "from b"));
  Json c = next_json(*cr);
  EXPECT_EQ(c["from"], b);
  EXPECT_EQ(c["chunk"], "from b");
  send(*ca, end_frame(r, "s"));
  EXPECT_EQ(next_json(*cr)["from"], a);
}

TEST_F(Streaming, StreamingReplyWithTheSameStreamIdWhileTheRequestIsOpen) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "s1"));
  next_json(*cb);
  // b also streams its own "s1" to a: the reply family is separate.
  send(*cb, start_frame(a, "s1"));
  EXPECT_EQ(next_json(*ca)["type"], "message");
  send(*cb, {{"type", "reply"}, {"to", a}, {"stream_id", "s1"}, {"stream", true}, {"payload", {{"request_id", "r1"}}}});
  EXPECT_EQ(next_json(*ca), Json({{"type", "reply"}, {"to", a}, {"from", b}, {"stream_id", "s1"}, {"stream", true}, {"payload", {{"request_id", "r1"}}}}));
  send(*cb, {{"type", "reply_chunk"}, {"to", a}, {"stream_id", "s1"}, {"chunk", "answer"}});
  EXPECT_EQ(next_json(*ca), Json({{"type", "reply_chunk"}, {"to", a}, {"from", b}, {"stream_id", "s1"}, {"chunk", "answer"}}));
  send(*ca, chunk_frame(b, "s1", "more question"));
  EXPECT_EQ(next_json(*cb)["chunk"], "more question");
  send(*cb, {{"type", "reply_end"}, {"to", a}, {"stream_id", "s1"}});
  EXPECT_EQ(next_json(*ca), Json({{"type", "reply_end"}, {"to", a}, {"from", b}, {"stream_id", "s1"}}));
  send(*cb, {{"type", "reply_chunk"}, {"to", a}, {"stream_id", "s1"}, {"chunk", "late"}});
  expect_error(*cb, "STREAM_ENDED");
  send(*cb, chunk_frame(a, "s1", "own stream still open"));
  EXPECT_EQ(next_json(*ca)["type"], "message_chunk");
}

TEST_F(Streaming, UnknownStreamAndStreamEndedAreToldApart) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, chunk_frame(b, "never", "x"));
  EXPECT_EQ(expect_error(*ca, "UNKNOWN_STREAM")["stream_id"], "never");
  send(*ca, end_frame(b, "never"));
  EXPECT_EQ(expect_error(*ca, "UNKNOWN_STREAM")["stream_id"], "never");
  send(*ca, {{"type", "reply_end"}, {"to", b}, {"stream_id", "never"}});
  expect_error(*ca, "UNKNOWN_STREAM");
  send(*ca, start_frame(b, "s"));
  send(*ca, end_frame(b, "s"));
  next_json(*cb);
  next_json(*cb);
  send(*ca, chunk_frame(b, "s", "late"));
  EXPECT_EQ(expect_error(*ca, "STREAM_ENDED")["stream_id"], "s");
  send(*ca, end_frame(b, "s"));
  expect_error(*ca, "STREAM_ENDED");
  // A send stream's end does not end the reply stream of the same id, and vice versa.
  send(*ca, {{"type", "reply_chunk"}, {"to", b}, {"stream_id", "s"}, {"chunk", "x"}});
  expect_error(*ca, "UNKNOWN_STREAM");
  expect_silence(*cb, 100ms);
}

TEST_F(Streaming, AnotherSendersStreamCannotBeInjectedInto) {
  const std::string a = id("a"), b = id("b"), m = id("m");
  auto ca = agent(a);
  auto cb = agent(b);
  auto cm = agent(m);
  send(*ca, start_frame(b, "s"));
  next_json(*cb);
  send(*cm, chunk_frame(b, "s", "injected"));
  expect_error(*cm, "UNKNOWN_STREAM");
  expect_silence(*cb, 100ms);
}

TEST_F(Streaming, ChunkToAnotherRecipientThanTheStreamsIsUnknownStream) {
  const std::string a = id("a"), b = id("b"), c = id("c");
  auto ca = agent(a);
  auto cb = agent(b);
  auto cc = agent(c);
  send(*ca, start_frame(b, "s"));
  next_json(*cb);
  send(*ca, chunk_frame(c, "s", "x"));
  expect_error(*ca, "UNKNOWN_STREAM");
  expect_silence(*cc, 100ms);
}

TEST_F(Streaming, StreamIdInUseWhileOpenButReusableAfterTheEnd) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "s"));
  next_json(*cb);
  send(*ca, start_frame(b, "s"));
  EXPECT_EQ(expect_error(*ca, "STREAM_ID_IN_USE")["stream_id"], "s");
  expect_silence(*cb, 100ms);
  send(*ca, end_frame(b, "s"));
  next_json(*cb);
  send(*ca, start_frame(b, "s"));
  EXPECT_EQ(next_json(*cb)["type"], "message");
  send(*ca, chunk_frame(b, "s", "again"));
  EXPECT_EQ(next_json(*cb)["chunk"], "again");
}

TEST_F(Streaming, RecipientLeavingMidStreamGivesUnknownRecipientUntilTheEnd) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  send(*ca, start_frame(b, "s"));
  next_json(*cb);
  cb->close(1000, "bye");
  next_close(*cb);
  for (int i = 0; i < 100 && agora_status()["agents_online"] != 1; ++i) std::this_thread::sleep_for(10ms);
  // b comes back on a new connection: it never saw the start, so it gets none of the rest.
  auto cb2 = agent(b);
  send(*ca, chunk_frame(b, "s", "x"));
  EXPECT_EQ(expect_error(*ca, "UNKNOWN_RECIPIENT")["stream_id"], "s");
  send(*ca, end_frame(b, "s"));
  expect_error(*ca, "UNKNOWN_RECIPIENT");
  send(*ca, chunk_frame(b, "s", "y"));
  expect_error(*ca, "STREAM_ENDED");
  expect_silence(*cb2, 100ms);
}

TEST_F(Streaming, SenderDisconnectingFreesItsStreams) {
  const std::string b = id("b");
  auto cb = agent(b);
  {
    auto ca = agent(id("a"));
    for (int i = 0; i < 5; ++i) send(*ca, start_frame(b, "s" + std::to_string(i)));
    for (int i = 0; i < 5; ++i) next_json(*cb);
    EXPECT_EQ(agora_status()["open_streams"], 5);
    ca->close(1000, "bye");
    next_close(*ca);
  }
  for (int i = 0; i < 100 && agora_status()["open_streams"] != 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(agora_status()["open_streams"], 0);
}

class StreamCaps : public AgoraTest {
  Json agora_section() override {
    return {{"max_open_streams_per_agent", 3}, {"max_open_streams_total", 5}, {"ended_streams_remembered", 2}};
  }
};

TEST_F(StreamCaps, TooManyStreamsPerAgentAndInAll) {
  const std::string a = id("a"), b = id("b"), c = id("c");
  auto ca = agent(a);
  auto cb = agent(b);
  auto cc = agent(c);
  for (int i = 0; i < 3; ++i) send(*ca, start_frame(b, "s" + std::to_string(i)));
  for (int i = 0; i < 3; ++i) next_json(*cb);
  send(*ca, start_frame(b, "s3"));
  EXPECT_EQ(expect_error(*ca, "TOO_MANY_STREAMS")["stream_id"], "s3");
  send(*ca, chunk_frame(b, "s3", "x"));
  expect_error(*ca, "UNKNOWN_STREAM");  // the refused start opened nothing
  for (int i = 0; i < 2; ++i) send(*cc, start_frame(b, "t" + std::to_string(i)));
  for (int i = 0; i < 2; ++i) next_json(*cb);
  send(*cc, start_frame(b, "t2"));  // 5 open in all
  expect_error(*cc, "TOO_MANY_STREAMS");
  send(*ca, end_frame(b, "s0"));
  next_json(*cb);
  send(*cc, start_frame(b, "t2"));  // room again
  EXPECT_EQ(next_json(*cb)["stream_id"], "t2");
}

TEST_F(StreamCaps, OnlyTheLatestEndsAreRemembered) {
  const std::string a = id("a"), b = id("b");
  auto ca = agent(a);
  auto cb = agent(b);
  for (const char* s : {"e1", "e2", "e3"}) {
    send(*ca, start_frame(b, s));
    send(*ca, end_frame(b, s));
  }
  for (int i = 0; i < 6; ++i) next_json(*cb);
  send(*ca, chunk_frame(b, "e3", "x"));
  expect_error(*ca, "STREAM_ENDED");
  send(*ca, chunk_frame(b, "e1", "x"));  // forgotten: never started, as far as the relay knows
  expect_error(*ca, "UNKNOWN_STREAM");
}

TEST(StreamTable, OpenEndReopenAndForget) {
  ref::agora::StreamTable t(2);
  const ref::agora::StreamKey s1{ref::agora::Family::send, "1"}, r1{ref::agora::Family::reply, "1"};
  EXPECT_EQ(t.find(s1), nullptr);
  t.open(s1, {"b", {}, std::nullopt, {}});
  EXPECT_NE(t.find(s1), nullptr);
  EXPECT_EQ(t.find(r1), nullptr);
  EXPECT_EQ(t.open_count(), 1u);
  t.end(s1);
  EXPECT_EQ(t.find(s1), nullptr);
  EXPECT_TRUE(t.is_ended(s1));
  EXPECT_FALSE(t.is_ended(r1));
  t.open(s1, {"b", {}, std::nullopt, {}});
  EXPECT_FALSE(t.is_ended(s1));
  t.end(s1);
  t.open(r1, {"b", {}, std::nullopt, {}});
  t.end(r1);
  t.open({ref::agora::Family::send, "2"}, {"b", {}, std::nullopt, {}});
  t.end({ref::agora::Family::send, "2"});
  EXPECT_FALSE(t.is_ended(s1));  // the oldest of three ends was forgotten
  EXPECT_TRUE(t.is_ended(r1));
  EXPECT_EQ(t.clear(), 0u);
  EXPECT_FALSE(t.is_ended(r1));
}

}  // namespace
}  // namespace ac::testing
