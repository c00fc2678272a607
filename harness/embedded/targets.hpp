// The targets of a run, from the command line's view: a third-party endpoint (--target and/or
// --config target.json, for one protocol) or, with neither, the embedded reference lobby serving
// every protocol of the plan. Shared by run, replay, doctor and the tests.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "harness/engine/run.hpp"
#include "reference/lobby/lobby.hpp"

namespace ac::embedded {

struct RunTargets {
  std::unique_ptr<ref::Lobby> lobby;  // set when the embedded lobby serves the run
  std::unique_ptr<ref::Lobby> tls_lobby;  // its TLS twin, when the plan has TLS cases
  std::shared_ptr<void> tls_files;        // the twin's certificate directory (removed with it)
  std::map<std::string, engine::TargetConfig> targets;
  bool embedded() const { return lobby != nullptr; }
  std::string label() const;  // "the embedded reference lobby" or the target's URL
};

// Whether the options name a third-party target (--target, or --config).
bool third_party(const engine::RunOptions& options);

// Errors are configuration errors (exit 2), except that a lobby that cannot start is exit 3
// (`harness_error` is set then).
Expected<RunTargets, std::string> prepare_targets(const engine::Loaded& loaded, const engine::Plan& plan,
                                                  const engine::RunOptions& options, bool* harness_error = nullptr);

}  // namespace ac::embedded
