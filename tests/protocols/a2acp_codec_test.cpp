// A2ACP typed codec: fixtures decode to the right (message_type, intent) alternative with
// their values, errors carry the spec's codes (AUTH_FAILED for /security), encode is lossless,
// and the builders produce messages that validate.
#include <gtest/gtest.h>

#include "harness/protocols/a2acp/builders.hpp"
#include "harness/protocols/a2acp/codec.hpp"
#include "harness/schema/schema_store.hpp"
#include "tests/protocols/codec_test_support.hpp"

namespace ac::proto::a2acp {
namespace {

using test::fixtures_dir;
using test::read_file;

Message must_decode(const std::string& file) {
  auto m = decode(read_file(fixtures_dir("a2acp") / file));
  EXPECT_TRUE(m.has_value()) << file << ": " << (m ? "" : m.error().describe());
  return m ? *m : Message{};
}

void expect_valid(const Message& m) {
  auto again = decode(encode(m));
  ASSERT_TRUE(again.has_value()) << again.error().describe() << "\n" << encode(m);
  EXPECT_EQ(*again, m);
}

const Agent kSource{"sdlc-test-agent", "a_domain", "1.2.3", Json::object()};
const Agent kBroker{"protocol-broker-agent", "a_domain", "1.0.0", Json::object()};
const Agent kTarget{"dataset-provisioning-agent", "medtronic_poc", "2.1.0", Json::object()};
constexpr const char* kToken = "eyJhbGciOiJIUzI1NiJ9.e30.sig";

TEST(A2acpCodec, EveryValidFixtureDecodesLosslessly) {
  test::check_valid_fixtures(
      "a2acp", [](std::string_view b) { return decode(b); }, [](const Message& m) { return to_json(m); },
      [](const Message& m) { return encode(m); }, [](const Message& m) { return std::string(m.key()); }, 10);
}

TEST(A2acpCodec, EveryInvalidFixtureFailsWithItsExpectedError) {
  test::check_invalid_fixtures("a2acp", "a2acp-1.0.md", "/message_type", [](std::string_view b) { return decode(b); }, 20);
}

TEST(A2acpCodec, SpecRequestFields) {
  const Message m = must_decode("valid/spec_request.json");
  ASSERT_EQ(m.type(), MessageType::request);
  EXPECT_EQ(m.envelope.protocol_version, "1.0");
  EXPECT_EQ(m.envelope.message_id, "550e8400-e29b-41d4-a716-446655440000");
  EXPECT_EQ(m.envelope.source_agent, (Agent{"sdlc-test-agent", "a_domain", "1.2.3", Json::object()}));
  EXPECT_EQ(m.envelope.target_agent.domain, "medtronic_poc");
  EXPECT_EQ(m.envelope.intent, "provision_test_dataset");
  EXPECT_EQ(m.envelope.security.encryption, "none");
  const auto* r = m.get<Request>();
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->payload.has_value());
  EXPECT_EQ(r->payload->at("record_count"), 1000);
  EXPECT_EQ(r->payload->at("correlation_id"), "correlation-789");
}

TEST(A2acpCodec, ErrorAndHandshakeFields) {
  const Message e = must_decode("valid/error_rate_limited.json");
  const auto* err = e.get<Error>();
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->error.code, "RATE_LIMIT_EXCEEDED");
  EXPECT_EQ(err->error.retry_after, 30u);
  EXPECT_FALSE(err->error.correlation_id.has_value());
  EXPECT_EQ(e.envelope.security.encryption, "aes256");

  const Message no_payload = must_decode("valid/handshake_accept_request_no_payload.json");
  ASSERT_EQ(no_payload.type(), MessageType::accept_handshake);
  EXPECT_FALSE(no_payload.get<AcceptHandshake>()->payload.has_value());
  EXPECT_FALSE(to_json(no_payload).contains("payload"));

  const Message initiate = must_decode("valid/handshake_initiate.json");
  ASSERT_EQ(initiate.type(), MessageType::initiate_handshake);
  EXPECT_FALSE(initiate.get<InitiateHandshake>()->requested_intent.empty());
  EXPECT_EQ(initiate.envelope.intent, "initiate_handshake");

  const Message result = must_decode("valid/handshake_result.json");
  ASSERT_EQ(result.type(), MessageType::handshake_result);
  EXPECT_FALSE(result.get<HandshakeResult>()->contract.contract_id.empty());

  const Message rejected = must_decode("valid/handshake_decision_rejected.json");
  ASSERT_EQ(rejected.type(), MessageType::handshake_decision);
  EXPECT_FALSE(rejected.get<HandshakeDecision>()->accepted);
}

TEST(A2acpCodec, OpenObjectsKeepUnknownMembers) {
  Json j = to_json(must_decode("valid/spec_request.json"));
  j["x_route"] = "blue";
  j["source_agent"]["region"] = "eu";
  j["security"]["kid"] = "k1";
  auto m = from_json(j);
  ASSERT_TRUE(m.has_value()) << m.error().describe();
  EXPECT_EQ(m->envelope.extra, (Json{{"x_route", "blue"}}));
  EXPECT_EQ(m->envelope.source_agent.extra, (Json{{"region", "eu"}}));
  EXPECT_EQ(m->envelope.security.extra, (Json{{"kid", "k1"}}));
  EXPECT_EQ(to_json(*m), j);
}

TEST(A2acpCodec, SecurityProblemsAreAuthFailed) {
  Json j = to_json(must_decode("valid/spec_request.json"));
  j["security"].erase("auth_token");
  auto m = from_json(j);
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code, "AUTH_FAILED");
  EXPECT_EQ(m.error().pointer, "/security/auth_token");
  EXPECT_EQ(m.error().message_id, "550e8400-e29b-41d4-a716-446655440000");
}

TEST(A2acpCodec, TokenDocuments) {
  std::size_t checked = 0;
  for (const auto& ex : test::valid_examples("a2acp")) {
    SCOPED_TRACE(ex.file);
    const Json doc = test::read_json(fixtures_dir("a2acp") / ex.file);
    if (ex.document == "token_request") {
      auto r = token_request_from_json(doc);
      ASSERT_TRUE(r.has_value()) << r.error().describe();
      EXPECT_EQ(to_json(*r), doc);
      ++checked;
    } else if (ex.document == "token_response") {
      auto r = token_response_from_json(doc);
      ASSERT_TRUE(r.has_value()) << r.error().describe();
      EXPECT_EQ(to_json(*r), doc);
      ++checked;
    }
  }
  EXPECT_GE(checked, 3u);
  auto zero = token_request_from_json(test::read_json(fixtures_dir("a2acp") / "invalid/doc_token_request_zero_ttl.json"));
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error().pointer, "/ttl");
  EXPECT_EQ(zero.error().rule, "minimum");
}

TEST(A2acpBuilders, EveryBuilderProducesAValidMessage) {
  const Message request = make_request(kSource, kTarget, kToken, "provision_test_dataset",
                                       Json{{"dataset_type", "patient_demographics"}, {"correlation_id", "c-1"}});
  expect_valid(request);
  EXPECT_TRUE(schema::is_uuid(request.envelope.message_id));
  EXPECT_TRUE(schema::is_date_time(request.envelope.timestamp));
  const Message response = make_response(request, kToken, Json{{"dataset_id", "d-1"}});
  expect_valid(response);
  EXPECT_EQ(response.envelope.source_agent, kTarget);
  EXPECT_EQ(response.envelope.target_agent, kSource);
  EXPECT_EQ(response.envelope.intent, "provision_test_dataset");
  EXPECT_EQ(response.get<Response>()->payload->at("correlation_id"), "c-1");
  const Message error = make_error_reply(request, kToken, "TIMEOUT", "no answer", 5);
  expect_valid(error);
  EXPECT_EQ(error.get<Error>()->error.correlation_id, "c-1");
  expect_valid(make_event(kSource, kTarget, kToken, std::nullopt, Json{{"kind", "heartbeat"}}));

  const Message initiate = make_initiate_handshake(kSource, kBroker, kToken, kTarget.agent_id, "provision_test_dataset");
  expect_valid(initiate);
  EXPECT_EQ(initiate.key(), "request.initiate_handshake");
  const Message offer = make_accept_handshake(kBroker, kTarget, kToken, HandshakeOffer{"provision_test_dataset", "col-1", kSource.agent_id, Json::object()});
  expect_valid(offer);
  expect_valid(make_accept_handshake(kBroker, kTarget, kToken, std::nullopt));
  const Message decision = make_handshake_decision(offer, kToken, true);
  expect_valid(decision);
  EXPECT_EQ(decision.key(), "response.accept_handshake");
  EXPECT_EQ(decision.envelope.target_agent, kBroker);
  const Message result = make_handshake_result(initiate, kToken, "col-1", Contract{"contract-1", Json::object(), {}, {}, Json::object()});
  expect_valid(result);
  EXPECT_EQ(result.key(), "response.initiate_handshake");
  EXPECT_EQ(result.envelope.target_agent, kSource);
}

TEST(A2acpCodec, KeysRoundTrip) {
  for (std::size_t i = 0; i < kMessageTypeCount; ++i) {
    const auto t = static_cast<MessageType>(i);
    EXPECT_EQ(parse_key(key_name(t)), t);
  }
}

}  // namespace
}  // namespace ac::proto::a2acp
