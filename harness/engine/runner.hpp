// Runs one case against a target: creates its mock agents, executes its steps (docs/scenarios.md),
// and returns the verdict with the failing step, expected vs actual, and the transcript.
// A hostile target cannot hang it: every wait is bounded by the step timeout and the case deadline.
#pragma once

#include <chrono>
#include <cstdint>

#include "harness/engine/requirements.hpp"
#include "harness/engine/results.hpp"
#include "harness/engine/scenario.hpp"
#include "harness/engine/target.hpp"
#include "harness/engine/vars.hpp"
#include "harness/net/client.hpp"

namespace ac::engine {

struct CaseOptions {
  double timeout_scale = 1.0;                      // multiplies step and case timeouts
  std::chrono::milliseconds step_timeout{2000};    // default wait of an expect step
  std::chrono::milliseconds case_timeout{30000};   // deadline of the whole case
  std::uint64_t seed = 0;                          // agent ids and nonces derive from it
};

CaseResult run_case(const Case& kase, const RequirementCatalog& requirements, const TargetConfig& target,
                    net::Runtime& runtime, const CaseOptions& options);

// Applies a step's "remove" (JSON Pointers) and "patch" (pointer -> value) to a filled message.
Expected<Json, std::string> apply_edits(Json message, const Json& step, const Vars& vars);

}  // namespace ac::engine
