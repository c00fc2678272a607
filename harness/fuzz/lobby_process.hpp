// The embedded target of `agentconform fuzz`: the reference lobby in a child process
// (`agentconform lobby --listen 127.0.0.1:PORT --config FILE`), so that a crash or a hang the
// fuzzer provokes is observed (the process died; it stopped answering) instead of taking the
// fuzzer down, and the lobby can be restarted on the same port to go on. The child's stderr
// goes to a file whose tail (a sanitizer report, an abort message) becomes the finding's detail.
// The child is killed when the fuzzer dies, however it dies (PR_SET_PDEATHSIG); since that
// signal follows the thread that forked, every fork happens on one thread the object owns.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <string>

#include "harness/util/expected.hpp"
#include "reference/core/config.hpp"

namespace ac::fuzz {

class LobbyProcess {
 public:
  struct Options {
    std::filesystem::path executable;  // the agentconform binary
    ref::LobbyConfig config;           // written to a file for --config
    std::filesystem::path work_dir;    // config and stderr files; created if needed
  };
  static Expected<std::unique_ptr<LobbyProcess>, std::string> start(Options options);
  ~LobbyProcess();
  LobbyProcess(const LobbyProcess&) = delete;
  LobbyProcess& operator=(const LobbyProcess&) = delete;

  std::string http_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string ws_url() const { return "ws://127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const { return pid_; }

  // Still running? When not, exit_description() says how it ended.
  bool alive();
  std::string exit_description() const { return exit_; }
  // The last bytes the child wrote to stderr.
  std::string stderr_tail(std::size_t bytes = 4000) const;
  // Kills (SIGKILL) the child if it runs and starts it again on the same port.
  Expected<bool, std::string> restart();
  // SIGTERM, then SIGKILL after a grace period. Idempotent.
  void stop();

 private:
  explicit LobbyProcess(Options options);
  Expected<bool, std::string> spawn(std::uint16_t port);
  pid_t fork_child(const std::vector<std::string>& args);  // runs on spawner_ (see above)

  Options options_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  std::string exit_;
  std::filesystem::path config_file_, stderr_file_;

  // The forking thread and its one-slot task queue.
  std::mutex spawn_mutex_;
  std::condition_variable spawn_cv_;
  std::function<void()> spawn_task_;
  bool spawner_stop_ = false;
  std::thread spawner_;
};

// The lobby configuration file for a LobbyConfig (what load_config reads back).
nlohmann::json config_document(const ref::LobbyConfig& config);

}  // namespace ac::fuzz
