// JUnit XML in the structure CI viewers read (Ant's junitreport / Jenkins; the schema we validate
// against is reports/junit/junit.xsd): <testsuites> holds one <testsuite> per protocol x suite,
// each with one <testcase> per case.
//   FAIL           -> <failure message="BLAMED-REQS: reason" type=level> the blamed requirements
//                     (readings marked "reading (gated as SHOULD)") with their quoted sentences,
//                     failing step, expected and actual; the transcript in <system-out>
//   ERROR          -> <error message=reason type="ERROR">, same evidence
//   NOT_APPLICABLE -> <skipped message=reason>
//   not run or cut by an interrupt -> <skipped message=reason> (nothing was judged)
//   WARN           -> passes, but "WARN: reason" (and the evidence) in <system-out>, and a
//                     suite <property name="warn:CASE-ID" value=...> so it is visible without failing
// The preflight comes first, as a PROTOCOL.preflight suite with one testcase "preflight": a
// setup error is its <error> (the check, what was seen, the fix) and, since no case ran, the
// report's only non-passing testcase. Suite properties carry the MUST coverage, an interrupt and
// a target that stopped answering. Fuzz findings follow as PROTOCOL.fuzz suites (junit_fuzz.cpp).
#include <iomanip>
#include <map>
#include <set>
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

bool failed_verdict(const CaseView& c) { return c.verdict == "FAIL" || c.verdict == "WARN"; }

// "REQ-A, REQ-B [reading (gated as SHOULD)]": the requirements a failure blames, readings marked.
std::string blamed_text(const CaseView& c, const RunView& run) {
  std::string out;
  for (const auto& id : c.blamed_or_all()) {
    out += (out.empty() ? "" : ", ") + id;
    if (run.is_reading(id, c)) out += " [" + run.reading_label() + "]";
  }
  return out;
}

// The one-line message of a non-passing case: a failure names the requirements it blames.
std::string case_message(const CaseView& c, const RunView& run) {
  const std::string reason = c.reason.empty() ? c.verdict : c.reason;
  if (!failed_verdict(c)) return one_line(reason);
  const std::string blamed = blamed_text(c, run);
  return one_line(blamed.empty() ? reason : blamed + ": " + reason);
}

void requirement_lines(std::ostringstream& out, const CaseView& c, const RunView& run, const std::vector<std::string>& ids,
                       const char* what) {
  for (const auto& id : ids) {
    out << what << " " << id;
    if (auto it = run.requirement_by_id.find(id); it != run.requirement_by_id.end()) {
      const RequirementView& r = *it->second;
      out << " (" << r.level << ", " << r.spec << " " << r.section << ")";
      if (run.is_reading(id, c)) out << " [" << run.reading_label() << "]";
      out << "\n  \"" << r.text << "\"";
    } else if (run.is_reading(id, c)) {
      out << " [" << run.reading_label() << "]";
    }
    out << "\n";
  }
}

// The evidence of a FAIL/ERROR/WARN: the blamed requirements with their quoted sentences (the
// case's others apart, as not judged), the root cause and the failing step.
std::string evidence(const CaseView& c, const RunView& run, const Limits& limits) {
  std::ostringstream out;
  out << c.verdict << ": " << c.reason << "\n";
  if (failed_verdict(c)) {
    requirement_lines(out, c, run, c.blamed_or_all(), "blamed requirement");
    const std::set<std::string> blamed(c.blamed.begin(), c.blamed.end());
    std::string others;
    for (const auto& id : c.requirements) {
      if (!blamed.empty() && !blamed.count(id)) others += (others.empty() ? "" : ", ") + id;
    }
    if (!others.empty()) out << "not judged (the case stopped before checking them): " << others << "\n";
  } else {
    requirement_lines(out, c, run, c.requirements, "requirement");
  }
  if (!c.root_cause.empty()) {
    out << "root cause: " << c.root_cause;
    if (auto it = run.root_cause_by_cause.find(c.root_cause); it != run.root_cause_by_cause.end()) {
      out << " (shared by " << it->second->count << " cases)";
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


// The checklist of a protocol's preflight as lines: "[failed] paths.register: ... / fix: ...".
std::string checklist(const PreflightView& p) {
  std::ostringstream out;
  out << "preflight of " << p.protocol << ": " << (p.passed() ? "passed" : "failed") << "\n";
  for (const auto& c : p.checks) {
    out << "[" << c.status << "] " << c.check << ": " << c.detail << "\n";
    if (!c.fix.empty()) out << "    fix: " << c.fix << "\n";
  }
  return out.str();
}

// Properties every suite of the run carries: what it ran against, its coverage, what cut it short.
void run_properties(std::ostringstream& out, const RunView& run, const std::string& protocol) {
  auto property = [&out](std::string_view name, std::string_view value) {
    out << "      <property name=\"" << attr(name) << "\" value=\"" << attr(value) << "\"/>\n";
  };
  for (const auto& p : run.protocols) {
    if (p.name == protocol && !p.spec.empty()) property("spec", p.spec + (p.spec_version.empty() ? "" : " " + p.spec_version));
  }
  property("tool", "agentconform " + run.tool_version);
  property("seed", std::to_string(run.seed));
  property("target", run.target_kind + (run.target_url.empty() ? "" : " " + run.target_url));
  if (run.coverage) {
    if (run.coverage->must) property("must_coverage", tally_text(*run.coverage->must));
    if (run.coverage->readings) property("readings_coverage", tally_text(*run.coverage->readings));
    if (auto it = run.coverage->protocols.find(protocol); it != run.coverage->protocols.end()) {
      if (it->second.first) property("must_coverage:" + protocol, tally_text(*it->second.first));
      if (it->second.second) property("readings_coverage:" + protocol, tally_text(*it->second.second));
    }
  }
  if (run.is_setup_error()) property("setup_error", one_line(run.setup_error));
  if (!run.interrupted.empty()) property("interrupted", run.interrupted);
  if (run.target_down) {
    property("target_down", (run.target_down->protocol.empty() ? "" : run.target_down->protocol + ": ") + "first noticed in " +
                                run.target_down->detected_in + ", last completed " +
                                (run.target_down->last_completed.empty() ? "none" : run.target_down->last_completed));
  }
}

// One PROTOCOL.preflight suite per protocol checked, with one testcase "preflight"; a setup error
// the document records without a failed check gets a suite "preflight" of its own.
Counts write_preflight_suites(std::ostringstream& out, const RunView& run, int& next_id, const Limits& limits) {
  Counts total;
  auto suite = [&](const std::string& name, const std::string& protocol, const PreflightView* p) {
    const bool error = p ? !p->passed() : true;
    out << "  <testsuite name=\"" << attr(name) << "\" package=\"" << attr(protocol) << "\" id=\"" << next_id++
        << "\" tests=\"1\" failures=\"0\" errors=\"" << (error ? 1 : 0) << "\" skipped=\"0\" time=\"0.000\">\n    <properties>\n";
    run_properties(out, run, protocol);
    out << "    </properties>\n    <testcase name=\"preflight\" classname=\"" << attr(name) << "\" time=\"0.000\">\n";
    std::string details = p ? checklist(*p) : std::string();
    if (error) {
      const PreflightCheckView* failed = nullptr;
      if (p) {
        for (const auto& c : p->checks) {
          if (c.status == "failed") {
            failed = &c;
            break;
          }
        }
      }
      std::string message = failed ? "setup error: " + failed->check + ": " + failed->detail
                                   : "setup error: " + (run.setup_error.empty() ? std::string("the preflight failed") : run.setup_error);
      if (failed && !failed->fix.empty()) message += " (fix: " + failed->fix + ")";
      if (run.is_setup_error()) details = "no case ran: " + run.setup_error + "\n" + details;
      out << "      <error message=\"" << attr(one_line(message)) << "\" type=\"setup error\">" << text(details) << "</error>\n";
      ++total.errors;
    }
    out << "      <system-out>" << text(details);
    if (p && p->transcript && error) out << "\n" << text(transcript_text("the preflight of " + protocol, p->transcript, limits));
    out << "</system-out>\n    </testcase>\n  </testsuite>\n";
    ++total.tests;
  };
  bool failure_shown = false;
  for (const auto& p : run.preflight) {
    suite(p.protocol + ".preflight", p.protocol, &p);
    failure_shown |= !p.passed();
  }
  if (run.is_setup_error() && !failure_shown) suite("preflight", "", nullptr);
  return total;
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
  // A case the run never judged because of an interrupt is skipped, not an error of the target.
  auto skipped = [&run](const CaseView& c) { return c.verdict == "NOT_APPLICABLE" || c.verdict == "BLOCKED" || run->cut_by_interrupt(c); };
  auto count = [&](const std::vector<const CaseView*>& cases) {
    Counts n;
    for (const auto* c : cases) {
      ++n.tests;
      n.failures += c->verdict == "FAIL";
      n.skipped += skipped(*c);
      n.errors += !skipped(*c) && c->verdict != "PASS" && c->verdict != "FAIL" && c->verdict != "WARN";
      n.ms += c->duration_ms;
    }
    return n;
  };
  Counts total;
  auto add = [&total](const Counts& n) {
    total.tests += n.tests;
    total.failures += n.failures;
    total.errors += n.errors;
    total.skipped += n.skipped;
  };
  // The preflight suites come first, the fuzz suites after the conformance ones; both written
  // first to know their counts.
  int id = 0;
  std::ostringstream preflight;
  add(write_preflight_suites(preflight, *run, id, limits));
  for (const auto& [_, cases] : groups) add(count(cases));
  int fuzz_id = id + static_cast<int>(order.size());
  std::ostringstream fuzz;
  add(write_fuzz_suites(fuzz, *run, fuzz_id, limits));

  const bool timestamp_ok = schema::is_date_time(run->started_at);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"agentconform\" tests=\"" << total.tests << "\" failures=\"" << total.failures << "\" errors=\""
      << total.errors << "\" skipped=\"" << total.skipped << "\" time=\"" << seconds(run->duration_ms) << "\">\n";
  out << preflight.str();
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
    run_properties(out, *run, first.protocol);
    for (const auto* c : cases) {
      if (c->verdict == "WARN") property("warn:" + c->id, case_message(*c, *run));
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
      const std::string message = case_message(*c, *run);
      if (skipped(*c)) {
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
