// What the fuzzer knows about the target's life, and how it gets a healthy target back (issue 12).
//
// A target that stops answering is seen in one of a few ways, and they are told apart:
//   refused  nothing accepts connections (the process is gone, or restarting)
//   reset    connections were cut without a close frame (the process died under them)
//   silent   connections are accepted but nothing answers (stuck: the kernel still accepts)
//   hung     an open connection stopped answering pings
//   exited   the process monitor saw it end (exit status or signal, and its crash report)
//   killed   it ran but did not answer, and the monitor killed it to restart it
// The first two (and exited) are a crash, the others a hang. With a process monitor
// (`--target-command`, or the embedded lobby) the fuzzer restarts the target itself; without one
// it waits until the target's own supervisor brought it back, so that nothing is judged against a
// target that is still down, and a crash is only ever blamed on a session that ran against a
// healthy target.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "harness/fuzz/executor.hpp"
#include "harness/process/monitor.hpp"

namespace ac::fuzz {

inline constexpr const char* kWentDown = "the target went down";
inline constexpr const char* kStoppedAnswering = "the target stopped answering";

// A raw trip (of a session or a probe) read as an observation of the target's life: an
// unreachable target is a crash (refused or reset), an answer that did not come in time a hang
// (silent, or hung for a session connection's ping); every other trip is returned unchanged.
Trip observe(Trip raw);
// Whether two trips are the same finding: the same oracle and signature.
bool same_trip(const Trip& a, const Trip& b);

struct GuardOptions {
  // How long a target may take to be healthy again after a restart (its own or ours).
  std::chrono::milliseconds restart_timeout{30000};
  // Called every few seconds while waiting for the target (progress lines).
  std::function<void(const std::string&)> waiting;
};

class Guard {
 public:
  Guard(const TargetView& target, Protocol protocol, process::Monitor* monitor, GuardOptions options = {});

  // The probe once (the health endpoint, when the target has one, and the protocol's probe):
  // nullopt when healthy.
  std::optional<Trip> check();
  // A trip of a session or probe, classified: with a monitor, a target that ended is a crash whose
  // signature is how it ended and the first lines of its crash report (the output tail is the
  // detail); a hang stays a hang. The target is left as it is (see recover()).
  Trip classify(Trip raw);
  // Healthy again: with a monitor, a target that ended is restarted, one that runs but does not
  // answer is killed and restarted; without one, the fuzzer waits for the target's own supervisor.
  // false when it is not healthy within restart_timeout. `known_down`: a crash or hang was just
  // seen, so a monitored target is restarted without probing it first.
  bool recover(bool known_down = false);
  // A freshly started target (with a monitor: restarted now; without: healthy).
  bool fresh();
  // Changes whenever the target was restarted or came back from being down: a session that ran
  // across a change saw someone else's incident.
  std::uint64_t epoch() const { return epoch_.load(); }
  process::Monitor* monitor() const { return monitor_; }
  // The target's memory: its metrics endpoint (settings metrics_path and memory_metric, the
  // embedded lobby's heap gauge), else the monitored process group's resident memory.
  std::optional<double> memory_bytes();
  bool measures_memory() const;

 private:
  bool wait_healthy(std::chrono::milliseconds budget, const char* what);

  const TargetView& target_;
  process::Monitor* monitor_;
  GuardOptions options_;
  Executor prober_;
  std::atomic<std::uint64_t> epoch_{0};
};

// Runs a session once and classifies what happened (Guard::classify); a target that went down or
// stopped answering is brought back (Guard::recover) before the trip is returned, so the next run
// starts from a healthy target.
class Judge {
 public:
  Judge(Executor& executor, Guard* guard) : executor_(executor), guard_(guard) {}
  std::optional<Trip> run(const std::vector<Step>& steps);
  Trip classify(Trip trip);
  Executor& executor() { return executor_; }

 private:
  Executor& executor_;
  Guard* guard_;
};

}  // namespace ac::fuzz
