// Minimization against synthetic oracles: what must stay stays, everything else goes, within
// the budget.
#include <gtest/gtest.h>

#include "harness/fuzz/fuzz.hpp"

namespace ac::fuzz {
namespace {

std::vector<Step> numbered(int n) {
  std::vector<Step> s;
  for (int i = 0; i < n; ++i) s.push_back(text_step("a", Json{{"n", i}}));
  return s;
}

bool has(const std::vector<Step>& s, int n) {
  for (const auto& st : s) {
    const Json j = Json::parse(st.data, nullptr, false);
    if (j.is_object() && j.value("n", -1) == n) return true;
  }
  return false;
}

TEST(FuzzMinimize, DeltaDebuggingKeepsExactlyTheStepsThatMatter) {
  std::size_t calls = 0;
  auto trips = [&](const std::vector<Step>& s) {
    ++calls;
    return has(s, 3) && has(s, 17);
  };
  const auto out = minimize(numbered(30), trips, 500);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(has(out, 3));
  EXPECT_TRUE(has(out, 17));
  EXPECT_LE(calls, 500u);
}

TEST(FuzzMinimize, ShrinksInsideMessages) {
  Json big = {{"type", "send"}, {"to", "b"}, {"noise", std::string(5000, 'z')}, {"payload", {{"x", 1}, {"needle", std::string(4000, 'n')}}}};
  std::vector<Step> s{connect_step("a", "/ws"), text_step("a", big)};
  s[1].repeat = 64;
  auto trips = [](const std::vector<Step>& steps) {
    for (const auto& st : steps) {
      if (st.data.find("needle") != std::string::npos) return true;
    }
    return false;
  };
  const auto out = minimize(s, trips, 400);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].repeat, 1);
  const Json j = Json::parse(out[0].data);
  EXPECT_EQ(j, (Json{{"payload", {{"needle", j["payload"]["needle"]}}}})) << out[0].data;
  EXPECT_LE(j["payload"]["needle"].get<std::string>().size(), 16u) << "long strings are halved while the oracle still trips";
}

TEST(FuzzMinimize, RespectsTheBudget) {
  std::size_t calls = 0;
  auto trips = [&](const std::vector<Step>& s) {  // every even step matters: ddmin has work for long
    ++calls;
    for (int i = 0; i < 200; i += 2) {
      if (!has(s, i)) return false;
    }
    return true;
  };
  (void)minimize(numbered(200), trips, 25);
  EXPECT_EQ(calls, 25u);
}

}  // namespace
}  // namespace ac::fuzz
