// What `agentconform fuzz` fuzzes: a third-party endpoint (--target, --config target.json,
// described with the conformance engine's target model and drivers), started and watched by the
// process monitor when --target-command gives its command line; or, by default, the reference
// lobby started as a child process with the fuzzing configuration below.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/fuzz/lobby_process.hpp"
#include "harness/fuzz/profile.hpp"

namespace ac::fuzz {

// The embedded lobby's configuration for fuzzing protocol p: the conformance engine's embedded
// settings (directory pools, keys, known secrets), the faults, and limits that suit a stream of
// thousands of sessions: ALP tokens that expire (so the registry can evict departed agents), the
// reference's own rate limits instead of the test-shrunk ones, and no global A2ACP rate limit
// (10,000 messages a minute would refuse everything after a few seconds of fuzzing).
ref::LobbyConfig embedded_config(Protocol p, const std::vector<std::string>& faults);

struct TargetRequest {
  Protocol protocol = Protocol::alp;
  std::string url;                       // empty: the embedded lobby
  std::string config_file;               // target.json (remote targets)
  std::string command;                   // --target-command: started (via /bin/sh -c) and watched
  std::chrono::milliseconds start_timeout{30000};  // for the command's target to answer the probe
  std::vector<std::string> faults;       // embedded lobby only
  std::filesystem::path executable;      // agentconform, to start the embedded lobby
  std::filesystem::path work_dir;        // the embedded lobby's config and log
  std::chrono::milliseconds probe_timeout{5000};
};

struct FuzzTarget {
  std::unique_ptr<net::Runtime> runtime;
  TargetView view;
  std::unique_ptr<LobbyProcess> process;              // the embedded lobby
  std::unique_ptr<process::Monitor> command;          // the --target-command process
  process::Monitor* monitor = nullptr;                // whichever of the two there is
  Json description = Json::object();     // {"kind", "url", "faults", "command"}

  void stop() {
    if (process) process->stop();
    if (command) command->stop();
  }
};

struct TargetError {
  int exit_code = 3;  // 2: usage or configuration, 3: target unreachable or harness error
  std::string message;
};

Expected<FuzzTarget, TargetError> open_target(const TargetRequest& request);

}  // namespace ac::fuzz
