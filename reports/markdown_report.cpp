// The Markdown summary, for $GITHUB_STEP_SUMMARY and pull-request comments: first what stopped
// or cut the run (a setup error with the check that failed and its fix, an interrupt, a target
// that stopped answering), then the gate outcome, conformance and MUST coverage per protocol, the
// root causes, N/A cases by reason, the MUST requirements that failed (from the requirements each
// failure blames; readings of a silent spec listed apart) with links to their cases in the HTML
// report, and the regressions against the baseline; for a fuzzing run, its figures and a table
// of findings with their replay commands. Compact: every list is capped. A setup error shows no
// verdict table and never the word of a verdict: no case ran.
#include <algorithm>
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
  const bool coverage = run.coverage && !run.coverage->protocols.empty();
  out << "| protocol | spec | conformant | PASS | FAIL | WARN | N/A | ERROR | BLOCKED | requirements covered |"
      << (coverage ? " MUST coverage | readings tested |" : "") << "\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
      << (coverage ? "---:|---:|" : "") << "\n";
  for (const auto& p : run.protocols) {
    auto n = [&p](const char* v) { return p.counts.count(v) ? p.counts.at(v) : 0; };
    out << "| " << md_escape(p.name) << " | " << md_escape(p.spec) << (p.spec_version.empty() ? "" : " " + md_escape(p.spec_version))
        << " | " << (p.conformant ? "yes" : "**no**") << " | " << n("PASS") << " | " << n("FAIL") << " | " << n("WARN") << " | "
        << n("NOT_APPLICABLE") << " | " << n("ERROR") << " | " << n("BLOCKED") << " | ";
    if (p.requirements >= 0) out << p.requirements_covered << "/" << p.requirements;
    out << " |";
    if (coverage) {
      auto it = run.coverage->protocols.find(p.name);
      const bool known = it != run.coverage->protocols.end();
      out << " " << (known && it->second.first ? tally_text(*it->second.first) : "") << " | "
          << (known && it->second.second ? tally_text(*it->second.second) : "") << " |";
    }
    out << "\n";
  }
  out << "\n";
}

// A capped list of case links.
std::string links(const MarkdownOptions& o, const std::vector<std::string>& ids, std::size_t max) {
  std::string out;
  std::size_t k = 0;
  for (const auto& id : ids) {
    if (k == max) {
      out += " … and " + std::to_string(ids.size() - k) + " more";
      break;
    }
    out += (k++ ? ", " : "") + link(o, id);
  }
  return out;
}

// What stopped or cut the run, before anything else.
void write_banners(std::ostringstream& out, const RunView& run, const MarkdownOptions& o) {
  if (run.is_setup_error()) {
    std::string protocol;
    const PreflightCheckView* failed = run.failed_check(&protocol);
    out << "> **Setup error: no case ran.** The target is not set up as the protocol needs, so nothing was judged against the "
           "spec.\n";
    if (failed) {
      out << ">\n> - check `" << md_escape(truncate_utf8(failed->check, 200)) << "`"
          << (protocol.empty() ? "" : " (" + md_escape(protocol) + ")") << ": " << md_escape(truncate_utf8(failed->detail, 1000))
          << "\n";
      if (!failed->fix.empty()) out << "> - **fix:** " << md_escape(truncate_utf8(failed->fix, 1000)) << "\n";
    } else {
      out << ">\n> " << md_escape(truncate_utf8(run.setup_error, 1000)) << "\n";
    }
    out << "\n";
  }
  if (!run.interrupted.empty()) {
    const std::size_t not_run = run.not_run_count();
    out << "> **Interrupted by " << md_escape(run.interrupted) << ".** These reports cover the " << run.cases.size() - not_run
        << " cases that ran";
    if (not_run > 0) out << "; " << not_run << " were not run";
    out << ".\n\n";
  }
  if (run.target_down) {
    const TargetDownView& d = *run.target_down;
    out << "> **The target stopped answering**" << (d.protocol.empty() ? "" : " (" + md_escape(d.protocol) + ")")
        << ": first noticed during " << (d.detected_in.empty() ? std::string("an unnamed case") : link(o, d.detected_in));
    if (!d.last_completed.empty()) out << "; the last case it completed: " << link(o, d.last_completed);
    if (const std::size_t not_run = run.not_run_count(); not_run > 0) out << "; " << not_run << " cases were not run";
    out << ".\n\n";
  }
  if (!run.target_deaths.empty()) {
    out << "> **The target died " << run.target_deaths.size() << (run.target_deaths.size() == 1 ? " time" : " times")
        << "** (`--target-command` restarted it; each death fails the run):\n";
    for (const auto& d : run.target_deaths) {
      out << "> - " << md_escape(d.how) << ", noticed after " << link(o, d.detected_after);
      if (d.alone) out << " (run alone: this case kills it)";
      else if (!d.culprit.empty()) out << "; culprit " << link(o, d.culprit) << " (it kills the target when run alone)";
      else out << "; no case killed it when run alone (run with `--jobs 1` to find the culprit)";
      if (!d.evidence.empty()) out << ": `" << md_escape(d.evidence.substr(0, d.evidence.find('\n')).substr(0, 200)) << "`";
      out << "\n";
    }
    out << "\n";
  }
}

void write_coverage(std::ostringstream& out, const RunView& run, const MarkdownOptions& o) {
  if (!run.coverage || (!run.coverage->must && !run.coverage->readings)) return;
  const CoverageView& c = *run.coverage;
  out << "**MUST coverage:** ";
  if (c.must) out << tally_text(*c.must) << " of the spec MUSTs that apply to the target tested";
  if (c.readings) out << (c.must ? "; " : "") << "readings: " << tally_text(*c.readings);
  out << "\n\n";
  if (c.untested.empty()) return;
  // Untested MUSTs by reason, compactly; each one is listed in the HTML report.
  std::vector<std::pair<std::string, std::vector<std::string>>> by;
  std::map<std::string, std::size_t> index;  // reason -> position in `by` (first-seen order)
  for (const auto& u : c.untested) {
    auto [it, fresh] = index.emplace(u.reason, by.size());
    if (fresh) by.push_back({u.reason, {}});
    by[it->second].second.push_back(u.id);
  }
  std::stable_sort(by.begin(), by.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  out << "Untested MUSTs (" << c.untested.size() << "), by reason:\n\n";
  std::size_t shown = 0;
  for (const auto& [reason, ids] : by) {
    if (shown++ == o.max_items) {
      out << "- … and " << by.size() - o.max_items << " more reasons (see the HTML report)\n";
      break;
    }
    out << "- " << ids.size() << ": " << md_escape(truncate_utf8(reason.empty() ? "(no reason given)" : reason, 300)) << " (";
    std::size_t k = 0;
    for (const auto& id : ids) {
      if (k == 5) {
        out << ", …";
        break;
      }
      out << (k++ ? ", " : "") << md_escape(truncate_utf8(id, 200));
    }
    out << ")\n";
  }
  out << "\n";
}

void write_groups(std::ostringstream& out, const std::vector<GroupView>& groups, const char* title, const char* note,
                  const MarkdownOptions& o) {
  if (groups.empty()) return;
  long long total = 0;
  for (const auto& g : groups) total += g.count;
  out << "### " << title << " (" << total << ")\n\n";
  if (note[0] != 0) out << note << "\n\n";
  std::size_t shown = 0;
  for (const auto& g : groups) {
    if (shown++ == o.max_items) {
      out << "- … and " << groups.size() - o.max_items << " more (see the HTML report)\n";
      break;
    }
    out << "- **" << g.count << "**: " << md_escape(truncate_utf8(g.cause.empty() ? "(no reason given)" : g.cause, 300)) << " — "
        << links(o, g.cases, 10) << "\n";
  }
  out << "\n";
}

// Requirement -> failing cases, with the sentence the catalogue quotes.
void write_requirement_list(std::ostringstream& out, const RunView& run, const std::map<std::string, std::set<std::string>>& reqs,
                            const MarkdownOptions& o) {
  std::size_t shown = 0;
  for (const auto& [req, cases] : reqs) {
    if (shown++ == o.max_items) {
      out << "- … and " << reqs.size() - o.max_items << " more (see the HTML report)\n";
      break;
    }
    out << "- **" << md_escape(req) << "**";
    if (auto it = run.requirement_by_id.find(req); it != run.requirement_by_id.end()) {
      out << " (" << md_escape(it->second->spec + " " + it->second->section) << "): “" << md_escape(truncate_utf8(it->second->text, 300))
          << "”";
    }
    out << " — " << links(o, std::vector<std::string>(cases.begin(), cases.end()), 20) << "\n";
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
  write_banners(out, *run, o);
  if (run->gate) {
    long long code = 0;
    if (auto it = run->gate->find("exit_code"); it != run->gate->end() && it->is_number_integer()) code = it->get<long long>();
    // The outcome in a word; a setup error and an interrupt are not a failed conformance.
    const char* word = code == 0                 ? "PASSED"
                       : run->is_setup_error()   ? "SETUP ERROR"
                       : !run->interrupted.empty() ? "INTERRUPTED"
                       : code == 1               ? "FAILED"
                       : code == 2               ? "NOTHING TESTED"
                                                 : "ERROR";
    out << "**" << word << "** (exit code " << code << "): " << md_escape(str(*run->gate, "summary")) << "\n\n";
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

  // A setup error ran nothing: no table of zeros, which would read like a result.
  if (run->is_setup_error() && run->cases.empty() && !run->has_fuzz()) return out.str();

  // A fuzzing run without conformance cases has no protocol table (it would be empty).
  // The root causes lead: one fix there changes many verdicts below.
  write_groups(out, run->root_causes, "Root causes",
               "Cases sharing one cause (an entry point that blocked them, a capacity refusal, the target's death, or their first "
               "failing request and its answer): one fix may clear a whole group.",
               o);
  if (!run->fuzz_only()) {
    write_protocols(out, *run);
    write_coverage(out, *run, o);
  }
  write_fuzz(out, *run, o);
  write_groups(out, run->not_applicable, "Not applicable, by reason", "", o);

  // Failed MUST requirements, from the requirements each failure blames (its failing step's, or
  // the case's when the document names none); readings of a silent spec apart.
  std::map<std::string, std::set<std::string>> failed_musts, failed_readings;  // requirement -> failing cases
  for (const auto& c : run->cases) {
    if (c.verdict != "FAIL" && c.verdict != "WARN") continue;
    for (const auto& r : c.blamed_or_all()) {
      if (run->level_of(r, c) != "MUST") continue;
      if (run->is_reading(r, c)) {
        failed_readings[r].insert(c.id);
      } else if (c.verdict == "FAIL") {
        failed_musts[r].insert(c.id);
      }
    }
    if (c.blamed_or_all().empty() && c.level == "MUST") {
      if (c.reading) {
        failed_readings["(no requirement id)"].insert(c.id);
      } else if (c.verdict == "FAIL") {
        failed_musts["(no requirement id)"].insert(c.id);
      }
    }
  }
  if (!failed_musts.empty()) {
    out << "### Failed MUST requirements (" << failed_musts.size() << ")\n\n";
    write_requirement_list(out, *run, failed_musts, o);
  }
  if (!failed_readings.empty()) {
    out << "### Readings failed (" << (run->strict_readings ? "gating: --strict-readings" : "not gating by default") << ") ("
        << failed_readings.size() << ")\n\n"
        << "Requirements that are agentconform's reading of a silent or ambiguous spec (docs/spec-readings.md)"
        << (run->strict_readings ? ", gated as the MUST they read.\n\n" : ": gated as SHOULD unless --strict-readings.\n\n");
    write_requirement_list(out, *run, failed_readings, o);
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
