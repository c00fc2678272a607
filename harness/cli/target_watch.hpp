// `run --target-command CMD`: the target is started by agentconform, watched by the process monitor
// (harness/process/monitor.hpp) and restarted after it crashes or hangs, as `fuzz` does. The engine
// asks after each case (engine::TargetWatch); a death is reported with the exit status or signal
// and the crash excerpt of what the target printed, and the target is back (it answers the
// protocol's liveness probe, harness/fuzz/executor.hpp) before the run goes on.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "harness/engine/run.hpp"
#include "harness/util/expected.hpp"

namespace ac::cli {

struct TargetWatchOptions {
  std::string protocol;
  std::string url;          // --target
  std::string config_file;  // --config
  std::string command;      // --target-command
  std::filesystem::path work_dir;  // the target's output goes here
  std::chrono::milliseconds start_timeout{30000};
};

// Starts the command and waits until the target answers; an error says why (exit 3).
Expected<std::unique_ptr<engine::TargetWatch>, std::string> start_target_watch(const TargetWatchOptions& options);

}  // namespace ac::cli
