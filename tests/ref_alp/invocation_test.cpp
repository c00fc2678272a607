// Capability invocation through the lobby (§7.3.2-3, §9, §10.1 step 5, §11): routing both ways
// unchanged, pending_async / in_progress sequences, authorization_rules, input_schema,
// CAPABILITY_NOT_FOUND / CAPABILITY_VERSION_MISMATCH, responses only from the addressee, the
// timeout, a responder that leaves, the pending-table cap, the "response" error format.
#include "tests/ref_alp/alp_fixture.hpp"

namespace ac::testing {
namespace {

class Invocation : public AlpLobby {
 protected:
  void SetUp() override {
    alp_config["invoke_timeout_ms"] = 5000;  // tests of the timeout itself shorten it
    AlpLobby::SetUp();
  }

  static alp::Capability echo(const std::string& version = "1.0.0") {
    return capability("com.example.Echo", version,
                      {{"type", "object"}, {"required", {"text"}}, {"properties", {{"text", {{"type", "string"}, {"maxLength", 20}}}}}});
  }

  void short_timeout() {
    alp_config["invoke_timeout_ms"] = 600;
    restart();
  }

  // A requester and a provider of com.example.Echo (plus `extra` capabilities).
  void pair(std::vector<alp::Capability> caps = {echo()}, Json requester_extra = Json::object()) {
    provider = agent("agent-provider", caps);
    requester = agent("agent-requester", std::nullopt, std::move(requester_extra));
  }

  alp::Message request(const std::string& capability_name = "com.example.Echo", Json input = {{"text", "hi"}},
                       std::optional<std::string> version = std::nullopt) {
    alp::Message m = alp::make_invoke_request(requester.id, provider.id, capability_name, std::move(input), std::move(version));
    requester.send(m);
    return m;
  }

  Agent provider, requester;
};

TEST_F(Invocation, RequestAndResponseAreRoutedUnchanged) {
  pair();
  alp::Message req = request();
  Json got = next(provider);
  EXPECT_EQ(got, alp::to_json(req));
  alp::Message req_typed = alp::from_json(got).value();
  alp::Message resp = alp::make_invoke_success(req_typed, {{"echo", "hi"}});
  provider.send(resp);
  Json back = next(requester);
  EXPECT_EQ(back, alp::to_json(resp));
  EXPECT_EQ(back["sender_id"], provider.id);
  EXPECT_EQ(back["conversation_id"], *req.envelope.conversation_id);
  EXPECT_EQ(back["payload"]["request_message_id"], req.envelope.message_id);
  EXPECT_EQ(Json::parse(get("/healthz").body)["protocols"]["alp"]["pending_invocations"], 0);
}

TEST_F(Invocation, AsyncSequenceArrivesInOrderAndEndsAtTheFinalStatus) {
  pair();
  alp::Message req = request();
  alp::Message seen = alp::from_json(next(provider)).value();
  std::vector<alp::Message> sequence = {alp::make_invoke_pending(seen), alp::make_invoke_progress(seen, 10, "started"),
                                        alp::make_invoke_progress(seen, 60, "halfway"),
                                        alp::make_invoke_progress(seen, 90, "almost"), alp::make_invoke_success(seen, {{"ok", true}})};
  for (const auto& m : sequence) provider.send(m);
  for (const auto& m : sequence) {
    Json got = next(requester);
    EXPECT_EQ(got["message_id"], m.envelope.message_id);
    EXPECT_EQ(got["conversation_id"], *req.envelope.conversation_id);
  }
  // After the final status the request is finished: another response is refused.
  alp::Message late = alp::make_invoke_success(seen, {{"again", true}});
  provider.send(late);
  Json e = expect_error(provider, "ACCESS_DENIED", late.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["pointer"], "/payload/request_message_id");
  expect_silence(*requester.ws);
}

TEST_F(Invocation, ProgressKeepsTheRequestAliveAndErrorIsFinal) {
  short_timeout();
  pair();
  request();
  alp::Message seen = alp::from_json(next(provider)).value();
  for (int i = 0; i < 3; ++i) {  // 3 x 400 ms > the 600 ms timeout, but each response re-arms it
    std::this_thread::sleep_for(400ms);
    provider.send(alp::make_invoke_progress(seen, 20 * (i + 1), "working"));
    EXPECT_EQ(next(requester)["payload"]["status"], "in_progress");
  }
  alp::ErrorObject err{"INTERNAL_AGENT_ERROR", "disk full", std::nullopt, true, Json::object()};
  provider.send(alp::make_invoke_error(seen, err));
  Json got = next(requester);
  EXPECT_EQ(got["payload"]["status"], "error");
  EXPECT_EQ(got["payload"]["error_details"]["code"], "INTERNAL_AGENT_ERROR");
  expect_silence(*requester.ws, 800ms);  // no TIMEOUT_ERROR after a final status
}

TEST_F(Invocation, NoFinalResponseTimesOut) {
  short_timeout();
  pair();
  alp::Message req = request();
  next(provider);
  Json e = expect_error(requester, "TIMEOUT_ERROR", req.envelope.message_id);
  EXPECT_EQ(e["error"]["retryable"], true);
  EXPECT_EQ(e["error"]["details"]["receiver_id"], provider.id);
  // The timed-out request is no longer pending: a late answer is refused.
  alp::Message late = alp::make_invoke_success(alp::from_json(alp::to_json(req)).value(), Json::object());
  late.envelope.sender_id = provider.id;
  late.envelope.receiver_id = requester.id;
  provider.send(late);
  expect_error(provider, "ACCESS_DENIED");
}

TEST_F(Invocation, OnlyTheAddresseeMayAnswerAndOnlyToTheRequester) {
  pair();
  Agent intruder = agent("agent-intruder");
  alp::Message req = request();
  alp::Message seen = alp::from_json(next(provider)).value();
  // Another agent answering the request.
  alp::Message forged = alp::make_invoke_success(seen, {{"forged", true}});
  forged.envelope.sender_id = intruder.id;
  intruder.send(forged);
  expect_error(intruder, "ACCESS_DENIED", forged.envelope.message_id);
  // The addressee answering to someone else.
  alp::Message misdirected = alp::make_invoke_success(seen, {{"x", 1}});
  misdirected.envelope.receiver_id = intruder.id;
  provider.send(misdirected);
  Json e = expect_error(provider, "ACCESS_DENIED", misdirected.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["requester"], requester.id);
  expect_silence(*requester.ws);
  expect_silence(*intruder.ws);
  // The real answer still goes through.
  provider.send(alp::make_invoke_success(seen, {{"real", true}}));
  EXPECT_EQ(next(requester)["payload"]["output_data"]["real"], true);
}

TEST_F(Invocation, UnknownCapabilityIsCapabilityNotFound) {
  pair();
  alp::Message m = request("com.example.Nope");
  Json e = expect_error(requester, "CAPABILITY_NOT_FOUND", m.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["capability_name"], "com.example.Nope");
  expect_silence(*provider.ws);
}

TEST_F(Invocation, CapabilityVersionMustBeAdvertised) {
  pair({echo("1.0.0"), echo("2.0.0")});
  alp::Message m = request("com.example.Echo", {{"text", "hi"}}, "1.5.0");
  Json e = expect_error(requester, "CAPABILITY_VERSION_MISMATCH", m.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["advertised_versions"], Json::array({"1.0.0", "2.0.0"}));
  expect_silence(*provider.ws);
  alp::Message ok = request("com.example.Echo", {{"text", "hi"}}, "2.0.0");
  EXPECT_EQ(next(provider)["message_id"], ok.envelope.message_id);
}

TEST_F(Invocation, RefusalsCarryTheRequestsConversation) {
  pair();
  alp::Message m = request("com.example.Nope");
  Json e = next(requester);
  EXPECT_EQ(e["message_type"], "PROTOCOL_ERROR");
  EXPECT_EQ(e["conversation_id"], *m.envelope.conversation_id);
}

TEST_F(Invocation, AllowListIsEnforced) {
  pair({with_rules(capability("c.private"), "allow_list", {"agent-friend"})});
  Agent friend_agent = agent("agent-friend");
  alp::Message denied = request("c.private", Json::object());
  Json e = expect_error(requester, "ACCESS_DENIED", denied.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["authorization_type"], "allow_list");
  expect_silence(*provider.ws);
  alp::Message allowed = alp::make_invoke_request(friend_agent.id, provider.id, "c.private", Json::object());
  friend_agent.send(allowed);
  EXPECT_EQ(next(provider)["message_id"], allowed.envelope.message_id);
}

TEST_F(Invocation, RequiresRoleUsesTheRolesOfRegistration) {
  provider = agent("agent-provider", std::vector<alp::Capability>{with_rules(capability("c.admin"), "requires_role", {}, {"admin", "ops"})});
  requester = agent("agent-requester", std::nullopt, {{"roles", {"admin"}}});
  Agent boss = agent("agent-boss", std::nullopt, {{"roles", {"ops", "admin", "extra"}}});
  alp::Message denied = request("c.admin", Json::object());
  Json e = expect_error(requester, "ACCESS_DENIED", denied.envelope.message_id);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("ops"), std::string::npos);
  alp::Message allowed = alp::make_invoke_request(boss.id, provider.id, "c.admin", Json::object());
  boss.send(allowed);
  EXPECT_EQ(next(provider)["message_id"], allowed.envelope.message_id);
}

TEST_F(Invocation, PublicAndUnknownRuleTypes) {
  pair({with_rules(capability("c.public"), "public"), with_rules(capability("c.weird"), "blockchain_vote")});
  alp::Message pub = request("c.public", Json::object());
  EXPECT_EQ(next(provider)["message_id"], pub.envelope.message_id);
  alp::Message weird = request("c.weird", Json::object());
  expect_error(requester, "ACCESS_DENIED", weird.envelope.message_id);  // fail closed
}

TEST_F(Invocation, InputDataIsValidatedAgainstTheInputSchema) {
  pair();
  alp::Message bad = request("com.example.Echo", {{"text", 42}});
  Json e = expect_error(requester, "INVALID_PAYLOAD_SCHEMA", bad.envelope.message_id);
  ASSERT_FALSE(e["error"]["details"]["violations"].empty());
  EXPECT_EQ(e["error"]["details"]["violations"][0]["pointer"], "/payload/input_data/text");
  alp::Message missing = request("com.example.Echo", Json::object());
  expect_error(requester, "INVALID_PAYLOAD_SCHEMA", missing.envelope.message_id);
  alp::Message too_long = request("com.example.Echo", {{"text", std::string(30, 'x')}});
  expect_error(requester, "INVALID_PAYLOAD_SCHEMA", too_long.envelope.message_id);
  expect_silence(*provider.ws);
}

TEST_F(Invocation, InputValidationCanBeTurnedOff) {
  alp_config["validate_input_schema"] = false;
  restart();
  pair();
  alp::Message bad = request("com.example.Echo", {{"text", 42}});
  EXPECT_EQ(next(provider)["message_id"], bad.envelope.message_id);
}

TEST_F(Invocation, ResponderLeavingEndsItsPendingRequests) {
  pair();
  alp::Message req = request();
  next(provider);
  provider.ws->close(1000, "crash");
  Json e = expect_error(requester, "RECEIVER_UNAVAILABLE", req.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["receiver_id"], provider.id);
}

TEST_F(Invocation, OfflineOrUnknownReceivers) {
  pair();
  alp::Message to_nobody = alp::make_invoke_request(requester.id, "agent-nobody", "c", Json::object());
  requester.send(to_nobody);
  expect_error(requester, "RECEIVER_NOT_FOUND", to_nobody.envelope.message_id);
  provider.ws->close(1000, "bye");
  wait_for([&] { return agent_status(provider.id)["status"] == "offline"; });
  alp::Message to_offline = request();
  expect_error(requester, "RECEIVER_UNAVAILABLE", to_offline.envelope.message_id);
}

TEST_F(Invocation, RetransmissionIsIgnoredWhilePending) {
  pair();
  alp::Message req = request();
  next(provider);
  requester.send(req);  // same message_id
  expect_silence(*provider.ws);
  expect_silence(*requester.ws);
}

TEST_F(Invocation, PendingRequestsAreCapped) {
  alp_config["max_pending_per_agent"] = 2;
  restart();
  pair();
  request();
  request();
  next(provider);
  next(provider);
  alp::Message third = request();
  Json e = expect_error(requester, "RATE_LIMIT_EXCEEDED", third.envelope.message_id);
  EXPECT_EQ(e["error"]["retryable"], true);
  EXPECT_EQ(e["error"]["details"]["reason"], "pending_invocations");
}

TEST_F(Invocation, RefusalsAsResponsesWhenConfigured) {
  alp_config["invoke_error_format"] = "response";
  short_timeout();
  pair();
  alp::Message m = request("com.example.Nope");
  Json r = next(requester);
  EXPECT_EQ(r["message_type"], "INVOKE_CAPABILITY_RESPONSE");
  EXPECT_EQ(r["sender_id"], kLobbyId);
  EXPECT_EQ(r["conversation_id"], *m.envelope.conversation_id);
  EXPECT_EQ(r["payload"]["request_message_id"], m.envelope.message_id);
  EXPECT_EQ(r["payload"]["status"], "error");
  EXPECT_EQ(r["payload"]["error_details"]["code"], "CAPABILITY_NOT_FOUND");
  // The timeout too.
  alp::Message slow = request();
  next(provider);
  Json t = next(requester);
  EXPECT_EQ(t["payload"]["error_details"]["code"], "TIMEOUT_ERROR");
  EXPECT_EQ(t["payload"]["request_message_id"], slow.envelope.message_id);
}

TEST_F(Invocation, AMessageIdPendingForAnotherRequesterIsRefused) {
  pair();
  Agent other = agent("agent-other");
  alp::Message req = request();
  next(provider);
  alp::Message copy = req;  // another agent reusing a pending request's message_id
  copy.envelope.sender_id = other.id;
  other.send(copy);
  Json e = expect_error(other, "MESSAGE_MALFORMED", req.envelope.message_id);
  EXPECT_EQ(e["error"]["details"]["pointer"], "/message_id");
  expect_silence(*provider.ws);
}

TEST_F(Invocation, ResponseToAnOfflineRequesterIsReceiverUnavailable) {
  pair();
  request();
  alp::Message seen = alp::from_json(next(provider)).value();
  requester.ws->close(1000, "gone");
  wait_for([&] { return agent_status(requester.id)["status"] == "offline"; });
  alp::Message progress = alp::make_invoke_progress(seen, 10, "still working");
  provider.send(progress);
  Json e = expect_error(provider, "RECEIVER_UNAVAILABLE", progress.envelope.message_id);
  EXPECT_EQ(e["error"]["retryable"], true);  // the requester may come back before the final status
  provider.send(alp::make_invoke_success(seen, Json::object()));
  Json f = expect_error(provider, "RECEIVER_UNAVAILABLE");
  EXPECT_EQ(f["error"]["retryable"], false);
  // The final status ended the request.
  provider.send(alp::make_invoke_success(seen, Json::object()));
  expect_error(provider, "ACCESS_DENIED");
}

}  // namespace
}  // namespace ac::testing
