// The pattern matcher: every operator accepts what it should and rejects what it should, and a
// mismatch names the pointer, the expectation and the actual value.
#include <gtest/gtest.h>

#include "harness/engine/matcher.hpp"

namespace ac::engine {
namespace {

Json J(const char* s) { return Json::parse(s); }

bool matches(const char* pattern, const char* actual) { return !match(J(pattern), J(actual)).has_value(); }

TEST(Matcher, ObjectsMatchAsSubsets) {
  EXPECT_TRUE(matches(R"({"a":1})", R"({"a":1,"b":2})"));
  EXPECT_FALSE(matches(R"({"a":1,"c":3})", R"({"a":1,"b":2})"));
  EXPECT_FALSE(matches(R"({"a":1})", R"([1])"));
}

TEST(Matcher, ExactForbidsExtraMembers) {
  EXPECT_TRUE(matches(R"({"$exact":{"a":1}})", R"({"a":1})"));
  EXPECT_FALSE(matches(R"({"$exact":{"a":1}})", R"({"a":1,"b":2})"));
}

TEST(Matcher, ArraysMatchElementwiseWithSameLength) {
  EXPECT_TRUE(matches(R"([1,{"a":"$string"}])", R"([1,{"a":"x","b":0}])"));
  EXPECT_FALSE(matches(R"([1,2])", R"([1,2,3])"));
}

TEST(Matcher, NumbersCompareByValue) {
  EXPECT_TRUE(matches("1", "1.0"));
  EXPECT_FALSE(matches("1", "1.5"));
  EXPECT_FALSE(matches("1", "\"1\""));
}

TEST(Matcher, TypeShorthands) {
  EXPECT_TRUE(matches(R"({"a":"$string","b":"$number","c":"$integer","d":"$boolean","e":"$object","f":"$array","g":"$null"})",
                      R"({"a":"x","b":1.5,"c":3,"d":false,"e":{},"f":[],"g":null})"));
  EXPECT_FALSE(matches(R"({"c":"$integer"})", R"({"c":1.5})"));
  EXPECT_FALSE(matches(R"({"a":"$string"})", R"({"a":1})"));
}

TEST(Matcher, PresenceAndAbsence) {
  EXPECT_TRUE(matches(R"({"x":"$absent"})", R"({"y":1})"));
  EXPECT_FALSE(matches(R"({"x":"$absent"})", R"({"x":null})"));
  EXPECT_TRUE(matches(R"({"x":{"$absent":true}})", R"({})"));
  EXPECT_TRUE(matches(R"({"x":"$present"})", R"({"x":null})"));
  EXPECT_TRUE(matches(R"({"x":"$any"})", R"({})")) << "$any places no constraint, not even presence";
}

TEST(Matcher, Formats) {
  EXPECT_TRUE(matches(R"("$uuid")", R"("550e8400-e29b-41d4-a716-446655440000")"));
  EXPECT_FALSE(matches(R"("$uuid")", R"("770g0600-g40d-63f6-c938-668877662222")"));
  EXPECT_TRUE(matches(R"("$iso8601")", R"("2026-01-27T14:30:00Z")"));
  EXPECT_FALSE(matches(R"("$iso8601")", R"("2026-02-30T14:30:00Z")"));
}

TEST(Matcher, RegexUsesRe2PartialMatch) {
  EXPECT_TRUE(matches(R"({"$regex":"^v[0-9]+$"})", R"("v12")"));
  EXPECT_FALSE(matches(R"({"$regex":"^v[0-9]+$"})", R"("v12a")"));
  EXPECT_FALSE(matches(R"j({"$regex":"(?=x)"})j", R"("x")")) << "unsupported syntax must not match";
}

TEST(Matcher, OneOfNotContainsOrdered) {
  EXPECT_TRUE(matches(R"({"$one_of":[1,"a"]})", R"("a")"));
  EXPECT_FALSE(matches(R"({"$one_of":[1,"a"]})", R"(2)"));
  EXPECT_TRUE(matches(R"({"$not":1})", R"(2)"));
  EXPECT_FALSE(matches(R"({"$not":{"a":1}})", R"({"a":1,"b":2})"));
  EXPECT_TRUE(matches(R"({"$contains":[{"id":2}]})", R"([{"id":1},{"id":2}])"));
  EXPECT_FALSE(matches(R"({"$contains":[{"id":3}]})", R"([{"id":1},{"id":2}])"));
  EXPECT_TRUE(matches(R"({"$ordered":["a","c"]})", R"(["a","b","c"])"));
  EXPECT_FALSE(matches(R"({"$ordered":["c","a"]})", R"(["a","b","c"])"));
}

TEST(Matcher, LengthsBoundsAndSubstrings) {
  EXPECT_TRUE(matches(R"({"$len":3})", R"("abc")"));
  EXPECT_TRUE(matches(R"({"$min_len":1})", R"([0])"));
  EXPECT_FALSE(matches(R"({"$max_len":1})", R"([0,1])"));
  EXPECT_TRUE(matches(R"({"$min":1,"$max":5})", R"(3)"));
  EXPECT_FALSE(matches(R"({"$min":1,"$max":5})", R"(6)"));
  EXPECT_TRUE(matches(R"({"$includes":"0.9.0"})", R"("version 0.9.0 refused")"));
  EXPECT_TRUE(matches(R"({"$starts_with":"agent"})", R"("agent-1")"));
  EXPECT_FALSE(matches(R"({"$starts_with":"agent"})", R"(5)"));
}

TEST(Matcher, LiteralDollarStringsThatAreNotOperators) {
  EXPECT_TRUE(matches(R"("$notanoperator")", R"("$notanoperator")"));
  EXPECT_FALSE(matches(R"("$notanoperator")", R"("x")"));
}

TEST(Matcher, MismatchNamesPointerExpectedAndActual) {
  auto m = match(J(R"({"payload":{"session_id":"$uuid"}})"), J(R"({"payload":{"status":"success"}})"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->pointer, "/payload/session_id");
  EXPECT_EQ(m->actual, "(absent)");
  EXPECT_NE(m->describe().find("/payload/session_id"), std::string::npos);
}

TEST(Matcher, UnknownOperatorNeverMatches) {
  EXPECT_FALSE(matches(R"({"$bogus":1})", R"(1)"));
}

}  // namespace
}  // namespace ac::engine
