// A client under test run as `/bin/sh -c COMMAND` (`serve --command`, `fuzz --serve --command`),
// kept on a short leash because it may be broken or hostile (docs/limits.md, "Clients under
// test"):
//   - it runs in a session of its own (setsid), so it and everything it starts form one process
//     group that stop() ends at once (SIGTERM, then SIGKILL), and Ctrl-C on our terminal does
//     not reach it behind our back: the harness ends it itself (also on a second Ctrl-C, through
//     kill_all_children(), which is async-signal-safe);
//   - its stdout and stderr go through a pipe into a bounded buffer (the first and the last
//     keep_bytes bytes, with a "... N bytes omitted ..." marker between them), never to a file;
//   - its $TMPDIR (and TMP, TEMP) is a private directory under ours, removed with everything in
//     it when the process is stopped.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "harness/util/expected.hpp"

namespace ac {

// The first and last `keep` bytes of a stream, and how many bytes came in all.
class HeadTailBuffer {
 public:
  explicit HeadTailBuffer(std::size_t keep) : keep_(keep) {}
  void append(std::string_view bytes);
  // head, then "\n... N bytes omitted ...\n" and the tail when more than 2 * keep bytes came.
  std::string text() const;
  std::uint64_t total() const { return total_; }

 private:
  std::size_t keep_;
  std::uint64_t total_ = 0;
  std::string head_;
  std::string tail_;  // a ring: the last keep_ bytes end at tail_pos_
  std::size_t tail_pos_ = 0;
};

struct ChildOptions {
  std::string command;                       // run by /bin/sh -c
  std::map<std::string, std::string> env;    // added to (or replacing in) our environment
  std::size_t keep_bytes = 32 * 1024;        // of its output, at the start and at the end
  std::chrono::milliseconds grace{1000};     // between SIGTERM and SIGKILL
};

class ChildProcess {
 public:
  static Expected<std::unique_ptr<ChildProcess>, std::string> start(const ChildOptions& options);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // nullopt while it runs; how it ended otherwise ("exited with status 3", "killed by signal 9").
  std::optional<std::string> ended();
  // Ends the whole process group, reaps the child, stops reading its output and removes its
  // temporary directory. Idempotent.
  void stop();
  // Its output so far, bounded (see HeadTailBuffer).
  std::string output() const;
  std::uint64_t output_bytes() const;
  pid_t pid() const { return pid_; }
  const std::filesystem::path& temp_dir() const { return temp_dir_; }

  // SIGKILL to the process group of every child still running. Async-signal-safe: for a
  // signal handler that is about to end the process.
  static void kill_all_children();

 private:
  ChildProcess() = default;
  void read_output();

  ChildOptions options_;
  pid_t pid_ = -1;
  std::optional<std::string> status_;
  int out_fd_ = -1;
  std::thread reader_;
  std::atomic<bool> stop_reading_{false};
  mutable std::mutex mutex_;
  HeadTailBuffer buffer_{0};
  std::filesystem::path temp_dir_;
  int slot_ = -1;  // in the registry kill_all_children() walks
};

}  // namespace ac
