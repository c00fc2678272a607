// A conformance run: choose the cases (filters), prepare the target (a third-party endpoint, or
// the embedded reference lobby started in-process), run the cases in parallel with a progress
// display, and collect the RunResult.
#pragma once

#include <chrono>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "harness/engine/results.hpp"
#include "harness/engine/scenario.hpp"
#include "harness/engine/target.hpp"

namespace ac::engine {

struct RunOptions {
  std::vector<std::string> protocols;   // empty: all five
  std::vector<std::string> suites;      // empty: all six
  std::vector<std::string> case_globs;  // --case, fnmatch patterns on case ids
  std::vector<std::string> tags;        // a case runs if it has any of them
  std::vector<std::string> levels;      // MUST / SHOULD / MAY
  std::string target_url;               // empty: the embedded reference lobby
  std::string target_config;            // target.json
  std::vector<std::string> lobby_faults;  // embedded lobby only (to prove suites detect them)
  std::size_t jobs = 0;                 // 0: hardware concurrency
  double timeout_scale = 1.0;
  std::uint64_t seed = 0;               // 0: choose one (printed)
  std::chrono::seconds deadline{0};     // overall; 0: none
  bool list_only = false;
  bool quiet = false;                   // no per-case progress lines
};

struct Plan {
  std::vector<const Case*> cases;
};

struct Loaded {
  RequirementCatalog requirements;
  std::vector<Suite> suites;
};

// Requirement catalogues and suites from data_dir()/suites.
Expected<Loaded, std::string> load_all();
Expected<Plan, std::string> make_plan(const Loaded& loaded, const RunOptions& options);

struct RunOutcome {
  RunResult result;
  bool target_unreachable = false;
};

// Runs the plan. Usage/configuration problems are errors (exit 2 for the CLI).
Expected<RunOutcome, std::string> execute(const Loaded& loaded, const Plan& plan, const RunOptions& options, std::ostream& progress);

// The summary table printed at the end of a run.
void print_summary(const RunResult& result, std::ostream& out);

}  // namespace ac::engine
