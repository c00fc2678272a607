// The lax reading behind the faults "<protocol>.schema.coerce-wrong-types"
// (reference/core/lenient_types.hpp): it turns exactly the wrongly typed members the generated
// negative cases send into what the schema expects, and gives up on what no lax reading fixes,
// so under the fault those messages are processed (and the generated cases must catch it).
#include <gtest/gtest.h>

#include "harness/protocols/profile.hpp"
#include "reference/core/lenient_types.hpp"

namespace ac::testing {
namespace {

using Json = nlohmann::json;

const proto::Profile& chopsticks() { return proto::Catalog::builtin().profile(proto::ProtocolId::chopsticks); }

TEST(LenientTypes, ReadsAListGivenAsAStringAsAOneElementList) {
  auto lax = ref::coerce_wrong_types(chopsticks(), Json{{"type", "guilds"}, {"guildIds", "g1"}});
  ASSERT_TRUE(lax.has_value());
  EXPECT_EQ((*lax)["guildIds"], Json::array({"g1"}));
}

TEST(LenientTypes, ReadsAnIdGivenAsAnArrayAndABooleanGivenAsAString) {
  const Json add = {{"type", "event"},  {"event", "add"},          {"agentId", Json::array({"a1"})}, {"guildId", "g"},
                    {"voiceChannelId", "v"}, {"channelId", "v"}, {"kind", "music"},                {"ok", "false"}};
  ASSERT_FALSE(chopsticks().check(add));  // refused as it is
  auto lax = ref::coerce_wrong_types(chopsticks(), add);
  ASSERT_TRUE(lax.has_value());
  EXPECT_EQ((*lax)["agentId"], "a1");
  EXPECT_EQ((*lax)["ok"], false);
  EXPECT_TRUE(chopsticks().check(*lax));
}

TEST(LenientTypes, GivesUpOnWhatNoLaxReadingFixes) {
  // A missing member, an object for a string, an enum value out of range: still refused.
  EXPECT_FALSE(ref::coerce_wrong_types(chopsticks(), Json{{"type", "guilds"}}).has_value());
  EXPECT_FALSE(ref::coerce_wrong_types(chopsticks(), Json{{"type", "guilds"}, {"guildIds", Json{{"neg", 1}}}}).has_value());
  const Json released = {{"type", "event"}, {"event", "released"}, {"agentId", "a"}, {"guildId", "g"},
                         {"voiceChannelId", "v"}, {"reason", "USER_LEFT"}, {"kind", "NEG_NOT_IN_ENUM"}};
  EXPECT_FALSE(ref::coerce_wrong_types(chopsticks(), released).has_value());
}

TEST(LenientTypes, LeavesAValidMessageAsItIs) {
  const Json guilds = {{"type", "guilds"}, {"guildIds", Json::array({"g1", "g2"})}};
  auto lax = ref::coerce_wrong_types(chopsticks(), guilds);
  ASSERT_TRUE(lax.has_value());
  EXPECT_EQ(*lax, guilds);
}

}  // namespace
}  // namespace ac::testing
