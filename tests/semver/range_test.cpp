// Version ranges for ALP discovery (alp-0.2.0.md §7.2.1 version_match): which versions each
// form accepts and rejects, the desugared form, and errors for malformed ranges.
#include "harness/semver/range.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ac::semver {
namespace {

struct Case {
  const char* range;
  std::vector<const char*> in;
  std::vector<const char*> out;
};

void check(const Case& c, const RangeOptions& options = {}) {
  auto r = parse_range(c.range);
  ASSERT_TRUE(r.has_value()) << c.range << ": " << r.error().describe();
  for (const char* s : c.in) {
    auto v = parse(s);
    ASSERT_TRUE(v.has_value()) << s;
    EXPECT_TRUE(r->satisfied_by(*v, options)) << s << " should satisfy \"" << c.range << "\" = " << r->to_string();
  }
  for (const char* s : c.out) {
    auto v = parse(s);
    ASSERT_TRUE(v.has_value()) << s;
    EXPECT_FALSE(r->satisfied_by(*v, options)) << s << " should not satisfy \"" << c.range << "\" = " << r->to_string();
  }
}

TEST(SemverRange, TheFormsAlpDiscoveryUses) {
  const std::vector<Case> cases = {
      {"*", {"0.0.0", "1.2.3", "99.0.0"}, {"1.0.0-beta"}},
      {"x", {"0.0.1", "5.5.5"}, {}},
      {"1.x", {"1.0.0", "1.9.9", "1.2.3+b"}, {"0.9.9", "2.0.0", "2.0.0-0", "1.5.0-beta"}},
      {"1.*", {"1.0.0", "1.99.0"}, {"2.0.0"}},
      {"1", {"1.0.0", "1.4.0"}, {"2.0.0", "0.1.0"}},
      {"1.2.x", {"1.2.0", "1.2.99"}, {"1.3.0", "1.1.9"}},
      {"1.2", {"1.2.0", "1.2.5"}, {"1.3.0"}},
      {">=2.0.0", {"2.0.0", "2.1.0", "10.0.0"}, {"1.9.9", "2.0.0-rc.1", "2.1.0-beta"}},
      {">2.0.0", {"2.0.1"}, {"2.0.0"}},
      {"<3", {"2.9.9", "0.0.0"}, {"3.0.0", "3.0.0-alpha", "3.1.0"}},
      {"<=1.2", {"1.2.9", "1.0.0"}, {"1.3.0"}},
      {">1", {"2.0.0"}, {"1.9.9"}},
      {">1.2", {"1.3.0"}, {"1.2.9"}},
      {">=1.2", {"1.2.0"}, {"1.1.9"}},
      {"<1.2.3", {"1.2.2"}, {"1.2.3"}},
      {"<=1.2.3", {"1.2.3"}, {"1.2.4"}},
      {">1.0.0 <2.0.0", {"1.0.1", "1.9.9"}, {"1.0.0", "2.0.0"}},
      {">= 1.0.0  < 2.0.0", {"1.0.0", "1.5.0"}, {"2.0.0"}},
      {"^1.2.3", {"1.2.3", "1.9.0"}, {"1.2.2", "2.0.0", "2.0.0-0"}},
      {"^0.2.3", {"0.2.3", "0.2.9"}, {"0.3.0", "0.2.2"}},
      {"^0.0.3", {"0.0.3"}, {"0.0.4", "0.0.2"}},
      {"^1.2", {"1.2.0", "1.9.9"}, {"2.0.0", "1.1.0"}},
      {"^0.0", {"0.0.0", "0.0.9"}, {"0.1.0"}},
      {"^1", {"1.0.0", "1.5.5"}, {"2.0.0"}},
      {"~1.2.3", {"1.2.3", "1.2.9"}, {"1.3.0", "1.2.2"}},
      {"~1.2", {"1.2.0", "1.2.9"}, {"1.3.0"}},
      {"~1", {"1.0.0", "1.9.0"}, {"2.0.0"}},
      {"1.0.2", {"1.0.2", "1.0.2+build"}, {"1.0.3", "1.0.1", "1.0.2-rc"}},
      {"=1.0.2", {"1.0.2"}, {"1.0.3"}},
      {"1.2.3 - 2.3.4", {"1.2.3", "2.3.4", "2.0.0"}, {"1.2.2", "2.3.5"}},
      {"1.2 - 2.3", {"1.2.0", "2.3.9"}, {"2.4.0", "1.1.9"}},
      {"1.0.0 || >=3.0.0", {"1.0.0", "3.0.0", "4.1.0"}, {"2.0.0", "1.0.1"}},
      {"1.x || 3.x||5.0.0", {"1.1.0", "3.2.0", "5.0.0"}, {"2.0.0", "4.0.0"}},
      {"<0.0.0", {}, {"0.0.0"}},
      {">*", {}, {"0.0.0", "9.9.9"}},
  };
  for (const auto& c : cases) check(c);
}

TEST(SemverRange, PrereleasesMatchOnlyWhenTheRangeNamesTheSameCore) {
  check({">=1.2.3-alpha", {"1.2.3-alpha", "1.2.3-beta", "1.2.3", "1.3.0"}, {"1.3.0-beta", "1.2.3-0"}});
  check({"^2.1.0-beta", {"2.1.0-beta", "2.1.0-beta.2", "2.5.0"}, {"2.5.0-beta", "3.0.0"}});
  check({"=2.1.0-beta", {"2.1.0-beta", "2.1.0-beta+x"}, {"2.1.0-beta.1", "2.1.0"}});
  check({">=2.0.0", {"2.1.0-beta", "3.0.0-rc.1"}, {"1.9.0-beta"}}, RangeOptions{.include_prerelease = true});
}

TEST(SemverRange, DesugaredForm) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"1.x", ">=1.0.0 <2.0.0-0"},      {"1.2.x", ">=1.2.0 <1.3.0-0"},
      {"*", "*"},                       {"^0.2.3", ">=0.2.3 <0.3.0-0"},
      {"~1.2.3", ">=1.2.3 <1.3.0-0"},   {"<3", "<3.0.0-0"},
      {"1.0.2", "=1.0.2"},              {">1.0.0 <2.0.0", ">1.0.0 <2.0.0"},
      {"1.0.0 || 2.x", "=1.0.0 || >=2.0.0 <3.0.0-0"},
  };
  for (const auto& [range, expected] : cases) {
    auto r = parse_range(range);
    ASSERT_TRUE(r.has_value()) << range;
    EXPECT_EQ(r->to_string(), expected) << range;
    EXPECT_EQ(r->source(), range);
  }
}

TEST(SemverRange, MalformedRangesAreErrorsWithOffsets) {
  struct Bad {
    const char* range;
    std::size_t offset;
    const char* message_part;
  };
  const std::vector<Bad> cases = {
      {"", 0, "empty range"},
      {"   ", 0, "empty range"},
      {"1.0.0 ||", 8, "empty alternative"},
      {"|| 1.0.0", 0, "empty alternative"},
      {"1.0.0 | 2.0.0", 6, "single '|'"},
      {">=", 2, "expected a version after"},
      {">=>1.0.0", 2, "unexpected operator"},
      {"~>1.0", 1, "unexpected operator"},
      {"1.x.3", 4, "cannot follow a wildcard"},
      {"1.2.3.4", 5, "more than three"},
      {"01.0.0", 0, "leading zero"},
      {"1.x-beta", 0, "complete MAJOR.MINOR.PATCH"},
      {"1.0.0 - ", 6, "hyphen range"},
      {"abc", 0, "digit"},
      {"1.0.0, 2.0.0", 5, "unexpected character"},
      {"1.0.0-", 6, "empty pre-release"},
      {"1..0", 2, "empty version part"},
  };
  for (const auto& c : cases) {
    auto r = parse_range(c.range);
    ASSERT_FALSE(r.has_value()) << "accepted: \"" << c.range << "\" as " << r->to_string();
    EXPECT_EQ(r.error().offset, c.offset) << "\"" << c.range << "\": " << r.error().describe();
    EXPECT_NE(r.error().message.find(c.message_part), std::string::npos) << c.range << ": " << r.error().message;
  }
}

TEST(SemverRange, SatisfiesNamesWhichArgumentIsMalformed) {
  auto ok = satisfies("1.2.3", "^1.0.0");
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(*ok);
  auto bad_version = satisfies("1.2", "^1.0.0");
  ASSERT_FALSE(bad_version.has_value());
  EXPECT_EQ(bad_version.error().message.rfind("version: ", 0), 0u);
  auto bad_range = satisfies("1.2.3", "^^1");
  ASSERT_FALSE(bad_range.has_value());
  EXPECT_EQ(bad_range.error().message.rfind("range: ", 0), 0u);
}

}  // namespace
}  // namespace ac::semver
