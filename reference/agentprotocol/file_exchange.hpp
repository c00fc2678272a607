// The file-exchange binding of the reference agent (agentprotocol-0.1.md §Transport Bindings /
// File Exchange): a shared directory where every message is one file named
// `{from}-{to}-{timestamp}-{id}.json` (spelling: file_naming.hpp). The reference polls the
// directory through net::Scheduler (every `poll`, default 50 ms), takes the files addressed to
// it (the {to} segment is its own id) oldest timestamp first, deletes each after reading it (the
// directory is a mailbox: a file is consumed once), hands the text to the Agent, and writes its
// answers as files addressed to the sender. Files for other agents are left alone (they are
// other agents' mail; the reference does not relay inside the directory), and so are files it
// wrote itself.
//
// Bounds: at most `max_files_per_poll` files are handled per poll (the rest wait for the next
// one), a file larger than the message limit is deleted and answered with INVALID_MESSAGE, and
// a directory listing stops after `max_scan` entries.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "harness/util/expected.hpp"
#include "reference/agentprotocol/agent.hpp"

namespace ac::ref::agentprotocol {

struct ExchangeSettings {
  std::filesystem::path dir;
  std::chrono::milliseconds poll{50};
  bool cleanup = false;  // at shutdown, delete every convention-named file and the directory if empty
  std::size_t max_files_per_poll = 256;
  std::size_t max_scan = 100000;
};

class FileExchange : public std::enable_shared_from_this<FileExchange> {
 public:
  FileExchange(HubContext& context, std::shared_ptr<Agent> agent, ExchangeSettings settings);

  // Creates the directory when missing and starts polling.
  Expected<bool, std::string> start();
  void stop();
  // One scan of the directory (the scheduler calls it; tests may too). Returns files handled.
  std::size_t poll_once();
  // Writes a message as a file by the naming convention (temporary name, then rename).
  void write(const Json& message);

  const std::filesystem::path& dir() const { return settings_.dir; }

 private:
  void schedule();

  HubContext& context_;
  std::shared_ptr<Agent> agent_;
  ExchangeSettings settings_;
  std::string own_file_id_;
  std::mutex mutex_;       // guards timer_ and stopped_
  std::mutex poll_mutex_;  // one poll at a time (and stop() waits for it)
  net::Scheduler::TimerId timer_ = 0;
  bool stopped_ = false;
};

}  // namespace ac::ref::agentprotocol
