// Proof 2 of issue 4: for every fault of the reference lobby, at least one case fails, and the
// failing cases include one whose failure blames a requirement the fault breaks (issue 11: a step
// names the requirements it checks, and a failure blames those, not every requirement of the
// case). Prints the kill matrix: fault -> the cases that caught it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>

#include "reference/core/faults.hpp"
#include "tests/conformance/conformance_support.hpp"

namespace ac::testing {
namespace {

class KillMatrix : public ::testing::TestWithParam<std::string> {};

// AC_KILL_MATRIX_SHARD="i/n" keeps the protocol's faults whose index is i modulo n, so CTest can
// run a long matrix as several parallel entries (tests/CMakeLists.txt); unset, all of them.
struct Shard {
  std::size_t index = 0, count = 1;
};
Shard shard_from_env() {
  Shard shard;
  const char* text = std::getenv("AC_KILL_MATRIX_SHARD");
  if (text == nullptr) return shard;
  unsigned i = 0, n = 0;
  if (std::sscanf(text, "%u/%u", &i, &n) == 2 && n > 0 && i < n) shard = {i, n};
  return shard;
}

TEST_P(KillMatrix, EveryFaultIsDetectedByItsRequirement) {
  const std::string protocol = GetParam();
  const Shard shard = shard_from_env();
  std::size_t faults = 0, index = 0;
  for (const auto& fault : ref::FaultCatalog::builtin().all()) {
    if (fault.protocol != protocol || fault.kind != "rule") continue;
    if (index++ % shard.count != shard.index) continue;
    ++faults;
    // The schema-derived cases (suites/<protocol>/generated/, tag "generated") run only for the
    // faults that declare them their killers (faults.json "generated_cases"), and those faults run
    // only them: each case set runs against the faults it targets, so the matrix stays short.
    // And only the cases linked to a requirement the fault breaks run: what the matrix asserts is
    // that such a case catches the fault, blaming that requirement; the other cases could only add
    // catches the assertions do not need (and under ASan the full suites per fault took minutes).
    const bool generated = fault.generated_cases;
    const std::set<std::string> broken(fault.breaks.begin(), fault.breaks.end());
    const auto fault_started = std::chrono::steady_clock::now();
    const auto result = run_embedded({protocol}, {fault.name}, 8, [generated, &broken](const engine::Case& c) {
      if (generated != (std::find(c.tags.begin(), c.tags.end(), "generated") != c.tags.end())) return false;
      return std::any_of(c.requirements.begin(), c.requirements.end(), [&](const std::string& r) { return broken.count(r) != 0; });
    });
    std::vector<std::string> caught, caught_by_requirement, caught_by_generated;
    for (const auto& c : result.cases) {
      if (c.verdict != engine::Verdict::fail && c.verdict != engine::Verdict::warn) continue;
      caught.push_back(c.id);
      if (std::find(c.tags.begin(), c.tags.end(), "generated") != c.tags.end()) caught_by_generated.push_back(c.id);
      // What the failing step checks; a case whose steps name nothing blames all its requirements.
      const auto& blamed = c.blamed.empty() ? c.requirements : c.blamed;
      for (const auto& r : blamed) {
        if (broken.count(r)) {
          caught_by_requirement.push_back(c.id);
          break;
        }
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - fault_started).count();
    std::cout << "kill-matrix " << fault.name << " (" << result.cases.size() << " cases, " << static_cast<int>(seconds * 10) / 10.0
              << " s) -> ";
    for (std::size_t i = 0; i < caught.size(); ++i) std::cout << (i ? " " : "") << caught[i];
    std::cout << (caught.empty() ? "(SURVIVED)" : "") << "\n";
    EXPECT_FALSE(caught.empty()) << fault.name << " survived every case of " << protocol;
    EXPECT_FALSE(caught_by_requirement.empty())
        << fault.name << " was caught only by failures that blame none of the requirements it breaks";
    if (generated) {
      EXPECT_FALSE(caught_by_generated.empty()) << fault.name << " declares generated_cases, yet no generated case caught it";
    }
    for (const auto& c : result.cases) {
      EXPECT_NE(c.verdict, engine::Verdict::error) << fault.name << ": " << c.id << " ERROR: " << c.reason;
    }
  }
  EXPECT_GT(faults, 0u) << protocol << " has no fault";
}

INSTANTIATE_TEST_SUITE_P(Protocols, KillMatrix, ::testing::Values("alp", "agora", "agentprotocol", "a2acp", "chopsticks"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace ac::testing
