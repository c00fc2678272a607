// Shared by the conformance proofs: running suites in-process against the embedded lobby.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "harness/embedded/targets.hpp"
#include "harness/engine/run.hpp"

namespace ac::testing {

inline const engine::Loaded& loaded() {
  static const engine::Loaded l = [] {
    auto r = engine::load_all();
    if (!r) throw std::runtime_error(r.error());
    return std::move(*r);
  }();
  return l;
}

// `keep`, when given, narrows the plan (the kill matrix runs the generated cases only for the
// faults they target).
inline engine::RunResult run_embedded(const std::vector<std::string>& protocols, const std::vector<std::string>& faults,
                                      std::size_t jobs = 8, const std::function<bool(const engine::Case&)>& keep = {}) {
  engine::RunOptions o;
  o.protocols = protocols;
  o.lobby_faults = faults;
  o.jobs = jobs;
  // These runs ask which cases catch a fault (or that none fails); running each FAIL once more
  // alone to confirm it is the engine's own mechanism, tested by the CLI tests of tests/setup.
  o.confirm_failures = false;
  auto plan = engine::make_plan(loaded(), o);
  if (!plan) throw std::runtime_error(plan.error());
  if (keep) std::erase_if(plan->cases, [&](const engine::Case* c) { return !keep(*c); });
  auto targets = embedded::prepare_targets(loaded(), *plan, o);
  if (!targets) throw std::runtime_error(targets.error());
  auto outcome = engine::execute(loaded(), *plan, targets->targets, o);
  if (!outcome) throw std::runtime_error(outcome.error());
  return std::move(outcome->result);
}

}  // namespace ac::testing
