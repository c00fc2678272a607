// SemVer 2.0.0 parsing and precedence, table-driven from the examples of semver.org.
#include "harness/semver/version.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ac::semver {
namespace {

Version must(std::string_view s) {
  auto v = parse(s);
  EXPECT_TRUE(v.has_value()) << s << ": " << (v ? "" : v.error().describe());
  return v ? *v : Version{};
}

TEST(SemverParse, AcceptsValidVersions) {
  struct Case {
    const char* text;
    std::uint64_t major, minor, patch;
    std::vector<std::string> pre, build;
  };
  const std::vector<Case> cases = {
      {"0.0.0", 0, 0, 0, {}, {}},
      {"1.0.2", 1, 0, 2, {}, {}},
      {"2.1.0-beta", 2, 1, 0, {"beta"}, {}},
      {"1.0.0-alpha.1", 1, 0, 0, {"alpha", "1"}, {}},
      {"1.0.0-0.3.7", 1, 0, 0, {"0", "3", "7"}, {}},
      {"1.0.0-x.7.z.92", 1, 0, 0, {"x", "7", "z", "92"}, {}},
      {"1.0.0-x-y-z.--", 1, 0, 0, {"x-y-z", "--"}, {}},
      {"1.0.0-alpha+001", 1, 0, 0, {"alpha"}, {"001"}},
      {"1.0.0+20130313144700", 1, 0, 0, {}, {"20130313144700"}},
      {"1.0.0-beta+exp.sha.5114f85", 1, 0, 0, {"beta"}, {"exp", "sha", "5114f85"}},
      {"1.0.0+21AF26D3----117B344092BD", 1, 0, 0, {}, {"21AF26D3----117B344092BD"}},
      {"18446744073709551615.0.0", 18446744073709551615ull, 0, 0, {}, {}},
      {"1.2.3-0a", 1, 2, 3, {"0a"}, {}},
  };
  for (const auto& c : cases) {
    auto v = parse(c.text);
    ASSERT_TRUE(v.has_value()) << c.text << ": " << v.error().describe();
    EXPECT_EQ(v->major, c.major) << c.text;
    EXPECT_EQ(v->minor, c.minor) << c.text;
    EXPECT_EQ(v->patch, c.patch) << c.text;
    std::vector<std::string> pre;
    for (const auto& id : v->prerelease) pre.push_back(id.text);
    EXPECT_EQ(pre, c.pre) << c.text;
    EXPECT_EQ(v->build, c.build) << c.text;
    EXPECT_EQ(v->to_string(), c.text);
  }
}

TEST(SemverParse, RejectsMalformedVersionsWithOffset) {
  struct Case {
    const char* text;
    std::size_t offset;
    const char* message_part;
  };
  const std::vector<Case> cases = {
      {"", 0, "empty"},
      {"1", 1, "minor part is missing"},
      {"1.2", 3, "patch part is missing"},
      {"1.2.3.4", 5, "more than three"},
      {"01.2.3", 0, "leading zero"},
      {"1.02.3", 2, "leading zero"},
      {"1.2.03", 4, "leading zero"},
      {"v1.2.3", 0, "digit"},
      {" 1.2.3", 0, "digit"},
      {"1.2.3 ", 5, "digit"},
      {"1..3", 2, "empty minor"},
      {"1.2.3-", 6, "empty pre-release"},
      {"1.2.3-a..b", 8, "empty pre-release"},
      {"1.2.3-01", 6, "leading zero"},
      {"1.2.3-a_b", 7, "[0-9A-Za-z-]"},
      {"1.2.3+", 6, "empty build"},
      {"1.2.3+a+b", 7, "[0-9A-Za-z-]"},
      {"18446744073709551616.0.0", 0, "64 bits"},
      {"1.2.-3", 4, "empty patch"},
  };
  for (const auto& c : cases) {
    auto v = parse(c.text);
    ASSERT_FALSE(v.has_value()) << "accepted: \"" << c.text << "\"";
    EXPECT_EQ(v.error().offset, c.offset) << c.text << ": " << v.error().describe();
    EXPECT_NE(v.error().message.find(c.message_part), std::string::npos) << c.text << ": " << v.error().message;
  }
}

TEST(SemverCompare, FollowsThePrecedenceChainOfSemverOrg) {
  // semver.org §11: each is lower than the next.
  const std::vector<std::string> chain = {"1.0.0-alpha",  "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
                                          "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1",       "1.0.0",
                                          "1.0.1",        "1.1.0",         "2.0.0",            "2.1.0",
                                          "2.1.1",        "10.0.0"};
  for (std::size_t i = 0; i < chain.size(); ++i) {
    for (std::size_t j = 0; j < chain.size(); ++j) {
      const auto c = compare(must(chain[i]), must(chain[j]));
      if (i < j) {
        EXPECT_TRUE(c < 0) << chain[i] << " < " << chain[j];
      } else if (i == j) {
        EXPECT_TRUE(c == 0) << chain[i];
      } else {
        EXPECT_TRUE(c > 0) << chain[i] << " > " << chain[j];
      }
    }
  }
}

TEST(SemverCompare, NumericIdentifiersCompareNumericallyAndBelowAlphanumeric) {
  EXPECT_LT(must("1.0.0-2"), must("1.0.0-10"));
  EXPECT_LT(must("1.0.0-99999999999999999999998"), must("1.0.0-99999999999999999999999"));
  EXPECT_LT(must("1.0.0-999"), must("1.0.0-a"));
  EXPECT_LT(must("1.0.0-A"), must("1.0.0-a"));  // ASCII order
  EXPECT_LT(must("1.0.0-0"), must("1.0.0-0.0"));
}

TEST(SemverCompare, BuildMetadataIsIgnoredForPrecedenceButNotIdentity) {
  const Version a = must("1.0.0+build.1");
  const Version b = must("1.0.0+build.2");
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(compare(a, b) == 0);
  EXPECT_FALSE(identical(a, b));
  EXPECT_TRUE(identical(a, must("1.0.0+build.1")));
  EXPECT_LT(must("1.0.0-rc.1+zzz"), must("1.0.0+aaa"));
}

TEST(SemverError, DescribeNamesTheOffset) {
  auto v = parse("1.2.x");
  ASSERT_FALSE(v.has_value());
  EXPECT_EQ(v.error().describe().rfind("at byte 4: ", 0), 0u) << v.error().describe();
}

}  // namespace
}  // namespace ac::semver
