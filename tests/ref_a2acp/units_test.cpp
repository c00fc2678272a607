// The A2ACP hub's pure parts, without sockets: structural schema compatibility (contract
// validation), the token buckets of the rate limits, and the token verifier's fault relaxations
// (each relaxes its own rule and no other).
#include <gtest/gtest.h>

#include "harness/crypto/jwt.hpp"
#include "reference/a2acp/rate_limits.hpp"
#include "reference/a2acp/schema_compat.hpp"
#include "reference/a2acp/tokens.hpp"

namespace ac::ref::a2acp {
namespace {

using namespace std::chrono_literals;

Json object_schema(Json properties, Json required = Json::array()) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

TEST(SchemaCompat, IdenticalAndUnconstrainedSchemasAreCompatible) {
  const Json s = object_schema({{"a", {{"type", "string"}}}}, {"a"});
  EXPECT_FALSE(check_compatible(s, s));
  EXPECT_FALSE(check_compatible(s, Json::object()));
  EXPECT_FALSE(check_compatible(Json::object(), Json::object()));
}

TEST(SchemaCompat, RequiredMemberNotProvided) {
  auto bad = check_compatible(object_schema({{"b", {{"type", "string"}}}}), object_schema({{"a", {{"type", "string"}}}}, {"a"}));
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->pointer, "/properties/a");
  // Declared (even if optional) is enough: the source says it knows the member.
  EXPECT_FALSE(check_compatible(object_schema({{"a", {{"type", "string"}}}}), object_schema({{"a", {{"type", "string"}}}}, {"a"})));
}

TEST(SchemaCompat, TypesMustBeAccepted) {
  const Json expected = object_schema({{"n", {{"type", "number"}}}});
  EXPECT_FALSE(check_compatible(object_schema({{"n", {{"type", "integer"}}}}), expected));  // integer is a number
  auto bad = check_compatible(object_schema({{"n", {{"type", Json::array({"number", "string"})}}}}), expected);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->pointer, "/properties/n");
  EXPECT_TRUE(check_compatible(Json{{"type", "array"}}, Json{{"type", "object"}}));
  EXPECT_FALSE(check_compatible(object_schema({{"n", Json::object()}}), expected));  // untyped: no contradiction
}

TEST(SchemaCompat, ClosedTargetRefusesUnknownMembers) {
  Json expected = object_schema({{"a", {{"type", "string"}}}});
  expected["additionalProperties"] = false;
  auto bad = check_compatible(object_schema({{"a", {{"type", "string"}}}, {"x~/y", {{"type", "string"}}}}), expected);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->pointer, "/properties/x~0~1y");
  expected["additionalProperties"] = {{"type", "integer"}};
  EXPECT_TRUE(check_compatible(object_schema({{"z", {{"type", "string"}}}}), expected));
  EXPECT_FALSE(check_compatible(object_schema({{"z", {{"type", "integer"}}}}), expected));
}

TEST(SchemaCompat, NestedObjectsAreChecked) {
  const Json expected = object_schema({{"inner", object_schema({{"k", {{"type", "string"}}}}, {"k"})}});
  auto bad = check_compatible(object_schema({{"inner", object_schema({{"j", {{"type", "string"}}}})}}), expected);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->pointer, "/properties/inner/properties/k");
}

TEST(SchemaCompat, DeepOrHostileSchemasTerminate) {
  Json deep = Json::object();
  for (int i = 0; i < 1000; ++i) deep = object_schema({{"d", deep}});
  EXPECT_FALSE(check_compatible(deep, deep));
  EXPECT_FALSE(check_compatible(Json("x"), Json(42)));
  // Malformed keywords are skipped, not trusted: only the well-formed "b" counts.
  auto bad = check_compatible(Json{{"required", "a"}, {"properties", 3}}, Json{{"required", {1, "b"}}, {"properties", "p"}});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->pointer, "/properties/b");
}

TEST(SchemaCompat, TypeSummaryLooksLikeTheSpecsExample) {
  const Json s = object_schema({{"test_scenario_id", {{"type", "string"}}}, {"n", Json::object()}}, {"test_scenario_id", "extra"});
  EXPECT_EQ(type_summary(s), Json({{"test_scenario_id", "string"}, {"n", "any"}, {"extra", "any"}}));
  EXPECT_EQ(type_summary(Json("x")), Json::object());
}

TEST(TokenBuckets, BurstThenRefusalWithRetryAfter) {
  const TimePoint t0 = std::chrono::system_clock::now();
  RateLimits r(3, 2, 100, 60000ms, 16);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(r.message("a", t0));
  auto refused = r.message("a", t0);
  ASSERT_TRUE(refused);
  EXPECT_STREQ(refused->limit, "per-agent");
  EXPECT_EQ(refused->wait, 20000ms);  // one message every 60 s / 3
  EXPECT_EQ(retry_seconds(refused->wait), 20u);
  EXPECT_FALSE(r.message("b", t0));                  // another agent
  EXPECT_FALSE(r.message("a", t0 + 20000ms));        // refilled
  EXPECT_TRUE(r.message("a", t0 + 20001ms));
}

TEST(TokenBuckets, GlobalAndCollaborationLimits) {
  const TimePoint t0 = std::chrono::system_clock::now();
  RateLimits r(100, 1, 2, 1000ms, 16);
  EXPECT_FALSE(r.message("a", t0));
  EXPECT_FALSE(r.message("b", t0));
  auto refused = r.message("c", t0);
  ASSERT_TRUE(refused);
  EXPECT_STREQ(refused->limit, "global");
  EXPECT_FALSE(r.collaboration("k", t0));
  ASSERT_TRUE(r.collaboration("k", t0));
  EXPECT_STREQ(r.collaboration("k", t0)->limit, "per-collaboration");
  r.forget_collaboration("k");
  EXPECT_FALSE(r.collaboration("k", t0));
}

TEST(TokenBuckets, ZeroDisablesAndMapsStayBounded) {
  const TimePoint t0 = std::chrono::system_clock::now();
  RateLimits r(0, 0, 0, 1000ms, 8);
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(r.message("agent-" + std::to_string(i), t0));
  EXPECT_LE(r.tracked(), 8u);
  EXPECT_EQ(retry_seconds(1ms), 1u);
  EXPECT_EQ(retry_seconds(1001ms), 2u);
}

TEST(TokenBuckets, ClockSteppingBackDoesNotDrain) {
  const TimePoint t0 = std::chrono::system_clock::now();
  TokenBucket b(1, 1000ms, t0);
  EXPECT_TRUE(b.available(t0 - 5000ms));
  b.take(t0);
  EXPECT_FALSE(b.available(t0 - 5000ms));
  EXPECT_TRUE(b.available(t0 + 1000ms));
}

class Relaxations : public ::testing::Test {
 protected:
  static constexpr const char* kSecret = "unit-test-secret-for-a2acp-tokens-0123456789";
  std::shared_ptr<Authenticator> make(Faults f) {
    Settings s;
    s.jwt_secret = kSecret;
    s.faults = f;
    auto a = Authenticator::create(s, [] { return std::chrono::system_clock::time_point(std::chrono::seconds(1000000)); });
    EXPECT_TRUE(a);
    return a ? *a : nullptr;
  }
  static Json claims() {
    return {{"sub", "s"}, {"iss", "a_domain-auth-service"}, {"aud", "t"}, {"iat", 999000}, {"exp", 1003600},
            {"capabilities", {"read"}}, {"domain", "d"}};
  }
  static std::string sign(const Json& c, const std::string& secret = kSecret) {
    return *crypto::jwt::issue(c, *crypto::jwt::Key::hmac(secret));
  }
};

TEST_F(Relaxations, WithoutFaultsEveryRuleHolds) {
  auto a = make({});
  EXPECT_TRUE(a->verify(sign(claims()), "t", {"read"}));
  EXPECT_FALSE(a->verify(sign(claims()), "u", {"read"}));
  EXPECT_FALSE(a->verify(sign(claims()), "t", {"write"}));
  EXPECT_EQ(a->now_seconds(), 1000000);
}

TEST_F(Relaxations, EachFaultRelaxesOnlyItsRule) {
  Json expired = claims();
  expired["exp"] = 999999;
  Json other_iss = claims();
  other_iss["iss"] = "x";
  const std::string foreign = sign(claims(), "another-secret-for-a2acp-tokens-0123456789");

  Faults f;
  f.jwt_skip_expiry = true;
  auto a = make(f);
  EXPECT_TRUE(a->verify(sign(expired), "t", {}));
  EXPECT_FALSE(a->verify(sign(expired), "u", {}));  // audience still checked
  EXPECT_FALSE(a->verify(foreign, "t", {}));

  f = {};
  f.jwt_skip_audience = true;
  a = make(f);
  EXPECT_TRUE(a->verify(sign(claims()), "u", {}));
  EXPECT_FALSE(a->verify(sign(expired), "u", {}));

  f = {};
  f.jwt_skip_issuer = true;
  a = make(f);
  EXPECT_TRUE(a->verify(sign(other_iss), "t", {}));
  EXPECT_FALSE(a->verify(sign(other_iss), "t", {"write"}));

  f = {};
  f.jwt_skip_signature = true;
  a = make(f);
  EXPECT_TRUE(a->verify(foreign, "t", {}));
  EXPECT_FALSE(a->verify(foreign, "u", {}));

  f = {};
  f.jwt_skip_capabilities = true;
  a = make(f);
  EXPECT_TRUE(a->verify(sign(claims()), "t", {"write"}));
  EXPECT_FALSE(a->verify(sign(other_iss), "t", {"write"}));
}

TEST(PeekClaims, ReadsOnlyWellFormedPayloads) {
  EXPECT_FALSE(peek_claims("abc"));
  EXPECT_FALSE(peek_claims("a.!!.c"));
  EXPECT_FALSE(peek_claims("a.WzFd.c"));  // [1]: not an object
  auto c = peek_claims("x.eyJhIjoxfQ.");
  ASSERT_TRUE(c);
  EXPECT_EQ((*c)["a"], 1);
}

}  // namespace
}  // namespace ac::ref::a2acp
