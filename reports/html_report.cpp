// The HTML report: one self-contained file from reports/templates/report.html (embedded at build
// time). Everything is rendered here as static markup, so the report reads without script; the
// template's one script only filters (verdict, protocol, suite, text) and counts.
// Every string from a results document is escaped with html_escape (it may come from a hostile
// target), and the Content-Security-Policy admits only the template's script, by hash.
#include <openssl/evp.h>

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "harness/crypto/base64.hpp"
#include "reports/html_parts.hpp"
#include "reports/report.hpp"
#include "reports/text.hpp"

namespace ac::reports {

extern const std::string_view kReportTemplate;  // generated from templates/report.html

namespace {

std::string h(std::string_view s) { return html_escape(s); }

// The CSS class suffix of a verdict or requirement status (unknown values share one style).
std::string css(const std::string& verdict) {
  for (const char* known : {"PASS", "FAIL", "WARN", "ERROR", "BLOCKED", "UNTESTED"}) {
    if (verdict == known) return verdict;
  }
  return verdict == "NOT_APPLICABLE" ? "NA" : "other";
}

}  // namespace

std::string html::badge(const std::string& verdict) {
  return "<span class=\"badge b-" + css(verdict) + "\">" +
         h(verdict == "NOT_APPLICABLE" ? "N/A" : verdict.empty() ? "none" : verdict) + "</span>";
}

std::string html::case_anchor(std::size_t source, std::string_view id) {
  return (source == 0 ? std::string("case-") : "s" + std::to_string(source) + "-case-") + anchor(id);
}

std::string html::case_link(const RunView& run, std::size_t source, const std::string& id) {
  if (!run.case_by_id.count(id)) return "<span class=\"case-id\">" + h(id) + "</span>";
  return "<a href=\"#" + case_anchor(source, id) + "\">" + h(id) + "</a>";
}

namespace {

using html::badge;
using html::case_anchor;

std::string fixed1(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", d);
  return buf;
}

std::string sha256_base64(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &n, EVP_sha256(), nullptr) != 1) return {};
  return crypto::base64_encode(std::string_view(reinterpret_cast<const char*>(digest), n));
}

// Replaces {{NAME}} placeholders of the template in one pass; values are never rescanned.
std::string fill(std::string_view tpl, const std::map<std::string, std::string>& values) {
  std::string out;
  out.reserve(tpl.size() + 1024);
  std::size_t i = 0;
  while (i < tpl.size()) {
    const std::size_t open = tpl.find("{{", i);
    if (open == std::string_view::npos) break;
    const std::size_t close = tpl.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out.append(tpl.substr(i, open - i));
    const std::string name(tpl.substr(open + 2, close - open - 2));
    auto it = values.find(name);
    if (it != values.end()) {
      out += it->second;
    } else {
      out.append(tpl.substr(open, close + 2 - open));
    }
    i = close + 2;
  }
  out.append(tpl.substr(std::min(i, tpl.size())));
  return out;
}

// The gate category of each case, from the document's "gate" member.
std::map<std::string, std::pair<std::string, bool>> gate_tags(const RunView& run) {
  std::map<std::string, std::pair<std::string, bool>> tags;  // id -> (label, gated)
  if (!run.gate) return tags;
  const std::pair<const char*, std::pair<const char*, bool>> lists[] = {
      {"new_failures", {"new failure", true}}, {"expired", {"baseline expired", true}},
      {"fixed", {"fixed: update the baseline", true}}, {"baselined", {"baselined", false}},
      {"errors", {"error", true}}};
  for (const auto& [key, label] : lists) {
    auto it = run.gate->find(key);
    if (it == run.gate->end() || !it->is_array()) continue;
    for (const Json& c : *it) tags[str(c, "id")] = {label.first, label.second};
  }
  return tags;
}

void write_meta(std::ostringstream& out, const RunView& run) {
  out << "<p class=\"meta\"><span>agentconform " << h(run.tool_version) << "</span><span>target: " << h(run.target_kind);
  if (!run.target_url.empty()) out << " " << h(run.target_url);
  out << "</span>";
  if (!run.faults.empty()) {
    out << "<span>lobby faults: ";
    for (std::size_t i = 0; i < run.faults.size(); ++i) out << (i ? ", " : "") << h(run.faults[i]);
    out << "</span>";
  }
  out << "<span>seed " << run.seed << "</span><span>started " << h(run.started_at) << "</span><span>duration "
      << h(format_ms(run.duration_ms)) << "</span>";
  if (!run.fuzz_only()) out << "<span>" << run.cases.size() << " cases</span>";
  if (run.has_fuzz()) out << "<span>" << run.findings.size() << (run.findings.size() == 1 ? " fuzz finding" : " fuzz findings") << "</span>";
  out << "</p>\n";
}

void write_gate(std::ostringstream& out, const RunView& run, std::size_t source) {
  if (!run.gate) return;
  const Json& g = *run.gate;
  long long code = 0;
  if (auto it = g.find("exit_code"); it != g.end() && it->is_number_integer()) code = it->get<long long>();
  out << "<div class=\"gate " << (code == 0 ? "ok" : "bad") << "\" id=\"gate" << (source ? std::to_string(source) : "")
      << "\"><b>exit code " << code << "</b> &#8212; " << h(str(g, "summary"));
  if (const std::string b = str(g, "baseline"); !b.empty()) out << " <span class=\"meta\">(baseline " << h(b) << ")</span>";
  const std::pair<const char*, const char*> lists[] = {{"new_failures", "new failure"}, {"expired", "baseline entry expired"},
                                                       {"fixed", "fixed, still in the baseline"}, {"errors", "error"},
                                                       {"baselined", "baselined (tolerated)"}};
  out << "<ul>";
  for (const auto& [key, label] : lists) {
    auto it = g.find(key);
    if (it == g.end() || !it->is_array()) continue;
    for (const Json& c : *it) {
      const std::string id = str(c, "id");
      out << "<li>" << h(label) << ": <a href=\"#" << case_anchor(source, id) << "\">" << h(id) << "</a> " << badge(str(c, "verdict"));
      if (const std::string note = str(c, "note"); !note.empty()) out << " <span class=\"meta\">" << h(note) << "</span>";
      out << "</li>";
    }
  }
  out << "</ul></div>\n";
}

void write_summary(std::ostringstream& out, const RunView& run) {
  out << "<h3>Summary per protocol and suite</h3>\n<table class=\"summary\"><tr><th>protocol</th><th>suite</th><th>cases</th>";
  for (const auto& v : verdict_order()) out << "<th>" << badge(v) << "</th>";
  out << "<th>conformant</th><th>requirements covered</th></tr>\n";
  for (const auto& p : run.protocols) {
    int total = 0;
    for (const auto& [_, n] : p.counts) total += n;
    out << "<tr class=\"filter-row\" data-protocol=\"" << h(p.name) << "\" data-text=\"" << h(p.name + " " + p.spec) << "\"><th>"
        << h(p.name) << "<br><span class=\"meta\">" << h(p.spec) << (p.spec_version.empty() ? "" : " " + h(p.spec_version))
        << "</span></th><th>all</th><td class=\"num\">" << total << "</td>";
    for (const auto& v : verdict_order()) out << "<td class=\"num\">" << (p.counts.count(v) ? p.counts.at(v) : 0) << "</td>";
    out << "<td>" << (p.conformant ? "<span class=\"badge b-PASS\">yes</span>" : "<span class=\"badge b-FAIL\">no</span>")
        << "</td><td class=\"num\">";
    if (p.requirements >= 0) out << p.requirements_covered << " / " << p.requirements;
    out << "</td></tr>\n";
    for (const auto& [suite, counts] : p.by_suite) {
      int n = 0;
      for (const auto& [_, k] : counts) n += k;
      out << "<tr class=\"filter-row\" data-protocol=\"" << h(p.name) << "\" data-suite=\"" << h(suite) << "\" data-text=\""
          << h(p.name + " " + suite) << "\"><td></td><td>" << h(suite) << "</td><td class=\"num\">" << n << "</td>";
      for (const auto& v : verdict_order()) out << "<td class=\"num\">" << (counts.count(v) ? counts.at(v) : 0) << "</td>";
      out << "<td></td><td></td></tr>\n";
    }
  }
  out << "</table>\n";
  out << "<h3>By requirement level</h3>\n<table class=\"levels\"><tr><th>protocol</th><th>level</th>";
  for (const auto& v : verdict_order()) out << "<th>" << badge(v) << "</th>";
  out << "</tr>\n";
  for (const auto& p : run.protocols) {
    for (const auto& [level, counts] : p.by_level) {
      out << "<tr class=\"filter-row\" data-protocol=\"" << h(p.name) << "\" data-text=\"" << h(p.name + " " + level) << "\"><td>"
          << h(p.name) << "</td><td>" << h(level) << "</td>";
      for (const auto& v : verdict_order()) out << "<td class=\"num\">" << (counts.count(v) ? counts.at(v) : 0) << "</td>";
      out << "</tr>\n";
    }
  }
  out << "</table>\n";
}

void write_matrix(std::ostringstream& out, const RunView& run, std::size_t source) {
  if (run.requirements.empty()) {
    out << "<h3>Requirement coverage</h3>\n<p class=\"meta\">The results file carries no requirement catalogue.</p>\n";
    return;
  }
  std::map<std::string, int> by_status;
  for (const auto& r : run.requirements) by_status[r.status]++;
  out << "<details class=\"matrix-block\"><summary><h3>Requirement coverage</h3> <span class=\"meta\">"
      << run.requirements.size() << " requirements:";
  for (const auto& [status, n] : by_status) out << " " << badge(status) << " " << n;
  out << " (requirement &#8594; cases &#8594; verdict; click to open)</span></summary>\n";
  out << "<table class=\"matrix\"><tr><th>requirement</th><th>level</th><th>section</th><th>status</th><th>cases</th></tr>\n";
  for (const auto& r : run.requirements) {
    std::string search = r.id + " " + r.protocol + " " + r.section + " " + r.text;
    for (const auto& [id, _] : r.cases) search += " " + id;
    out << "<tr class=\"filter-row req-row\" data-protocol=\"" << h(r.protocol) << "\" data-status=\"" << h(r.status)
        << "\" data-text=\"" << h(search) << "\"><td><b>" << h(r.id) << "</b><br><span class=\"quote\">&#8220;" << h(r.text)
        << "&#8221;</span></td><td>" << h(r.level) << (r.is_reading() ? " <span class=\"tag reading\">reading</span>" : "")
        << "</td><td>" << h(r.spec) << " " << h(r.section) << "</td><td>"
        << badge(r.status) << "</td><td>";
    if (r.cases.empty()) out << "<span class=\"meta\">no case</span>";
    for (const auto& [id, verdict] : r.cases) {
      out << "<a href=\"#" << case_anchor(source, id) << "\">" << h(id) << "</a> " << badge(verdict) << "<br>";
    }
    out << "</td></tr>\n";
  }
  out << "</table>\n</details>\n";
}

}  // namespace

std::size_t html::write_transcript_table(std::ostringstream& out, const BoundedTranscript& t) {
  out << "<p class=\"legend meta\"><span class=\"out\">&#8594; harness to target</span><span class=\"in\">&#8592; target to "
         "harness</span><span class=\"note\">&#183; harness note</span></p>\n"
         "<table class=\"transcript\"><colgroup><col class=\"t\"><col class=\"ch\"><col class=\"dir\"><col class=\"kind\">"
         "<col class=\"code\"><col></colgroup><tr><th>t (ms)</th><th>channel</th><th></th><th>kind</th><th>code</th><th>data</th></tr>\n";
  std::size_t bytes = 0;
  for (const auto& e : t.entries) {
    const std::string dir = e.direction == "out" ? "out" : e.direction == "in" ? "in" : "note";
    const char* arrow = dir == "out" ? "&#8594;" : dir == "in" ? "&#8592;" : "&#183;";
    out << "<tr class=\"dir-" << dir << "\"><td>" << fixed1(e.t_ms) << "</td><td>" << h(e.channel) << "</td><td>" << arrow
        << "</td><td>" << h(e.kind) << "</td><td>" << (e.code ? std::to_string(*e.code) : std::string()) << "</td><td><pre>"
        << h(e.data) << "</pre>";
    if (e.truncated) out << "<span class=\"truncated\">truncated by the harness</span>";
    if (e.invalid_utf8) out << "<span class=\"truncated\">invalid UTF-8 replaced</span>";
    out << "</td></tr>\n";
    bytes += e.data.size();
  }
  out << "</table>\n";
  if (!t.note.empty()) out << "<p class=\"truncated\">" << h(t.note) << "</p>\n";
  return bytes;
}

namespace {

void write_transcript(std::ostringstream& out, const CaseView& c, const Limits& limits, std::size_t& budget) {
  const bool failing_case = c.verdict != "PASS" && c.verdict != "NOT_APPLICABLE";
  const std::size_t entries = c.transcript ? c.transcript->size() : 0;
  out << "<h4>Transcript (" << entries << " entries)</h4>\n";
  if (entries == 0) {
    out << "<p class=\"meta\">empty</p>\n";
    return;
  }
  if (!failing_case && budget == 0) {
    out << "<p class=\"truncated\">transcript omitted: the report's size budget for passing cases is spent (the complete "
           "transcript is in the JSON results file)</p>\n";
    return;
  }
  const std::size_t bytes = html::write_transcript_table(out, bound_transcript(c.transcript, limits));
  if (!failing_case) budget = bytes >= budget ? 0 : budget - bytes;
}

// The requirements of a case with level, section and quoted sentence; readings marked as such.
void write_requirements(std::ostringstream& out, const std::vector<std::string>& ids, const CaseView& c, const RunView& run,
                        const char* css_class) {
  out << "<ul class=\"" << css_class << "\">";
  for (const auto& id : ids) {
    out << "<li><b>" << h(id) << "</b>";
    if (auto it = run.requirement_by_id.find(id); it != run.requirement_by_id.end()) {
      const RequirementView& r = *it->second;
      out << " " << h(r.level) << ", " << h(r.spec) << " " << h(r.section) << " &#8212; <span class=\"quote\">&#8220;" << h(r.text)
          << "&#8221;</span>";
    }
    if (run.is_reading(id, c)) out << " <span class=\"tag reading\">" << h(run.reading_label()) << "</span>";
    out << "</li>";
  }
  out << "</ul>\n";
}

void write_case(std::ostringstream& out, const CaseView& c, const RunView& run, std::size_t source, const Limits& limits,
                const std::map<std::string, std::pair<std::string, bool>>& tags, std::size_t& budget) {
  std::string search = c.id + " " + c.title + " " + c.reason + " " + c.protocol + " " + c.suite + " " + c.level + " " + c.description;
  for (const auto& r : c.requirements) search += " " + r;
  for (const auto& t : c.tags) search += " " + t;
  search += " " + c.root_cause + " " + c.na_cause;
  const bool reading = c.reading && (c.verdict == "FAIL" || c.verdict == "WARN");
  if (reading) search += " reading";
  const bool open = c.verdict == "FAIL" || c.verdict == "ERROR";
  out << "<details class=\"case v-" << css(c.verdict) << "\" id=\"" << case_anchor(source, c.id) << "\" data-verdict=\""
      << h(c.verdict) << "\" data-protocol=\"" << h(c.protocol) << "\" data-suite=\"" << h(c.suite) << "\" data-text=\""
      << h(truncate_utf8(search, 4096)) << "\"" << (open ? " open" : "") << ">\n<summary>" << badge(c.verdict)
      << "<span class=\"case-id\">" << h(c.id) << "</span>" << h(c.title) << "<span class=\"tag\">" << h(c.protocol)
      << " &#183; " << h(c.suite) << " &#183; " << h(c.level) << " &#183; " << h(format_ms(c.duration_ms)) << "</span>";
  if (auto it = tags.find(c.id); it != tags.end()) {
    out << "<span class=\"tag" << (it->second.second ? " gated" : "") << "\">" << h(it->second.first) << "</span>";
  }
  if (reading) out << "<span class=\"tag reading\">" << h(run.reading_label()) << "</span>";
  out << "</summary>\n<div class=\"case-body\">\n";
  if (!c.reason.empty()) out << "<p><b>Reason:</b> " << h(c.reason) << "</p>\n";
  out << "<p class=\"meta\"><span>file " << h(c.file) << "</span><span>role " << h(c.role) << "</span><span>started "
      << h(c.started_at) << "</span>";
  if (!c.tags.empty()) {
    out << "<span>tags ";
    for (std::size_t i = 0; i < c.tags.size(); ++i) out << (i ? ", " : "") << h(c.tags[i]);
    out << "</span>";
  }
  out << "</p>\n";
  // A FAIL/WARN blames the requirements its failing step checks; the case's others were not
  // reached and are listed apart, so nobody reads them as violated.
  const bool failed = c.verdict == "FAIL" || c.verdict == "WARN";
  const auto& blamed = failed ? c.blamed_or_all() : c.requirements;
  if (!blamed.empty()) {
    if (failed) out << "<p class=\"blamed-title\"><b>" << (blamed.size() == 1 ? "Blamed requirement" : "Blamed requirements") << "</b></p>\n";
    write_requirements(out, blamed, c, run, failed ? "reqs blamed" : "reqs");
  }
  if (failed && !c.blamed.empty()) {
    const std::set<std::string> blamed_set(c.blamed.begin(), c.blamed.end());  // a hand-edited file may list many
    std::vector<std::string> others;
    for (const auto& id : c.requirements) {
      if (!blamed_set.count(id)) others.push_back(id);
    }
    if (!others.empty()) {
      out << "<p class=\"meta\">Also covered by this case, not judged here (the case stopped before checking them):</p>\n";
      write_requirements(out, others, c, run, "reqs not-judged");
    }
  }
  if (!c.root_cause.empty()) {
    out << "<p class=\"root-cause\"><b>Root cause:</b> " << h(c.root_cause);
    if (auto it = run.root_cause_by_cause.find(c.root_cause); it != run.root_cause_by_cause.end()) {
      out << " <a href=\"#root-causes" << (source ? "-s" + std::to_string(source) : std::string()) << "\">shared by "
          << it->second->count << " cases</a>";
    }
    out << "</p>\n";
  }
  if (!c.blocked_by.empty()) {
    out << "<p class=\"root-cause\"><b>Blocked by:</b> " << h(c.blocked_by)
        << " failed at an entry point this case needs (see the preflight); the case judged nothing</p>\n";
  }
  if (!c.capacity.empty()) out << "<p class=\"root-cause\"><b>Target capacity:</b> " << h(c.capacity) << "</p>\n";
  if (c.order_dependent) {
    std::string before;
    for (const auto& id : c.ran_before) before += (before.empty() ? "" : ", ") + id;
    out << "<p class=\"root-cause\"><b>Order-dependent:</b> it failed in the run, and passed when run again alone; cases before it on that target: "
        << h(before.empty() ? std::string("none") : before) << "</p>\n";
  }
  if (!c.na_cause.empty() && c.na_cause != c.reason) out << "<p><b>N/A group:</b> " << h(c.na_cause) << "</p>\n";
  if (!c.description.empty()) out << "<p class=\"description\">" << h(c.description) << "</p>\n";
  if (c.steps && !c.steps->empty()) {
    // The failing step's top-level index (1-based) from its path "3" or "4.repeat[2].1".
    std::size_t failed_index = 0;
    if (c.failed) {
      for (char ch : c.failed->path) {
        if (ch < '0' || ch > '9') break;
        failed_index = failed_index * 10 + static_cast<std::size_t>(ch - '0');
        if (failed_index > 1000000) break;
      }
    }
    out << "<details class=\"steps\"" << (c.failed ? " open" : "") << "><summary>Steps (" << c.steps->size()
        << ")</summary><ol class=\"steps\">";
    std::size_t i = 0;
    for (const Json& step : *c.steps) {
      ++i;
      out << "<li class=\"step" << (i == failed_index ? " failed-step" : "") << "\"><code>"
          << h(truncate_utf8(step.dump(-1, ' ', false, Json::error_handler_t::replace), limits.failure_text_bytes)) << "</code>"
          << (i == failed_index ? " <b>&#8592; failed here</b>" : "") << "</li>";
      if (i >= 500) {
        out << "<li>&#8230; " << c.steps->size() - i << " more steps</li>";
        break;
      }
    }
    out << "</ol></details>\n";
  }
  if (c.failed) {
    const auto& f = *c.failed;
    out << "<div class=\"failure\"><b>Failing step " << h(f.path) << "</b><pre class=\"message\">"
        << h(truncate_utf8(f.message, limits.failure_text_bytes)) << "</pre>";
    if (!f.expected.empty()) out << "<b>expected</b><pre class=\"expected\">" << h(truncate_utf8(f.expected, limits.failure_text_bytes)) << "</pre>";
    if (!f.actual.empty()) out << "<b>actual</b><pre class=\"actual\">" << h(truncate_utf8(f.actual, limits.failure_text_bytes)) << "</pre>";
    if (!f.step.is_null()) {
      out << "<b>step</b><pre class=\"step\">"
          << h(truncate_utf8(f.step.dump(1, ' ', false, Json::error_handler_t::replace), limits.failure_text_bytes)) << "</pre>";
    }
    out << "</div>\n";
  }
  write_transcript(out, c, limits, budget);
  out << "</div>\n</details>\n";
}

void write_side_by_side(std::ostringstream& out, const std::vector<Source>& sources,
                        const std::vector<std::unique_ptr<RunView>>& views) {
  out << "<h2 id=\"side-by-side-title\">Side by side</h2>\n<table id=\"side-by-side\"><tr><th>case</th><th>protocol</th><th>suite</th>";
  for (const auto& s : sources) out << "<th>" << h(s.label) << "</th>";
  out << "</tr>\n<tr><th>totals</th><td></td><td></td>";
  for (const auto& v : views) {
    std::map<std::string, int> n;
    for (const auto& c : v->cases) n[c.verdict]++;
    out << "<td>";
    for (const auto& verdict : verdict_order()) {
      if (n.count(verdict)) out << badge(verdict) << " " << n[verdict] << " ";
    }
    out << "</td>";
  }
  out << "</tr>\n";
  std::vector<std::string> order;
  std::map<std::string, std::vector<const CaseView*>> by_id;
  for (std::size_t i = 0; i < views.size(); ++i) {
    for (const auto& c : views[i]->cases) {
      auto [it, fresh] = by_id.try_emplace(c.id, std::vector<const CaseView*>(views.size(), nullptr));
      if (fresh) order.push_back(c.id);
      if (!it->second[i]) it->second[i] = &c;
    }
  }
  for (const auto& id : order) {
    const auto& row = by_id[id];
    const CaseView* any = nullptr;
    std::set<std::string> verdicts;
    bool differs = false;
    for (const auto* c : row) {
      if (c && !any) any = c;
      if (!c) differs = true;
      if (c) verdicts.insert(c->verdict);
    }
    differs |= verdicts.size() > 1;
    std::string vlist;
    for (const auto& v : verdicts) vlist += (vlist.empty() ? "" : " ") + v;
    out << "<tr class=\"filter-row cmp-row" << (differs ? " differs" : "") << "\" data-protocol=\"" << h(any->protocol)
        << "\" data-suite=\"" << h(any->suite) << "\" data-verdicts=\"" << h(vlist) << "\" data-text=\""
        << h(id + " " + any->title) << "\"><td><b>" << h(id) << "</b> " << h(any->title) << "</td><td>" << h(any->protocol)
        << "</td><td>" << h(any->suite) << "</td>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      out << "<td>";
      if (row[i]) {
        out << "<a href=\"#" << case_anchor(i, id) << "\">" << badge(row[i]->verdict) << "</a>";
      } else {
        out << "<span class=\"meta\">not run</span>";
      }
      out << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

}  // namespace

std::string render_html(const std::vector<Source>& sources, const Limits& limits) {
  std::vector<std::unique_ptr<RunView>> views;
  for (const auto& s : sources) views.push_back(view_of(s.doc));

  std::set<std::string> protocols, suites;
  std::map<std::string, int> counts;
  for (const auto& v : views) {
    for (const auto& c : v->cases) {
      protocols.insert(c.protocol);
      suites.insert(c.suite);
      counts[c.verdict]++;
    }
    // Findings take part in the protocol filter too.
    for (const auto& f : v->findings) {
      if (!f.protocol.empty()) protocols.insert(f.protocol);
    }
  }

  std::ostringstream header;
  if (views.size() == 1) {
    header << (views.front()->fuzz_only() ? "<h1>agentconform fuzzing report</h1>\n" : "<h1>agentconform conformance report</h1>\n");
    write_meta(header, *views.front());
    write_gate(header, *views.front(), 0);
    html::write_banners(header, *views.front(), 0);
  } else {
    header << "<h1>agentconform: " << views.size() << " result sets side by side</h1>\n<ol class=\"sources\">";
    for (std::size_t i = 0; i < views.size(); ++i) {
      header << "<li><a href=\"#s" << i << "\">" << h(sources[i].label) << "</a>";
      write_meta(header, *views[i]);
      header << "</li>";
    }
    header << "</ol>\n";
  }

  // Nothing to filter (every source stopped at its preflight): no filter bar, whose verdict
  // counts of zero would read like a result.
  bool anything = false;
  for (const auto& v : views) anything |= !v->cases.empty() || v->has_fuzz();
  std::string verdict_filters;
  for (const auto& v : anything ? verdict_order() : std::vector<std::string>{}) {
    verdict_filters += "<label><input type=\"checkbox\" name=\"verdict\" value=\"" + h(v) + "\" checked> " + badge(v) +
                       " <span class=\"count\" data-verdict=\"" + h(v) + "\">" + std::to_string(counts[v]) + "</span></label>";
  }
  std::string protocol_options, suite_options;
  for (const auto& p : protocols) protocol_options += "<option value=\"" + h(p) + "\">" + h(p) + "</option>";
  for (const auto& s : suites) suite_options += "<option value=\"" + h(s) + "\">" + h(s) + "</option>";

  std::ostringstream body;
  if (views.size() > 1) write_side_by_side(body, sources, views);
  std::size_t budget = limits.report_transcript_bytes;
  for (std::size_t i = 0; i < views.size(); ++i) {
    const RunView& run = *views[i];
    body << "<section class=\"source\" id=\"s" << i << "\">\n";
    if (views.size() > 1) {
      body << "<h2>" << h(sources[i].label) << "</h2>\n";
      write_gate(body, run, i);
      html::write_banners(body, run, i);
    }
    html::write_preflight(body, run, i, limits);
    // A setup error ran no case: no verdict table (it would read as a pass with nothing in it).
    const bool setup_only = run.is_setup_error() && run.cases.empty();
    if (setup_only && !run.has_fuzz()) {
      body << "<p class=\"meta\">No case ran: the preflight found the target not set up (see above), so there is no verdict "
              "to show.</p>\n</section>\n";
      continue;
    }
    // A fuzzing run without conformance cases shows its findings only (no empty case tables).
    if (!run.fuzz_only()) {
      // The root causes lead: one fix there changes many verdicts below.
      html::write_groups(body, run, i);
      write_summary(body, run);
      html::write_coverage(body, run, i);
    }
    html::write_fuzz(body, run, i, limits);
    if (!run.fuzz_only()) {
      body << "<h3>Cases</h3>\n";
      if (run.cases.empty()) body << "<p class=\"meta\">no case ran</p>\n";
      const auto tags = gate_tags(run);
      for (const auto& c : run.cases) write_case(body, c, run, i, limits, tags, budget);
      write_matrix(body, run, i);
    }
    body << "</section>\n";
  }

  // The CSP names the template's script by its SHA-256 (the exact bytes between the tags).
  std::string script_hash;
  const std::string_view tpl = kReportTemplate;
  const std::size_t start = tpl.find("<script>");
  const std::size_t end = tpl.find("</script>");
  if (start != std::string_view::npos && end != std::string_view::npos && end > start) {
    script_hash = "sha256-" + sha256_base64(tpl.substr(start + 8, end - start - 8));
  }
  std::string title = views.size() == 1 ? "agentconform report" : "agentconform comparison";
  if (views.size() == 1 && !views.front()->target_url.empty()) title += ": " + views.front()->target_url;
  return fill(tpl, {{"TITLE", h(title)},
                    {"SCRIPT_HASH", script_hash},
                    {"HEADER", header.str()},
                    {"VERDICT_FILTERS", verdict_filters},
                    {"PROTOCOL_OPTIONS", protocol_options},
                    {"SUITE_OPTIONS", suite_options},
                    {"FILTERS_ATTR", anything ? "" : " hidden"},
                    {"BODY", body.str()}});
}

}  // namespace ac::reports
