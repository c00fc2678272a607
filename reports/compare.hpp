// Comparison of two results documents (agentconform compare OLD NEW): new failures
// (regressions), fixes, other verdict changes, and cases added or removed between the runs.
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
  int exit_code() const { return regressions.empty() ? 0 : 1; }
};

Comparison compare(const Json& old_results, const Json& new_results, Policy policy);
Json to_json(const Comparison& c);
std::string to_text(const Comparison& c);

}  // namespace ac::reports
