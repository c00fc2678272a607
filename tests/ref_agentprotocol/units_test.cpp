// Units of the reference AgentProtocol hub without a lobby: the file naming convention, the
// demo actions and the per-sender rate limiter.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/crypto/base64.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/agentprotocol/actions.hpp"
#include "reference/agentprotocol/file_naming.hpp"
#include "reference/agentprotocol/rate_limiter.hpp"

namespace ac::testing {
namespace {

namespace apx = ref::agentprotocol;
using Json = nlohmann::json;
using namespace std::chrono_literals;

TEST(ApNaming, KeyIdsBecomeBase64UrlAndBack) {
  const std::string id = "ab+/cd" + std::string(37, 'Q') + "=";  // 44 characters, like a key
  ASSERT_EQ(id.size(), 44u);
  const std::string f = apx::file_id(id);
  EXPECT_EQ(f.size(), 43u);
  EXPECT_EQ(f.find('/'), std::string::npos);
  EXPECT_EQ(f.find('+'), std::string::npos);
  EXPECT_EQ(f.substr(0, 6), "ab-_cd");
  EXPECT_EQ(apx::agent_id_from_file_id(f), id);
  EXPECT_EQ(apx::file_id("*"), "%2A");
  EXPECT_EQ(apx::agent_id_from_file_id("%2A"), "*");
}

TEST(ApNaming, TimestampsLoseTheirSeparators) {
  EXPECT_EQ(apx::file_timestamp("2026-02-01T15:08:00.123Z"), "20260201T150800.123Z");
  EXPECT_EQ(apx::file_timestamp("2026-02-01T15:08:00+01:00"), "20260201T150800+0100");
  EXPECT_EQ(apx::file_timestamp("/../"), "..");
  EXPECT_EQ(apx::file_timestamp(std::string(100, '1')), "");
}

TEST(ApNaming, NameParsesBackIntoItsParts) {
  const std::string from = "FVnKJxyz" + std::string(35, 'a') + "=";
  const std::string to = "A/+z" + std::string(39, 'b') + "=";
  const std::string id = "550e8400-e29b-41d4-a716-446655440000";
  const std::string name = apx::exchange_file_name(from, to, "2026-02-01T15:08:00Z", id);
  auto p = apx::parse_exchange_name(name);
  ASSERT_TRUE(p) << name;
  EXPECT_EQ(p->from, apx::file_id(from));
  EXPECT_EQ(p->to, apx::file_id(to));
  EXPECT_EQ(p->to, "A_-z" + std::string(39, 'b'));
  EXPECT_EQ(p->timestamp, "20260201T150800Z");
  EXPECT_EQ(p->id, id);
  EXPECT_EQ(apx::agent_id_from_file_id(p->from), from);
}

TEST(ApNaming, BadIdsAndTimestampsAreReplaced) {
  const std::string from = std::string(43, 'a') + "=";
  const std::string name = apx::exchange_file_name(from, from, "", "not-a-uuid");
  auto p = apx::parse_exchange_name(name);
  ASSERT_TRUE(p) << name;
  EXPECT_EQ(p->id.size(), 36u);
  EXPECT_FALSE(p->timestamp.empty());
}

TEST(ApNaming, NonConventionNamesAreRefused) {
  for (const char* n : {"", "x.json", "notes.txt", ".hidden.json.tmp",
                        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-b-20260201T150800Z-550e8400-e29b-41d4-a716-446655440000.txt",
                        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-b-2026-02-01-550e8400-e29b-41d4-a716-44665544000g.json",
                        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa--20260201T150800Z-550e8400-e29b-41d4-a716-446655440000.json",
                        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/a-b-20260201T150800Z-550e8400-e29b-41d4-a716-446655440000.json"}) {
    EXPECT_FALSE(apx::parse_exchange_name(n)) << n;
  }
}

RC_GTEST_PROP(ApNaming, EveryKeyPairRoundTrips, (const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b)) {
  std::string ka(32, '\0'), kb(32, '\0');
  for (std::size_t i = 0; i < 32; ++i) {
    ka[i] = static_cast<char>(i < a.size() ? a[i] : 0);
    kb[i] = static_cast<char>(i < b.size() ? b[i] : 0);
  }
  const std::string from = crypto::base64_encode(ka), to = crypto::base64_encode(kb);
  const std::string name = apx::exchange_file_name(from, to, proto::typed::utc_now(), proto::typed::new_uuid_v4());
  RC_ASSERT(name.find('/') == std::string::npos);
  auto p = apx::parse_exchange_name(name);
  RC_ASSERT(p.has_value());
  RC_ASSERT(apx::agent_id_from_file_id(p->from) == from);
  RC_ASSERT(apx::agent_id_from_file_id(p->to) == to);
}

TEST(ApActions, NamesAndCapabilities) {
  EXPECT_EQ(apx::normalize_action("echo"), "echo");
  EXPECT_EQ(apx::normalize_action("agentconform:sum"), "sum");
  EXPECT_FALSE(apx::normalize_action("agentconform:"));
  EXPECT_FALSE(apx::normalize_action("code-review"));
  EXPECT_EQ(apx::capability_uris().front(), "agentprotocol:core");
  EXPECT_EQ(apx::capability_uris().size(), apx::action_names().size() + 1);
}

TEST(ApActions, ResultsAndParameterErrors) {
  apx::ActionLimits limits;
  EXPECT_FALSE(apx::run_action("translate", std::nullopt, limits).supported);
  auto echo = apx::run_action("echo", Json{{"a", 1}}, limits);
  EXPECT_EQ(echo.result, (Json{{"a", 1}}));
  EXPECT_EQ(apx::run_action("echo", std::nullopt, limits).result, Json::object());
  EXPECT_EQ(apx::run_action("reverse", Json{{"text", "añ😀z"}}, limits).result["text"], "z😀ña");
  auto no_text = apx::run_action("reverse", Json{{"text", 5}}, limits);
  EXPECT_FALSE(no_text.ok);
  EXPECT_EQ(no_text.error_code, "INVALID_MESSAGE");
  EXPECT_EQ(no_text.details["pointer"], "/payload/params/text");
  EXPECT_EQ(apx::run_action("sum", Json{{"numbers", Json::array()}}, limits).result["sum"], 0);
  EXPECT_EQ(apx::run_action("sum", Json{{"numbers", {INT64_MAX, 1}}}, limits).result["sum"].is_number_float(), true);
  EXPECT_FALSE(apx::run_action("sum", Json{{"numbers", {1e308, 1e308}}}, limits).ok);
  auto sleep = apx::run_action("sleep", Json{{"ms", 25}}, limits);
  EXPECT_EQ(sleep.delay, 25ms);
  EXPECT_EQ(sleep.result["slept_ms"], 25);
  limits.max_sleep = 10ms;
  EXPECT_FALSE(apx::run_action("sleep", Json{{"ms", 25}}, limits).ok);
  EXPECT_FALSE(apx::run_action("sleep", Json{{"ms", -1}}, limits).ok);
  EXPECT_FALSE(apx::run_action("sleep", Json{{"ms", 1.5}}, limits).ok);
}

TEST(ApRateLimiter, BurstThenRefillPerSender) {
  apx::RateLimiter limiter(3, 10);
  const auto t0 = std::chrono::system_clock::now();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.allow("a", t0));
  EXPECT_FALSE(limiter.allow("a", t0));
  EXPECT_GT(limiter.retry_after("a", t0).count(), 0);
  EXPECT_TRUE(limiter.allow("b", t0));  // separate budget
  EXPECT_TRUE(limiter.allow("a", t0 + 100ms));  // one token refilled
  EXPECT_FALSE(limiter.allow("a", t0 + 100ms));
  EXPECT_EQ(limiter.retry_after("a", t0 + 10s).count(), 0);
}

TEST(ApRateLimiter, SenderTableIsBounded) {
  apx::RateLimiter limiter(2, 1, /*max_senders=*/3);
  const auto t0 = std::chrono::system_clock::now();
  for (const char* s : {"a", "b", "c"}) {
    EXPECT_TRUE(limiter.allow(s, t0));
    EXPECT_TRUE(limiter.allow(s, t0));
  }
  EXPECT_FALSE(limiter.allow("d", t0));  // full of busy senders: fail closed
  EXPECT_EQ(limiter.senders(), 3u);
  EXPECT_TRUE(limiter.allow("d", t0 + 5s));  // idle buckets were dropped
  EXPECT_LE(limiter.senders(), 3u);
}

}  // namespace
}  // namespace ac::testing
