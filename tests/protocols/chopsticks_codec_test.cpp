// Chopsticks typed codec: fixtures decode to the right (type, event) alternative with their
// values (null vs absent kept apart), errors carry the controller's reaction codes, encode is
// lossless, and the builders produce messages that validate.
#include <gtest/gtest.h>

#include "harness/protocols/chopsticks/builders.hpp"
#include "harness/protocols/chopsticks/codec.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/semver/protocol_versions.hpp"
#include "tests/protocols/codec_test_support.hpp"

namespace ac::proto::chopsticks {
namespace {

using test::fixtures_dir;
using test::read_file;

Message must_decode(const std::string& file) {
  auto m = decode(read_file(fixtures_dir("chopsticks") / file));
  EXPECT_TRUE(m.has_value()) << file << ": " << (m ? "" : m.error().describe());
  return m ? *m : Message{};
}

void expect_valid(const Message& m) {
  auto again = decode(encode(m));
  ASSERT_TRUE(again.has_value()) << again.error().describe() << "\n" << encode(m);
  EXPECT_EQ(*again, m);
}

TEST(ChopsticksCodec, EveryValidFixtureDecodesLosslessly) {
  test::check_valid_fixtures(
      "chopsticks", [](std::string_view b) { return decode(b); }, [](const Message& m) { return to_json(m); },
      [](const Message& m) { return encode(m); }, [](const Message& m) { return std::string(m.key()); }, 10);
}

TEST(ChopsticksCodec, EveryInvalidFixtureFailsWithItsExpectedError) {
  test::check_invalid_fixtures("chopsticks", "chopsticks-1.0.0.md", "/type", [](std::string_view b) { return decode(b); },
                               20);
}

TEST(ChopsticksCodec, HelloFields) {
  const Message m = must_decode("valid/spec_hello.json");
  ASSERT_EQ(m.type(), MessageType::hello);
  const auto* h = m.get<Hello>();
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->protocol_version, "1.0.0");
  EXPECT_EQ(h->agent_id, "agent1468195142467981395");
  EXPECT_EQ(h->bot_user_id, "1468195142467981395");
  EXPECT_EQ(h->tag, "MusicBot#1234");
  EXPECT_TRUE(h->ready);
  EXPECT_EQ(h->guild_ids, (std::vector<std::string>{"1445809891242414226"}));
  EXPECT_EQ(h->pool_id, "pool_goot27");
  EXPECT_FALSE(h->runner_secret.has_value());
  EXPECT_TRUE(semver::chopsticks_supported_versions().contains(h->protocol_version));
}

TEST(ChopsticksCodec, NullIsNotAbsent) {
  const Message hello = must_decode("valid/hello_runner_secret_null_ids.json");
  const auto* h = hello.get<Hello>();
  ASSERT_NE(h, nullptr);
  EXPECT_FALSE(h->bot_user_id.has_value());
  EXPECT_FALSE(h->tag.has_value());
  EXPECT_EQ(h->runner_secret, "s3cr3t");
  EXPECT_TRUE(to_json(hello)["botUserId"].is_null());

  const Message resp = must_decode("valid/resp_data_null.json");
  const auto* r = resp.get<Resp>();
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->data.has_value());  // present, null
  EXPECT_TRUE(r->data->is_null());
  const Message req = must_decode("valid/req_without_data.json");
  EXPECT_FALSE(req.get<Req>()->data.has_value());  // absent
  EXPECT_FALSE(to_json(req).contains("data"));
}

TEST(ChopsticksCodec, EventsAndExtras) {
  const Message add = must_decode("valid/spec_event_add_failure.json");
  ASSERT_EQ(add.type(), MessageType::event_add);
  const auto* a = add.get<EventAdd>();
  EXPECT_FALSE(a->ok);
  EXPECT_EQ(a->error, "Missing permissions: CONNECT, SPEAK");
  EXPECT_EQ(a->channel_id, a->voice_channel_id);
  const Message released = must_decode("valid/spec_event_released.json");
  ASSERT_EQ(released.type(), MessageType::event_released);
  EXPECT_EQ(released.get<EventReleased>()->reason, "USER_LEFT");
  EXPECT_EQ(released.get<EventReleased>()->kind, "music");
  const Message extra = must_decode("valid/hello_extra_member.json");
  EXPECT_EQ(extra.get<Hello>()->extra, (Json{{"build", {{"lavalink", "4.0.0"}}}}));
}

TEST(ChopsticksCodec, MissingVersionIsItsOwnCode) {
  auto m = decode(read_file(fixtures_dir("chopsticks") / "invalid/hello_missing_version.json"));
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code, "MISSING_VERSION");
  EXPECT_EQ(m.error().pointer, "/protocolVersion");
}

TEST(ChopsticksBuilders, EveryBuilderProducesAValidMessage) {
  const Message req = make_req("play", Json{{"query", "never gonna give you up"}}, "agent1");
  expect_valid(req);
  EXPECT_TRUE(schema::is_uuid(req.get<Req>()->id));
  const Message ok = make_resp_ok(*req.get<Req>(), Json{{"action", "playing"}});
  expect_valid(ok);
  EXPECT_EQ(ok.get<Resp>()->id, req.get<Req>()->id);
  expect_valid(make_resp_error(*req.get<Req>(), "Track not found"));
  expect_valid(make_req("status", std::nullopt, "agent1"));
  expect_valid(make_hello("agent1", "pool_1", {"g1"}));
  expect_valid(make_hello("agent1", "pool_1", {}, false, "123", "Bot#1"));
  expect_valid(make_guilds({"g1", "g2"}));
  const Message err = make_version_error("0.9.0", "1.0.0");
  expect_valid(err);
  EXPECT_EQ(err.get<Error>()->error, "Incompatible protocol version 0.9.0. Controller expects 1.0.0.");
}

TEST(ChopsticksCodec, KeysRoundTrip) {
  for (std::size_t i = 0; i < kMessageTypeCount; ++i) {
    const auto t = static_cast<MessageType>(i);
    EXPECT_EQ(parse_key(key_name(t)), t);
  }
}

}  // namespace
}  // namespace ac::proto::chopsticks
