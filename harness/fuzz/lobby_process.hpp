// The embedded target of `agentconform fuzz`: the reference lobby in a child process
// (`agentconform lobby --listen 127.0.0.1:PORT --config FILE`) under the process monitor
// (harness/process/monitor.hpp), so that a crash or a hang the fuzzer provokes is observed (the
// process died; it stopped answering) instead of taking the fuzzer down, and the lobby can be
// restarted on the same port to go on. The first instance listens on port 0 and prints the port
// it got; later instances are started on that port, so URLs held by executors stay right.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>

#include "harness/process/monitor.hpp"
#include "harness/util/expected.hpp"
#include "reference/core/config.hpp"

namespace ac::fuzz {

class LobbyProcess {
 public:
  struct Options {
    std::filesystem::path executable;  // the agentconform binary
    ref::LobbyConfig config;           // written to a file for --config
    std::filesystem::path work_dir;    // config and output files; created if needed
  };
  static Expected<std::unique_ptr<LobbyProcess>, std::string> start(Options options);
  LobbyProcess(const LobbyProcess&) = delete;
  LobbyProcess& operator=(const LobbyProcess&) = delete;

  std::string http_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string ws_url() const { return "ws://127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const { return monitor_->pid(); }
  process::Monitor& monitor() { return *monitor_; }

  // Still running? When not, exit_description() says how it ended.
  bool alive() { return monitor_->alive(); }
  std::string exit_description() const { return monitor_->exit_description(); }
  // The last bytes the child wrote to stderr (and stdout).
  std::string stderr_tail(std::size_t bytes = 4000) const { return monitor_->output_tail(bytes); }
  // Kills (SIGKILL) the child if it runs and starts it again on the same port, then waits until
  // it listens.
  Expected<bool, std::string> restart();
  // SIGTERM, then SIGKILL after a grace period. Idempotent.
  void stop() { monitor_->stop(); }

 private:
  LobbyProcess() = default;
  Expected<bool, std::string> await_listening();

  std::unique_ptr<process::Monitor> monitor_;
  std::uint16_t port_ = 0;
};

// The lobby configuration file for a LobbyConfig (what load_config reads back).
nlohmann::json config_document(const ref::LobbyConfig& config);

}  // namespace ac::fuzz
