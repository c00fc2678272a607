// Fuzz findings in the JUnit report (see junit_parts.hpp): one <testsuite name="PROTOCOL.fuzz">
// per protocol, a passing "fuzz session budget" testcase carrying the run's figures, and one
// testcase per finding with a <failure> whose message is the oracle and signature and whose text
// holds the detail, seed and session, the replay command and the minimized steps; the finding's
// transcript goes to <system-out>. Testcase names are "<oracle>: <signature>": the fuzzer dedups
// findings on that pair, so the name is unique in a run and stable from one run to the next (CI
// viewers track tests by name).
#include <cstdio>
#include <map>

#include "harness/schema/schema_store.hpp"
#include "reports/junit_parts.hpp"
#include "reports/text.hpp"

namespace ac::reports::junit {
namespace {

// The minimized steps as indented lines; continuation lines of a payload indented under it.
std::string steps_text(const FindingView& f, const Limits& limits) {
  const BoundedSteps steps = bound_fuzz_steps(f.steps, limits);
  std::ostringstream out;
  out << "minimized steps (" << steps.total_steps;
  if (f.original_steps) out << ", from " << *f.original_steps << " generated";
  out << "):\n";
  std::size_t n = 0;
  for (const auto& s : steps.steps) {
    out << "  " << ++n << ". " << s.conn << " " << s.action << "\n";
    for (const auto& p : s.parts) {
      out << "       " << p.label << ": ";
      for (char c : p.text) {
        out << c;
        if (c == '\n') out << "         ";
      }
      out << "\n";
    }
  }
  if (!steps.note.empty()) out << "[" << steps.note << "]\n";
  return out.str();
}

std::string evidence(const FindingView& f, const Limits& limits) {
  std::ostringstream out;
  out << f.label() << (f.protocol.empty() ? "" : " (" + f.protocol + ")") << ": " << f.oracle << ": " << f.signature << "\n";
  bool cut = false;
  const std::string detail = truncate_utf8(f.detail, limits.failure_text_bytes, &cut);
  out << "detail: " << detail;
  if (cut) out << " [... " << f.detail.size() - detail.size() << " more bytes not shown]";
  out << "\n";
  if (f.seed) out << "seed " << *f.seed;
  if (f.iteration) out << (f.seed ? ", " : "") << "session " << *f.iteration;
  if (f.seed || f.iteration) out << "\n";
  for (std::size_t i = 0; i < f.mutations.size() && i < 50; ++i) out << "mutation: " << truncate_utf8(f.mutations[i], 1024) << "\n";
  if (!f.reproducer_file.empty()) out << "reproducer: " << truncate_utf8(f.reproducer_file, 4096) << "\n";
  if (!f.replay.empty()) out << "replay: " << truncate_utf8(f.replay, 4096) << "\n";
  out << steps_text(f, limits);
  return out.str();
}

std::string suite_name(const std::string& protocol) { return protocol.empty() ? std::string("fuzz") : protocol + ".fuzz"; }

}  // namespace

Counts write_fuzz_suites(std::ostringstream& out, const RunView& run, int& next_id, const Limits& limits) {
  Counts total;
  if (!run.has_fuzz()) return total;
  // Protocols in order: the fuzzed one (its suite carries the budget), then those of findings.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const FindingView*>> by_protocol;
  if (run.fuzz) {
    order.push_back(run.fuzz->protocol);
    by_protocol[run.fuzz->protocol];
  }
  for (const auto& f : run.findings) {
    auto [it, fresh] = by_protocol.try_emplace(f.protocol);
    if (fresh) order.push_back(f.protocol);
    it->second.push_back(&f);
  }
  const bool timestamp_ok = schema::is_date_time(run.started_at);
  std::size_t full = 0;  // findings written with their evidence, up to limits.findings
  for (const auto& protocol : order) {
    const auto& findings = by_protocol[protocol];
    const bool budget = run.fuzz && protocol == run.fuzz->protocol;
    const double ms = budget && run.fuzz->seconds ? *run.fuzz->seconds * 1000 : 0;
    const int tests = static_cast<int>(findings.size()) + (budget ? 1 : 0);
    const std::string name = suite_name(protocol);
    out << "  <testsuite name=\"" << attr(name) << "\" package=\"" << attr(protocol) << "\" id=\"" << next_id++ << "\" tests=\""
        << tests << "\" failures=\"" << findings.size() << "\" errors=\"0\" skipped=\"0\" time=\"" << seconds(ms) << "\"";
    if (timestamp_ok) out << " timestamp=\"" << attr(run.started_at) << "\"";
    out << " hostname=\"" << attr(run.target_url.empty() ? "localhost" : one_line(run.target_url, 256)) << "\">\n";
    out << "    <properties>\n";
    auto property = [&out](std::string_view key, std::string_view value) {
      out << "      <property name=\"" << attr(key) << "\" value=\"" << attr(one_line(value)) << "\"/>\n";
    };
    property("protocol", protocol);
    property("suite", "fuzz");
    property("tool", "agentconform " + run.tool_version);
    if (budget) {
      const FuzzView& z = *run.fuzz;
      if (z.seed) property("seed", std::to_string(*z.seed));
      if (z.sessions) property("sessions", std::to_string(*z.sessions));
      if (z.frames) property("frames", std::to_string(*z.frames));
      if (z.seconds) property("seconds", seconds(*z.seconds * 1000));
      if (z.frames_per_second) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.1f", std::max(0.0, std::min(*z.frames_per_second, 1e15)));
        property("frames_per_second", buf);
      }
      std::string families;
      for (const auto& x : z.families) families += (families.empty() ? "" : ",") + x;
      if (!families.empty()) property("families", families);
      if (!z.target_kind.empty()) property("target", z.target_kind + (z.target_url.empty() ? "" : " " + z.target_url));
    } else {
      property("seed", std::to_string(run.seed));
      property("target", run.target_kind + (run.target_url.empty() ? "" : " " + run.target_url));
    }
    property("findings", std::to_string(findings.size()));
    out << "    </properties>\n";
    if (budget) {
      out << "    <testcase name=\"fuzz session budget\" classname=\"" << attr(name) << "\" time=\"" << seconds(ms)
          << "\"><system-out>" << text("fuzz: " + fuzz_figures(*run.fuzz) + ", " + std::to_string(run.findings.size()) +
                  (run.findings.size() == 1 ? " finding\n" : " findings\n"))
          << "</system-out></testcase>\n";
    }
    for (const FindingView* f : findings) {
      const std::string message = one_line((f->oracle.empty() ? std::string("finding") : f->oracle) + ": " + f->signature);
      out << "    <testcase name=\"" << attr(message) << "\" classname=\"" << attr(name) << "\" time=\"0.000\">\n"
          << "      <failure message=\"" << attr(message) << "\" type=\"" << attr(one_line(f->oracle, 64)) << "\">";
      if (full++ < limits.findings) {
        out << text(evidence(*f, limits)) << "</failure>\n";
        if (f->transcript && !f->transcript->empty()) {
          out << "      <system-out>" << text(transcript_text(f->label(), f->transcript, limits)) << "</system-out>\n";
        }
      } else {
        out << text(f->label() + ": not shown in full (report limit of " + std::to_string(limits.findings) +
                    " findings); the JSON results file has it\n")
            << "</failure>\n";
      }
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
    total.tests += tests;
    total.failures += static_cast<int>(findings.size());
  }
  return total;
}

}  // namespace ac::reports::junit
