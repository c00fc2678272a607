// A2ACP 1.0 tokens (a2acp-1.0.md §Authentication): the claims set, the five validation rules
// each with its own code, the independent vectors' A2ACP verdicts, and issue -> verify
// properties with a fixed clock.
#include "harness/protocols/a2acp/token.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/crypto/base64.hpp"
#include "crypto_test_support.hpp"

namespace ac::proto::a2acp {
namespace {

namespace jwt = crypto::jwt;
using ac::testing::read_json_fixture;

constexpr std::int64_t kNow = 1706371500;

const Json& vectors() {
  static const Json doc = read_json_fixture("fixtures/vectors/jwt/jwt_vectors.json");
  return doc;
}

jwt::Key key_named(const std::string& name) {
  const Json& k = vectors()["keys"][name];
  Expected<jwt::Key, jwt::Error> key = unexpected(jwt::Error{});
  if (k.contains("secret_b64url")) key = jwt::Key::hmac(*crypto::base64url_decode(k["secret_b64url"].get<std::string>()));
  else if (name.find("private") != std::string::npos) key = jwt::Key::from_private_pem(k["pem"].get<std::string>());
  else key = jwt::Key::from_public_pem(k["pem"].get<std::string>());
  if (!key) throw std::runtime_error(name + ": " + key.error().describe());
  return *key;
}

IssueParams spec_params() {
  IssueParams p;
  p.sub = "sdlc-test-agent";
  p.aud = "dataset-provisioning-agent";
  p.ttl = 600;
  p.capabilities = {"read:datasets", "write:test_scenarios"};
  p.domain = "a_domain";
  p.clock = jwt::fixed_clock(1706371200);
  return p;
}

Expectations expect_at(std::int64_t now) {
  Expectations e;
  e.audience = "dataset-provisioning-agent";
  e.clock = jwt::fixed_clock(now);
  return e;
}

TEST(A2acpToken, IssuesTheSpecExampleClaims) {
  auto t = issue(spec_params(), key_named("hs256"));
  ASSERT_TRUE(t) << t.error().describe();
  auto claims = verify(*t, key_named("hs256"), expect_at(kNow));
  ASSERT_TRUE(claims) << claims.error().describe();
  // a2acp-1.0.md §JWT Token Structure, field for field.
  EXPECT_EQ(claims->json, Json::parse(R"({"sub":"sdlc-test-agent","iss":"a_domain-auth-service","aud":"dataset-provisioning-agent",
      "exp":1706371800,"iat":1706371200,"capabilities":["read:datasets","write:test_scenarios"],"domain":"a_domain"})"));
  EXPECT_EQ(claims->sub, "sdlc-test-agent");
  EXPECT_EQ(claims->iss, kDefaultIssuer);
  EXPECT_EQ(claims->exp - claims->iat, 600);
  EXPECT_EQ(claims->capabilities.size(), 2u);
}

TEST(A2acpToken, VectorsGetTheirA2acpVerdicts) {
  std::size_t n = 0;
  for (const auto& c : vectors()["cases"]) {
    if (!c.contains("a2acp")) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    auto r = verify(c["token"].get<std::string>(), key_named(c["key"]), expect_at(c["now"].get<std::int64_t>()));
    const std::string expect = c["a2acp"];
    if (expect == "ok") {
      EXPECT_TRUE(r) << r.error().describe();
    } else {
      ASSERT_FALSE(r);
      EXPECT_EQ(errc_name(r.error().code), expect) << r.error().describe();
    }
    ++n;
  }
  EXPECT_GE(n, 55u);
}

// The five rules of §Token Validation Rules, one failing at a time, each with its own code
// and rule number.
TEST(A2acpToken, EachValidationRuleHasItsOwnCode) {
  const auto key = key_named("eddsa_private");
  const auto verifier = key_named("eddsa_public");
  struct Case {
    const char* name;
    std::function<void(IssueParams&, Expectations&, std::string& token)> mutate;
    TokenErrc code;
    int rule;
  };
  const std::vector<Case> cases = {
      {"signature: other key", [](IssueParams&, Expectations&, std::string& t) {
         auto other = crypto::Ed25519PrivateKey::generate();
         IssueParams p = spec_params();
         t = *issue(p, jwt::Key::ed25519(*other));
       }, TokenErrc::signature, 1},
      {"exp <= now", [](IssueParams& p, Expectations&, std::string&) { p.ttl = 300; }, TokenErrc::expired, 2},
      {"aud != target", [](IssueParams&, Expectations& e, std::string&) { e.audience = "other-agent"; }, TokenErrc::audience, 3},
      {"capability missing", [](IssueParams&, Expectations& e, std::string&) { e.required_capabilities = {"read:datasets", "delete:datasets"}; },
       TokenErrc::capabilities, 4},
      {"iss", [](IssueParams& p, Expectations&, std::string&) { p.iss = "someone-else"; }, TokenErrc::issuer, 5},
      {"iss expected elsewhere", [](IssueParams&, Expectations& e, std::string&) { e.issuer = "b_domain-auth-service"; }, TokenErrc::issuer, 5},
      {"iat in future", [](IssueParams& p, Expectations&, std::string&) { p.clock = jwt::fixed_clock(kNow + 10); }, TokenErrc::not_yet_valid, 0},
  };
  for (const auto& c : cases) {
    IssueParams p = spec_params();
    Expectations e = expect_at(kNow);
    std::string token;
    c.mutate(p, e, token);
    if (token.empty()) token = *issue(p, key);
    auto r = verify(token, verifier, e);
    ASSERT_FALSE(r) << c.name;
    EXPECT_EQ(r.error().code, c.code) << c.name << ": " << r.error().describe();
    EXPECT_EQ(r.error().rule(), c.rule) << c.name;
    EXPECT_EQ(TokenError::a2acp_code(), "AUTH_FAILED");
  }
  // With all capabilities granted, the same token passes.
  Expectations e = expect_at(kNow);
  e.required_capabilities = {"write:test_scenarios", "read:datasets"};
  EXPECT_TRUE(verify(*issue(spec_params(), key), verifier, e));
}

TEST(A2acpToken, RulesAreCheckedInTheSpecsOrder) {
  // Expired AND wrong audience AND wrong issuer: rule 2 is reported.
  IssueParams p = spec_params();
  p.iss = "x";
  p.ttl = 1;
  Expectations e = expect_at(kNow);
  e.audience = "nobody";
  const auto key = key_named("hs256");
  EXPECT_EQ(verify(*issue(p, key), key, e).error().code, TokenErrc::expired);
  // Wrong audience AND missing capability AND wrong issuer: rule 3.
  p.ttl = 3600;
  e.required_capabilities = {"admin"};
  EXPECT_EQ(verify(*issue(p, key), key, e).error().code, TokenErrc::audience);
  // Missing capability AND wrong issuer: rule 4.
  e.audience = p.aud;
  EXPECT_EQ(verify(*issue(p, key), key, e).error().code, TokenErrc::capabilities);
}

TEST(A2acpToken, JwtDetailIsKept) {
  const auto& cases = vectors()["cases"];
  for (const auto& c : cases) {
    if (c["name"] != "confusion-hs256-with-rsa-public-pem") continue;
    auto r = verify(c["token"].get<std::string>(), key_named("rs256_public"), expect_at(kNow));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, TokenErrc::signature);
    ASSERT_TRUE(r.error().jwt.has_value());
    EXPECT_EQ(*r.error().jwt, jwt::Errc::alg_not_allowed);
    EXPECT_NE(r.error().describe().find("[rule 1] [alg-not-allowed]"), std::string::npos) << r.error().describe();
  }
}

TEST(A2acpToken, IssueRefusesBadParameters) {
  const auto key = key_named("hs256");
  for (auto mutate : std::vector<std::function<void(IssueParams&)>>{
           [](IssueParams& p) { p.sub.clear(); }, [](IssueParams& p) { p.aud.clear(); },
           [](IssueParams& p) { p.domain.clear(); }, [](IssueParams& p) { p.iss.clear(); },
           [](IssueParams& p) { p.ttl = 0; }, [](IssueParams& p) { p.ttl = -5; }}) {
    IssueParams p = spec_params();
    mutate(p);
    auto t = issue(p, key);
    ASSERT_FALSE(t);
    EXPECT_EQ(t.error().code, TokenErrc::issue_failed);
  }
  auto pub_only = issue(spec_params(), key_named("rs256_public"));
  ASSERT_FALSE(pub_only);
  EXPECT_EQ(pub_only.error().jwt, jwt::Errc::bad_key);
}

TEST(A2acpToken, LeewayAppliesToExpiry) {
  const auto key = key_named("hs256");
  const std::string t = *issue(spec_params(), key);  // exp 1706371800
  Expectations e = expect_at(1706371805);
  EXPECT_EQ(verify(t, key, e).error().code, TokenErrc::expired);
  e.leeway = 10;
  EXPECT_TRUE(verify(t, key, e));
}

RC_GTEST_PROP(A2acpTokenProp, IssueThenVerify, ()) {
  static const std::vector<jwt::Key> keys = {key_named("hs256"), key_named("rs256_private"), key_named("eddsa_private")};
  static const std::vector<jwt::Key> verifiers = {key_named("hs256"), key_named("rs256_public"), key_named("eddsa_public")};
  const auto which = *rc::gen::inRange<std::size_t>(0, 3);
  const auto ascii = rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::inRange<char>(0x20, 0x7f)));
  IssueParams p;
  p.sub = *ascii;
  p.aud = *ascii;
  p.domain = *ascii;
  p.capabilities = *rc::gen::container<std::vector<std::string>>(ascii);
  p.ttl = *rc::gen::inRange<std::int64_t>(1, 100000);
  const std::int64_t iat = *rc::gen::inRange<std::int64_t>(0, 4000000000);
  p.clock = jwt::fixed_clock(iat);
  auto t = issue(p, keys[which]);
  RC_ASSERT(t.has_value());
  Expectations e;
  e.audience = p.aud;
  e.required_capabilities = p.capabilities;
  const std::int64_t now = iat + *rc::gen::inRange<std::int64_t>(0, p.ttl);
  e.clock = jwt::fixed_clock(now);
  auto r = verify(*t, verifiers[which], e);
  RC_ASSERT(r.has_value());
  RC_ASSERT(r->sub == p.sub);
  RC_ASSERT(r->capabilities == p.capabilities);
  RC_ASSERT(r->exp == iat + p.ttl);
  // One second past exp, it is expired.
  e.clock = jwt::fixed_clock(iat + p.ttl);
  auto late = verify(*t, verifiers[which], e);
  RC_ASSERT(!late.has_value());
  RC_ASSERT(late.error().code == TokenErrc::expired);
}

}  // namespace
}  // namespace ac::proto::a2acp
