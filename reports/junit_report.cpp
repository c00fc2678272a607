// JUnit XML in the structure CI viewers read (Ant's junitreport / Jenkins; the schema we validate
// against is reports/junit/junit.xsd): <testsuites> holds one <testsuite> per protocol x suite,
// each with one <testcase> per case.
//   FAIL           -> <failure message=reason type=level> requirement, quoted spec sentence,
//                     failing step, expected and actual; the transcript in <system-out>
//   ERROR          -> <error message=reason type="ERROR">, same evidence
//   NOT_APPLICABLE -> <skipped message=reason>
//   WARN           -> passes, but "WARN: reason" (and the evidence) in <system-out>, and a
//                     suite <property name="warn:CASE-ID" value=reason> so it is visible without failing
// Fuzz findings follow as PROTOCOL.fuzz suites (junit_fuzz.cpp).
#include <iomanip>
#include <map>
#include <sstream>

#include "harness/schema/schema_store.hpp"
#include "reports/junit_parts.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"

namespace ac::reports {

std::string junit::seconds(double ms) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(3) << (ms < 0 ? 0 : ms / 1000.0);
  return s.str();
}

std::string junit::attr(std::string_view s) { return xml_escape(s, /*attribute=*/true); }
std::string junit::text(std::string_view s) { return xml_escape(s, /*attribute=*/false); }

std::string junit::one_line(std::string_view s, std::size_t max) {
  std::string out = truncate_utf8(s, max);
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

std::string junit::transcript_text(const std::string& of, const Json* transcript, const Limits& limits) {
  const BoundedTranscript t = bound_transcript(transcript, limits);
  std::ostringstream out;
  out << "transcript of " << of << " (" << t.total_entries << " entries)\n";
  for (const auto& e : t.entries) {
    const char* arrow = e.direction == "out" ? "->" : e.direction == "in" ? "<-" : "--";
    out << "[" << std::fixed << std::setprecision(1) << std::setw(8) << e.t_ms << " ms] " << arrow << " " << e.channel << " "
        << e.kind;
    if (e.code) out << " " << *e.code;
    if (e.truncated) out << " (truncated by the harness)";
    if (e.invalid_utf8) out << " (invalid UTF-8 replaced)";
    if (!e.data.empty()) out << ": " << e.data;
    out << "\n";
  }
  if (!t.note.empty()) out << "[" << t.note << "]\n";
  return out.str();
}

namespace {

using namespace junit;

// The evidence of a FAIL/ERROR/WARN: requirements with their quoted sentences and the failing step.
std::string evidence(const CaseView& c, const RunView& run, const Limits& limits) {
  std::ostringstream out;
  out << c.verdict << ": " << c.reason << "\n";
  for (const auto& id : c.requirements) {
    out << "requirement " << id;
    if (auto it = run.requirement_by_id.find(id); it != run.requirement_by_id.end()) {
      const RequirementView& r = *it->second;
      out << " (" << r.level << ", " << r.spec << " " << r.section << ")\n  \"" << r.text << "\"";
    }
    out << "\n";
  }
  if (c.failed) {
    const auto& f = *c.failed;
    out << "failing step " << f.path << ": " << truncate_utf8(f.message, limits.failure_text_bytes) << "\n";
    if (!f.expected.empty()) out << "expected: " << truncate_utf8(f.expected, limits.failure_text_bytes) << "\n";
    if (!f.actual.empty()) out << "actual:   " << truncate_utf8(f.actual, limits.failure_text_bytes) << "\n";
    if (!f.step.is_null()) {
      out << "step:     " << truncate_utf8(f.step.dump(-1, ' ', false, Json::error_handler_t::replace), limits.failure_text_bytes)
          << "\n";
    }
  }
  return out.str();
}

}  // namespace

std::string render_junit(const Json& doc, const Limits& limits) {
  const auto run = view_of(doc);
  // protocol.suite -> cases, in first-seen order of the groups
  std::vector<std::string> order;
  std::map<std::string, std::vector<const CaseView*>> groups;
  for (const auto& c : run->cases) {
    const std::string key = c.protocol + "." + c.suite;
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.push_back(&c);
  }
  auto count = [](const std::vector<const CaseView*>& cases) {
    Counts n;
    for (const auto* c : cases) {
      ++n.tests;
      n.failures += c->verdict == "FAIL";
      n.errors += c->verdict == "ERROR" || (c->verdict != "PASS" && c->verdict != "FAIL" && c->verdict != "WARN" &&
                                            c->verdict != "NOT_APPLICABLE");
      n.skipped += c->verdict == "NOT_APPLICABLE";
      n.ms += c->duration_ms;
    }
    return n;
  };
  Counts total;
  for (const auto& [_, cases] : groups) {
    Counts n = count(cases);
    total.tests += n.tests;
    total.failures += n.failures;
    total.errors += n.errors;
    total.skipped += n.skipped;
  }
  // The fuzz suites come after the conformance ones; written first to know their counts.
  int fuzz_id = static_cast<int>(order.size());
  std::ostringstream fuzz;
  const Counts f = write_fuzz_suites(fuzz, *run, fuzz_id, limits);
  total.tests += f.tests;
  total.failures += f.failures;
  total.errors += f.errors;
  total.skipped += f.skipped;

  const bool timestamp_ok = schema::is_date_time(run->started_at);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"agentconform\" tests=\"" << total.tests << "\" failures=\"" << total.failures << "\" errors=\""
      << total.errors << "\" skipped=\"" << total.skipped << "\" time=\"" << seconds(run->duration_ms) << "\">\n";
  int id = 0;
  for (const auto& key : order) {
    const auto& cases = groups[key];
    const Counts n = count(cases);
    const CaseView& first = *cases.front();
    out << "  <testsuite name=\"" << attr(key) << "\" package=\"" << attr(first.protocol) << "\" id=\"" << id++ << "\" tests=\""
        << n.tests << "\" failures=\"" << n.failures << "\" errors=\"" << n.errors << "\" skipped=\"" << n.skipped
        << "\" time=\"" << seconds(n.ms) << "\"";
    if (timestamp_ok) out << " timestamp=\"" << attr(run->started_at) << "\"";
    out << " hostname=\"" << attr(run->target_url.empty() ? "localhost" : one_line(run->target_url, 256)) << "\">\n";
    out << "    <properties>\n";
    auto property = [&out](std::string_view name, std::string_view value) {
      out << "      <property name=\"" << attr(name) << "\" value=\"" << attr(value) << "\"/>\n";
    };
    property("protocol", first.protocol);
    property("suite", first.suite);
    for (const auto& p : run->protocols) {
      if (p.name == first.protocol && !p.spec.empty()) property("spec", p.spec + (p.spec_version.empty() ? "" : " " + p.spec_version));
    }
    property("tool", "agentconform " + run->tool_version);
    property("seed", std::to_string(run->seed));
    property("target", run->target_kind + (run->target_url.empty() ? "" : " " + run->target_url));
    for (const auto* c : cases) {
      if (c->verdict == "WARN") property("warn:" + c->id, one_line(c->reason));
    }
    out << "    </properties>\n";
    for (const auto* c : cases) {
      const std::string name = c->id + (c->title.empty() ? "" : ": " + c->title);
      out << "    <testcase name=\"" << attr(one_line(name)) << "\" classname=\"" << attr(key) << "\" time=\""
          << seconds(c->duration_ms) << "\"";
      if (c->verdict == "PASS") {
        out << "/>\n";
        continue;
      }
      out << ">\n";
      const std::string message = one_line(c->reason.empty() ? c->verdict : c->reason);
      if (c->verdict == "NOT_APPLICABLE") {
        out << "      <skipped message=\"" << attr(message) << "\"/>\n";
      } else if (c->verdict == "FAIL") {
        out << "      <failure message=\"" << attr(message) << "\" type=\"" << attr(c->level.empty() ? "FAIL" : c->level)
            << "\">" << text(evidence(*c, *run, limits)) << "</failure>\n";
      } else if (c->verdict != "WARN") {  // ERROR, or a verdict this writer does not know
        out << "      <error message=\"" << attr(message) << "\" type=\"" << attr(c->verdict.empty() ? "ERROR" : c->verdict)
            << "\">" << text(evidence(*c, *run, limits)) << "</error>\n";
      }
      out << "      <system-out>";
      if (c->verdict == "WARN") out << text(evidence(*c, *run, limits)) << "\n";
      out << text(transcript_text(c->id, c->transcript, limits)) << "</system-out>\n";
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << fuzz.str();
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace ac::reports
