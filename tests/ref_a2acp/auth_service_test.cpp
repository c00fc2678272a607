// The a_domain auth service of the reference lobby over real HTTP: POST /auth/token issues HS256
// JWTs with the spec's seven claims; API keys in the body or the X-API-Key header; every error
// path with its A2ACP code and status; ttl default and cap; capabilities and domain; the
// configured secret; configuration errors refuse to start.
#include "reference/a2acp/settings.hpp"
#include "tests/ref_a2acp/a2acp_fixture.hpp"

namespace ac::testing {
namespace {

class AuthService : public A2acpLobby {
 protected:
  Json body(const std::string& agent = "source-agent", const std::string& target = "target-agent") {
    return {{"api_key", "test-key"}, {"agent_id", agent}, {"target_agent_id", target}, {"requested_capabilities", {"read:datasets", "write:test_scenarios"}}};
  }

  // Parses a 200 answer, checks it against schemas/a2acp/token_response and returns the verified claims.
  Json claims_of(const net::HttpResult& r, const std::string& secret = kSecret) {
    EXPECT_EQ(r.status, 200) << r.body;
    auto j = json::parse_strict(r.body);
    if (!j) {
      ADD_FAILURE() << r.body;
      return Json();
    }
    if (auto problem = a2acp_profile().check_document("token_response", *j)) {
      ADD_FAILURE() << problem->describe();
    }
    auto key = jwt::Key::hmac(secret);
    auto v = jwt::verify((*j)["token"].get<std::string>(), *key);
    EXPECT_TRUE(v) << (v ? "" : v.error().describe());
    if (!v) return Json();
    if (auto problem = a2acp_profile().check_document("jwt_claims", v->claims)) {
      ADD_FAILURE() << problem->describe();
    }
    Json c = v->claims;
    c["_expires_at"] = (*j)["expires_at"];
    return c;
  }

  static Json expect_http_error(const net::HttpResult& r, int status, const std::string& code) {
    EXPECT_EQ(r.status, status) << r.body;
    auto j = json::parse_strict(r.body);
    if (!j || !j->contains("error")) {
      ADD_FAILURE() << "not an error body: " << r.body;
      return Json::object();
    }
    const Json& e = (*j)["error"];
    EXPECT_EQ(e.value("code", ""), code) << r.body;
    EXPECT_FALSE(e.value("message", "").empty());
    EXPECT_EQ(e.value("retry_after", -1), 0) << r.body;
    EXPECT_FALSE(j->contains("token"));
    return e;
  }
};

TEST_F(AuthService, IssuesTokenWithTheSevenClaims) {
  Json c = claims_of(token_raw(body()));
  EXPECT_EQ(c["sub"], "source-agent");
  EXPECT_EQ(c["iss"], "a_domain-auth-service");
  EXPECT_EQ(c["aud"], "target-agent");
  EXPECT_EQ(c["domain"], "a_domain");  // the directory's domain of source-agent
  EXPECT_EQ(c["capabilities"], Json::array({"read:datasets", "write:test_scenarios"}));
  EXPECT_EQ(c["exp"].get<std::int64_t>() - c["iat"].get<std::int64_t>(), 3600);
  EXPECT_LE(std::abs(c["iat"].get<std::int64_t>() - now()), 5);
  // expires_at is exp as an RFC 3339 UTC time.
  const std::string expires = c["_expires_at"];
  EXPECT_EQ(expires, proto::typed::utc_timestamp(std::chrono::system_clock::time_point(std::chrono::seconds(c["exp"].get<std::int64_t>()))));
}

TEST_F(AuthService, ApiKeyInHeaderIsAccepted) {
  Json b = body();
  b.erase("api_key");
  Json c = claims_of(token_raw(b, {{"x-api-key", "second-key"}}));
  EXPECT_EQ(c["sub"], "source-agent");
}

TEST_F(AuthService, MissingApiKeyIs401AuthFailed) {
  Json b = body();
  b.erase("api_key");
  Json e = expect_http_error(token_raw(b), 401, "AUTH_FAILED");
  EXPECT_NE(e["message"].get<std::string>().find("X-API-Key"), std::string::npos);
}

TEST_F(AuthService, WrongApiKeyIs401) {
  Json b = body();
  b["api_key"] = "nope";
  expect_http_error(token_raw(b), 401, "AUTH_FAILED");
  b["api_key"] = 42;
  expect_http_error(token_raw(b), 401, "AUTH_FAILED");
  // A valid body key does not excuse an invalid header key.
  expect_http_error(token_raw(body(), {{"x-api-key", "nope"}}), 401, "AUTH_FAILED");
}

TEST_F(AuthService, MalformedBodiesAre400SchemaMismatch) {
  auto raw = [&](const std::string& text) {
    return *net::http_request(runtime, net::HttpCall{"POST", http("/auth/token"), {{"content-type", "application/json"}}, text});
  };
  expect_http_error(raw("not json"), 400, "SCHEMA_MISMATCH");
  expect_http_error(raw("[1,2]"), 400, "SCHEMA_MISMATCH");
  expect_http_error(raw(R"({"a":1,"a":2})"), 400, "SCHEMA_MISMATCH");

  Json b = body();
  b.erase("target_agent_id");
  Json e = expect_http_error(token_raw(b), 400, "SCHEMA_MISMATCH");
  EXPECT_EQ(e["details"]["pointer"], "/target_agent_id");
  EXPECT_EQ(e["details"]["rule"], "required");

  b = body();
  b["requested_capabilities"] = "read:datasets";
  e = expect_http_error(token_raw(b), 400, "SCHEMA_MISMATCH");
  EXPECT_EQ(e["details"]["pointer"], "/requested_capabilities");

  b = body();
  b["ttl"] = 0;
  e = expect_http_error(token_raw(b), 400, "SCHEMA_MISMATCH");
  EXPECT_EQ(e["details"]["pointer"], "/ttl");
}

TEST_F(AuthService, OtherMethodsAre405) {
  auto r = get("/auth/token");
  expect_http_error(r, 405, "SCHEMA_MISMATCH");
  EXPECT_EQ(net::header_value(r.headers, "allow"), "POST");
}

TEST_F(AuthService, TtlIsHonouredAndCapped) {
  Json b = body();
  b["ttl"] = 60;
  Json c = claims_of(token_raw(b));
  EXPECT_EQ(c["exp"].get<std::int64_t>() - c["iat"].get<std::int64_t>(), 60);
  b["ttl"] = 1000000000;
  c = claims_of(token_raw(b));
  EXPECT_EQ(c["exp"].get<std::int64_t>() - c["iat"].get<std::int64_t>(), 86400);
}

TEST_F(AuthService, ConfiguredTtlsApply) {
  section["token_ttl_s"] = 120;
  section["max_token_ttl_s"] = 600;
  restart();
  Json c = claims_of(token_raw(body()));
  EXPECT_EQ(c["exp"].get<std::int64_t>() - c["iat"].get<std::int64_t>(), 120);
  Json b = body();
  b["ttl"] = 5000;
  c = claims_of(token_raw(b));
  EXPECT_EQ(c["exp"].get<std::int64_t>() - c["iat"].get<std::int64_t>(), 600);
}

TEST_F(AuthService, CapabilitiesAreDeduplicatedAndLimitedToGrantable) {
  Json b = body();
  b["requested_capabilities"] = {"a", "b", "a"};
  EXPECT_EQ(claims_of(token_raw(b))["capabilities"], Json::array({"a", "b"}));

  section["agents"][0]["grantable_capabilities"] = {"read:datasets"};
  restart();
  EXPECT_EQ(claims_of(token_raw(body()))["capabilities"], Json::array({"read:datasets"}));
}

TEST_F(AuthService, DomainOfUnlistedAgentsComesFromBodyOrDefault) {
  Json b = body("stranger");
  EXPECT_EQ(claims_of(token_raw(b))["domain"], "a_domain");
  b["domain"] = "lab_domain";
  EXPECT_EQ(claims_of(token_raw(b))["domain"], "lab_domain");
  // A listed agent's domain is the directory's, whatever the body says.
  b = body("remote-agent");
  b["domain"] = "lab_domain";
  EXPECT_EQ(claims_of(token_raw(b))["domain"], "medtronic_poc");
}

TEST_F(AuthService, UnlistedAgentsRefusedWhenConfigured) {
  section["allow_unlisted_agents"] = false;
  restart();
  expect_http_error(token_raw(body("stranger")), 403, "AUTH_FAILED");
  claims_of(token_raw(body()));
}

TEST_F(AuthService, TokensAreSignedWithTheConfiguredSecret) {
  auto r = token_raw(body());
  claims_of(r, kSecret);
  auto j = json::parse_strict(r.body);
  auto other = jwt::Key::hmac(std::string(ref::a2acp::kDefaultJwtSecret));
  EXPECT_FALSE(jwt::verify((*j)["token"].get<std::string>(), *other));
}

TEST_F(AuthService, DefaultSecretWhenNoneConfigured) {
  section.erase("jwt_secret");
  restart();
  auto r = token_raw(body());
  claims_of(r, std::string(ref::a2acp::kDefaultJwtSecret));
}

TEST_F(AuthService, ConfiguredIssuerIsUsed) {
  section["issuer"] = "lab-auth-service";
  restart();
  EXPECT_EQ(claims_of(token_raw(body()))["iss"], "lab-auth-service");
}

class A2acpConfig : public A2acpLobby {
 protected:
  void SetUp() override {}  // each test starts its own lobby

  std::string start_error() {
    ref::LobbyConfig config;
    config.port = 0;
    configure(config);
    auto started = ref::Lobby::start(config);
    if (started) {
      (*started)->stop();
      return "";
    }
    return started.error();
  }
};

TEST_F(A2acpConfig, ShortSecretIsRefused) {
  section["jwt_secret"] = "short";
  EXPECT_NE(start_error().find("jwt_secret"), std::string::npos);
}

TEST_F(A2acpConfig, UnknownKeyIsRefused) {
  section["handshake_timeout"] = 5;
  EXPECT_NE(start_error().find("protocols.a2acp.handshake_timeout: unknown key"), std::string::npos);
}

TEST_F(A2acpConfig, BadDirectoryIsRefusedWithItsLocation) {
  section["agents"][2]["intents"]["echo"]["input_schema"] = {{"patternProperties", {{"a", Json::object()}}}};
  EXPECT_NE(start_error().find("protocols.a2acp.agents[2].intents.echo.input_schema"), std::string::npos);
  section = default_section();
  section["agents"][1]["version"] = "1.0";
  EXPECT_NE(start_error().find("agents[1].version"), std::string::npos);
  section = default_section();
  section["agents"][1]["agent_id"] = "source-agent";
  EXPECT_NE(start_error().find("listed twice"), std::string::npos);
  section = default_section();
  section["cross_domain_allowed"] = {"a_domain"};
  EXPECT_NE(start_error().find("cross_domain_allowed"), std::string::npos);
  section = default_section();
  section["rejection_code"] = "NOPE";
  EXPECT_NE(start_error().find("rejection_code"), std::string::npos);
  section = default_section();
  EXPECT_EQ(start_error(), "");
}

}  // namespace
}  // namespace ac::testing
