// The results model of a run: one CaseResult per case with its verdict and evidence, and the
// run's metadata. Serialized to the JSON results file that the report writers consume
// (schemas/report.schema.json).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/engine/requirements.hpp"

namespace ac::engine {

using Json = nlohmann::json;

// BLOCKED: the case could not start because an entry point it needs broke a requirement (the
// preflight's FAIL names which); like N/A it judged nothing, unlike N/A the target is to blame.
enum class Verdict { pass, fail, warn, not_applicable, error, blocked };
std::string verdict_name(Verdict v);  // PASS FAIL WARN NOT_APPLICABLE ERROR BLOCKED
std::optional<Verdict> parse_verdict(std::string_view s);

struct FailedStep {
  std::size_t index = 0;  // 1-based position in the case's steps (nested steps: the top-level one)
  std::string path;       // "3" or "4.repeat[2].1" for nested steps
  Json step;              // the step as written
  std::string message;    // what went wrong, one paragraph
  std::string expected;   // the expectation (pattern, status, close code)
  std::string actual;     // what the target did (frame, status, close, timeout)
};

struct CaseResult {
  std::string id, title, protocol, suite, file, role, level;
  std::vector<std::string> requirements, tags, features;
  Verdict verdict = Verdict::pass;
  std::string reason;  // one line: why this verdict
  std::optional<FailedStep> failed_step;
  // FAIL/WARN: the requirements the failing step checks (the step's "checks", else the case's).
  std::vector<std::string> blamed;
  bool reading = false;     // FAIL/WARN: every blamed requirement is a reading of a silent spec
  std::string na_cause;     // NOT_APPLICABLE: the reason shared by the cases it groups ("feature x not claimed in target.json")
  std::string root_cause;   // FAIL/ERROR: the first failing request and its answer ("POST /api/v1/register answered HTTP 404")
  std::string blocked_by;   // BLOCKED: the requirement whose entry point failed in the preflight
  std::string capacity;     // ERROR: the target refused for capacity ("close 1013 \"try again later\"", "HTTP 429")
  // A FAIL that did not recur when the case ran again alone: reported as order-dependent (gated
  // like a WARN unless --strict-order), with the cases that ran before it on that target.
  // Refused for capacity in the run (that refusal), then judged when it ran again alone.
  std::string capacity_in_run;
  bool order_dependent = false;
  std::vector<std::string> ran_before;
  // Not final: the case runs again later (it overlapped a death, or its FAIL is confirmed alone);
  // the terminal shows it as such. Not serialized: results.json holds only final verdicts.
  bool provisional = false;
  double duration_ms = 0;
  std::string started_at;
  Json transcript = Json::array();
};

struct RunResult {
  std::string tool_version = "0.1.0";
  Json preflight;                 // the preflight's checks (null when none ran)
  std::string setup_error;        // non-empty: the preflight failed and no case ran
  std::string interrupted;        // "SIGINT" / "SIGTERM" when the run was interrupted
  Json target_down;               // {"after": case id, "detail": ...} when the target stopped answering mid-run
  Json target_deaths = Json::array();  // a watched target's crashes and hangs: how, evidence, culprit
  Json coverage = Json::object(); // MUST coverage: {"must": {"applicable", "tested", ...}, "readings": {...}}
  std::string started_at, finished_at;
  double duration_ms = 0;
  std::uint64_t seed = 0;
  Json target = Json::object();   // kind, url, features
  Json options = Json::object();  // filters, jobs, timeout scale, ...
  std::vector<CaseResult> cases;
  Json findings = Json::array();  // fuzzer findings (agentconform fuzz)
  Json fuzz;                      // the fuzzing run's figures (agentconform fuzz); null otherwise
};

Json to_json(const CaseResult& c);
Json to_json(const RunResult& r, const RequirementCatalog& requirements);
// N/A cases grouped by cause, and failures sharing a root cause (3 or more), largest first:
// [{"cause", "count", "cases": [ids]}]. A root cause is, in this order: the blocking entry point
// ("blocked by ALP-6-register-returns-token: ..."), a capacity refusal ("target capacity: ..."),
// a death of the target, else the first failing request and its answer.
Json not_applicable_groups(const std::vector<CaseResult>& cases);
Json root_cause_groups(const std::vector<CaseResult>& cases);
// The key a case is grouped under in root_cause_groups (empty: none).
std::string root_cause_key(const CaseResult& c);
// Reads a results file back (for compare, replay and report rendering).
Expected<RunResult, std::string> run_result_from_json(const Json& doc);

}  // namespace ac::engine
