// MUST coverage of a run: of the spec's MUST requirements that apply to the target (its
// protocol, the roles it plays; client requirements are serve's), how many a case actually
// judged (PASS, or FAIL/WARN blaming it). Readings of a silent spec are counted apart. A run
// that tested little says so, and `--min-must-coverage` can gate on it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/engine/requirements.hpp"
#include "harness/engine/results.hpp"
#include "harness/engine/target.hpp"

namespace ac::engine {

// {"must": {"applicable", "tested", "percent"}, "readings": {...}, "protocols": {p: {...}},
//  "untested": [{"id", "protocol", "reason"}]} ("role" is "agent" for serve runs).
nlohmann::json compute_coverage(const RequirementCatalog& requirements, const std::vector<CaseResult>& cases,
                                const std::map<std::string, TargetConfig>& targets, const std::string& side = "server");

}  // namespace ac::engine
