// The handshake and contract negotiation over real WebSocket connections: initiate_handshake ->
// accept_handshake to the target -> decision -> result with collaboration_id and contract (or an
// error); CAPABILITY_NOT_FOUND, TIMEOUT (silent or absent target), rejection, the domain policy,
// schema compatibility, PII policy in the contract, matching of decisions, termination, and the
// protocol version rules on handshakes.
#include "tests/ref_a2acp/a2acp_fixture.hpp"

namespace ac::testing {
namespace {

class Handshake : public A2acpLobby {
 protected:
  void SetUp() override {
    A2acpLobby::SetUp();
    src = attach("source-agent");
    dst = attach("target-agent");
  }
  A2Agent src, dst;
};

TEST_F(Handshake, FullFlowYieldsCollaborationAndContract) {
  auto init = handshake(src, "target-agent", "provision_test_dataset");
  src.send(init);

  Json offer = next(dst);
  EXPECT_EQ(offer["message_type"], "request");
  EXPECT_EQ(offer["intent"], "accept_handshake");
  EXPECT_EQ(offer["source_agent"]["agent_id"], kBroker);
  EXPECT_EQ(offer["target_agent"], Json({{"agent_id", "target-agent"}, {"domain", "a_domain"}, {"version", "2.1.0"}}));
  EXPECT_EQ(offer["payload"]["requested_intent"], "provision_test_dataset");
  EXPECT_EQ(offer["payload"]["source_agent_id"], "source-agent");
  EXPECT_EQ(offer["payload"]["source_agent"]["version"], "1.2.3");
  const std::string collaboration_id = offer["payload"]["collaboration_id"];
  const std::string contract_id = offer["payload"]["contract_id"];
  EXPECT_FALSE(collaboration_id.empty());

  dst.send(decision(offer, dst, true));
  Json result = next(src);
  EXPECT_EQ(result["message_type"], "response");
  EXPECT_EQ(result["intent"], "initiate_handshake");
  EXPECT_EQ(result["payload"]["collaboration_id"], collaboration_id);
  const Json& k = result["payload"]["contract"];
  EXPECT_EQ(k["contract_id"], contract_id);
  EXPECT_NE(k["contract_id"], collaboration_id);
  EXPECT_EQ(k["intent"], "provision_test_dataset");
  EXPECT_EQ(k["input_schema"], dataset_input());    // the source declared none: the target's
  EXPECT_EQ(k["output_schema"], dataset_output());  // the target's
  EXPECT_EQ(k["security_policy"]["encryption"], "none");
  EXPECT_EQ(k["security_policy"]["cross_domain"], false);
  EXPECT_EQ(k["security_policy"]["required_capabilities"], Json::array({"read:datasets"}));
  EXPECT_EQ(k["source_agent_id"], "source-agent");
  EXPECT_EQ(k["target_agent_id"], "target-agent");
  EXPECT_TRUE(schema::is_date_time(k["expires_at"].get<std::string>()));

  // Both agents are notified of the contract.
  Json event = next(dst);
  EXPECT_EQ(event["message_type"], "event");
  EXPECT_EQ(event["intent"], "contract_established");
  EXPECT_EQ(event["payload"]["contract"]["contract_id"], contract_id);
  EXPECT_EQ(event["payload"]["collaboration_id"], collaboration_id);
}

TEST_F(Handshake, ContractIdsAreUnique) {
  Collab a = establish(src, dst, "echo");
  Collab b = establish(src, dst, "echo");
  EXPECT_NE(a.contract_id, b.contract_id);
  EXPECT_NE(a.collaboration_id, b.collaboration_id);
}

TEST_F(Handshake, TargetNotNotifiedWhenConfigured) {
  section["notify_target"] = false;
  restart();
  src = attach("source-agent");
  dst = attach("target-agent");
  src.send(handshake(src, "target-agent", "echo"));
  dst.send(decision(next(dst), dst, true));
  EXPECT_EQ(next(src)["intent"], "initiate_handshake");
  expect_silence(*dst.ws);
}

TEST_F(Handshake, UnknownTargetIsCapabilityNotFound) {
  src.send(handshake(src, "nobody", "echo"));
  Json e = expect_error(src, "CAPABILITY_NOT_FOUND");
  EXPECT_EQ(e["retry_after"], 0);
  EXPECT_EQ(e["details"]["target_agent_id"], "nobody");
  expect_silence(*dst.ws);
}

TEST_F(Handshake, UnknownIntentIsCapabilityNotFoundWithTheAvailableOnes) {
  src.send(handshake(src, "target-agent", "provision_test_datasets"));
  Json e = expect_error(src, "CAPABILITY_NOT_FOUND");
  EXPECT_EQ(e["details"]["available_intents"], Json::array({"echo", "provision_patient_records", "provision_test_dataset"}));
  expect_silence(*dst.ws);
}

TEST_F(Handshake, AgentsWithoutIntentsAreNoTargets) {
  src.send(handshake(src, "other-agent", "echo"));
  expect_error(src, "CAPABILITY_NOT_FOUND");
}

TEST_F(Handshake, OtherBrokerIntentsAreCapabilityNotFound) {
  src.send(a2::make_request(src.id, broker(), token("source-agent", kBroker), "discover_everything", Json::object()));
  Json e = expect_error(src, "CAPABILITY_NOT_FOUND");
  EXPECT_EQ(e["details"]["available_intents"], Json::array({"initiate_handshake", "terminate_collaboration"}));
  // Events addressed to the broker need no answer.
  src.send(a2::make_event(src.id, broker(), token("source-agent", kBroker), std::string("heartbeat"), Json::object()));
  expect_silence(*src.ws);
}

TEST_F(Handshake, HandshakeMayBeAddressedToTheTargetAgent) {
  // target_agent = the target itself: the token's audience is then the target (rule 3 as written).
  auto m = a2::make_initiate_handshake(src.id, dst.id, token("source-agent", "target-agent", {"read:datasets"}), "target-agent",
                                       "provision_test_dataset");
  src.send(m);
  EXPECT_EQ(next(dst)["intent"], "accept_handshake");
}

TEST_F(Handshake, AbsentTargetIsTimeoutRetryable) {
  dst.ws->close(1000, "bye");
  wait_for([&] { return !online("target-agent"); });
  src.send(handshake(src, "target-agent", "echo"));
  Json e = expect_error(src, "TIMEOUT");
  EXPECT_GT(e["retry_after"].get<int>(), 0);
  EXPECT_EQ(e["details"]["reason"], "not-connected");
}

TEST_F(Handshake, SilentTargetTimesOutAndALateDecisionIsIgnored) {
  src.send(handshake(src, "target-agent", "echo"));
  Json offer = next(dst);
  Json e = expect_error(src, "TIMEOUT");
  EXPECT_EQ(e["retry_after"], 5);
  EXPECT_EQ(e["details"]["reason"], "handshake-timeout");
  EXPECT_EQ(e["details"]["timeout_ms"], 800);
  dst.send(decision(offer, dst, true));
  expect_silence(*src.ws);
  expect_silence(*dst.ws);
}

TEST_F(Handshake, TimeoutsScaleWithTheLobbysTimeoutScale) {
  section["handshake_timeout_ms"] = 5000;  // the spec's value
  timeout_scale = 0.1;
  restart();
  src = attach("source-agent");
  dst = attach("target-agent");
  src.send(handshake(src, "target-agent", "echo"));
  next(dst);
  EXPECT_EQ(expect_error(src, "TIMEOUT")["details"]["timeout_ms"], 500);
}

TEST_F(Handshake, TargetLeavingDuringTheHandshakeIsTimeout) {
  src.send(handshake(src, "target-agent", "echo"));
  next(dst);
  dst.ws->close(1000, "bye");
  Json e = expect_error(src, "TIMEOUT");
  EXPECT_EQ(e["details"]["reason"], "target-disconnected");
}

TEST_F(Handshake, RejectionIsAnErrorAndCreatesNoContract) {
  src.send(handshake(src, "target-agent", "provision_test_dataset"));
  Json offer = next(dst);
  dst.send(decision(offer, dst, false, "busy with another scenario"));
  Json e = expect_error(src, "SECURITY_POLICY_VIOLATION");
  EXPECT_EQ(e["details"]["reason"], "busy with another scenario");
  EXPECT_EQ(e["details"]["rejected"], true);
  expect_silence(*dst.ws);  // no contract_established
  // The contract offered in the handshake was never stored.
  src.send(request(src, dst, "provision_test_dataset", dataset_request(), offer["payload"]["contract_id"]));
  EXPECT_EQ(expect_error(src, "CONTRACT_VIOLATION")["details"]["reason"], "unknown");
  expect_silence(*dst.ws);
}

TEST_F(Handshake, RejectionCodeIsConfigurable) {
  section["rejection_code"] = "CAPABILITY_NOT_FOUND";
  restart();
  src = attach("source-agent");
  dst = attach("target-agent");
  src.send(handshake(src, "target-agent", "echo"));
  dst.send(decision(next(dst), dst, false));
  expect_error(src, "CAPABILITY_NOT_FOUND");
}

TEST_F(Handshake, DecisionsMatchTheirHandshakeByCollaborationId) {
  src.send(handshake(src, "target-agent", "echo"));
  Json first = next(dst);
  src.send(handshake(src, "target-agent", "provision_test_dataset"));
  Json second = next(dst);
  // Decide the second first, echoing its collaboration_id.
  auto d = decision(second, dst, true);
  d.get<a2::HandshakeDecision>()->extra["collaboration_id"] = second["payload"]["collaboration_id"];
  dst.send(d);
  Json r = next(src);
  EXPECT_EQ(r["payload"]["collaboration_id"], second["payload"]["collaboration_id"]);
  EXPECT_EQ(r["payload"]["contract"]["intent"], "provision_test_dataset");
  next(dst);  // contract_established
  // Without an id, a decision answers the oldest pending handshake.
  dst.send(decision(first, dst, false));
  Json e = expect_error(src, "SECURITY_POLICY_VIOLATION");
  EXPECT_EQ(e["details"]["collaboration_id"], first["payload"]["collaboration_id"]);
}

TEST_F(Handshake, DecisionFromAnotherAgentIsIgnored) {
  auto other = attach("remote-agent");
  src.send(handshake(src, "target-agent", "echo"));
  Json offer = next(dst);
  other.send(a2::make_handshake_decision(*a2::from_json(offer), token("remote-agent", kBroker), true));
  expect_silence(*src.ws);
  dst.send(decision(offer, dst, true));
  EXPECT_EQ(next(src)["intent"], "initiate_handshake");
}

TEST_F(Handshake, CrossDomainAllowedPairGetsAContract) {
  auto remote = attach("remote-agent");
  Collab c = establish(src, remote, "echo");
  EXPECT_EQ(c.contract["security_policy"]["cross_domain"], true);
  EXPECT_EQ(c.contract["security_policy"]["source_domain"], "a_domain");
  EXPECT_EQ(c.contract["security_policy"]["target_domain"], "medtronic_poc");
}

TEST_F(Handshake, CrossDomainDeniedPairIsSecurityPolicyViolation) {
  auto denied = attach("denied-agent");
  src.send(handshake(src, "denied-agent", "echo"));
  Json e = expect_error(src, "SECURITY_POLICY_VIOLATION");
  EXPECT_EQ(e["details"]["source_domain"], "a_domain");
  EXPECT_EQ(e["details"]["target_domain"], "secret_domain");
  expect_silence(*denied.ws);  // the target is never asked
  // The reverse direction of an allowed pair is not allowed either.
  auto remote = attach("remote-agent");
  remote.send(a2::make_initiate_handshake(remote.id, broker(), token("remote-agent", kBroker), "target-agent", "echo"));
  expect_error(remote, "SECURITY_POLICY_VIOLATION");
}

TEST_F(Handshake, WildcardDomainPolicy) {
  section["cross_domain_allowed"] = Json::array({{{"source", "*"}, {"target", "secret_domain"}}});
  restart();
  src = attach("source-agent");
  auto denied = attach("denied-agent");
  establish(src, denied, "echo");
}

TEST_F(Handshake, UnlistedSourceDomainComesFromItsToken) {
  auto anon = connect("/a2acp/ws");
  A2Agent lab{a2::Agent{"lab-agent", "a_domain", "1.0.0", Json::object()}, anon};
  // The auth service gives an unlisted agent the domain its request names.
  auto r = token_raw({{"api_key", "test-key"}, {"agent_id", "lab-agent"}, {"target_agent_id", kBroker},
                      {"requested_capabilities", Json::array()}, {"domain", "secret_domain"}});
  const std::string t = Json::parse(r.body)["token"];
  lab.send(a2::make_initiate_handshake(lab.id, broker(), t, "remote-agent", "echo"));
  Json e = expect_error(lab, "SECURITY_POLICY_VIOLATION");
  EXPECT_EQ(e["details"]["source_domain"], "secret_domain");
}

TEST_F(Handshake, IncompatibleDeclaredInputSchemaIsSchemaMismatch) {
  // The spec's own SCHEMA_MISMATCH example: the source sends scenario_id/type.
  auto typed = attach("typed-source");
  typed.send(handshake(typed, "target-agent", "provision_test_dataset"));
  Json e = expect_error(typed, "SCHEMA_MISMATCH");
  EXPECT_EQ(e["details"]["expected_schema"], Json({{"test_scenario_id", "string"}, {"dataset_type", "string"}, {"record_count", "integer"}}));
  EXPECT_EQ(e["details"]["received_schema"], Json({{"scenario_id", "string"}, {"type", "string"}}));
  expect_silence(*dst.ws);
}

TEST_F(Handshake, DeclaredSchemasInTheHandshakePayload) {
  auto m = handshake(src, "target-agent", "provision_test_dataset");
  auto& extra = m.get<a2::InitiateHandshake>()->extra;
  // Compatible: declares the required members with the same types.
  extra["input_schema"] = {{"type", "object"},
                           {"required", {"test_scenario_id", "dataset_type"}},
                           {"properties", {{"test_scenario_id", {{"type", "string"}}}, {"dataset_type", {{"type", "string"}}}}}};
  src.send(m);
  Json offer = next(dst);
  EXPECT_EQ(offer["payload"]["contract"]["input_schema"], extra["input_schema"]);
  dst.send(decision(offer, dst, true));
  EXPECT_EQ(next(src)["payload"]["contract"]["input_schema"], extra["input_schema"]);
  next(dst);

  // A type conflict.
  extra["input_schema"]["properties"]["record_count"] = {{"type", "string"}};
  src.send(m);
  EXPECT_EQ(expect_error(src, "SCHEMA_MISMATCH")["details"]["pointer"], "/properties/record_count");
  // A member the target does not allow.
  extra["input_schema"]["properties"].erase("record_count");
  extra["input_schema"]["properties"]["extra"] = {{"type", "string"}};
  src.send(m);
  EXPECT_EQ(expect_error(src, "SCHEMA_MISMATCH")["details"]["pointer"], "/properties/extra");
  // An expected output the target's output cannot satisfy.
  extra["input_schema"]["properties"].erase("extra");
  extra["output_schema"] = {{"type", "object"}, {"required", {"connection_string"}}};
  src.send(m);
  EXPECT_NE(expect_error(src, "SCHEMA_MISMATCH")["message"].get<std::string>().find("output"), std::string::npos);
  // Not a schema at all.
  extra.erase("output_schema");
  extra["input_schema"] = "string";
  src.send(m);
  EXPECT_EQ(expect_error(src, "SCHEMA_MISMATCH")["details"]["pointer"], "/payload/input_schema");
  expect_silence(*dst.ws);
}

TEST_F(Handshake, PiiIntentContractRequiresAes256) {
  Collab c = establish(src, dst, "provision_patient_records");
  EXPECT_EQ(c.contract["security_policy"]["encryption"], "aes256");
  EXPECT_EQ(c.contract["security_policy"]["pii"], true);
}

TEST_F(Handshake, TerminateCollaboration) {
  Collab c = establish(src, dst, "echo");
  src.send(a2::make_request(src.id, broker(), token("source-agent", kBroker), "terminate_collaboration",
                            {{"collaboration_id", c.collaboration_id}}));
  Json r = next(src);
  EXPECT_EQ(r["message_type"], "response");
  EXPECT_EQ(r["intent"], "terminate_collaboration");
  EXPECT_EQ(r["payload"]["terminated"], true);
  EXPECT_EQ(r["payload"]["contract_id"], c.contract_id);
  Json ev = next(dst);
  EXPECT_EQ(ev["intent"], "collaboration_terminated");
  EXPECT_EQ(ev["payload"]["terminated_by"], "source-agent");
  src.send(request(src, dst, "echo", {{"x", 1}}, c.contract_id));
  expect_error(src, "CONTRACT_VIOLATION");
  // Terminating again, or someone else's collaboration.
  src.send(a2::make_request(src.id, broker(), token("source-agent", kBroker), "terminate_collaboration", {{"contract_id", c.contract_id}}));
  expect_error(src, "CONTRACT_VIOLATION");
  src.send(a2::make_request(src.id, broker(), token("source-agent", kBroker), "terminate_collaboration", Json::object()));
  expect_error(src, "SCHEMA_MISMATCH");
  Collab d = establish(src, dst, "echo");
  auto other = attach("other-agent");
  other.send(a2::make_request(other.id, broker(), token("other-agent", kBroker), "terminate_collaboration", {{"contract_id", d.contract_id}}));
  expect_error(other, "CONTRACT_VIOLATION");
}

// The contract store is bounded; when it is full, collaborations no exchange can use now (a
// party gone, nothing awaiting) make room. Collaborations whose parties are both attached are
// kept, and then a new handshake is refused INTERNAL_ERROR.
TEST_F(Handshake, AFullContractStoreMakesRoomFromCollaborationsWithAPartyGone) {
  section["max_collaborations"] = 2;
  restart();
  src = attach("source-agent");
  dst = attach("target-agent");
  auto other = attach("other-agent");
  const Collab kept = establish(src, dst, "echo");
  const Collab gone = establish(other, dst, "echo");
  // Full, every party attached: refused after the target accepted.
  src.send(handshake(src, dst.name(), "echo"));
  Json offer = next(dst);
  ASSERT_EQ(offer.value("intent", ""), "accept_handshake") << offer.dump();
  dst.send(decision(offer, dst, true));
  EXPECT_EQ(expect_error(src, "INTERNAL_ERROR")["details"]["max_collaborations"], 2);
  // other-agent leaves: its collaboration makes room for the next one.
  other.ws->close(1000, "bye");
  wait_for([&] { return !online("other-agent"); });
  const Collab fresh = establish(src, dst, "echo");
  EXPECT_FALSE(fresh.contract_id.empty());
  EXPECT_NE(fresh.contract_id, gone.contract_id);
  // The collaboration of two attached agents was kept and still carries requests.
  src.send(request(src, dst, "echo", {{"x", 1}}, kept.contract_id));
  EXPECT_EQ(next(dst).value("intent", ""), "echo");
}

TEST_F(Handshake, SameMajorAndPreviousMajorAreAccepted) {
  for (const char* version : {"1.0", "1.7", "0.9"}) {
    auto m = handshake(src, "target-agent", "echo");
    m.envelope.protocol_version = version;
    src.send(m);
    EXPECT_EQ(next(dst)["intent"], "accept_handshake") << version;
  }
}

TEST_F(Handshake, IncompatibleMajorIsSchemaMismatch) {
  for (const char* version : {"2.0", "9.1", "18446744073709551616.0"}) {
    auto m = handshake(src, "target-agent", "echo");
    m.envelope.protocol_version = version;
    src.send(m);
    Json e = expect_error(src, "SCHEMA_MISMATCH");
    EXPECT_EQ(e["details"]["pointer"], "/protocol_version") << version;
  }
  for (const char* version : {"1", "1.0.0", "v1.0"}) {  // not MAJOR.MINOR: the schema's pattern
    auto m = handshake(src, "target-agent", "echo");
    m.envelope.protocol_version = version;
    src.send(m);
    EXPECT_EQ(expect_error(src, "SCHEMA_MISMATCH")["details"]["pointer"], "/protocol_version") << version;
  }
  expect_silence(*dst.ws);
}

TEST_F(Handshake, PendingHandshakesPerAgentAreBounded) {
  section["max_pending_handshakes_per_agent"] = 2;
  section["handshake_timeout_ms"] = 5000;
  restart();
  src = attach("source-agent");
  dst = attach("target-agent");
  for (int i = 0; i < 2; ++i) {
    src.send(handshake(src, "target-agent", "echo"));
    next(dst);
  }
  src.send(handshake(src, "target-agent", "echo"));
  Json e = expect_error(src, "RATE_LIMIT_EXCEEDED");
  EXPECT_GT(e["retry_after"].get<int>(), 0);
  EXPECT_EQ(e["details"]["limit"], "pending-handshakes-per-agent");
}

}  // namespace
}  // namespace ac::testing
