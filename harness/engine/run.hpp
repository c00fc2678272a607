// A conformance run: choose the cases (filters), check each target (preflight), run the cases in
// parallel, notice a target that stops answering, honour an interrupt, and collect the RunResult
// with its MUST coverage. The targets come from the caller (harness/embedded/targets.hpp builds
// them for a third-party endpoint or the embedded reference lobby); the engine knows them only
// through their declared settings. Rendering for a terminal is the caller's (a callback per case).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/engine/results.hpp"
#include "harness/engine/scenario.hpp"
#include "harness/engine/target.hpp"
#include "harness/engine/target_decl.hpp"

namespace ac::engine {

struct RunOptions {
  std::vector<std::string> protocols;   // empty: all five
  std::vector<std::string> suites;      // empty: all six
  std::vector<std::string> case_globs;  // --case, fnmatch patterns on case ids; each must match a case
  std::vector<std::string> tags;        // a case runs if it has any of them
  std::vector<std::string> levels;      // MUST / SHOULD / MAY
  std::string suites_dir;               // --suites DIR: custom cases (default: the built-in suites)
  std::string target_url;               // empty: the embedded reference lobby (unless target.json names one)
  std::string target_config;            // target.json
  std::vector<std::string> lobby_faults;  // embedded lobby only (to prove suites detect them)
  std::size_t jobs = 0;                 // 0: the default (cases mostly wait on the target)
  double timeout_scale = 1.0;
  std::uint64_t seed = 0;               // 0: choose one (printed)
  std::chrono::seconds deadline{0};     // overall; 0: none
  bool strict_readings = false;         // FAILs of readings gate like MUSTs
  std::size_t transcript_run_bytes = 32u << 20;  // all cases' transcripts together (docs/limits.md)
  bool skip_preflight = false;          // for tests of the engine itself
  // --preflight: "default" (a setup mistake ends the run, exit 3; an entry point that breaks a
  // requirement is a FAIL and the run goes on, the cases that need it BLOCKED), "strict" (any
  // failed check ends the run), "warn" (nothing ends it: setup failures are printed, the cases
  // run), "off" (no preflight).
  std::string preflight = "default";
  // A FAIL is run once more alone (fresh ids; a fresh target under --target-command) before it
  // is reported; one that does not recur is order-dependent, gated like a WARN unless strict_order.
  bool confirm_failures = true;
  bool strict_order = false;
  // After each case, a watched target gets this long to die of it before its liveness check.
  std::chrono::milliseconds watch_grace{150};
  bool list_only = false;
  const std::atomic<int>* interrupt = nullptr;  // the signal number that interrupted the run (0: none)
  // A target agentconform started and watches (`run --target-command`): asked after each case
  // whether the target crashed or hung (harness/cli/target_watch.hpp). The engine then re-runs the
  // cases that were in flight one at a time to find the one that kills it.
  class TargetWatch* watch = nullptr;
};

// How a watched target ended, once it has been started again.
struct TargetDeath {
  std::string how;        // "killed by signal 11 (Segmentation fault)", "hung: ... (killed)"
  std::string evidence;   // the crash excerpt or the tail of what it printed
  bool restarted = false; // it answers again; false: the run cannot go on
  std::string restart_error;
};

class TargetWatch {
 public:
  virtual ~TargetWatch() = default;
  // After a case: whether the target is still alive and (when `suspect`) still answers its
  // liveness probe. Returns how the target died, after restarting it.
  virtual std::optional<TargetDeath> check(bool suspect) = 0;
  // Restarts the target, so that the next case meets it fresh (a FAIL's confirmation alone).
  // Returns an error when it did not come back.
  virtual std::optional<std::string> restart() { return std::nullopt; }
};

struct Plan {
  std::vector<const Case*> cases;
};

struct Loaded {
  RequirementCatalog requirements;
  std::vector<Suite> suites;
  Declarations declarations;
};

// Requirement catalogues, target declarations and suites from data_dir()/suites, plus the
// cases of `suites_dir` when given.
Expected<Loaded, std::string> load_all(const std::string& suites_dir = "");
// Filters the cases. Every --case and --suite pattern must select something: a pattern that
// matches nothing is a usage error, even when another pattern matches.
Expected<Plan, std::string> make_plan(const Loaded& loaded, const RunOptions& options);

struct RunOutcome {
  RunResult result;
  bool setup_error = false;        // a preflight failed: no case ran (exit 3)
  bool target_unreachable = false; // the target stopped answering mid-run
  std::size_t target_deaths = 0;   // crashes and hangs of a watched target (each fails the run)
  std::size_t executed = 0;        // cases that ran to PASS, FAIL or WARN
};

// Called after each case (from worker threads, serialized by the engine).
using CaseCallback = std::function<void(const CaseResult& result, std::size_t done, std::size_t total)>;
// Called with each target's preflight (before any case of that protocol).
using PreflightCallback = std::function<void(const TargetConfig& target, const Json& preflight)>;

// Runs the plan against targets (protocol -> target). Usage and configuration problems are errors.
Expected<RunOutcome, std::string> execute(const Loaded& loaded, const Plan& plan, const std::map<std::string, TargetConfig>& targets,
                                          const RunOptions& options, const CaseCallback& on_case = {},
                                          const PreflightCallback& on_preflight = {});

// The default number of parallel cases: cases spend most of their time waiting on the target.
// The embedded lobby takes 32; a third-party target 4, which a small deployment (a connection
// cap per address, a rate limit) survives. target.json "limits" lowers it further.
std::size_t default_jobs(bool embedded = true);

}  // namespace ac::engine
