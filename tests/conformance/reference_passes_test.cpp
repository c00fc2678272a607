// Proof 1 of issue 4: every case passes against the reference lobby, three runs in a row, with
// --jobs > 1 (no flakes, no shared state between parallel cases).
#include "tests/conformance/conformance_support.hpp"

namespace ac::testing {
namespace {

class ReferencePasses : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferencePasses, EveryCaseThreeTimesInARow) {
  const std::string protocol = GetParam();
  std::size_t cases = 0;
  for (int run = 1; run <= 3; ++run) {
    const auto result = run_embedded({protocol}, {});
    cases = result.cases.size();
    for (const auto& c : result.cases) {
      if (c.role == "agent") {
        EXPECT_EQ(c.verdict, engine::Verdict::not_applicable) << c.id << ": client-under-test cases run in serve mode";
        continue;
      }
      EXPECT_EQ(c.verdict, engine::Verdict::pass) << "run " << run << ", " << c.id << " (" << c.title << "): " << c.reason
                                                 << (c.failed_step ? "\n" + c.failed_step->message : "");
    }
  }
  EXPECT_GT(cases, 0u) << "no case for " << protocol;
}

INSTANTIATE_TEST_SUITE_P(Protocols, ReferencePasses,
                         ::testing::Values("alp", "agora", "agentprotocol", "a2acp", "chopsticks"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace ac::testing
