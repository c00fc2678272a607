// A2ACP MAJOR.MINOR compatibility and Chopsticks exact version membership.
#include "harness/semver/protocol_versions.hpp"

#include <gtest/gtest.h>

namespace ac::semver {
namespace {

TEST(A2acpVersion, ParsesMajorMinorPerTheSpecPattern) {
  auto v = parse_protocol_version("1.0");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->major, 1u);
  EXPECT_EQ(v->minor, 0u);
  EXPECT_EQ(v->to_string(), "1.0");
  auto z = parse_protocol_version("01.10");  // ^\d+\.\d+$ allows it
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ((ProtocolVersion{1, 10}), *z);
}

TEST(A2acpVersion, RejectsAnythingButMajorMinor) {
  for (const char* bad : {"1", "1.0.0", "1.", ".1", "v1.0", "1.0 ", "1.a", "", "99999999999999999999.0"}) {
    EXPECT_FALSE(parse_protocol_version(bad).has_value()) << bad;
  }
}

TEST(A2acpVersion, CompatibilityRules) {
  struct Case {
    const char* ours;
    const char* theirs;
    Compatibility expected;
  };
  const Case cases[] = {
      {"1.0", "1.0", Compatibility::compatible},      {"1.0", "1.7", Compatibility::compatible},
      {"1.5", "1.0", Compatibility::compatible},      {"2.0", "1.9", Compatibility::previous_major},
      {"3.1", "2.0", Compatibility::previous_major},  {"3.0", "1.0", Compatibility::incompatible},
      {"1.0", "2.0", Compatibility::incompatible},    {"1.0", "0.9", Compatibility::previous_major},
      {"0.1", "0.0", Compatibility::compatible},      {"0.0", "1.0", Compatibility::incompatible},
  };
  for (const auto& c : cases) {
    auto got = a2acp_compatibility(c.ours, c.theirs);
    ASSERT_TRUE(got.has_value()) << c.ours << " vs " << c.theirs;
    EXPECT_EQ(*got, c.expected) << c.ours << " vs " << c.theirs << ": " << to_string(*got);
  }
  auto bad = a2acp_compatibility("1.0", "1.0.0");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("peer protocol version"), std::string::npos);
}

TEST(ChopsticksVersion, ExactMembershipOnly) {
  const auto& supported = chopsticks_supported_versions();
  EXPECT_TRUE(supported.contains("1.0.0"));
  for (const char* other : {"0.9.0", "1.0", "1.0.0+build", "1.0.0-rc.1", "v1.0.0", " 1.0.0", "1.0.00", ""}) {
    EXPECT_FALSE(supported.contains(other)) << other;
  }
  const SupportedVersions several{"1.0.0", "1.1.0"};
  EXPECT_TRUE(several.contains("1.1.0"));
  EXPECT_EQ(several.joined(), "1.0.0, 1.1.0");
}

}  // namespace
}  // namespace ac::semver
