// The "Fuzzing" section of the HTML report (agentconform fuzz): the run's figures, then each
// finding with its oracle, signature, detail, replay command, minimized steps and transcript.
// Findings are <details class="finding"> carrying data-protocol and data-text, so the template's
// script filters them by protocol and text like cases. Every string is escaped: details, steps
// and transcripts hold whatever the target sent, and the fuzzer sends hostile bytes on purpose.
#include <cstdio>

#include "reports/html_parts.hpp"
#include "reports/text.hpp"

namespace ac::reports::html {
namespace {

std::string h(std::string_view s) { return html_escape(s); }

std::string prefix(std::size_t source) { return source == 0 ? std::string() : "s" + std::to_string(source) + "-"; }

void figure(std::ostringstream& head, std::ostringstream& row, const char* name, const std::string& value) {
  head << "<th>" << name << "</th>";
  row << "<td data-figure=\"" << name << "\">" << h(value) << "</td>";
}

void write_figures(std::ostringstream& out, const RunView& run) {
  std::ostringstream head, row;
  if (run.fuzz) {
    const FuzzView& f = *run.fuzz;
    if (!f.protocol.empty()) figure(head, row, "protocol", f.protocol);
    if (f.seed) figure(head, row, "seed", std::to_string(*f.seed));
    if (f.sessions) figure(head, row, "sessions", std::to_string(*f.sessions));
    if (f.frames) figure(head, row, "frames", std::to_string(*f.frames));
    if (f.seconds) figure(head, row, "duration", format_ms(std::max(0.0, *f.seconds) * 1000));
    if (f.frames_per_second) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.1f", std::max(0.0, std::min(*f.frames_per_second, 1e15)));
      figure(head, row, "frames/s", buf);
    }
    if (!f.families.empty()) {
      std::string list;
      for (const auto& x : f.families) list += (list.empty() ? "" : ", ") + x;
      figure(head, row, "families", list);
    }
    if (!f.target_kind.empty() || !f.target_url.empty()) {
      std::string target = f.target_kind + (f.target_url.empty() ? "" : " " + f.target_url);
      if (!f.faults.empty()) {
        target += " (lobby faults:";
        for (const auto& x : f.faults) target += " " + x;
        target += ")";
      }
      figure(head, row, "target", target);
    }
  }
  figure(head, row, "findings", std::to_string(run.findings.size()));
  out << "<table class=\"fuzz-figures\"><tr>" << head.str() << "</tr>\n<tr>" << row.str() << "</tr></table>\n";
  if (!run.fuzz) out << "<p class=\"meta\">The results file carries findings but no fuzz figures.</p>\n";
  if (run.findings.size() < run.findings_total) {
    out << "<p class=\"truncated\">" << run.findings_total - run.findings.size()
        << " entries of the findings array are not objects and are not shown</p>\n";
  }
}

void write_steps(std::ostringstream& out, const FindingView& f, const Limits& limits) {
  const BoundedSteps steps = bound_fuzz_steps(f.steps, limits);
  out << "<h4>Minimized steps (" << steps.total_steps << ")";
  if (f.original_steps) out << " <span class=\"meta\">from " << *f.original_steps << " generated</span>";
  out << "</h4>\n";
  if (steps.total_steps == 0) {
    out << "<p class=\"meta\">" << (f.steps ? "empty" : "the results file carries no steps for this finding") << "</p>\n";
    return;
  }
  out << "<table class=\"fuzz-steps\"><colgroup><col class=\"n\"><col class=\"ch\"><col class=\"action\"><col></colgroup>"
         "<tr><th>#</th><th>conn</th><th>action</th><th>payload</th></tr>\n";
  std::size_t n = 0;
  for (const auto& s : steps.steps) {
    out << "<tr class=\"fuzz-step\"><td>" << ++n << "</td><td>" << h(s.conn) << "</td><td>" << h(s.action) << "</td><td>";
    for (const auto& p : s.parts) {
      out << "<div class=\"part\"><span class=\"part-label\">" << h(p.label) << "</span><pre>" << h(p.text) << "</pre>";
      if (p.cut) out << "<span class=\"truncated\">cut for this report</span>";
      out << "</div>";
    }
    out << "</td></tr>\n";
  }
  out << "</table>\n";
  if (!steps.note.empty()) out << "<p class=\"truncated\">" << h(steps.note) << "</p>\n";
}

void write_finding(std::ostringstream& out, const FindingView& f, std::size_t source, const Limits& limits) {
  std::string search = f.label() + " " + f.protocol + " " + f.oracle + " " + f.signature + " " + f.detail;
  for (const auto& m : f.mutations) search += " " + m;
  out << "<details class=\"finding o-" << (known_oracle(f.oracle) ? f.oracle : std::string("other")) << "\" id=\""
      << finding_anchor(source, f) << "\" data-protocol=\"" << h(f.protocol) << "\" data-oracle=\"" << h(f.oracle)
      << "\" data-text=\"" << h(truncate_utf8(search, 4096)) << "\" open>\n<summary><span class=\"badge b-FAIL\">"
      << h(f.oracle.empty() ? "finding" : truncate_utf8(f.oracle, 64)) << "</span><span class=\"case-id\">" << h(f.label())
      << "</span><span class=\"signature\">" << h(truncate_utf8(f.signature, 1024)) << "</span><span class=\"tag\">"
      << h(f.protocol) << "</span></summary>\n<div class=\"case-body\">\n";
  out << "<p class=\"meta\">";
  if (f.seed) out << "<span>seed " << *f.seed << "</span>";
  if (f.iteration) out << "<span>session " << *f.iteration << "</span>";
  if (f.original_steps) out << "<span>" << *f.original_steps << " steps before minimization</span>";
  out << "</p>\n";
  bool cut = false;
  const std::string detail = truncate_utf8(f.detail, limits.failure_text_bytes, &cut);
  out << "<div class=\"failure\"><b>Detail</b><pre class=\"detail\">" << h(detail) << "</pre>";
  if (cut) out << "<span class=\"truncated\">" << f.detail.size() - detail.size() << " more bytes not shown</span>";
  out << "</div>\n";
  if (!f.mutations.empty()) {
    out << "<p><b>Mutations:</b></p><ul class=\"mutations\">";
    for (std::size_t i = 0; i < f.mutations.size(); ++i) {
      if (i == 50) {
        out << "<li>&#8230; " << f.mutations.size() - i << " more</li>";
        break;
      }
      out << "<li>" << h(truncate_utf8(f.mutations[i], 1024)) << "</li>";
    }
    out << "</ul>\n";
  }
  if (!f.replay.empty() || !f.reproducer_file.empty()) {
    out << "<p><b>Replay</b>";
    if (!f.reproducer_file.empty()) out << " <span class=\"meta\">(reproducer " << h(truncate_utf8(f.reproducer_file, 4096)) << ")</span>";
    out << "</p>\n";
    if (!f.replay.empty()) out << "<pre class=\"replay\">" << h(truncate_utf8(f.replay, 4096)) << "</pre>\n";
  }
  write_steps(out, f, limits);
  const std::size_t entries = f.transcript ? f.transcript->size() : 0;
  if (entries > 0) {
    out << "<h4>Transcript (" << entries << " entries)</h4>\n";
    write_transcript_table(out, bound_transcript(f.transcript, limits));
  }
  out << "</div>\n</details>\n";
}

}  // namespace

std::string finding_anchor(std::size_t source, const FindingView& f) { return prefix(source) + f.anchor_id(); }

void write_fuzz(std::ostringstream& out, const RunView& run, std::size_t source, const Limits& limits) {
  if (!run.has_fuzz()) return;
  out << "<h3 id=\"" << prefix(source) << "fuzzing\">Fuzzing</h3>\n";
  write_figures(out, run);
  if (run.findings.empty()) {
    out << "<p class=\"meta\">no finding</p>\n";
    return;
  }
  std::size_t shown = 0;
  for (const auto& f : run.findings) {
    if (shown++ == limits.findings) {
      out << "<p class=\"truncated\">" << run.findings.size() - limits.findings
          << " more findings not shown (the JSON results file has them all)</p>\n";
      break;
    }
    write_finding(out, f, source, limits);
  }
}

}  // namespace ac::reports::html
