// A process agentconform starts and watches: the target of `fuzz --target-command` (and of
// `run`, which may use it the same way), and the embedded reference lobby. Boofuzz and AFLNet
// call this a process monitor: the harness sees the target die (exit status or signal, the tail
// of what it printed) instead of only seeing its port go quiet, restarts it, and can tell a crash
// (healthy before, dead after) from a target that was never up.
//
// The command runs in its own process group (so `sh -c "cd x && node y"` and its children are
// stopped together), with stdout and stderr in one file per instance, whose tail is the crash
// evidence. The direct child is killed when the harness dies (PR_SET_PDEATHSIG); since that
// signal follows the thread that forked, every fork happens on one thread the monitor owns.
// POSIX only, no networking: what "ready" means (a protocol's liveness probe) is the caller's.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/util/expected.hpp"

namespace ac::process {

// How an instance ended.
struct ExitStatus {
  bool signaled = false;
  int code = 0;    // exit status (signaled == false)
  int signal = 0;  // terminating signal (signaled == true)
  bool killed_by_monitor = false;  // the monitor stopped it (a restart, a hang, the end of the run)
  // "exited with status 1", "killed by signal 11 (Segmentation fault)"
  std::string describe() const;
};

class Monitor {
 public:
  struct Options {
    // What to run: argv (argv[0] a path), or, when argv is empty, `shell_command` through
    // /bin/sh -c.
    std::vector<std::string> argv;
    std::string shell_command;
    std::filesystem::path work_dir;            // the output files go here (created if needed)
    std::string name = "target";               // <work_dir>/<name>.log: the current instance's output
    std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) the environment
  };

  // Starts the first instance (does not wait for it to be ready: see wait_ready).
  static Expected<std::unique_ptr<Monitor>, std::string> start(Options options);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  // The current instance; -1 once it ended.
  pid_t pid() const;
  // How many instances were started (1 after start()).
  std::uint64_t starts() const;
  // Still running? Reaps the child when it ended (then exit_status() says how).
  bool alive();
  std::optional<ExitStatus> exit_status() const;
  std::string exit_description() const;  // "" while it runs
  // What the current (or last) instance printed: all of it, or the last `bytes`.
  std::string output() const;
  std::string output_tail(std::size_t bytes = 4000) const;
  // Resident memory of the instance's process group (the command and its children), from /proc.
  std::optional<std::uint64_t> rss_bytes() const;

  // Kills the instance's whole group (SIGKILL) if it runs, and starts a new instance.
  Expected<bool, std::string> restart();
  // Kills it now (a hung target); the exit is recorded as killed by the monitor.
  void kill();
  // SIGTERM to the group, SIGKILL after `grace`. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));
  // The next instance runs these arguments (the embedded lobby: the port it got the first time).
  void set_argv(std::vector<std::string> argv);

  enum class Ready { ready, exited, timeout };
  // Calls `ready` every `every` until it returns true, the instance ends, or `timeout` passes.
  Ready wait_ready(const std::function<bool()>& ready, std::chrono::milliseconds timeout,
                   std::chrono::milliseconds every = std::chrono::milliseconds(50));

 private:
  explicit Monitor(Options options);
  Expected<bool, std::string> spawn();
  pid_t fork_child(const std::vector<std::string>& args, const std::vector<std::string>& env);
  void kill_group(int signal);
  void reap_blocking();

  Options options_;
  mutable std::mutex mu_;  // pid_, exit_, starts_
  pid_t pid_ = -1;
  pid_t pgid_ = -1;
  std::uint64_t starts_ = 0;
  std::optional<ExitStatus> exit_;
  std::filesystem::path log_file_;

  // The forking thread and its one-slot task queue (PR_SET_PDEATHSIG follows the forking thread).
  std::mutex spawn_mutex_;
  std::condition_variable spawn_cv_;
  std::function<void()> spawn_task_;
  bool spawner_stop_ = false;
  std::thread spawner_;
};

// The lines of a crash report in what a process printed, the part that names the bug and not the
// run: a sanitizer's verdict and its first frame; an uncaught exception (Node.js, Python, Java, a
// C++ terminate) with its first stack frames; a Rust or Go panic; a failed assertion. Paths are cut
// to their file name; addresses, pids and thread ids are left out. Empty when there is none.
std::string crash_excerpt(const std::string& output, std::size_t frames = 2);

}  // namespace ac::process
