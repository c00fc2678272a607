// Baselines of known failures and the CI gate (issue 5).
//
// A baseline lists cases that are known to fail, each with a reason and an optional expiry date
// (schemas/baseline.schema.json). The gate turns a results document, the policy (--fail-on) and
// the baseline into the run's exit code:
//   - a failing case that is not baselined is a new failure                      -> exit 1
//   - a failing case whose baseline entry has expired                           -> exit 1
//   - a FAIL/WARN baselined with another verdict (WARN became FAIL, ...)          -> exit 1
//   - a baselined case that no longer fails is "fixed" and fails the run until
//     the baseline is updated (--update-baseline), so baselines cannot go stale -> exit 1
//     (a case that still gets the verdict its entry records is not fixed, even where the
//     policy does not gate that verdict: a WARN entry under --fail-on must)
//   - a case in ERROR (harness or target problem) not baselined as ERROR          -> exit 3
//   - the target was unreachable                                                  -> exit 3
//   - otherwise                                                                   -> exit 0
// "Failing" means FAIL or ERROR, and WARN too under --fail-on should.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::reports {

using Json = nlohmann::json;

enum class Policy { must, should };
std::optional<Policy> parse_policy(std::string_view s);  // "must" | "should"
std::string policy_name(Policy p);

// Whether a verdict (PASS, FAIL, WARN, NOT_APPLICABLE, ERROR) counts as failing under the policy.
bool failing(std::string_view verdict, Policy policy);

struct BaselineEntry {
  std::string case_id;
  std::string protocol;
  std::string verdict;  // the failing verdict that is expected: FAIL, ERROR or WARN
  std::string reason;   // why it is accepted (required, non-empty)
  std::string expires;  // YYYY-MM-DD, last day the entry applies; "" = never
  std::string added;    // YYYY-MM-DD
};

struct Baseline {
  std::vector<BaselineEntry> entries;  // sorted by case id, unique
  const BaselineEntry* find(std::string_view case_id) const;
};

// Parses a baseline document; every problem is reported with its JSON Pointer.
Expected<Baseline, std::string> baseline_from_json(const Json& doc);
Json to_json(const Baseline& baseline, std::string_view updated_at);

// An entry has expired when today (YYYY-MM-DD) is after its expiry date.
bool expired(const BaselineEntry& e, std::string_view today);

struct GateCase {
  std::string id, protocol, suite, level, verdict;
  std::string note;  // the baseline reason, or what changed
};

struct Gate {
  Policy policy = Policy::must;
  bool baseline_used = false;
  std::string baseline_file;
  std::vector<GateCase> new_failures;  // failing, not baselined (or baselined with another verdict)
  std::vector<GateCase> expired;       // failing, baseline entry expired
  std::vector<GateCase> fixed;         // baselined, no longer failing
  std::vector<GateCase> baselined;     // failing as the baseline expects (tolerated)
  std::vector<GateCase> errors;        // ERROR, not baselined, under no other category
  std::vector<std::string> not_run;    // baseline entries whose case did not run
  bool unreachable = false;
  int exit_code = 0;
  std::string summary;  // one line for people
};

// `results` is an agentconform-results/1 document. today: YYYY-MM-DD.
Gate evaluate(const Json& results, const Baseline* baseline, Policy policy, std::string_view today, bool unreachable = false);
Json to_json(const Gate& gate);

// The baseline after --update-baseline: every failing case of the run, keeping the reason,
// expiry and date of entries that already existed; entries of cases that no longer fail are
// dropped, except where the case still gets the entry's verdict (a WARN entry under
// --fail-on must); entries of cases that did not run are kept (the run may have been filtered).
// Expired entries keep their expiry: extending one is a deliberate edit, not a side effect.
Baseline update_baseline(const Baseline* old, const Json& results, Policy policy, std::string_view today);

}  // namespace ac::reports
