// Every case passes against the reference lobby, three runs in a row, at --jobs 1, 32 and 8 (no
// flakes, no shared state between parallel cases, the same verdicts at any parallelism).
#include <map>

#include "tests/conformance/conformance_support.hpp"

namespace ac::testing {
namespace {

class ReferencePasses : public ::testing::TestWithParam<std::string> {};

// The three runs differ in parallelism (one case at a time, the embedded lobby's default of 32,
// and 8): a case that shares state with another (an identifier, a connection) would pass at one
// and not at another. Every verdict must be the same at each, and every server case a PASS.
TEST_P(ReferencePasses, EveryCaseThreeTimesInARowAtJobs1And32And8) {
  const std::string protocol = GetParam();
  std::size_t cases = 0;
  std::map<std::string, engine::Verdict> first;
  int run = 0;
  for (const std::size_t jobs : {std::size_t{1}, std::size_t{32}, std::size_t{8}}) {
    ++run;
    const auto result = run_embedded({protocol}, {}, jobs);
    cases = result.cases.size();
    for (const auto& c : result.cases) {
      if (run == 1) {
        first[c.id] = c.verdict;
      } else {
        EXPECT_EQ(engine::verdict_name(c.verdict), engine::verdict_name(first[c.id])) << c.id << " at --jobs " << jobs << " and at --jobs 1";
      }
      if (c.role == "agent") {
        EXPECT_EQ(c.verdict, engine::Verdict::not_applicable) << c.id << ": client-under-test cases run in serve mode";
        continue;
      }
      EXPECT_EQ(c.verdict, engine::Verdict::pass) << "--jobs " << jobs << ", " << c.id << " (" << c.title << "): " << c.reason
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
