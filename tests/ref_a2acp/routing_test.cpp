// Routing under a contract over real WebSocket connections: delivery unchanged, responses routed
// back with the same contract_id, payload validation against the contract (SCHEMA_MISMATCH,
// CONTRACT_VIOLATION for responses), unknown / foreign / expired contracts, direction, PII
// encryption, token rules on routed messages, routing timeout and absent agents.
#include "tests/ref_a2acp/a2acp_fixture.hpp"

namespace ac::testing {
namespace {

class Routing : public A2acpLobby {
 protected:
  void SetUp() override {
    A2acpLobby::SetUp();
    begin();
  }
  void begin() {
    src = attach("source-agent");
    dst = attach("target-agent");
    c = establish(src, dst, "provision_test_dataset");
  }
  A2Agent src, dst;
  Collab c;
};

TEST_F(Routing, RequestAndResponseAreDeliveredUnchanged) {
  auto req = request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id);
  src.send(req);
  Json got = next(dst);
  EXPECT_EQ(got, a2::to_json(req));  // byte-for-byte the same message

  auto resp = response(got, dst, {{"dataset_id", "dataset-abc"}, {"record_count", 1000}});
  dst.send(resp);
  Json back = next(src);
  EXPECT_EQ(back, a2::to_json(resp));
  EXPECT_EQ(back["payload"]["contract_id"], c.contract_id);
  EXPECT_EQ(back["payload"]["correlation_id"], "correlation-789");
  EXPECT_GE(lobby->metrics().routed_total(proto::ProtocolId::a2acp), 2u);
}

TEST_F(Routing, ResponsesMatchTheirRequestByCorrelationId) {
  Json a = dataset_request(), b = dataset_request();
  a["correlation_id"] = "first";
  b["correlation_id"] = "second";
  src.send(request(src, dst, "provision_test_dataset", a, c.contract_id));
  src.send(request(src, dst, "provision_test_dataset", b, c.contract_id));
  Json ra = next(dst), rb = next(dst);
  dst.send(response(rb, dst, {{"dataset_id", "for-second"}}));
  EXPECT_EQ(next(src)["payload"]["correlation_id"], "second");
  dst.send(response(ra, dst, {{"dataset_id", "for-first"}}));
  EXPECT_EQ(next(src)["payload"]["correlation_id"], "first");
  // Nothing is pending any more: a third response is a contract violation.
  dst.send(response(ra, dst, {{"dataset_id", "again"}}));
  EXPECT_EQ(expect_error(dst, "CONTRACT_VIOLATION")["details"]["reason"], "no-pending-request");
  expect_silence(*src.ws);
}

TEST_F(Routing, MissingContractIdIsContractViolation) {
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), ""));
  Json e = expect_error(src, "CONTRACT_VIOLATION");
  EXPECT_EQ(e["details"]["pointer"], "/payload/contract_id");
  EXPECT_EQ(e["retry_after"], 0);
  expect_silence(*dst.ws);
}

TEST_F(Routing, UnknownContractIsContractViolation) {
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), "contract-456"));
  EXPECT_EQ(expect_error(src, "CONTRACT_VIOLATION")["details"]["reason"], "unknown");
  expect_silence(*dst.ws);
}

TEST_F(Routing, AnotherAgentCannotUseTheContract) {
  auto other = attach("other-agent");
  other.send(a2::make_request(other.id, dst.id, token("other-agent", "target-agent", {"read:datasets"}), "provision_test_dataset",
                              Json{{"test_scenario_id", "s"}, {"dataset_type", "t"}, {"contract_id", c.contract_id}}));
  EXPECT_EQ(expect_error(other, "CONTRACT_VIOLATION")["details"]["reason"], "parties");
  expect_silence(*dst.ws);
}

TEST_F(Routing, DirectionIsEnforced) {
  // The target may not send requests under the source's contract...
  dst.send(a2::make_request(dst.id, src.id, token("target-agent", "source-agent"), "provision_test_dataset",
                            Json{{"contract_id", c.contract_id}}));
  EXPECT_EQ(expect_error(dst, "CONTRACT_VIOLATION")["details"]["reason"], "direction");
  // ...nor the source responses.
  src.send(a2::make_response(a2::make_request(dst.id, src.id, "t", "provision_test_dataset", Json::object()),
                             token("source-agent", "target-agent"), Json{{"contract_id", c.contract_id}, {"dataset_id", "x"}}));
  EXPECT_EQ(expect_error(src, "CONTRACT_VIOLATION")["details"]["reason"], "direction");
  expect_silence(*dst.ws);
  expect_silence(*src.ws);
}

TEST_F(Routing, EventsFlowBothWays) {
  src.send(a2::make_event(src.id, dst.id, token("source-agent", "target-agent"), std::string("progress"),
                          Json{{"contract_id", c.contract_id}, {"step", 1}}));
  EXPECT_EQ(next(dst)["payload"]["step"], 1);
  dst.send(a2::make_event(dst.id, src.id, token("target-agent", "source-agent"), std::string("progress"),
                          Json{{"contract_id", c.contract_id}, {"step", 2}}));
  EXPECT_EQ(next(src)["payload"]["step"], 2);
}

TEST_F(Routing, PayloadViolatingTheInputSchemaIsSchemaMismatch) {
  Json bad = dataset_request();
  bad["record_count"] = "many";
  src.send(request(src, dst, "provision_test_dataset", bad, c.contract_id));
  Json e = expect_error(src, "SCHEMA_MISMATCH");
  EXPECT_EQ(e["details"]["pointer"], "/payload/record_count");
  EXPECT_EQ(e["details"]["rule"], "type");
  EXPECT_EQ(e["details"]["contract_id"], c.contract_id);
  EXPECT_EQ(e["correlation_id"], "correlation-789");
  // additionalProperties false: contract_id and correlation_id are the broker's, anything else is not.
  bad = dataset_request();
  bad["unexpected"] = true;
  src.send(request(src, dst, "provision_test_dataset", bad, c.contract_id));
  expect_error(src, "SCHEMA_MISMATCH");
  bad = dataset_request();
  bad.erase("dataset_type");
  src.send(request(src, dst, "provision_test_dataset", bad, c.contract_id));
  expect_error(src, "SCHEMA_MISMATCH");
  expect_silence(*dst.ws);
}

TEST_F(Routing, PayloadIsAlsoCheckedAgainstTheSourcesDeclaredSchema) {
  auto m = handshake(src, "target-agent", "provision_test_dataset");
  m.get<a2::InitiateHandshake>()->extra["input_schema"] = {
      {"type", "object"},
      {"required", {"test_scenario_id", "dataset_type"}},
      {"properties", {{"test_scenario_id", {{"type", "string"}, {"maxLength", 5}}}, {"dataset_type", {{"type", "string"}}}}}};
  src.send(m);
  dst.send(decision(next(dst), dst, true));
  const std::string contract = next(src)["payload"]["contract"]["contract_id"];
  next(dst);
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), contract));  // "scenario-123" is longer than 5
  EXPECT_EQ(expect_error(src, "SCHEMA_MISMATCH")["details"]["rule"], "maxLength");
}

TEST_F(Routing, IntentMustBeTheContracts) {
  auto m = request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id);
  m.envelope.intent = "echo";  // the token still grants what the contract's intent requires
  src.send(m);
  EXPECT_EQ(expect_error(src, "CONTRACT_VIOLATION")["details"]["reason"], "intent");
  expect_silence(*dst.ws);
}

TEST_F(Routing, ResponseViolatingTheOutputSchemaIsContractViolation) {
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id));
  Json got = next(dst);
  dst.send(response(got, dst, {{"record_count", 1000}}));  // no dataset_id
  Json e = expect_error(dst, "CONTRACT_VIOLATION");
  EXPECT_EQ(e["details"]["reason"], "output-schema");
  expect_silence(*src.ws);
  // The request is still pending: a correct response goes through.
  dst.send(response(got, dst, {{"dataset_id", "dataset-abc"}}));
  EXPECT_EQ(next(src)["payload"]["dataset_id"], "dataset-abc");
}

TEST_F(Routing, TargetErrorAnswersThePendingRequest) {
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id));
  Json got = next(dst);
  auto err = a2::make_error_reply(*a2::from_json(got), token("target-agent", "source-agent"), "INTERNAL_ERROR", "database down", 30);
  err.get<a2::Error>()->extra["contract_id"] = c.contract_id;
  dst.send(err);
  Json back = next(src);
  EXPECT_EQ(back["payload"]["error"]["code"], "INTERNAL_ERROR");
  EXPECT_EQ(back["source_agent"]["agent_id"], "target-agent");
  expect_silence(*src.ws, 1200ms);  // no TIMEOUT (800 ms): the request was answered
}

TEST_F(Routing, SilentTargetIsTimeout) {
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id));
  Json got = next(dst);
  Json e = expect_error(src, "TIMEOUT");
  EXPECT_GT(e["retry_after"].get<int>(), 0);
  EXPECT_EQ(e["details"]["reason"], "routing-timeout");
  EXPECT_EQ(e["details"]["request_message_id"], got["message_id"]);
  EXPECT_EQ(e["correlation_id"], "correlation-789");
  // The late response has nothing to answer.
  dst.send(response(got, dst, {{"dataset_id", "late"}}));
  expect_error(dst, "CONTRACT_VIOLATION");
  expect_silence(*src.ws);
}

TEST_F(Routing, PerIntentRoutingTimeout) {
  section["routing_timeout_ms"] = 60000;
  section["agents"][2]["intents"]["echo"]["routing_timeout_ms"] = 300;
  restart();
  src = attach("source-agent");
  dst = attach("target-agent");
  c = establish(src, dst, "echo");
  EXPECT_EQ(c.contract["routing_timeout_ms"], 300);
  src.send(request(src, dst, "echo", {{"q", 1}}, c.contract_id));
  next(dst);
  EXPECT_EQ(expect_error(src, "TIMEOUT")["details"]["timeout_ms"], 300);
}

TEST_F(Routing, AbsentTargetIsTimeoutAndDepartureTimesOutPendingRequests) {
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id));
  next(dst);
  dst.ws->close(1000, "bye");
  EXPECT_EQ(expect_error(src, "TIMEOUT")["details"]["reason"], "target-disconnected");
  wait_for([&] { return !online("target-agent"); });
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id));
  EXPECT_EQ(expect_error(src, "TIMEOUT")["details"]["reason"], "not-connected");
  // The contract survives a reconnection.
  dst = attach("target-agent");
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id));
  EXPECT_EQ(next(dst)["payload"]["contract_id"], c.contract_id);
}

TEST_F(Routing, ExpiredContractIsContractViolation) {
  section["contract_ttl_ms"] = 300;
  restart();
  begin();
  std::this_thread::sleep_for(400ms);
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id));
  EXPECT_EQ(expect_error(src, "CONTRACT_VIOLATION")["details"]["reason"], "expired");
  expect_silence(*dst.ws);
}

TEST_F(Routing, RoutedMessagesNeedValidTokens) {
  // Rule 3: a token for the broker on a message to the target.
  auto m = request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id);
  m.envelope.security.auth_token = token("source-agent", kBroker, {"read:datasets"});
  src.send(m);
  EXPECT_EQ(expect_error(src, "AUTH_FAILED")["details"]["rule"], 3);
  // Rule 4: the contract's intent requires read:datasets.
  m.envelope.security.auth_token = token("source-agent", "target-agent");
  src.send(m);
  EXPECT_EQ(expect_error(src, "AUTH_FAILED")["details"]["rule"], 4);
  // Rule 2 on a response.
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), c.contract_id));
  Json got = next(dst);
  Json expired = claims("target-agent", "source-agent");
  expired["iat"] = now() - 100;
  expired["exp"] = now() - 50;
  auto resp = response(got, dst, {{"dataset_id", "x"}});
  resp.envelope.security.auth_token = mint(expired);
  dst.send(resp);
  EXPECT_EQ(expect_error(dst, "AUTH_FAILED")["details"]["rule"], 2);
  expect_silence(*src.ws);
}

class PiiRouting : public Routing {
 protected:
  void SetUp() override {
    A2acpLobby::SetUp();
    src = attach("source-agent");
    dst = attach("target-agent");
    c = establish(src, dst, "provision_patient_records");
  }
};

TEST_F(PiiRouting, PiiRequiresAes256) {
  auto m = request(src, dst, "provision_patient_records", {{"cohort_id", "c-1"}}, c.contract_id);
  src.send(m);  // builders default to encryption none
  Json e = expect_error(src, "SECURITY_POLICY_VIOLATION");
  EXPECT_EQ(e["details"]["pointer"], "/security/encryption");
  m.envelope.security.encryption.reset();  // absent means none
  src.send(m);
  expect_error(src, "SECURITY_POLICY_VIOLATION");
  expect_silence(*dst.ws);
  m.envelope.security.encryption = "aes256";
  src.send(m);
  Json got = next(dst);
  EXPECT_EQ(got["security"]["encryption"], "aes256");
  // The response carries PII too.
  auto resp = response(got, dst, {{"dataset_id", "d"}});
  dst.send(resp);
  expect_error(dst, "SECURITY_POLICY_VIOLATION");
  resp.envelope.security.encryption = "aes256";
  dst.send(resp);
  EXPECT_EQ(next(src)["payload"]["dataset_id"], "d");
}

}  // namespace
}  // namespace ac::testing
