// The parts of the HTML report that say how the run went besides its verdicts (issue 11):
// banners for a setup error, an interrupt and a target that stopped answering; the preflight
// checklist; MUST coverage with the untested MUSTs and why; root-cause groups and N/A cases
// grouped by reason. A setup error must not look like a pass nor like a FAIL: its banner names
// the check that failed, what was seen and the fix, and the preflight's statuses have their own
// styles (no verdict badge). Every string is escaped (it may come from the target).
#include <set>

#include "reports/html_parts.hpp"
#include "reports/text.hpp"

namespace ac::reports::html {
namespace {

std::string h(std::string_view s) { return html_escape(s); }

constexpr std::size_t kLinksPerGroup = 200;  // case links listed per group; the rest are counted

std::string plural(long long n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string suffix(std::size_t source) { return source == 0 ? std::string() : "-s" + std::to_string(source); }

// The protocol all the cases of a group share ("" when they differ or are unknown): such a row
// takes part in the protocol filter.
std::string protocol_of(const RunView& run, const std::vector<std::string>& ids) {
  std::string p;
  for (const auto& id : ids) {
    auto it = run.case_by_id.find(id);
    if (it == run.case_by_id.end()) return {};
    if (!p.empty() && p != it->second->protocol) return {};
    p = it->second->protocol;
  }
  return p;
}

void write_case_links(std::ostringstream& out, const RunView& run, std::size_t source, const std::vector<std::string>& ids) {
  std::size_t shown = 0;
  for (const auto& id : ids) {
    if (shown == kLinksPerGroup) {
      out << " <span class=\"meta\">&#8230; and " << ids.size() - shown << " more</span>";
      break;
    }
    out << (shown++ ? ", " : "") << case_link(run, source, id);
  }
}

std::string check_status(const std::string& status) {
  std::string cls = "other";
  for (const char* known : {"passed", "failed", "skipped", "noted"}) {
    if (status == known) cls = known;
  }
  return "<span class=\"pf pf-" + cls + "\">" + h(status.empty() ? "unknown" : status) + "</span>";
}

}  // namespace

void write_banners(std::ostringstream& out, const RunView& run, std::size_t source) {
  if (run.is_setup_error()) {
    std::string protocol;
    const PreflightCheckView* failed = run.failed_check(&protocol);
    out << "<div class=\"banner setup-error\" id=\"setup-error" << suffix(source)
        << "\"><b>Setup error: no case ran.</b> The target is not set up as the protocol needs, so nothing was judged "
           "against the spec. Fix the setting below and run again.";
    if (failed) {
      out << "<dl><dt>failed check</dt><dd><code>" << h(failed->check) << "</code>";
      if (!protocol.empty()) out << " <span class=\"meta\">(" << h(protocol) << ")</span>";
      out << "</dd><dt>seen</dt><dd><pre>" << h(failed->detail) << "</pre></dd>";
      if (!failed->fix.empty()) out << "<dt>fix</dt><dd><pre class=\"fix\">" << h(failed->fix) << "</pre></dd>";
      out << "</dl>";
    } else {
      out << "<pre>" << h(run.setup_error) << "</pre>";
    }
    out << "</div>\n";
  }
  if (!run.interrupted.empty()) {
    const std::size_t not_run = run.not_run_count();
    out << "<div class=\"banner interrupted\" id=\"interrupted" << suffix(source) << "\"><b>Interrupted by " << h(run.interrupted)
        << ".</b> This report covers the " << plural(static_cast<long long>(run.cases.size() - not_run), "case", "cases")
        << " that ran";
    if (not_run > 0) out << "; " << plural(static_cast<long long>(not_run), "case was", "cases were") << " not run (ERROR, &#8220;not run&#8221;)";
    out << ".</div>\n";
  }
  if (run.target_down) {
    const TargetDownView& d = *run.target_down;
    out << "<div class=\"banner target-down\" id=\"target-down" << suffix(source) << "\"><b>The target stopped answering</b>";
    if (!d.protocol.empty()) out << " (" << h(d.protocol) << ")";
    out << ": first noticed during " << (d.detected_in.empty() ? "an unnamed case" : case_link(run, source, d.detected_in));
    if (!d.last_completed.empty()) {
      out << "; the last case it completed: " << case_link(run, source, d.last_completed) << " (its frames are in its transcript)";
    } else {
      out << "; it completed no case before";
    }
    const std::size_t not_run = run.not_run_count();
    if (not_run > 0) out << ". " << plural(static_cast<long long>(not_run), "case was", "cases were") << " not run (ERROR)";
    out << ". Verdicts after that point say nothing about the spec.</div>\n";
  }
  if (!run.target_deaths.empty()) {
    out << "<div class=\"banner target-down\" id=\"target-deaths" << suffix(source) << "\"><b>The target died "
        << plural(static_cast<long long>(run.target_deaths.size()), "time", "times") << "</b> (--target-command restarted it; each death fails the run)<ul>";
    for (const auto& d : run.target_deaths) {
      out << "<li>" << h(d.how) << ", noticed after " << case_link(run, source, d.detected_after);
      if (d.alone) out << " (run alone: this case kills it)";
      else if (!d.culprit.empty()) out << "; culprit " << case_link(run, source, d.culprit) << " (it kills the target when run alone)";
      else out << "; no case killed it when run alone (run with --jobs 1 to find the culprit)";
      if (!d.evidence.empty()) out << "<pre>" << h(d.evidence) << "</pre>";
      out << "</li>";
    }
    out << "</ul></div>\n";
  }
}

void write_preflight(std::ostringstream& out, const RunView& run, std::size_t source, const Limits& limits) {
  if (run.preflight.empty()) return;
  bool all_passed = true;
  std::size_t checks = 0;
  for (const auto& p : run.preflight) {
    all_passed &= p.passed();
    checks += p.checks.size();
  }
  out << "<details class=\"preflight-block\" id=\"preflight" << suffix(source) << "\"" << (all_passed ? "" : " open")
      << "><summary><h3>Preflight</h3> <span class=\"meta\">"
      << (all_passed ? "passed: " : "failed: ") << plural(static_cast<long long>(checks), "check", "checks") << " of the target's setup";
  if (all_passed) out << " (click to open)";
  out << "</span></summary>\n";
  for (const auto& p : run.preflight) {
    out << "<h4>" << h(p.protocol) << " " << check_status(p.passed() ? "passed" : "failed") << "</h4>\n";
    out << "<table class=\"preflight\"><tr><th>check</th><th>status</th><th>detail</th><th>fix</th></tr>\n";
    for (const auto& c : p.checks) {
      out << "<tr class=\"pf-row pf-row-" << (c.status == "failed" ? "failed" : "other") << "\"><td><code>" << h(c.check)
          << "</code></td><td>" << check_status(c.status) << "</td><td>" << h(c.detail) << "</td><td>" << h(c.fix) << "</td></tr>\n";
    }
    if (p.checks.empty()) out << "<tr><td colspan=\"4\" class=\"meta\">no check recorded</td></tr>\n";
    out << "</table>\n";
    if (!p.passed() && p.transcript && !p.transcript->empty()) {
      out << "<details class=\"preflight-transcript\"><summary>The probes' transcript (" << p.transcript->size()
          << " entries)</summary>\n";
      write_transcript_table(out, bound_transcript(p.transcript, limits));
      out << "</details>\n";
    }
  }
  out << "</details>\n";
}

void write_coverage(std::ostringstream& out, const RunView& run, std::size_t source) {
  if (!run.coverage) return;
  const CoverageView& c = *run.coverage;
  out << "<h3 id=\"coverage" << suffix(source) << "\">MUST coverage</h3>\n<p class=\"coverage-line\">";
  if (c.must) {
    out << "<b>" << h(tally_text(*c.must)) << "</b> of the spec&#39;s MUST requirements that apply to the target were tested "
           "(a case passed, or failed on them)";
  }
  if (c.readings) {
    out << (c.must ? "; " : "") << "readings of silent or ambiguous spec text, counted apart: " << h(tally_text(*c.readings));
  }
  if (!c.side.empty()) out << " <span class=\"meta\">(" << h(c.side) << " side)</span>";
  out << ".</p>\n";
  if (!c.protocols.empty()) {
    out << "<table class=\"coverage\"><tr><th>protocol</th><th>spec MUSTs tested</th><th>readings tested</th></tr>\n";
    for (const auto& [name, t] : c.protocols) {
      out << "<tr class=\"filter-row\" data-protocol=\"" << h(name) << "\" data-text=\"" << h(name + " coverage") << "\"><td>"
          << h(name) << "</td><td class=\"num\">" << (t.first ? h(tally_text(*t.first)) : std::string()) << "</td><td class=\"num\">"
          << (t.second ? h(tally_text(*t.second)) : std::string()) << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  if (!c.untested.empty()) {
    out << "<details class=\"untested\"><summary>" << plural(static_cast<long long>(c.untested.size()), "untested MUST", "untested MUSTs")
        << ", with the reason</summary>\n<table class=\"untested\"><tr><th>requirement</th><th>protocol</th><th>why it was not "
           "tested</th></tr>\n";
    for (const auto& u : c.untested) {
      std::string text = u.id + " " + u.protocol + " " + u.reason;
      out << "<tr class=\"filter-row\" data-protocol=\"" << h(u.protocol) << "\" data-text=\"" << h(truncate_utf8(text, 4096))
          << "\"><td><b>" << h(u.id) << "</b>";
      if (auto it = run.requirement_by_id.find(u.id); it != run.requirement_by_id.end()) {
        out << "<br><span class=\"quote\">&#8220;" << h(truncate_utf8(it->second->text, 1000)) << "&#8221;</span>";
      }
      out << "</td><td>" << h(u.protocol) << "</td><td>" << h(u.reason) << "</td></tr>\n";
    }
    out << "</table>\n</details>\n";
  }
}

void write_groups(std::ostringstream& out, const RunView& run, std::size_t source) {
  auto table = [&](const std::vector<GroupView>& groups, const char* header) {
    out << "<table class=\"groups\"><tr><th>cases</th><th>" << header << "</th><th>which</th></tr>\n";
    for (const auto& g : groups) {
      const std::string protocol = protocol_of(run, g.cases);
      std::string text = g.cause;
      for (const auto& id : g.cases) text += " " + id;
      // A row of one protocol follows the protocol filter; a row spanning several is always shown.
      if (!protocol.empty()) {
        out << "<tr class=\"filter-row\" data-protocol=\"" << h(protocol) << "\" data-text=\"" << h(truncate_utf8(text, 4096)) << "\">";
      } else {
        out << "<tr>";
      }
      out << "<td class=\"num\">" << g.count << "</td><td>" << h(g.cause.empty() ? std::string("(no reason given)") : g.cause)
          << "</td><td>";
      write_case_links(out, run, source, g.cases);
      out << "</td></tr>\n";
    }
    out << "</table>\n";
  };
  if (!run.root_causes.empty()) {
    long long failures = 0;
    for (const auto& g : run.root_causes) failures += g.count;
    out << "<h3 id=\"root-causes" << suffix(source) << "\">Root causes (" << plural(failures, "case", "cases")
        << ")</h3>\n<p class=\"meta\">Cases that share one cause (an entry point that blocked them, a capacity refusal, the "
           "target's death, or their first failing request and its answer): one fix may clear each group, so fix these first.</p>\n";
    table(run.root_causes, "shared cause");
  }
  if (!run.not_applicable.empty()) {
    long long na = 0;
    for (const auto& g : run.not_applicable) na += g.count;
    out << "<h3 id=\"not-applicable" << suffix(source) << "\">Not applicable, by reason (" << plural(na, "case", "cases")
        << ")</h3>\n<p class=\"meta\">N/A is not a pass: these cases judged nothing, and their requirements count as untested.</p>\n";
    table(run.not_applicable, "reason");
  }
}

}  // namespace ac::reports::html
