// ALP typed codec: fixtures decode to the right alternative with the right values, errors carry
// code/pointer/rule/section, encode is compact and lossless, and the builders produce messages
// that validate.
#include <gtest/gtest.h>

#include "harness/protocols/alp/builders.hpp"
#include "harness/protocols/alp/codec.hpp"
#include "harness/schema/schema_store.hpp"
#include "tests/protocols/codec_test_support.hpp"

namespace ac::proto::alp {
namespace {

using test::fixtures_dir;
using test::read_file;

Message must_decode(const std::string& file) {
  auto m = decode(read_file(fixtures_dir("alp") / file));
  EXPECT_TRUE(m.has_value()) << file << ": " << (m ? "" : m.error().describe());
  return m ? *m : Message{};
}

// Encoding then decoding a built message must give it back (so it validates against the schema).
void expect_valid(const Message& m) {
  auto again = decode(encode(m));
  ASSERT_TRUE(again.has_value()) << again.error().describe() << "\n" << encode(m);
  EXPECT_EQ(*again, m);
}

TEST(AlpCodec, EveryValidFixtureDecodesLosslessly) {
  test::check_valid_fixtures(
      "alp", [](std::string_view b) { return decode(b); }, [](const Message& m) { return to_json(m); },
      [](const Message& m) { return encode(m); }, [](const Message& m) { return std::string(m.type_name()); }, 12);
}

TEST(AlpCodec, EveryInvalidFixtureFailsWithItsExpectedError) {
  test::check_invalid_fixtures("alp", "alp-0.2.0.md", "/message_type", [](std::string_view b) { return decode(b); }, 30);
}

TEST(AlpCodec, InvokeCapabilityRequestFields) {
  const Message m = must_decode("valid/invoke_capability_request.json");
  ASSERT_EQ(m.type(), MessageType::invoke_capability_request);
  const auto* p = m.get<InvokeCapabilityRequest>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(m.envelope.message_id, "a7b8c9d0-e1f2-4a3b-9c4d-5e6f7a8b9c0d");
  EXPECT_EQ(m.envelope.protocol_version, "0.2.0");
  EXPECT_EQ(m.envelope.sender_id, "agent-vision-21c9");
  EXPECT_EQ(m.envelope.receiver_id, "agent-translator-7f3a");
  EXPECT_EQ(m.envelope.timestamp, "2023-10-27T10:33:00Z");
  EXPECT_EQ(m.envelope.conversation_id, "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d");
  EXPECT_FALSE(m.envelope.auth_token.has_value());
  EXPECT_FALSE(m.envelope.metadata.has_value());
  EXPECT_EQ(p->capability_name, "com.example.TranslationService.translateText");
  EXPECT_EQ(p->capability_version, "1.0.2");
  EXPECT_EQ(p->input_data, (Json{{"text", "Guten Morgen"}, {"target_lang", "en"}}));
  EXPECT_TRUE(p->extra.empty());
}

TEST(AlpCodec, RegisterClientCapabilities) {
  const Message m = must_decode("valid/register_client.json");
  const auto* p = m.get<RegisterClient>();
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->capabilities.size(), 2u);
  const Capability& full = p->capabilities[0];
  EXPECT_EQ(full.name, "com.example.TranslationService.translateText");
  EXPECT_EQ(full.keywords, (std::vector<std::string>{"translation", "nlp"}));
  ASSERT_TRUE(full.authorization_rules.has_value());
  EXPECT_EQ(full.authorization_rules->type, "allow_list");
  EXPECT_EQ(full.authorization_rules->allowed_agent_ids, (std::vector<std::string>{"agent-vision-21c9"}));
  EXPECT_FALSE(full.authorization_rules->required_roles.has_value());
  EXPECT_EQ(full.metadata->at("sla"), "99.9%");
  const Capability& minimal = p->capabilities[1];
  EXPECT_EQ(minimal.capability_version, "2.1.0-beta");
  EXPECT_FALSE(minimal.keywords.has_value());
  EXPECT_FALSE(minimal.error_schema.has_value());
  EXPECT_EQ(p->agent_version, "1.2.3");
  EXPECT_EQ(p->sdk_version, "python-0.1.0");
  EXPECT_EQ(m.envelope.metadata, (Json{{"priority", 1}, {"trace_id", "xyz"}}));
}

TEST(AlpCodec, ResponseProgressAndDiscoverAndError) {
  const Message progress = must_decode("valid/invoke_capability_response_progress.json");
  const auto* r = progress.get<InvokeCapabilityResponse>();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, "in_progress");
  ASSERT_TRUE(r->progress_info.has_value());
  EXPECT_EQ(r->progress_info->percentage, 40);
  EXPECT_EQ(r->progress_info->description, "translating");
  EXPECT_FALSE(r->output_data.has_value());
  EXPECT_FALSE(r->error_details.has_value());

  const Message discover = must_decode("valid/discover_capabilities.json");
  const auto* d = discover.get<DiscoverCapabilities>();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->capability_filter.version_match, ">=1.0.0");
  EXPECT_EQ(d->max_results, 5u);

  const Message error = must_decode("valid/protocol_error.json");
  const auto* e = error.get<ProtocolError>();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->error.code, "INVALID_MESSAGE_TYPE");
  EXPECT_EQ(e->error.retryable, false);
  EXPECT_FALSE(e->error.details.has_value());
  EXPECT_EQ(e->offending_message_id, "0f1e2d3c-4b5a-4968-8776-655443322110");
}

TEST(AlpCodec, DocumentsDecodeAndFail) {
  std::size_t checked = 0;
  for (const auto& ex : test::valid_examples("alp")) {
    if (ex.document.empty()) continue;
    SCOPED_TRACE(ex.file);
    Json doc = test::read_json(fixtures_dir("alp") / ex.file);
    if (ex.document == "capability") {
      auto c = capability_from_json(doc);
      ASSERT_TRUE(c.has_value()) << c.error().describe();
      EXPECT_EQ(to_json(*c), doc);
      ++checked;
    } else if (ex.document == "register_request") {
      auto r = register_request_from_json(doc);
      ASSERT_TRUE(r.has_value()) << r.error().describe();
      EXPECT_EQ(to_json(*r), doc);
      ++checked;
    } else if (ex.document == "register_response") {
      auto r = register_response_from_json(doc);
      ASSERT_TRUE(r.has_value()) << r.error().describe();
      EXPECT_EQ(to_json(*r), doc);
      ++checked;
    }
  }
  EXPECT_GE(checked, 4u);
  for (const auto& ex : test::invalid_expectations("alp")) {
    if (ex.document.empty()) continue;
    SCOPED_TRACE(ex.file);
    Json doc = test::read_json(fixtures_dir("alp") / ex.file);
    std::optional<CodecError> error;
    if (ex.document == "capability") {
      if (auto c = capability_from_json(doc); !c) error = c.error();
    } else if (ex.document == "register_request") {
      if (auto r = register_request_from_json(doc); !r) error = r.error();
    } else if (ex.document == "register_response") {
      if (auto r = register_response_from_json(doc); !r) error = r.error();
    } else {
      continue;
    }
    ASSERT_TRUE(error.has_value()) << "accepted";
    EXPECT_EQ(error->code, ex.code);
    EXPECT_EQ(error->pointer, ex.pointer);
    EXPECT_EQ(error->rule, ex.rule);
  }
}

TEST(AlpCodec, UnknownMembersSurviveInExtra) {
  // The schemas close ALP objects, so extras can only come from a caller; they must still be
  // written (the conversion keeps them, encode emits them, modelled members win).
  Message m = make_ping("agent-1", "lobby-1", "n1");
  m.get<Ping>()->extra = {{"x_trace", 7}, {"nonce", "ignored"}};
  const Json j = to_json(m);
  EXPECT_EQ(j["payload"]["x_trace"], 7);
  EXPECT_EQ(j["payload"]["nonce"], "n1");
  auto back = from_json(j);
  ASSERT_FALSE(back.has_value());  // closed schema: /payload/x_trace is not allowed
  EXPECT_EQ(back.error().pointer, "/payload/x_trace");
  EXPECT_EQ(back.error().rule, "additionalProperties");
}

TEST(AlpCodec, DecodeNeverThrowsOnHostileInput) {
  for (std::string_view bytes : {std::string_view(""), std::string_view("\0", 1), std::string_view("[[[[[[[[[["),
                                 std::string_view("{\"message_type\":\"PING\"}"), std::string_view("null")}) {
    auto m = decode(bytes);
    EXPECT_FALSE(m.has_value());
  }
  json::ReadLimits tiny;
  tiny.max_bytes = 10;
  auto m = decode(read_file(fixtures_dir("alp") / "valid/ping.json"), tiny);
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().rule, "json.too-large");
}

TEST(AlpBuilders, EveryBuilderProducesAValidMessage) {
  const Message request = make_invoke_request("agent-a", "agent-b", "com.example.Echo", Json{{"text", "hi"}}, "1.0.0");
  expect_valid(request);
  EXPECT_TRUE(schema::is_uuid(request.envelope.message_id));
  EXPECT_TRUE(schema::is_date_time(request.envelope.timestamp));
  ASSERT_TRUE(request.envelope.conversation_id.has_value());

  const Message success = make_invoke_success(request, Json{{"echo", "hi"}});
  expect_valid(success);
  EXPECT_EQ(success.envelope.sender_id, "agent-b");
  EXPECT_EQ(success.envelope.receiver_id, "agent-a");
  EXPECT_EQ(success.envelope.conversation_id, request.envelope.conversation_id);
  EXPECT_EQ(success.get<InvokeCapabilityResponse>()->request_message_id, request.envelope.message_id);
  expect_valid(make_invoke_error(request, ErrorObject{"CAPABILITY_NOT_FOUND", "no such capability", {}, false, Json::object()}));
  expect_valid(make_invoke_progress(request, 50, "half way"));
  expect_valid(make_invoke_pending(request));

  Capability cap;
  cap.name = "com.example.Echo";
  cap.capability_version = "1.0.0";
  cap.description = "echoes";
  const Message reg = make_register_client("agent-a", "lobby", {cap}, "1.0.0", "cpp-0.1.0");
  expect_valid(reg);
  const Message ack = make_register_client_ack(reg, "lobby");
  expect_valid(ack);
  EXPECT_EQ(ack.envelope.receiver_id, "agent-a");
  EXPECT_EQ(ack.get<RegisterClientAck>()->lobby_id, "lobby");
  expect_valid(make_unregister_client("agent-a", "lobby", "shutting_down"));

  const Message discover = make_discover_capabilities("agent-a", "lobby", CapabilityFilter{{}, "1.x", {}, Json::object()}, 3);
  expect_valid(discover);
  const Message found = make_capabilities_found(discover, "lobby", {AgentMatch{"agent-b", "echo", {cap}, {}, Json::object()}});
  expect_valid(found);
  EXPECT_EQ(found.get<CapabilitiesFound>()->query_ref, discover.envelope.conversation_id);

  expect_valid(make_direct_message("agent-a", "agent-b", "text/plain", "hello"));
  expect_valid(make_lobby_broadcast("lobby", "BROADCAST_ALL", "system_maintenance", Json{{"at", "soon"}}));
  const Message ping = make_ping("agent-a", "lobby", "n-1");
  expect_valid(ping);
  const Message pong = make_pong(ping, "lobby");
  expect_valid(pong);
  EXPECT_EQ(pong.get<Pong>()->nonce, "n-1");
  EXPECT_EQ(pong.envelope.receiver_id, "agent-a");
  expect_valid(make_protocol_error("lobby", "agent-a", "MESSAGE_MALFORMED", "bad", "not-a-uuid"));
}

TEST(AlpBuilders, ProtocolErrorFromACodecError) {
  auto bad = decode(read_file(fixtures_dir("alp") / "invalid/missing_capability_name.json"));
  ASSERT_FALSE(bad.has_value());
  const Message m = make_protocol_error("lobby", "agent-a", bad.error());
  expect_valid(m);
  const auto* p = m.get<ProtocolError>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->error.code, "MISSING_REQUIRED_FIELD");
  EXPECT_EQ(p->error.details->at("pointer"), "/payload/capability_name");
  EXPECT_EQ(p->error.details->at("rule"), "required");
  EXPECT_EQ(p->offending_message_id, bad.error().message_id);
  EXPECT_FALSE(bad.error().message_id.empty());
}

TEST(AlpCodec, TypeNamesRoundTrip) {
  for (std::size_t i = 0; i < kMessageTypeCount; ++i) {
    const auto t = static_cast<MessageType>(i);
    EXPECT_EQ(parse_type(type_name(t)), t);
  }
  EXPECT_FALSE(parse_type("ping").has_value());
}

}  // namespace
}  // namespace ac::proto::alp
