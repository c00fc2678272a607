// The fuzzing loop: sessions N = 0, 1, 2, ... of a seed (generate.hpp), executed by `jobs`
// executors in parallel against one target, judged by the oracles; every new (oracle,
// signature) is reproduced alone, minimized (delta debugging over the steps, then shrinking of
// the frames) and written as a reproducer. With an embedded target (LobbyProcess) a crash, a
// hang or unbounded heap growth is attributed to the session that causes it, and the lobby is
// restarted to go on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/fuzz/executor.hpp"
#include "harness/fuzz/generate.hpp"
#include "harness/fuzz/lobby_process.hpp"

namespace ac::fuzz {

struct Finding {
  Trip trip;
  std::uint64_t iteration = 0;
  std::vector<Step> original;
  std::vector<Step> minimized;
  std::vector<std::string> mutations;
  bool reproduced = true;           // false: the session did not trip again when run alone
  Json transcript = Json::array();  // of the minimized session's last run
  std::filesystem::path file;       // the reproducer, when an output directory was given
};

struct Progress {
  std::uint64_t sessions = 0, frames = 0, findings = 0;
  double seconds = 0;
};

struct FuzzOptions {
  Protocol protocol = Protocol::alp;
  TargetView target;
  LobbyProcess* process = nullptr;  // the embedded target, when the fuzzer owns it
  Json target_description = Json::object();  // {"kind": "embedded"|"remote", "url", "faults"}
  std::uint64_t seed = 0;
  std::uint64_t iterations = 0;  // 0: bounded by duration_s only
  double duration_s = 0;         // 0: bounded by iterations only
  std::size_t jobs = 1;
  std::filesystem::path out_dir; // empty: reproducers are not written
  bool minimize = true;
  std::size_t minimize_budget = 300;  // candidates tried while minimizing one finding
  // A bug that depends on how the target interleaves connections does not trip every time:
  // a session counts as tripping if any of this many runs does (attribution / minimization).
  int reproduce_attempts = 3;
  int minimize_attempts = 3;
  Families families;
  std::size_t max_findings = 0;  // stop after this many distinct findings (0: run the whole budget)
  // What a run keeps of its findings whatever the target does (docs/limits.md): past
  // kept_findings distinct findings the run stops (as --max-findings would); past
  // findings_transcript_bytes of transcripts in all, a finding keeps only a note saying so.
  std::size_t kept_findings = 1000;
  std::size_t findings_transcript_bytes = 32u << 20;
  ExecOptions exec;
  // Bounded memory (embedded target only): a finding when the lobby's heap grows by more than
  // this over the run; a session is blamed when `memory_repeats` runs of it grow the heap by
  // more than memory_session_bytes each.
  double memory_limit_bytes = 64.0 * 1024 * 1024;
  double memory_session_bytes = 256.0 * 1024;
  int memory_repeats = 4;
  std::function<void(const Progress&)> progress;       // about once a second; may be empty
  std::function<void(const std::string&)> log;         // findings and incidents as they happen
  const std::atomic<bool>* stop = nullptr;             // set by a signal handler to end early
};

struct FuzzReport {
  // Sessions the fuzzer itself could not generate or judge (an exception in its own code):
  // logged and counted, never blamed on the target; a healthy fuzzer has none.
  std::uint64_t harness_errors = 0;
  std::uint64_t sessions = 0;
  std::uint64_t frames = 0;
  double seconds = 0;
  std::vector<Finding> findings;
};

FuzzReport run_fuzz(const FuzzOptions& options);

// Runs a session once and classifies what happened: with an embedded target, a refused
// connection from a dead lobby is a crash (the lobby is restarted), a hang restarts it too.
class Judge {
 public:
  Judge(Executor& executor, LobbyProcess* process) : executor_(executor), process_(process) {}
  std::optional<Trip> run(const std::vector<Step>& steps);
  // After a trip from an executor: crash / hang classification and restart.
  Trip classify(Trip trip);

 private:
  Executor& executor_;
  LobbyProcess* process_;
};

// Delta debugging over the steps, then shrinking inside them, while `trips` holds; at most
// `budget` calls of `trips`.
std::vector<Step> minimize(std::vector<Step> steps, const std::function<bool(const std::vector<Step>&)>& trips, std::size_t budget);

// Reproducer documents (format "agentconform-fuzz-reproducer/1") and the findings' JSON for
// the results document (schemas/report.schema.json, "findings").
Json reproducer_json(const FuzzOptions& options, const Finding& finding);
Json finding_json(const FuzzOptions& options, const Finding& finding, std::size_t number);

struct Reproducer {
  Protocol protocol = Protocol::alp;
  Json target = Json::object();
  std::uint64_t seed = 0;
  std::string oracle;
  std::string signature;
  std::vector<Step> steps;
};
Expected<Reproducer, std::string> load_reproducer(const std::filesystem::path& file);

}  // namespace ac::fuzz
