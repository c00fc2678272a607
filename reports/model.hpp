// A typed, defensive view of a results document (agentconform-results/1) for the writers.
// A results file may be hand-edited, truncated or hostile: every member is read with its
// expected type and ignored when it has another, so a writer never throws on odd input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::reports {

using Json = nlohmann::json;

inline const std::vector<std::string>& verdict_order() {
  static const std::vector<std::string> v = {"PASS", "FAIL", "WARN", "NOT_APPLICABLE", "ERROR"};
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
};

struct FailedStepView {
  std::string path, message, expected, actual;
  Json step;
};

struct CaseView {
  std::string id, title, protocol, suite, file, role, level, verdict, reason, started_at;
  std::vector<std::string> requirements, tags;
  double duration_ms = 0;
  std::optional<FailedStepView> failed;
  const Json* transcript = nullptr;  // into the document; null when absent
  const Json* steps = nullptr;       // the case's steps as written (added by `run`); null when absent
  std::string description;
};

struct RequirementView {
  std::string id, protocol, level, kind, spec, section, text, summary, status;
  std::vector<std::pair<std::string, std::string>> cases;  // case id, verdict
};

struct ProtocolView {
  std::string name, spec, spec_version;
  std::map<std::string, int> counts;                              // verdict -> cases
  std::map<std::string, std::map<std::string, int>> by_suite;     // suite -> verdict -> cases
  std::map<std::string, std::map<std::string, int>> by_level;     // level -> verdict -> cases
  long long requirements = -1, requirements_covered = -1;         // -1: unknown
  bool conformant = true;  // no MUST case failed, no ERROR
};

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
};

// The view keeps pointers into `doc`; doc must outlive it. Not copyable (pointers into itself).
std::unique_ptr<RunView> view_of(const Json& doc);

BoundedTranscript bound_transcript(const Json* transcript, const Limits& limits);

std::string str(const Json& j, const char* key);
double num(const Json& j, const char* key);
std::string format_ms(double ms);  // "12 ms", "1.25 s"

}  // namespace ac::reports
