// A typed, defensive view of a results document (agentconform-results/1) for the writers.
// A results file may be hand-edited, truncated or hostile: every member is read with its
// expected type and ignored when it has another, so a writer never throws on odd input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::reports {

using Json = nlohmann::json;

inline const std::vector<std::string>& verdict_order() {
  static const std::vector<std::string> v = {"PASS", "FAIL", "WARN", "NOT_APPLICABLE", "ERROR", "BLOCKED"};
  return v;
}

struct EntryView {
  double t_ms = 0;
  std::string channel, direction, kind, data;
  std::optional<long long> code;
  bool truncated = false;     // the engine cut this entry
  bool invalid_utf8 = false;  // the engine replaced non-UTF-8 bytes
  bool cut_here = false;      // the writer cut this entry's data
};

// A transcript cut to the writer's limits; `note` says what was left out ("" when nothing).
struct BoundedTranscript {
  std::vector<EntryView> entries;
  std::size_t total_entries = 0;
  std::string note;
};

struct Limits {
  std::size_t entry_bytes = 4096;                   // data of one transcript entry
  std::size_t case_transcript_bytes = 64 * 1024;    // data of one case's transcript
  std::size_t case_entries = 400;                   // entries of one case's transcript
  std::size_t failure_text_bytes = 8 * 1024;        // expected / actual / message of a failure
  std::size_t report_transcript_bytes = 32u << 20;  // HTML: all transcripts of PASS cases together
                                                    // (failing cases always keep theirs)
  std::size_t findings = 200;                       // fuzz findings shown with their steps and transcript
                                                    // (HTML, JUnit); the rest are listed by name only
};

struct FailedStepView {
  std::string path, message, expected, actual;
  Json step;
};

struct CaseView {
  std::string id, title, protocol, suite, file, role, level, verdict, reason, started_at;
  std::vector<std::string> requirements, tags;
  // FAIL/WARN: the requirements the failing step checks (the engine's "blamed"); empty when the
  // document has none (then the case's requirements stand for them, see blamed_or_all()).
  std::vector<std::string> blamed;
  bool reading = false;    // every blamed requirement is agentconform's reading of a silent spec
  std::string na_cause;    // NOT_APPLICABLE: the reason its group shares
  std::string root_cause;  // FAIL/ERROR: the first failing request and its answer
  std::string blocked_by;  // BLOCKED: the requirement whose entry point failed in the preflight
  std::string capacity;    // ERROR: the capacity refusal the target kept giving
  std::vector<std::string> ran_before;  // an order-dependent FAIL: the cases before it on that target
  bool order_dependent = false;
  double duration_ms = 0;
  std::optional<FailedStepView> failed;
  const Json* transcript = nullptr;  // into the document; null when absent
  const Json* steps = nullptr;       // the case's steps as written (added by `run`); null when absent
  std::string description;
  const std::vector<std::string>& blamed_or_all() const { return blamed.empty() ? requirements : blamed; }
  // An ERROR the engine never ran ("not run: the run was interrupted", "not run: the target
  // stopped answering ..."): reports say so instead of showing it as a judged case.
  bool not_run() const { return verdict == "ERROR" && reason.rfind("not run", 0) == 0; }
};

struct RequirementView {
  std::string id, protocol, level, kind, spec, section, text, summary, status;
  std::vector<std::pair<std::string, std::string>> cases;  // case id, verdict
  bool is_reading() const { return kind == "reading"; }
};

// One check of a protocol's preflight (passed, failed, skipped, noted).
struct PreflightCheckView {
  std::string check, status, detail, fix;
};
struct PreflightView {
  std::string protocol, summary;
  std::optional<bool> ok;  // absent: computed from the checks (no failed one)
  std::vector<PreflightCheckView> checks;
  const Json* transcript = nullptr;  // the probes' wire transcript; null when absent
  bool passed() const;
};

// The target stopped answering during a run.
struct TargetDownView {
  std::string protocol, detected_in, last_completed;
};

// A crash or hang of a target `run --target-command` watched (results.json target_deaths).
struct TargetDeathView {
  std::string detected_after, how, evidence, culprit;  // culprit: "" when no case kills it alone
  bool alone = false;                                  // the culprit's own re-run
};

// MUST coverage: requirements a case judged / requirements that apply to the target.
struct Tally {
  long long applicable = 0, tested = 0;
  double percent = 0;
};
struct UntestedView {
  std::string id, protocol, reason;
};
struct CoverageView {
  std::string side;
  std::optional<Tally> must, readings;
  std::map<std::string, std::pair<std::optional<Tally>, std::optional<Tally>>> protocols;  // protocol -> (must, readings)
  std::vector<UntestedView> untested;
};
// "26 of 41 (63.4%)"; not escaped.
std::string tally_text(const Tally& t);

// Cases grouped by a shared reason (N/A cause, root cause), largest first as the engine wrote them.
struct GroupView {
  std::string cause;
  long long count = 0;  // as written; the case list may be shorter in a hand-edited file
  std::vector<std::string> cases;
};

struct ProtocolView {
  std::string name, spec, spec_version;
  std::map<std::string, int> counts;                              // verdict -> cases
  std::map<std::string, std::map<std::string, int>> by_suite;     // suite -> verdict -> cases
  std::map<std::string, std::map<std::string, int>> by_level;     // level -> verdict -> cases
  long long requirements = -1, requirements_covered = -1;         // -1: unknown
  bool conformant = true;  // no MUST case failed, no ERROR
};

// The `fuzz` member of a fuzzing run (agentconform fuzz): its figures. Absent members stay empty.
struct FuzzView {
  std::string protocol, target_kind, target_url;
  std::vector<std::string> families, faults;
  std::optional<std::uint64_t> seed, sessions, frames;
  std::optional<double> seconds, frames_per_second;
};

// One entry of the `findings` array: what an oracle saw, and the minimized session reproducing it.
struct FindingView {
  std::size_t number = 0;  // 1-based position in the document's findings array
  std::string id, protocol, oracle, signature, detail, reproducer_file, replay;
  std::optional<std::uint64_t> seed, iteration, original_steps;
  std::vector<std::string> mutations;
  const Json* steps = nullptr;       // into the document; null when absent or not an array
  const Json* transcript = nullptr;  // into the document; null when absent or not an array
  std::string label() const;         // the id, or "finding N" when the document gives none
  std::string anchor_id() const;     // "finding-..." (see text.hpp anchor())
};

// The oracles the fuzzer knows; reports style others as "other" but show them all the same.
bool known_oracle(const std::string& oracle);

// One step of a finding's session, for a table: connection, action, and its payload as labelled
// parts ("data", "base64", "decoded", "frame 2 (opcode 0, fin true, rsv 0)", unknown members as
// JSON). Every part is already cut to the limits; `cut` marks the ones that were.
struct StepPart {
  std::string label, text;
  bool cut = false;
};
struct FuzzStepView {
  std::string conn, action;
  std::vector<StepPart> parts;
};
struct BoundedSteps {
  std::vector<FuzzStepView> steps;
  std::size_t total_steps = 0;
  std::string note;  // "" when nothing was left out
};
// Limits reused from transcripts: entry_bytes per part, case_transcript_bytes for all the parts
// of one finding, case_entries steps.
BoundedSteps bound_fuzz_steps(const Json* steps, const Limits& limits);

struct RunView {
  std::string tool_version, started_at, finished_at, target_kind, target_url;
  std::vector<std::string> faults;
  double duration_ms = 0;
  std::uint64_t seed = 0;
  std::vector<CaseView> cases;
  std::vector<RequirementView> requirements;
  std::vector<ProtocolView> protocols;  // sorted by name; computed from the cases
  std::map<std::string, const RequirementView*> requirement_by_id;
  const Json* gate = nullptr;  // the "gate" member when present
  std::optional<FuzzView> fuzz;          // the "fuzz" member when it is an object
  std::vector<FindingView> findings;     // the object entries of "findings"
  std::size_t findings_total = 0;        // entries of "findings", objects or not
  // Issue 11: how the run went besides its verdicts. Each is empty when the document lacks it.
  std::vector<PreflightView> preflight;  // per protocol, sorted by name
  std::string setup_error;               // the preflight failed: no case ran
  std::string interrupted;               // "SIGINT" / "SIGTERM"
  std::optional<TargetDownView> target_down;
  std::vector<TargetDeathView> target_deaths;
  std::optional<CoverageView> coverage;
  std::vector<GroupView> not_applicable, root_causes;
  std::map<std::string, const GroupView*> root_cause_by_cause;  // into root_causes (the first group of each cause)
  bool strict_readings = false;  // options.strict_readings: readings gate as the MUST they read
  std::map<std::string, const CaseView*> case_by_id;  // first case of each id
  // The requirement is a reading: its catalogue kind, or (not in the catalogue) the case says so.
  bool is_reading(const std::string& requirement, const CaseView& c) const;
  // The level of a requirement: the catalogue's, else the case's.
  std::string level_of(const std::string& requirement, const CaseView& c) const;
  // "reading (gated as SHOULD)", or "reading (gated as MUST: --strict-readings)".
  std::string reading_label() const;
  // The preflight check that failed (the first), and its protocol; null when none did.
  const PreflightCheckView* failed_check(std::string* protocol = nullptr) const;
  std::size_t not_run_count() const;
  // An ERROR only because the run was interrupted ("not run: the run was interrupted", or a case
  // stopped "interrupted before this step": the engine's words, for want of a structured member).
  bool cut_by_interrupt(const CaseView& c) const {
    return !interrupted.empty() && c.verdict == "ERROR" && c.reason.find("interrupted") != std::string::npos;
  }
  // Whether the document comes from the fuzzer: a fuzz member, or findings (the engine writes an
  // empty findings array for every conformance run, which does not count).
  bool has_fuzz() const { return fuzz.has_value() || findings_total > 0; }
  // No conformance case ran: the reports show the fuzzing part only.
  bool fuzz_only() const { return cases.empty() && has_fuzz(); }
  // The run stopped at the preflight (the engine then writes no case): no verdict table may look
  // like a pass, and nothing says FAIL.
  bool is_setup_error() const { return !setup_error.empty(); }
};

// The view keeps pointers into `doc`; doc must outlive it. Not copyable (pointers into itself).
std::unique_ptr<RunView> view_of(const Json& doc);
// The fuzz and findings members of doc into v (part of view_of; fuzz_model.cpp).
void read_fuzz_members(const Json& doc, RunView& v);
// The preflight, setup_error, interrupted, target_down, coverage, not_applicable and root_causes
// members of doc into v (part of view_of; run_model.cpp).
void read_run_members(const Json& doc, RunView& v);

BoundedTranscript bound_transcript(const Json* transcript, const Limits& limits);

std::string str(const Json& j, const char* key);
double num(const Json& j, const char* key);
std::string format_ms(double ms);  // "12 ms", "1.25 s"
std::optional<std::uint64_t> uint_member(const Json& j, const char* key);  // a non-negative integer member
std::vector<std::string> strings(const Json& j, const char* key);        // the string items of an array member
// The fuzz figures as one line: "agora, seed 1: 300 sessions, 4210 frames in 12.50 s (337 frames/s),
// families field, structure". Not escaped (each writer escapes for its format).
std::string fuzz_figures(const FuzzView& f);

}  // namespace ac::reports
