// What counts as a capacity refusal in a case's transcript (harness/engine/capacity.hpp), and
// what does not: a status or close the case itself expects, a version close without a capacity
// reason, a case about rate limits.
#include <gtest/gtest.h>

#include "harness/engine/capacity.hpp"

namespace ac::testing {
namespace {

using Json = nlohmann::json;

Json entry(const char* direction, const char* kind, const std::string& data, std::optional<int> code = {}) {
  Json e = {{"t_ms", 0}, {"channel", "a"}, {"direction", direction}, {"kind", kind}, {"data", data}};
  if (code) e["code"] = *code;
  return e;
}

const Json kSteps = Json::array({{{"connect", "a"}}, {{"expect", "a"}, {"message", {{"type", "ack"}}}}});

TEST(Capacity, CloseWithACapacityReasonIsOne) {
  const Json t = Json::array({entry("out", "connect", "ws://x"), entry("in", "close", "too-many-connections", 1008)});
  const auto r = engine::capacity_refusal(t, kSteps);
  ASSERT_TRUE(r.found());
  EXPECT_EQ(r.what, "close 1008 \"too-many-connections\"");
}

TEST(Capacity, TryAgainLaterIsOneWhateverTheReason) {
  EXPECT_TRUE(engine::capacity_refusal(Json::array({entry("in", "close", "", 1013)}), kSteps).found());
}

TEST(Capacity, AVersionCloseIsNot) {
  EXPECT_FALSE(engine::capacity_refusal(Json::array({entry("in", "close", "incompatible protocolVersion", 1008)}), kSteps).found());
}

TEST(Capacity, HttpBusyWithRetryAfterIsOne) {
  const Json t = Json::array({entry("out", "http-request", "POST /x"),
                              entry("in", "http-response", "retry-after: 2\n\n{\"error\":{\"code\":\"BUSY\",\"message\":\"Breaker is open\"}}", 503)});
  const auto r = engine::capacity_refusal(t, kSteps);
  ASSERT_TRUE(r.found());
  EXPECT_EQ(r.retry_after, std::chrono::milliseconds(2000));
  EXPECT_NE(r.what.find("HTTP 503"), std::string::npos) << r.what;
}

TEST(Capacity, AStatusTheCaseExpectsIsNot) {
  const Json steps = Json::array({{{"http", "POST"}, {"path", "/x"}, {"status", 429}}});
  EXPECT_FALSE(engine::capacity_refusal(Json::array({entry("in", "http-response", "", 429)}), steps).found());
}

TEST(Capacity, ARateLimitCaseIsNot) {
  const Json steps = Json::array({{{"expect", "a"}, {"message", {{"code", "RATE_LIMIT_EXCEEDED"}}}}});
  EXPECT_FALSE(engine::capacity_refusal(Json::array({entry("in", "http-response", "", 429)}), steps).found());
}

TEST(Capacity, ACapacityCloseIsOneEvenWhereTheCaseExpectsItsCode) {
  // A version-rejection case expects close 1008; a connection cap closes 1008 too, saying so.
  const Json steps = Json::array({{{"connect", "a"}}, {{"expect", "a"}, {"close", 1008}}});
  EXPECT_TRUE(engine::capacity_refusal(Json::array({entry("in", "close", "too-many-connections", 1008)}), steps).found());
  EXPECT_FALSE(engine::capacity_refusal(Json::array({entry("in", "close", "Incompatible protocol version", 1008)}), steps).found());
  EXPECT_FALSE(engine::capacity_refusal(Json::array({entry("in", "close", "", 1013)}), Json::array({{{"expect", "a"}, {"close", 1013}}})).found());
}

TEST(Capacity, AConnectionCapIsOneEvenInARateLimitCase) {
  const Json steps = Json::array({{{"expect", "a"}, {"message", {{"code", "RATE_LIMIT_EXCEEDED"}}}}});
  EXPECT_TRUE(engine::capacity_refusal(Json::array({entry("in", "close", "too-many-connections", 1008)}), steps).found());
  EXPECT_FALSE(engine::capacity_refusal(Json::array({entry("in", "close", "rate limit exceeded", 1008)}), steps).found());
}

TEST(Capacity, AResetAtConnectIsOne) {
  const Json t = Json::array({entry("out", "connect", "ws://x"), entry("in", "error", "read: Connection reset by peer")});
  EXPECT_TRUE(engine::capacity_refusal(t, kSteps).found());
}

}  // namespace
}  // namespace ac::testing
