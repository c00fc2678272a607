// POST /api/v1/register (§4.1, §6 step 1, §10.1 step 1) over real HTTP: API key in the body or
// the X-API-Key header, token issuance, every refusal with its status and §8.2 error body, the
// agent_id conflict policies, provisioning, reserved ids, the registry cap, TLS.
#include <filesystem>

#include "harness/net/self_signed.hpp"
#include "tests/ref_alp/alp_fixture.hpp"

namespace ac::testing {
namespace {

using Registration = AlpLobby;

TEST_F(Registration, BodyKeyReturnsTokenLobbyIdAgentIdAndExpiry) {
  const auto before = std::chrono::system_clock::now();
  Json r = register_ok("agent-a");
  EXPECT_EQ(r["lobby_id"], kLobbyId);
  EXPECT_EQ(r["agent_id"], "agent-a");
  EXPECT_GE(r["auth_token"].get<std::string>().size(), 40u);  // 256 random bits, base64url
  // expires_at is about token_ttl_s (3600 s by default) from now.
  const std::string expires = r["expires_at"];
  EXPECT_TRUE(schema::is_date_time(expires));
  const std::string now_plus_hour = proto::typed::utc_timestamp(before + std::chrono::minutes(59));
  EXPECT_GT(expires, now_plus_hour);
}

TEST_F(Registration, HeaderKeyIsAccepted) {
  auto r = register_raw({{"agent_id", "agent-h"}, {"agent_type", "t"}}, {{"x-api-key", "second-key"}});
  EXPECT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(Json::parse(r.body).contains("auth_token"));
}

TEST_F(Registration, TokensAreFreshForEveryRegistration) {
  std::set<std::string> tokens;
  for (int i = 0; i < 5; ++i) tokens.insert(register_ok("agent-" + std::to_string(i))["auth_token"].get<std::string>());
  EXPECT_EQ(tokens.size(), 5u);
}

TEST_F(Registration, WrongKeyIs401ApiKeyInvalid) {
  auto r = register_raw({{"agent_id", "agent-x"}, {"agent_type", "t"}, {"api_key", "wrong"}});
  expect_http_error(r, 401, "API_KEY_INVALID");
  auto h = register_raw({{"agent_id", "agent-x"}, {"agent_type", "t"}}, {{"x-api-key", "wrong"}});
  expect_http_error(h, 401, "API_KEY_INVALID");
}

TEST_F(Registration, MissingKeyIs401ApiKeyInvalid) {
  Json e = expect_http_error(register_raw({{"agent_id", "agent-x"}, {"agent_type", "t"}}), 401, "API_KEY_INVALID");
  EXPECT_NE(e["message"].get<std::string>().find("X-API-Key"), std::string::npos);
}

TEST_F(Registration, EveryKeyGivenMustBeValid) {
  auto r = register_raw({{"agent_id", "agent-x"}, {"agent_type", "t"}, {"api_key", "wrong"}}, {{"x-api-key", "test-key"}});
  expect_http_error(r, 401, "API_KEY_INVALID");
  auto n = register_raw({{"agent_id", "agent-x"}, {"agent_type", "t"}, {"api_key", 42}}, {{"x-api-key", "test-key"}});
  expect_http_error(n, 401, "API_KEY_INVALID");
}

TEST_F(Registration, MalformedBodiesAre400) {
  auto call = [&](const std::string& body) {
    return net::http_request(runtime, net::HttpCall{"POST", http("/api/v1/register"), {{"content-type", "application/json"}}, body});
  };
  auto not_json = call("{\"agent_id\": ");
  ASSERT_TRUE(not_json);
  Json e = expect_http_error(*not_json, 400, "MESSAGE_MALFORMED");
  EXPECT_EQ(e["details"]["rule"], "json.syntax");
  auto not_object = call("[1,2]");
  ASSERT_TRUE(not_object);
  expect_http_error(*not_object, 400, "MESSAGE_MALFORMED");
  auto duplicate = call(R"({"agent_id":"a","agent_id":"b","agent_type":"t","api_key":"test-key"})");
  ASSERT_TRUE(duplicate);
  expect_http_error(*duplicate, 400, "MESSAGE_MALFORMED");
}

TEST_F(Registration, MissingAgentTypeNamesThePointer) {
  Json e = expect_http_error(register_raw({{"agent_id", "agent-x"}, {"api_key", "test-key"}}), 400, "MISSING_REQUIRED_FIELD");
  EXPECT_EQ(e["details"]["pointer"], "/agent_type");
  EXPECT_EQ(e["details"]["rule"], "required");
}

TEST_F(Registration, WrongTypesAndUnknownMembersAreMalformed) {
  Json e = expect_http_error(register_raw({{"agent_id", 7}, {"agent_type", "t"}, {"api_key", "test-key"}}), 400, "MESSAGE_MALFORMED");
  EXPECT_EQ(e["details"]["pointer"], "/agent_id");
  Json u = expect_http_error(register_raw({{"agent_id", "a"}, {"agent_type", "t"}, {"api_key", "test-key"}, {"colour", "red"}}), 400,
                             "MESSAGE_MALFORMED");
  EXPECT_EQ(u["details"]["rule"], "additionalProperties");
  expect_http_error(register_raw({{"agent_id", ""}, {"agent_type", "t"}, {"api_key", "test-key"}}), 400, "MESSAGE_MALFORMED");
}

TEST_F(Registration, RolesMustBeStrings) {
  Json e = expect_http_error(register_raw({{"agent_id", "a"}, {"agent_type", "t"}, {"api_key", "test-key"}, {"roles", {1}}}), 400,
                             "MESSAGE_MALFORMED");
  EXPECT_EQ(e["details"]["pointer"], "/roles");
  Json ok = register_ok("agent-roles", {{"roles", {"admin", "billing"}}});
  EXPECT_EQ(agent_status("agent-roles")["roles"], Json::array({"admin", "billing"}));
}

TEST_F(Registration, NoAgentIdProvisionsAUuid) {
  Json r = register_ok(std::nullopt);
  EXPECT_TRUE(schema::is_uuid(r["agent_id"].get<std::string>())) << r.dump();
  // The provisioned id works for the WebSocket handshake.
  auto c = try_connect(query(r["auth_token"], r["agent_id"]));
  EXPECT_TRUE(c) << (c ? "" : c.error().describe());
}

TEST_F(Registration, GetIsNotAllowed) {
  auto r = get("/api/v1/register");
  expect_http_error(r, 405, "METHOD_NOT_ALLOWED");
}

TEST_F(Registration, TakenIdIsRefusedAndTheHolderKeepsItsToken) {
  Agent holder = agent("agent-held");
  Json e = expect_http_error(register_raw({{"agent_id", "agent-held"}, {"agent_type", "t"}, {"api_key", "test-key"}}), 409,
                             "AGENT_ID_TAKEN");
  EXPECT_EQ(e["details"]["agent_id"], "agent-held");
  expect_alive(holder);
  // Also while the holder is not connected but its token is still valid.
  register_ok("agent-token-only");
  expect_http_error(register_raw({{"agent_id", "agent-token-only"}, {"agent_type", "t"}, {"api_key", "test-key"}}), 409,
                    "AGENT_ID_TAKEN");
}

TEST_F(Registration, ProvisionModeGivesAnotherId) {
  alp_config["agent_id_conflict"] = "provision";
  restart();
  Json first = register_ok("agent-p");
  Json second = register_ok("agent-p");
  EXPECT_NE(second["agent_id"], "agent-p");
  EXPECT_TRUE(schema::is_uuid(second["agent_id"].get<std::string>()));
  EXPECT_NE(first["auth_token"], second["auth_token"]);
  // The holder's token still opens its session.
  EXPECT_TRUE(try_connect(query(first["auth_token"], "agent-p")));
}

TEST_F(Registration, ReissueModeReplacesTheToken) {
  alp_config["agent_id_conflict"] = "reissue";
  restart();
  Json first = register_ok("agent-r");
  Json second = register_ok("agent-r", Json::object(), 200);
  EXPECT_EQ(second["agent_id"], "agent-r");
  auto old = try_connect(query(first["auth_token"], "agent-r"));
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().status, 401);
  EXPECT_TRUE(try_connect(query(second["auth_token"], "agent-r")));
}

TEST_F(Registration, ReservedIdsAreTaken) {
  expect_http_error(register_raw({{"agent_id", kLobbyId}, {"agent_type", "t"}, {"api_key", "test-key"}}), 409, "AGENT_ID_TAKEN");
  expect_http_error(register_raw({{"agent_id", "BROADCAST_ALL"}, {"agent_type", "t"}, {"api_key", "test-key"}}), 409,
                    "AGENT_ID_TAKEN");
}

TEST_F(Registration, IdIsFreeAgainOnceTheTokenExpiredAndTheAgentLeft) {
  alp_config["token_ttl_ms"] = 200;
  restart();
  Json first = register_ok("agent-lease");
  std::this_thread::sleep_for(300ms);
  Json again = register_ok("agent-lease", Json::object(), 200);
  EXPECT_NE(again["auth_token"], first["auth_token"]);
  EXPECT_TRUE(try_connect(query(again["auth_token"], "agent-lease")));
}

TEST_F(Registration, FullRegistryEvictsOnlyFreeRecords) {
  alp_config["max_agents"] = 2;
  alp_config["token_ttl_ms"] = 300;
  restart();
  Agent live = agent("agent-live");
  register_ok("agent-idle");
  Json e = expect_http_error(register_raw({{"agent_id", "agent-3"}, {"agent_type", "t"}, {"api_key", "test-key"}}), 503, "LOBBY_FULL");
  EXPECT_EQ(e["retryable"], true);
  std::this_thread::sleep_for(400ms);  // agent-idle's token expired and it never connected: evictable
  register_ok("agent-3");
  EXPECT_EQ(get("/api/v1/agents?agent_id=agent-idle").status, 404);
  EXPECT_EQ(get("/api/v1/agents?agent_id=agent-live").status, 200);
}

TEST_F(Registration, RequireTlsRefusesPlaintext) {
  alp_config["require_tls"] = true;
  restart();
  expect_http_error(register_raw({{"agent_id", "a"}, {"agent_type", "t"}, {"api_key", "test-key"}}), 403, "TLS_REQUIRED");
  auto c = try_connect(query("whatever", "a"));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().status, 403);
}

TEST_F(Registration, RegistersAndConnectsOverTls) {
  const auto dir = std::filesystem::temp_directory_path() / ("alp-tls-" + proto::typed::new_uuid_v4());
  auto files = net::write_self_signed_certificate(dir);
  ASSERT_TRUE(files) << files.error();
  tls_cert = files->cert_pem.string();
  tls_key = files->key_pem.string();
  alp_config["require_tls"] = true;
  restart();
  net::HttpCall call{"POST", http("/api/v1/register"), {{"content-type", "application/json"}},
                     Json{{"agent_id", "agent-tls"}, {"agent_type", "t"}, {"api_key", "test-key"}}.dump()};
  call.tls.ca_file = files->cert_pem.string();
  auto r = net::http_request(runtime, call);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->status, 201) << r->body;
  const Json body = Json::parse(r->body);
  net::WsConnectOptions o;
  o.tls.ca_file = files->cert_pem.string();
  auto c = net::WsClient::connect(runtime, ws(query(body["auth_token"], "agent-tls")), o);
  ASSERT_TRUE(c) << c.error().describe();
  Agent a{"agent-tls", body["auth_token"], body["lobby_id"], "", *c};
  expect_alive(a);
  lobby->stop();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ac::testing
