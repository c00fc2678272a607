// The fuzzing campaign: sessions N = 0, 1, 2, ... of a seed (generate.hpp), executed by `jobs`
// executors in parallel against one target and judged by the oracles. An incident (a trip) stops
// the generation while it is handled:
//   1. classified: a crash or a hang is what the guard (guard.hpp) saw of the target's life, and
//      the target is brought back to health (restarted by the process monitor, or awaited);
//   2. attributed: the session that tripped, then those in flight and the last ones run, are each
//      replayed alone on a healthy target (fresh, for a crash with a monitor); the first that trips
//      the same way is the culprit. A crash is blamed only on a session after which a healthy
//      target was dead, never on one that ran while an earlier crash was being restarted;
//   3. deduplicated by what it is: the oracle and signature (for a monitored crash: exit status
//      or signal and the first lines of the crash report), and, where the signature cannot tell
//      two bugs apart (a crash seen from outside, a hang), the culprit's mutations (message type,
//      field path, what was done);
//   4. minimized within a bounded share of the campaign's time, each candidate run on a healthy
//      target and counted only when it trips the same oracle with the same signature;
//   5. verified: the result replayed from a fresh target twice before it is written as reproduced.
// --duration is the wall time of the whole campaign, incidents included.
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
#include "harness/fuzz/guard.hpp"

namespace ac::fuzz {

struct Finding {
  Trip trip;
  std::uint64_t iteration = 0;
  double found_at_s = 0;            // seconds into the campaign when it tripped
  std::vector<Step> original;
  std::vector<Step> minimized;
  std::vector<std::string> mutations;
  bool reproduced = true;           // the reproducer tripped the same way on `verified` fresh runs
  int verified = 0;                 // how many of the final replays (from a fresh target) tripped
  bool minimization_cut = false;    // minimization stopped at its share of the campaign's time
  Json transcript = Json::array();  // of a final replay
  std::filesystem::path file;       // the reproducer, when an output directory was given
};

struct Progress {
  std::uint64_t sessions = 0, frames = 0, findings = 0;
  double seconds = 0;             // since the start
  double generating_seconds = 0;  // of which spent running generated sessions
  std::string phase;              // generating | incident | culprit search | minimizing | verifying | memory
  std::string detail;
};

struct FuzzOptions {
  Protocol protocol = Protocol::alp;
  TargetView target;
  process::Monitor* monitor = nullptr;  // the target's process, when the fuzzer started it
  Json target_description = Json::object();  // {"kind": "embedded"|"remote", "url", "faults", "command"}
  std::uint64_t seed = 0;
  std::uint64_t iterations = 0;  // 0: bounded by duration only
  double duration_s = 0;         // 0: bounded by iterations only; else the campaign's wall time
  std::size_t jobs = 1;
  std::filesystem::path out_dir; // empty: reproducers are not written
  bool minimize = true;
  std::size_t minimize_budget = 300;  // candidates tried while minimizing one finding
  double minimize_share = 0.5;        // of --duration, for all minimization together
  // A bug that depends on how the target interleaves connections does not trip every time:
  // a session counts as tripping if any of this many runs does (attribution / minimization).
  int reproduce_attempts = 3;
  int minimize_attempts = 3;
  int verify_runs = 2;                // final replays from a fresh target, each must trip
  Families families;
  Scope scope;                        // the roles and transports the target declares
  std::size_t max_findings = 0;  // stop after this many distinct reproduced findings (0: run the whole budget)
  // What a run keeps of its findings whatever the target does (docs/limits.md): past
  // kept_findings distinct findings the run stops (as --max-findings would); past
  // findings_transcript_bytes of transcripts in all, a finding keeps only a note saying so.
  std::size_t kept_findings = 1000;
  std::size_t findings_transcript_bytes = 32u << 20;
  ExecOptions exec;
  std::chrono::milliseconds restart_timeout{30000};  // a target may take this long to be healthy again
  // Bounded memory (a target whose memory the fuzzer can read: a process it started, or a metrics
  // endpoint): a finding when the target's memory grows by more than this over the run, blamed on
  // a session `memory_repeats` runs of which grow it by more than memory_session_bytes each.
  double memory_limit_bytes = 64.0 * 1024 * 1024;
  double memory_session_bytes = 256.0 * 1024;
  int memory_repeats = 4;
  std::function<void(const Progress&)> progress;       // about once a second, in every phase; may be empty
  std::function<void(const std::string&)> log;         // findings and incidents as they happen
  const std::atomic<bool>* stop = nullptr;             // set by a signal handler to end early
};

struct FuzzReport {
  // Sessions the fuzzer itself could not generate or judge (an exception in its own code):
  // logged and counted, never blamed on the target; a healthy fuzzer has none.
  std::uint64_t harness_errors = 0;
  std::uint64_t sessions = 0;
  std::uint64_t frames = 0;          // mutated frames of generated sessions
  double seconds = 0;                // the whole campaign
  double generating_seconds = 0;     // of which running generated sessions (the rest: incidents)
  std::uint64_t incidents = 0;       // trips handled (findings, duplicates, collateral)
  std::uint64_t restarts = 0;        // times the target was restarted or came back
  bool target_lost = false;          // the target did not come back: the campaign ended early
  std::vector<Finding> findings;
};

FuzzReport run_fuzz(const FuzzOptions& options);

struct MinimizeLimits {
  std::size_t budget = 300;                           // calls of `trips`
  std::function<bool()> stop;                         // true: stop now (time is up)
  std::function<void(std::size_t tried, std::size_t steps)> progress;
};
// Delta debugging over the steps, then shrinking inside them, while `trips` holds.
std::vector<Step> minimize(std::vector<Step> steps, const std::function<bool(const std::vector<Step>&)>& trips, const MinimizeLimits& limits);
inline std::vector<Step> minimize(std::vector<Step> steps, const std::function<bool(const std::vector<Step>&)>& trips, std::size_t budget) {
  return minimize(std::move(steps), trips, MinimizeLimits{budget, nullptr, nullptr});
}

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
  Scope scope;
  std::vector<Step> steps;
};
Expected<Reproducer, std::string> load_reproducer(const std::filesystem::path& file);

// Replays a memory finding: runs `repeats` times; true when the target's memory grew by more than
// `per_run` bytes per run.
bool leaks(Executor& executor, Guard& guard, const std::vector<Step>& steps, int repeats, double per_run);

}  // namespace ac::fuzz
