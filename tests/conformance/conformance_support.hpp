// Shared by the conformance proofs: running suites in-process against the embedded lobby.
#pragma once

#include <gtest/gtest.h>

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

inline engine::RunResult run_embedded(const std::vector<std::string>& protocols, const std::vector<std::string>& faults,
                                      std::size_t jobs = 8) {
  engine::RunOptions o;
  o.protocols = protocols;
  o.lobby_faults = faults;
  o.jobs = jobs;
  auto plan = engine::make_plan(loaded(), o);
  if (!plan) throw std::runtime_error(plan.error());
  auto targets = embedded::prepare_targets(loaded(), *plan, o);
  if (!targets) throw std::runtime_error(targets.error());
  auto outcome = engine::execute(loaded(), *plan, targets->targets, o);
  if (!outcome) throw std::runtime_error(outcome.error());
  return std::move(outcome->result);
}

}  // namespace ac::testing
