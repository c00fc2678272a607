// Agora typed codec: frames decode to the right alternative with their values, unknown members
// survive, errors carry code/pointer/rule, and the relay's forwarding transformation is exact.
#include <gtest/gtest.h>

#include "harness/protocols/agora/builders.hpp"
#include "harness/protocols/agora/codec.hpp"
#include "tests/protocols/codec_test_support.hpp"

namespace ac::proto::agora {
namespace {

using test::fixtures_dir;
using test::read_file;

Message must_decode(const std::string& file) {
  auto m = decode(read_file(fixtures_dir("agora") / file));
  EXPECT_TRUE(m.has_value()) << file << ": " << (m ? "" : m.error().describe());
  return m ? *m : Message{};
}

void expect_valid(const Message& m) {
  auto again = decode(encode(m));
  ASSERT_TRUE(again.has_value()) << again.error().describe() << "\n" << encode(m);
  EXPECT_EQ(*again, m);
}

TEST(AgoraCodec, EveryValidFixtureDecodesLosslessly) {
  test::check_valid_fixtures(
      "agora", [](std::string_view b) { return decode(b); }, [](const Message& m) { return to_json(m); },
      [](const Message& m) { return encode(m); }, [](const Message& m) { return std::string(m.type_name()); }, 10);
}

TEST(AgoraCodec, EveryInvalidFixtureFailsWithItsExpectedError) {
  test::check_invalid_fixtures("agora", "agora-relay-streaming.md", "/type", [](std::string_view b) { return decode(b); },
                               15);
}

TEST(AgoraCodec, StreamStartFields) {
  const Message m = must_decode("valid/spec_send_stream_start.json");
  const auto* s = m.get<Send>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->to, "agent-2");
  EXPECT_EQ(s->stream_id, "stream-1");
  EXPECT_EQ(s->stream, true);
  ASSERT_TRUE(s->payload.has_value());
  EXPECT_EQ(s->payload->at("action"), "query");
  EXPECT_EQ(m.stream_id(), "stream-1");
}

TEST(AgoraCodec, UnknownMembersAreKept) {
  const Message m = must_decode("valid/send_extra_member.json");
  const auto* s = m.get<Send>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->extra, (Json{{"trace", "abc"}}));
  EXPECT_FALSE(s->stream_id.has_value());
  EXPECT_EQ(to_json(m)["trace"], "abc");
}

TEST(AgoraCodec, DeliveredReplyAndErrorFrames) {
  const Message r = must_decode("valid/reply_chunk_delivered.json");
  const auto* c = r.get<ReplyChunk>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->to, "agent-1");
  EXPECT_EQ(c->from, "agent-2");
  EXPECT_EQ(c->chunk, "The answer");
  const Message e = must_decode("valid/error_unknown_stream.json");
  const auto* err = e.get<Error>();
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->code, "UNKNOWN_STREAM");
  EXPECT_EQ(err->stream_id, "stream-7");
}

TEST(AgoraBuilders, ForwardingTurnsSendFramesIntoMessageFrames) {
  const Message send = must_decode("valid/send_extra_member.json");
  auto fwd = make_forward(send, "agent-1");
  ASSERT_TRUE(fwd.has_value());
  ASSERT_EQ(fwd->type(), MessageType::message);
  EXPECT_EQ(to_json(*fwd), (Json{{"type", "message"}, {"from", "agent-1"}, {"payload", {{"action", "query"}}}, {"trace", "abc"}}));
  expect_valid(*fwd);

  const std::vector<std::pair<Message, MessageType>> stream = {
      {make_stream_start("agent-2", "s-1", Json{{"request_id", 7}}), MessageType::message},
      {make_send_chunk("agent-2", "s-1", "This is"), MessageType::message_chunk},
      {make_send_end("agent-2", "s-1"), MessageType::message_end},
      {make_reply("agent-1", Json{{"request_id", 7}}), MessageType::reply},
      {make_reply_stream_start("agent-1", "s-2"), MessageType::reply},
      {make_reply_chunk("agent-1", "s-2", "x"), MessageType::reply_chunk},
      {make_reply_end("agent-1", "s-2"), MessageType::reply_end},
  };
  for (const auto& [in, expected] : stream) {
    expect_valid(in);
    auto out = make_forward(in, "agent-9");
    ASSERT_TRUE(out.has_value());
    EXPECT_EQ(out->type(), expected);
    EXPECT_EQ(out->stream_id(), in.stream_id());
    EXPECT_EQ(to_json(*out)["from"], "agent-9");
    expect_valid(*out);
  }
  EXPECT_FALSE(make_forward(make_error("UNKNOWN_RECIPIENT", "no agent-3"), "x").has_value());
  EXPECT_FALSE(make_forward(*fwd, "x").has_value());
}

TEST(AgoraBuilders, ASenderCannotSpoofFrom) {
  auto send = from_json(Json{{"type", "send"}, {"to", "agent-2"}, {"payload", Json::object()}, {"from", "admin"}});
  ASSERT_TRUE(send.has_value()) << send.error().describe();
  auto fwd = make_forward(*send, "agent-1");
  ASSERT_TRUE(fwd.has_value());
  EXPECT_EQ(to_json(*fwd)["from"], "agent-1");
  expect_valid(*fwd);
}

TEST(AgoraBuilders, ErrorFrameValidates) {
  expect_valid(make_error("UNKNOWN_RECIPIENT", "no connection for agent-3"));
  expect_valid(make_error("STREAM_ENDED", "stream-1 already ended", "stream-1"));
}

TEST(AgoraCodec, TypeNamesRoundTrip) {
  for (std::size_t i = 0; i < kMessageTypeCount; ++i) {
    const auto t = static_cast<MessageType>(i);
    EXPECT_EQ(parse_type(type_name(t)), t);
  }
}

}  // namespace
}  // namespace ac::proto::agora
