// Comparison of two results documents (agentconform compare OLD NEW): new failures
// (regressions), fixes, other verdict changes, and cases added or removed between the runs; and
// notes on a run that did not run whole (a setup error, an interrupt, a target that stopped
// answering), so that cases missing from NEW for that reason are not taken for a clean result.
#pragma once

#include <string>
#include <vector>

#include "reports/baseline.hpp"

namespace ac::reports {

struct Change {
  std::string id, protocol, suite, level, title;
  std::string old_verdict, new_verdict;  // "" when the case is absent from that run
};

struct Comparison {
  std::vector<Change> regressions;  // failing in NEW, not failing (or absent) in OLD
  std::vector<Change> fixes;        // failing in OLD, not failing in NEW
  std::vector<Change> changed;      // another verdict, same failing-ness (FAIL -> ERROR, PASS -> N/A)
  std::vector<Change> removed;      // in OLD only (not failing in NEW since absent)
  std::vector<Change> added;        // in NEW only and not failing
  std::size_t unchanged = 0;
  std::vector<std::string> notes;  // "NEW: setup error (no case ran): ...", "OLD: interrupted by SIGINT", ...
  bool new_setup_error = false;    // NEW stopped at its preflight: nothing in it can be compared
  // 3 when NEW is a setup error (as `run` exits for it; its cases are missing, not removed),
  // otherwise 1 on a regression, else 0.
  int exit_code() const { return new_setup_error ? 3 : regressions.empty() ? 0 : 1; }
};

Comparison compare(const Json& old_results, const Json& new_results, Policy policy);
Json to_json(const Comparison& c);
std::string to_text(const Comparison& c);

}  // namespace ac::reports
