#include "harness/cli/run_output.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "harness/util/redact.hpp"
#include "reports/text.hpp"

namespace ac::cli {
namespace {

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

// Untrusted text on one line, at most `limit` bytes.
std::string shown(const std::string& s, std::size_t limit = 160) {
  bool cut = false;
  std::string t = reports::truncate_utf8(redact(s), limit, &cut);  // redacted first: a cut must not leave half a secret
  return reports::terminal_safe(t) + (cut ? "..." : "");
}

const char* verdict_colour(const std::string& v) {
  if (v == "PASS") return "32";
  if (v == "FAIL") return "1;31";
  if (v == "WARN") return "33";
  if (v == "ERROR") return "1;35";
  if (v == "BLOCKED") return "35";
  return "2";
}

std::string short_verdict(const std::string& v) { return v == "NOT_APPLICABLE" ? "N/A" : v; }

}  // namespace

std::string Style::paint(const std::string& text, const char* sgr) const {
  return color ? "\033[" + std::string(sgr) + "m" + text + "\033[0m" : text;
}

std::string Style::verdict(const std::string& name, std::size_t width) const {
  return paint(pad(short_verdict(name), width), verdict_colour(name)) ;
}

bool parse_color(const std::string& option, Style& style, std::string& error) {
  if (option == "always") {
    style.color = true;
  } else if (option == "never") {
    style.color = false;
  } else if (option == "auto") {
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    style.color = ::isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0') && !(term != nullptr && std::string(term) == "dumb");
  } else {
    error = "--color must be auto, always or never, not '" + reports::terminal_safe(option) + "'";
    return false;
  }
  return true;
}

void print_preflight(std::ostream& out, const Style& style, const std::string& protocol, const nlohmann::json& preflight) {
  out << "preflight " << protocol << ":\n";
  for (const auto& c : preflight.value("checks", nlohmann::json::array())) {
    const std::string status = c.value("status", std::string());
    const char* mark = status == "passed" ? "ok  " : status == "failed" ? "FAIL" : status == "skipped" ? "skip" : "note";
    out << "  " << style.paint(mark, status == "passed" ? "32" : status == "failed" ? "1;31" : "2") << "  "
        << pad(c.value("check", std::string()), 18) << shown(c.value("detail", std::string()), 220) << "\n";
    if (c.contains("fix")) out << "        " << style.paint("fix:", "1") << " " << reports::terminal_safe(c.value("fix", std::string())) << "\n";
  }
}

RunPrinter::RunPrinter(std::ostream& out, Style style, const engine::RequirementCatalog& requirements, bool quiet)
    : out_(out), style_(style), requirements_(requirements), quiet_(quiet), tty_(::isatty(STDOUT_FILENO) && &out == &std::cout) {}

void RunPrinter::on_case(const engine::CaseResult& r, std::size_t done, std::size_t total) {
  if (quiet_) return;
  std::lock_guard lock(mutex_);
  // A provisional verdict is not the case's: it runs again (alone) before the run ends.
  const std::string v = !r.provisional ? engine::verdict_name(r.verdict) : r.verdict == engine::Verdict::fail ? "FAIL?" : "RERUN";
  const bool failed = r.verdict == engine::Verdict::fail || r.verdict == engine::Verdict::warn;
  const bool detail = failed || r.verdict == engine::Verdict::error;
  const std::string indent(15, ' ');
  if (tty_) out_ << "\r\033[K";
  if (tty_ && !detail) {
    out_ << "[" << done << "/" << total << "] " << style_.verdict(v, 6) << " " << r.id;
    out_.flush();
    return;
  }
  out_ << style_.verdict(v, 15) << pad(r.id, 18) << " " << shown(r.title, 120) << "\n";
  // Each line reaches a pipe or a CI log as the case ends, not when a buffer fills.
  if (!detail) {
    out_.flush();
    return;
  }
  if (r.failed_step) {
    const auto& f = *r.failed_step;
    const std::string first = f.message.substr(0, f.message.find('\n'));
    out_ << indent << shown(first, 220) << "\n";
    for (const auto& id : r.blamed) {
      const engine::Requirement* req = requirements_.find(id);
      if (req == nullptr) continue;
      const bool reading = req->kind == "reading";
      out_ << indent << style_.paint("breaks", "1") << " " << id << " (" << req->level
           << (reading ? ", a reading of a silent spec: gated as SHOULD, docs/spec-readings.md" : "") << ", " << req->spec << " "
           << req->section << "): \"" << shown(req->text, 200) << "\"\n";
    }
    if (!f.expected.empty()) out_ << indent << "expected: " << shown(f.expected) << "\n";
    if (!f.actual.empty()) out_ << indent << "actual:   " << shown(f.actual) << "\n";
  } else {
    out_ << indent << shown(r.reason, 220) << "\n";
  }
  out_.flush();
}

void RunPrinter::finish_progress() {
  std::lock_guard lock(mutex_);
  if (tty_ && !quiet_) out_ << "\r\033[K";
  out_.flush();
}

void RunPrinter::summary(const engine::RunResult& result) {
  // The root causes lead: one fix there changes many verdicts below.
  const auto roots = engine::root_cause_groups(result.cases);
  if (!roots.empty()) {
    out_ << "\nroot causes (each shared by several cases; fix these first):\n";
    for (const auto& g : roots) {
      out_ << "  " << std::setw(4) << g["count"].get<int>() << " cases: " << shown(g["cause"].get<std::string>(), 200) << " (first: "
           << g["cases"][0].get<std::string>() << ")\n";
    }
  }
  std::map<std::string, std::map<std::string, int>> counts;
  for (const auto& c : result.cases) counts[c.protocol][engine::verdict_name(c.verdict)]++;
  const char* kinds[] = {"PASS", "FAIL", "WARN", "NOT_APPLICABLE", "ERROR", "BLOCKED"};
  out_ << "\n" << pad("protocol", 15) << pad("cases", 7);
  for (const char* k : kinds) out_ << pad(short_verdict(k), 7);
  out_ << "\n";
  int total = 0;
  std::map<std::string, int> totals;
  for (const auto& [p, v] : counts) {
    int n = 0;
    for (const auto& [k, c] : v) n += c;
    total += n;
    out_ << pad(p, 15) << pad(std::to_string(n), 7);
    for (const char* k : kinds) {
      const int c = v.count(k) ? v.at(k) : 0;
      totals[k] += c;
      out_ << (c != 0 && std::string(k) != "PASS" ? style_.paint(pad(std::to_string(c), 7), verdict_colour(k)) : pad(std::to_string(c), 7));
    }
    out_ << "\n";
  }
  out_ << pad("total", 15) << pad(std::to_string(total), 7);
  for (const char* k : kinds) out_ << pad(std::to_string(totals[k]), 7);
  out_ << "\n";
  const auto na = engine::not_applicable_groups(result.cases);
  if (!na.empty()) {
    out_ << "\nnot applicable, by reason:\n";
    for (const auto& g : na) out_ << "  " << std::setw(4) << g["count"].get<int>() << " N/A: " << reports::terminal_safe(g["cause"].get<std::string>()) << "\n";
  }
  std::map<std::string, std::size_t> refused_in_run;
  for (const auto& c : result.cases) {
    if (!c.capacity_in_run.empty()) ++refused_in_run[c.capacity_in_run];
  }
  for (const auto& [what, n] : refused_in_run) {
    out_ << "\n" << n << " case" << (n == 1 ? " was" : "s were") << " refused for capacity in the run (" << shown(what, 120)
         << ") and judged when run again alone: the run needed " << (n == 1 ? "it" : "them") << " re-run; lower --jobs (this run: "
         << result.options.value("jobs", 0) << ") or declare the target's limits (limits.connections, limits.requests_per_second in "
         << "target.json)\n";
  }
  if (const std::size_t learned = result.options.value("connections_learned", std::size_t{0}); learned != 0) {
    out_ << "\nthe target refused connections for capacity: after that the run kept to " << learned
         << " agent connections at once (if the target has a fixed cap, declare it: \"limits\": {\"connections\": N} in target.json)\n";
  }
  std::size_t order_dependent = 0;
  for (const auto& c : result.cases) order_dependent += c.order_dependent;
  if (order_dependent > 0) {
    out_ << "\n" << order_dependent << " order-dependent case" << (order_dependent == 1 ? "" : "s")
         << ": failed in the run, passed alone (the target kept state from earlier cases; gated as WARN unless --strict-order)\n";
  }
  if (result.target_down.is_object()) {
    out_ << "\n" << style_.paint("the target stopped answering", "1;35") << " during " << result.target_down.value("detected_in", std::string());
    const std::string last = result.target_down.value("last_completed", std::string());
    if (!last.empty()) out_ << " (the last case it finished was " << last << "; its frames are in the report)";
    out_ << ": the cases after it are ERROR, not judged\n";
  }
  if (result.target_deaths.is_array() && !result.target_deaths.empty()) {
    out_ << "\n" << style_.paint("the target died " + std::to_string(result.target_deaths.size()) + " time" +
                                     (result.target_deaths.size() == 1 ? "" : "s"), "1;35")
         << " (--target-command restarted it; each death fails the run):\n";
    for (const auto& d : result.target_deaths) {
      const std::string culprit = d["culprit"].is_string() ? d["culprit"].get<std::string>() : std::string();
      out_ << "  " << shown(d.value("how", std::string()), 160) << ", noticed after " << d.value("detected_after", std::string());
      if (d.value("alone", false)) out_ << " (run alone)";
      if (!culprit.empty()) out_ << "; culprit " << culprit << " (it killed a fresh target twice when run alone)";
      else if (!d.value("alone", false)) out_ << "; target died; no case kills it alone (a crash under parallel load: try --jobs 1)";
      out_ << "\n";
      const std::string evidence = d.value("evidence", std::string());
      if (!evidence.empty()) {
        std::istringstream lines(evidence);
        std::string line;
        for (int n = 0; n < 4 && std::getline(lines, line); ++n) out_ << "      " << shown(line, 160) << "\n";
      }
    }
  }
  if (const auto& m = result.coverage.value("must", nlohmann::json::object()); m.contains("applicable")) {
    const auto& rd = result.coverage["readings"];
    if (m.value("none_applicable", false)) {
      out_ << "\nMUST coverage: none applicable: no spec MUST applies to the roles the target declares, so this run tested no MUST";
    } else {
      out_ << "\nMUST coverage: " << m["tested"].get<int>() << " of " << m["applicable"].get<int>() << " spec MUSTs that apply to the target tested ("
           << std::fixed << std::setprecision(1) << m["percent"].get<double>() << "%)";
    }
    if (rd.value("applicable", 0) > 0) out_ << "; readings: " << rd["tested"].get<int>() << " of " << rd["applicable"].get<int>();
    out_ << "\n";
    const nlohmann::json protocols = result.coverage.value("protocols", nlohmann::json::object());
    for (const auto& [p, c] : protocols.items()) {
      const auto& pm = c.value("must", nlohmann::json::object());
      if (pm.value("none_applicable", false)) out_ << "  " << p << ": " << reports::terminal_safe(pm.value("hint", std::string())) << "\n";
    }
  }
  out_ << "seed " << result.seed << ", " << std::fixed << std::setprecision(2) << result.duration_ms / 1000.0 << " s\n";
}

}  // namespace ac::cli
