// AgentProtocol typed codec: fixtures decode to the right payload type with their values,
// errors carry code/pointer/rule/section, encode is lossless (so signatures still verify), and
// the builders produce messages that validate.
#include <gtest/gtest.h>

#include "harness/protocols/agentprotocol/builders.hpp"
#include "harness/protocols/agentprotocol/codec.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"
#include "harness/schema/schema_store.hpp"
#include "tests/protocols/codec_test_support.hpp"

namespace ac::proto::agentprotocol {
namespace {

using test::fixtures_dir;
using test::read_file;

constexpr const char* kFreya = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=";
constexpr const char* kReviewer = "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=";

Message must_decode(const std::string& file) {
  auto m = decode(read_file(fixtures_dir("agentprotocol") / file));
  EXPECT_TRUE(m.has_value()) << file << ": " << (m ? "" : m.error().describe());
  return m ? *m : Message{};
}

void expect_valid(const Message& m) {
  auto again = decode(encode(m));
  ASSERT_TRUE(again.has_value()) << again.error().describe() << "\n" << encode(m);
  EXPECT_EQ(*again, m);
}

From freya() { return From{kFreya, "Freya", {"agentprotocol:core"}, Json::object()}; }

TEST(AgentProtocolCodec, EveryValidFixtureDecodesLosslessly) {
  test::check_valid_fixtures(
      "agentprotocol", [](std::string_view b) { return decode(b); }, [](const Message& m) { return to_json(m); },
      [](const Message& m) { return encode(m); }, [](const Message& m) { return std::string(m.type_name()); }, 5);
}

TEST(AgentProtocolCodec, EveryInvalidFixtureFailsWithItsExpectedError) {
  test::check_invalid_fixtures("agentprotocol", "agentprotocol-0.1.md", "/type",
                               [](std::string_view b) { return decode(b); }, 20);
}

TEST(AgentProtocolCodec, RequestFields) {
  const Message m = must_decode("valid/request_unsigned_no_name.json");
  ASSERT_EQ(m.type(), MessageType::request);
  const auto* r = m.get<Request>();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(m.envelope.protocol, "agentprotocol/0.1");
  EXPECT_EQ(m.envelope.id, "d5e6f7a8-b9c0-4d1e-8f2a-3b4c5d6e7f80");
  EXPECT_EQ(m.envelope.from.agent_id, kFreya);
  EXPECT_FALSE(m.envelope.from.name.has_value());
  EXPECT_EQ(m.envelope.from.capabilities.size(), 3u);
  EXPECT_EQ(m.envelope.to.agent_id, kReviewer);
  EXPECT_FALSE(m.envelope.to.broadcast);
  EXPECT_FALSE(m.envelope.signature.has_value());
  EXPECT_EQ(r->action, "code-review");
  EXPECT_EQ(r->correlation_id, "req-123");
  EXPECT_EQ(r->timeout, 30000u);
  EXPECT_EQ(r->params->at("language"), "javascript");
}

TEST(AgentProtocolCodec, NotifyKeepsItsWholePayloadAndMetadata) {
  const Message m = must_decode("valid/notify_broadcast_with_metadata.json");
  const auto* n = m.get<Notify>();
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->body, (Json{{"event", "task-completed"}, {"taskId", "t-17"}}));
  EXPECT_TRUE(m.envelope.to.broadcast);
  EXPECT_EQ(m.envelope.metadata->at("priority"), "high");
  ASSERT_TRUE(m.envelope.signature.has_value());
  EXPECT_EQ(m.envelope.signature->size(), 88u);
}

TEST(AgentProtocolCodec, ErrorFields) {
  const Message m = must_decode("valid/error_completed.json");
  const auto* e = m.get<Error>();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->correlation_id, "req-123");
  EXPECT_EQ(e->code, "CAPABILITY_NOT_SUPPORTED");
  EXPECT_EQ(e->details->at("requested"), "code-review");
  const Message bare = must_decode("valid/error_without_correlation.json");
  EXPECT_FALSE(bare.get<Error>()->correlation_id.has_value());
}

TEST(AgentProtocolCodec, SignedFixturesStillVerifyAfterReencoding) {
  std::size_t signed_count = 0;
  for (const auto& ex : test::valid_examples("agentprotocol")) {
    SCOPED_TRACE(ex.file);
    const Json original = test::read_json(fixtures_dir("agentprotocol") / ex.file);
    if (!original.contains("signature") || !verify(original)) continue;
    auto m = decode(read_file(fixtures_dir("agentprotocol") / ex.file));
    ASSERT_TRUE(m.has_value());
    auto v = verify_text(encode(*m));
    EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().describe());
    ++signed_count;
  }
  EXPECT_GE(signed_count, 3u) << "expected signed fixtures that verify";
}

TEST(AgentProtocolBuilders, EveryBuilderProducesAValidMessage) {
  const Message hello = make_hello(freya(), to_agent(kReviewer), {"signed-messages"});
  expect_valid(hello);
  EXPECT_TRUE(schema::is_uuid(hello.envelope.id));
  EXPECT_TRUE(schema::is_date_time(hello.envelope.timestamp));
  EXPECT_EQ(hello.get<Hello>()->version, "0.1");
  const Message request = make_request(freya(), to_agent(kReviewer), "code-review", "req-1", Json{{"code", "x"}}, 1000);
  expect_valid(request);
  const From reviewer{kReviewer, {}, {"myagent:code-review"}, Json::object()};
  const Message response = make_response(request, reviewer, "success", Json{{"rating", "good"}});
  expect_valid(response);
  EXPECT_EQ(response.envelope.to.agent_id, kFreya);
  EXPECT_EQ(response.get<Response>()->correlation_id, "req-1");
  const Message error = make_error_reply(request, reviewer, "TIMEOUT", "too slow");
  expect_valid(error);
  EXPECT_EQ(error.get<Error>()->correlation_id, "req-1");
  expect_valid(make_notify(freya(), To{"*", true, Json::object()}, Json{{"event", "x"}}));
  expect_valid(make_error(freya(), to_agent(kReviewer), "INVALID_MESSAGE", "unreadable"));
}

TEST(AgentProtocolCodec, TypeNamesRoundTrip) {
  for (std::size_t i = 0; i < kMessageTypeCount; ++i) {
    const auto t = static_cast<MessageType>(i);
    EXPECT_EQ(parse_type(type_name(t)), t);
  }
}

}  // namespace
}  // namespace ac::proto::agentprotocol
