// The pure parts of the ALP hub, without a network: the token bucket, protocol-version
// compatibility, the best-effort message_id scan, capability selection and authorization, the
// registry's token rules and cap, discovery ordering, and the settings reader.
#include <gtest/gtest.h>

#include "harness/net/types.hpp"
#include "harness/protocols/alp/builders.hpp"
#include "reference/alp/capability_check.hpp"
#include "reference/alp/discovery.hpp"
#include "reference/alp/rate_limiter.hpp"
#include "reference/alp/registry.hpp"
#include "reference/alp/settings.hpp"
#include "reference/alp/wire.hpp"

namespace ac::ref::alp {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

TimePoint t0() { return TimePoint{} + std::chrono::hours(24 * 365 * 50); }

TEST(TokenBucket, BurstThenSteadyRate) {
  TokenBucket b(3, 300ms, t0());
  EXPECT_TRUE(b.take(t0()));
  EXPECT_TRUE(b.take(t0()));
  EXPECT_TRUE(b.take(t0()));
  EXPECT_FALSE(b.take(t0()));
  EXPECT_EQ(b.retry_after(t0()), 100ms);  // one token per 100 ms
  EXPECT_FALSE(b.take(t0() + 99ms));
  EXPECT_TRUE(b.take(t0() + 100ms));
  EXPECT_FALSE(b.take(t0() + 100ms));
  // Refill never exceeds the capacity.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(b.take(t0() + 10s));
  EXPECT_FALSE(b.take(t0() + 10s));
}

TEST(TokenBucket, ZeroCapacityDisablesAndBackwardClockIsHarmless) {
  TokenBucket off(0, 1000ms, t0());
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(off.take(t0()));
  TokenBucket b(1, 1000ms, t0());
  EXPECT_TRUE(b.take(t0()));
  EXPECT_FALSE(b.take(t0() - 1h));
  EXPECT_FALSE(b.take(t0() + 500ms));
  EXPECT_TRUE(b.take(t0() + 1000ms));
}

TEST(Versions, SameLineIsSupported) {
  const std::vector<semver::Version> supported = {*semver::parse("0.2.0")};
  auto ok = [&](const char* v) { return version_supported(*semver::parse(v), supported); };
  EXPECT_TRUE(ok("0.2.0"));
  EXPECT_TRUE(ok("0.2.9"));
  EXPECT_TRUE(ok("0.2.1-rc.1"));
  EXPECT_FALSE(ok("0.3.0"));
  EXPECT_FALSE(ok("0.1.0"));
  EXPECT_FALSE(ok("1.2.0"));
  const std::vector<semver::Version> one = {*semver::parse("1.4.0")};
  EXPECT_TRUE(version_supported(*semver::parse("1.0.0"), one));
  EXPECT_TRUE(version_supported(*semver::parse("1.9.3"), one));
  EXPECT_FALSE(version_supported(*semver::parse("2.0.0"), one));
}

TEST(ScanMessageId, BestEffortOnBrokenJson) {
  EXPECT_EQ(scan_message_id(R"({"message_id": "abc-1", "payload": {)"), "abc-1");
  EXPECT_EQ(scan_message_id(R"({"payload":{"message_id":x}, "message_id" :"id2")"), "id2");
  EXPECT_FALSE(scan_message_id(R"({"message_id": 12})"));
  EXPECT_FALSE(scan_message_id(R"({"message_id": "unterminated)"));
  EXPECT_FALSE(scan_message_id(R"({"message_id": "has\"escape"})"));
  EXPECT_FALSE(scan_message_id("\"message_id\":\"" + std::string(200, 'a') + "\""));
  EXPECT_FALSE(scan_message_id(""));
}

TEST(Secrets, ConstantTimeCompare) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "abcd"));
  EXPECT_TRUE(key_in("k2", {"k1", "k2"}));
  EXPECT_FALSE(key_in("", {"k1"}));
}

proto::alp::Capability cap(const std::string& name, const std::string& version, std::vector<std::string> keywords = {}) {
  proto::alp::Capability c;
  c.name = name;
  c.capability_version = version;
  c.description = "d";
  c.output_schema = Json::object();
  if (!keywords.empty()) c.keywords = keywords;
  return c;
}

TEST(Capabilities, PrepareRefusesDuplicatesBadSchemasAndTooMany) {
  EXPECT_TRUE(prepare_capabilities({cap("a", "1.0.0"), cap("a", "1.0.1"), cap("b", "1.0.0")}, 8, true));
  auto dup = prepare_capabilities({cap("a", "1.0.0"), cap("a", "1.0.0+build")}, 8, true);  // same precedence
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().find("twice"), std::string::npos);
  EXPECT_FALSE(prepare_capabilities({cap("a", "1.0.0"), cap("b", "1.0.0")}, 1, true));
  auto bad = cap("a", "1.0.0");
  bad.input_schema = {{"patternProperties", {{"^x", {{"type", "string"}}}}}};
  EXPECT_FALSE(prepare_capabilities({bad}, 8, true));
  EXPECT_TRUE(prepare_capabilities({bad}, 8, false));  // not compiled when validation is off
  EXPECT_FALSE(prepare_capabilities({cap("a", "99999999999999999999.0.0")}, 8, true));
}

TEST(Capabilities, SelectionByNameAndVersion) {
  AgentRecord r;
  r.agent_id = "p";
  r.capabilities = *prepare_capabilities({cap("x", "1.0.0"), cap("x", "1.2.0"), cap("y", "3.0.0")}, 8, true);
  auto latest = select_capability(r, "x", std::nullopt);
  ASSERT_EQ(latest.outcome, Selection::Outcome::ok);
  EXPECT_EQ(latest.capability->capability.capability_version, "1.2.0");
  EXPECT_EQ(select_capability(r, "x", std::string("1.0.0")).capability->capability.capability_version, "1.0.0");
  auto mismatch = select_capability(r, "x", std::string("2.0.0"));
  EXPECT_EQ(mismatch.outcome, Selection::Outcome::version_mismatch);
  EXPECT_EQ(mismatch.advertised_versions, (std::vector<std::string>{"1.0.0", "1.2.0"}));
  EXPECT_EQ(select_capability(r, "z", std::nullopt).outcome, Selection::Outcome::not_found);
  EXPECT_EQ(select_capability(r, "x", std::string("2.0.0"), /*ignore_version=*/true).outcome, Selection::Outcome::ok);
}

TEST(Capabilities, Authorization) {
  auto c = cap("x", "1.0.0");
  EXPECT_TRUE(authorize(c, "anyone", {}).allowed);
  c.authorization_rules = proto::alp::AuthorizationRules{"public", std::nullopt, std::nullopt, Json::object()};
  EXPECT_TRUE(authorize(c, "anyone", {}).allowed);
  c.authorization_rules = proto::alp::AuthorizationRules{"allow_list", std::vector<std::string>{"a"}, std::nullopt, Json::object()};
  EXPECT_TRUE(authorize(c, "a", {}).allowed);
  EXPECT_FALSE(authorize(c, "b", {}).allowed);
  c.authorization_rules = proto::alp::AuthorizationRules{"requires_role", std::nullopt, std::vector<std::string>{"r1", "r2"}, Json::object()};
  EXPECT_TRUE(authorize(c, "b", {"r2", "r1"}).allowed);
  EXPECT_FALSE(authorize(c, "b", {"r1"}).allowed);
  c.authorization_rules = proto::alp::AuthorizationRules{"mystery", std::nullopt, std::nullopt, Json::object()};
  EXPECT_FALSE(authorize(c, "b", {"r1"}).allowed);
}

TEST(Registry, TokensExpireAndBelongToOneAgent) {
  Registry reg(10);
  auto r = reg.register_agent({std::string("a"), "t", {}}, IdConflict::refuse, t0(), 1000ms);
  ASSERT_EQ(r.outcome, Registration::Outcome::created);
  const std::string token = r.agent->token;
  EXPECT_EQ(reg.check_token(token, "a", t0()).status, TokenStatus::ok);
  EXPECT_EQ(reg.check_token(token, "b", t0()).status, TokenStatus::agent_mismatch);
  EXPECT_EQ(reg.check_token(token, "", t0()).status, TokenStatus::agent_mismatch);
  EXPECT_EQ(reg.check_token("", "a", t0()).status, TokenStatus::missing);
  EXPECT_EQ(reg.check_token("nope", "a", t0()).status, TokenStatus::invalid);
  EXPECT_EQ(reg.check_token(token, "a", t0() + 1000ms).status, TokenStatus::expired);
  // Held while the token lives; free afterwards, and the renewal replaces the token.
  EXPECT_EQ(reg.register_agent({std::string("a"), "t", {}}, IdConflict::refuse, t0() + 10ms, 1000ms).outcome, Registration::Outcome::taken);
  auto renewed = reg.register_agent({std::string("a"), "t2", {"r"}}, IdConflict::refuse, t0() + 2000ms, 1000ms);
  ASSERT_EQ(renewed.outcome, Registration::Outcome::renewed);
  EXPECT_NE(renewed.agent->token, token);
  EXPECT_EQ(reg.check_token(token, "a", t0() + 2000ms).status, TokenStatus::invalid);
  EXPECT_EQ(renewed.agent->agent_type, "t2");
}

TEST(Registry, ConflictPoliciesAndProvisioning) {
  Registry reg(10);
  reg.register_agent({std::string("a"), "t", {}}, IdConflict::refuse, t0(), 1000ms);
  auto p = reg.register_agent({std::string("a"), "t", {}}, IdConflict::provision, t0(), 1000ms);
  ASSERT_EQ(p.outcome, Registration::Outcome::provisioned);
  EXPECT_NE(p.agent->agent_id, "a");
  auto re = reg.register_agent({std::string("a"), "t", {}}, IdConflict::reissue, t0(), 1000ms);
  EXPECT_EQ(re.outcome, Registration::Outcome::reissued);
  auto none = reg.register_agent({std::nullopt, "t", {}}, IdConflict::refuse, t0(), 1000ms);
  ASSERT_EQ(none.outcome, Registration::Outcome::provisioned);
  EXPECT_EQ(none.agent->agent_id.size(), 36u);
}

TEST(Registry, CapEvictsTheLongestOfflineFreeRecord) {
  Registry reg(2);
  reg.register_agent({std::string("old"), "t", {}}, IdConflict::refuse, t0(), 100ms);
  reg.register_agent({std::string("new"), "t", {}}, IdConflict::refuse, t0() + 50ms, 100ms);
  EXPECT_EQ(reg.register_agent({std::string("x"), "t", {}}, IdConflict::refuse, t0() + 60ms, 100ms).outcome,
            Registration::Outcome::full);
  EXPECT_EQ(reg.register_agent({std::string("x"), "t", {}}, IdConflict::refuse, t0() + 120ms, 100ms).outcome,
            Registration::Outcome::created);  // "old" expired at +100 ms, "new" lives until +150 ms
  EXPECT_EQ(reg.find("old"), nullptr);
  EXPECT_NE(reg.find("new"), nullptr);
}

TEST(DiscoveryOrder, OrderAndLimit) {
  Registry reg(10);
  for (const char* id : {"b-online", "a-online", "c-off-old", "d-off-new"}) {
    auto r = reg.register_agent({std::string(id), "t", {}}, IdConflict::refuse, t0(), 1000ms);
    r.agent->capabilities = *prepare_capabilities({cap("x", "1.0.0", {"K"})}, 8, false);
  }
  reg.find("a-online")->online = true;
  reg.find("b-online")->online = true;
  reg.find("c-off-old")->last_seen = t0() + 1s;
  reg.find("d-off-new")->last_seen = t0() + 2s;
  DiscoveryQuery q;
  q.name = "x";
  q.now = t0() + 5s;
  std::vector<std::string> ids;
  for (const auto& m : discover(reg, q)) ids.push_back(m.agent_id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a-online", "b-online", "d-off-new", "c-off-old"}));
  q.max_results = 3;
  EXPECT_EQ(discover(reg, q).size(), 3u);
  q.include_offline = false;
  EXPECT_EQ(discover(reg, q).size(), 2u);
  q.keywords = {"k"};
  EXPECT_EQ(discover(reg, q).size(), 2u);
  q.keywords = {"k", "other"};
  EXPECT_TRUE(discover(reg, q).empty());
  q.keywords_all = false;
  EXPECT_EQ(discover(reg, q).size(), 2u);
}

struct NoScheduler final : net::Scheduler {
  TimerId after(std::chrono::milliseconds, std::function<void()>) override { return 1; }
  void cancel(TimerId) override {}
};

TEST(Settings, DefaultsAndErrors) {
  LobbyConfig config;
  FaultSet faults;
  Metrics metrics;
  NoScheduler scheduler;
  HubContext context{config, faults, metrics, scheduler};
  auto s = read_settings(context);
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->token_ttl, std::chrono::milliseconds(3600 * 1000));
  EXPECT_EQ(s->rate_limit_messages, 1000u);
  EXPECT_EQ(s->id_conflict, IdConflict::refuse);
  config.timeout_scale = 0.1;
  config.protocols["alp"] = {{"token_ttl_s", 10}, {"invoke_timeout_ms", 5000}};
  s = read_settings(context);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->token_ttl, std::chrono::milliseconds(10000));  // not scaled
  EXPECT_EQ(s->invoke_timeout, std::chrono::milliseconds(500));  // scaled
  for (Json bad : {Json{{"agent_id_conflict", "sometimes"}}, Json{{"max_agents", 0}}, Json{{"token_ttl_ms", "1"}},
                   Json{{"supported_versions", {"0.2"}}}, Json{{"rate_limit", 5}}}) {
    config.protocols["alp"] = bad;
    auto e = read_settings(context);
    EXPECT_FALSE(e) << bad.dump();
  }
}

}  // namespace
}  // namespace ac::ref::alp
