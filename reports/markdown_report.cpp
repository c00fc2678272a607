// The Markdown summary, for $GITHUB_STEP_SUMMARY and pull-request comments: the gate outcome,
// conformance per protocol, the MUST requirements that failed (with links to their cases in the
// HTML report) and the regressions against the baseline; for a fuzzing run, its figures and a
// table of findings with their replay commands. Compact: every list is capped.
#include <map>
#include <set>
#include <sstream>

#include "reports/report.hpp"
#include "reports/text.hpp"

namespace ac::reports {
namespace {

std::string link(const MarkdownOptions& o, const std::string& id) {
  if (o.html_link.empty()) return "`" + md_escape(id) + "`";
  // Case ids are escaped for Markdown in the text; the fragment is made of [A-Za-z0-9._-] only.
  return "[" + md_escape(id) + "](" + o.html_link + "#case-" + anchor(id) + ")";
}

// A command as inline code when that is safe: a code span shows backslash escapes literally, so a
// command holding a backtick, a pipe (which would split the table cell) or a control character is
// written as escaped text instead.
std::string md_code(const std::string& s) {
  bool plain = !s.empty() && valid_utf8(s) == s && s.front() != ' ' && s.back() != ' ';
  for (unsigned char c : s) plain &= c != '`' && c != '|' && c >= 0x20 && c != 0x7F;
  return plain ? "`" + s + "`" : md_escape(s);
}

void write_protocols(std::ostringstream& out, const RunView& run) {
  out << "| protocol | spec | conformant | PASS | FAIL | WARN | N/A | ERROR | requirements covered |\n"
         "|---|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& p : run.protocols) {
    auto n = [&p](const char* v) { return p.counts.count(v) ? p.counts.at(v) : 0; };
    out << "| " << md_escape(p.name) << " | " << md_escape(p.spec) << (p.spec_version.empty() ? "" : " " + md_escape(p.spec_version))
        << " | " << (p.conformant ? "yes" : "**no**") << " | " << n("PASS") << " | " << n("FAIL") << " | " << n("WARN") << " | "
        << n("NOT_APPLICABLE") << " | " << n("ERROR") << " | ";
    if (p.requirements >= 0) out << p.requirements_covered << "/" << p.requirements;
    out << " |\n";
  }
  out << "\n";
}

void write_fuzz(std::ostringstream& out, const RunView& run, const MarkdownOptions& o) {
  if (!run.has_fuzz()) return;
  out << "### Fuzzing (" << run.findings.size() << (run.findings.size() == 1 ? " finding" : " findings") << ")\n\n";
  if (run.fuzz) out << md_escape(fuzz_figures(*run.fuzz)) << "\n\n";
  if (run.findings.size() < run.findings_total) {
    out << run.findings_total - run.findings.size() << " entries of the findings array are not objects and are not shown.\n\n";
  }
  if (run.findings.empty()) {
    out << "No finding.\n\n";
    return;
  }
  out << "| finding | protocol | oracle | signature | replay |\n|---|---|---|---|---|\n";
  std::size_t shown = 0;
  for (const auto& f : run.findings) {
    if (shown++ == o.max_items) break;
    const std::string label = md_escape(truncate_utf8(f.label(), 200));
    out << "| " << (o.html_link.empty() ? label : "[" + label + "](" + o.html_link + "#" + f.anchor_id() + ")") << " | "
        << md_escape(truncate_utf8(f.protocol, 100)) << " | " << md_escape(truncate_utf8(f.oracle, 100)) << " | "
        << md_escape(truncate_utf8(f.signature, 300)) << " | " << md_code(truncate_utf8(f.replay, 500)) << " |\n";
  }
  if (run.findings.size() > o.max_items) out << "\n- … and " << run.findings.size() - o.max_items << " more (see the HTML report)\n";
  out << "\n";
}

}  // namespace

std::string render_markdown(const Json& doc, const MarkdownOptions& o) {
  const auto run = view_of(doc);
  std::ostringstream out;
  out << (run->fuzz_only() ? "## agentconform fuzzing report\n\n" : "## agentconform conformance report\n\n");
  if (run->gate) {
    long long code = 0;
    if (auto it = run->gate->find("exit_code"); it != run->gate->end() && it->is_number_integer()) code = it->get<long long>();
    out << (code == 0 ? "**PASSED**" : "**FAILED**") << " (exit code " << code << "): " << md_escape(str(*run->gate, "summary"))
        << "\n\n";
  }
  out << "Target: " << md_escape(run->target_kind) << (run->target_url.empty() ? "" : " " + md_escape(run->target_url));
  if (!run->faults.empty()) {
    out << " (lobby faults:";
    for (const auto& f : run->faults) out << " " << md_escape(f);
    out << ")";
  }
  out << " · seed " << run->seed;
  if (!run->fuzz_only()) out << " · " << run->cases.size() << " cases";
  out << " · " << md_escape(format_ms(run->duration_ms)) << " · agentconform " << md_escape(run->tool_version) << "\n\n";

  // A fuzzing run without conformance cases has no protocol table (it would be empty).
  if (!run->fuzz_only()) write_protocols(out, *run);
  write_fuzz(out, *run, o);

  // Failed MUST requirements: from the roll-up when present, otherwise from the cases.
  std::map<std::string, std::set<std::string>> failed_musts;  // requirement -> failing cases
  for (const auto& c : run->cases) {
    if (c.verdict != "FAIL") continue;
    for (const auto& r : c.requirements) {
      auto it = run->requirement_by_id.find(r);
      const std::string level = it != run->requirement_by_id.end() ? it->second->level : c.level;
      if (level == "MUST") failed_musts[r].insert(c.id);
    }
    if (c.requirements.empty() && c.level == "MUST") failed_musts["(no requirement id)"].insert(c.id);
  }
  if (!failed_musts.empty()) {
    out << "### Failed MUST requirements (" << failed_musts.size() << ")\n\n";
    std::size_t shown = 0;
    for (const auto& [req, cases] : failed_musts) {
      if (shown++ == o.max_items) {
        out << "- … and " << failed_musts.size() - o.max_items << " more (see the HTML report)\n";
        break;
      }
      out << "- **" << md_escape(req) << "**";
      if (auto it = run->requirement_by_id.find(req); it != run->requirement_by_id.end()) {
        out << " (" << md_escape(it->second->spec + " " + it->second->section) << "): “"
            << md_escape(truncate_utf8(it->second->text, 300)) << "”";
      }
      out << " — ";
      std::size_t k = 0;
      for (const auto& id : cases) out << (k++ ? ", " : "") << link(o, id);
      out << "\n";
    }
    out << "\n";
  }

  if (run->gate) {
    const std::pair<const char*, const char*> lists[] = {{"new_failures", "New failures"},
                                                         {"expired", "Failures whose baseline entry expired"},
                                                         {"fixed", "Fixed but still baselined (run with --update-baseline)"},
                                                         {"errors", "Errors"}};
    bool heading = false;
    for (const auto& [key, title] : lists) {
      auto it = run->gate->find(key);
      if (it == run->gate->end() || !it->is_array() || it->empty()) continue;
      if (!heading) {
        auto b = run->gate->find("baseline");
        out << (b != run->gate->end() && b->is_string() ? "### Regressions against the baseline\n\n" : "### Gated cases\n\n");
        heading = true;
      }
      out << "**" << title << "** (" << it->size() << ")\n\n";
      std::size_t shown = 0;
      for (const Json& c : *it) {
        if (shown++ == o.max_items) {
          out << "- … and " << it->size() - o.max_items << " more\n";
          break;
        }
        out << "- " << link(o, str(c, "id")) << " " << md_escape(str(c, "verdict"));
        if (const std::string note = str(c, "note"); !note.empty()) out << ": " << md_escape(truncate_utf8(note, 300));
        out << "\n";
      }
      out << "\n";
    }
    if (auto it = run->gate->find("baselined"); it != run->gate->end() && it->is_array() && !it->empty()) {
      out << it->size() << " baselined failures tolerated.\n";
    }
  }
  return out.str();
}

}  // namespace ac::reports
