// See compare.hpp. Cases are matched by id; the order of the report follows NEW, then OLD.
#include "reports/compare.hpp"

#include <map>
#include <sstream>

#include "reports/model.hpp"
#include "reports/text.hpp"

namespace ac::reports {
namespace {

struct Row {
  std::string protocol, suite, level, title, verdict;
};

std::vector<std::pair<std::string, Row>> rows(const Json& results) {
  std::vector<std::pair<std::string, Row>> out;
  auto it = results.find("cases");
  if (it == results.end() || !it->is_array()) return out;
  for (const Json& c : *it) {
    if (!c.is_object()) continue;
    out.emplace_back(str(c, "id"),
                     Row{str(c, "protocol"), str(c, "suite"), str(c, "level"),
                         str(c, "title"), str(c, "verdict")});
  }
  return out;
}

// What kept a run from running whole, one line per fact ("" members are absent).
void notes_of(const Json& results, const char* which, std::vector<std::string>& notes) {
  if (!results.is_object()) return;
  const std::string w = which;
  if (const std::string e = str(results, "setup_error"); !e.empty()) {
    notes.push_back(w + ": setup error, no case ran: " + e.substr(0, e.find('\n')));
  }
  if (const std::string i = str(results, "interrupted"); !i.empty()) {
    notes.push_back(w + ": interrupted by " + i + "; its cases not run are ERROR");
  }
  if (auto d = results.find("target_down"); d != results.end() && d->is_object()) {
    notes.push_back(w + ": the target stopped answering during " + str(*d, "detected_in") + "; its cases not run are ERROR");
  }
}

}  // namespace

Comparison compare(const Json& old_results, const Json& new_results, Policy policy) {
  Comparison out;
  notes_of(old_results, "OLD", out.notes);
  notes_of(new_results, "NEW", out.notes);
  out.new_setup_error = new_results.is_object() && !str(new_results, "setup_error").empty();
  std::map<std::string, Row> old_rows;
  for (auto& [id, r] : rows(old_results)) old_rows.emplace(id, std::move(r));
  std::map<std::string, bool> seen;
  for (const auto& [id, r] : rows(new_results)) {
    if (seen.count(id)) continue;
    seen[id] = true;
    Change ch{id, r.protocol, r.suite, r.level, r.title, "", r.verdict};
    auto it = old_rows.find(id);
    const bool now_failing = failing(r.verdict, policy);
    if (it == old_rows.end()) {
      (now_failing ? out.regressions : out.added).push_back(std::move(ch));
      continue;
    }
    ch.old_verdict = it->second.verdict;
    const bool was_failing = failing(ch.old_verdict, policy);
    if (now_failing && !was_failing) {
      out.regressions.push_back(std::move(ch));
    } else if (!now_failing && was_failing) {
      out.fixes.push_back(std::move(ch));
    } else if (ch.old_verdict != ch.new_verdict) {
      out.changed.push_back(std::move(ch));
    } else {
      ++out.unchanged;
    }
  }
  for (const auto& [id, r] : rows(old_results)) {
    if (seen.count(id)) continue;
    seen[id] = true;
    out.removed.push_back({id, r.protocol, r.suite, r.level, r.title, r.verdict, ""});
  }
  return out;
}

Json to_json(const Comparison& c) {
  auto list = [](const std::vector<Change>& v) {
    Json a = Json::array();
    for (const auto& x : v) {
      a.push_back({{"id", x.id}, {"protocol", x.protocol}, {"suite", x.suite}, {"level", x.level}, {"title", x.title},
                   {"old", x.old_verdict.empty() ? Json(nullptr) : Json(x.old_verdict)},
                   {"new", x.new_verdict.empty() ? Json(nullptr) : Json(x.new_verdict)}});
    }
    return a;
  };
  return {{"regressions", list(c.regressions)}, {"fixes", list(c.fixes)}, {"changed", list(c.changed)},
          {"added", list(c.added)}, {"removed", list(c.removed)}, {"unchanged", c.unchanged}, {"notes", c.notes},
          {"exit_code", c.exit_code()}};
}

std::string to_text(const Comparison& c) {
  std::ostringstream out;
  for (const auto& n : c.notes) out << "note: " << terminal_safe(n) << "\n";
  auto section = [&out](const char* name, const std::vector<Change>& v) {
    if (v.empty()) return;
    out << name << " (" << v.size() << "):\n";
    for (const auto& x : v) {
      out << "  " << terminal_safe(x.id) << "  " << (x.old_verdict.empty() ? "-" : terminal_safe(x.old_verdict)) << " -> "
          << (x.new_verdict.empty() ? "-" : terminal_safe(x.new_verdict)) << "  " << terminal_safe(x.level) << "  "
          << terminal_safe(x.title) << "\n";
    }
  };
  section("new failures", c.regressions);
  section("fixed", c.fixes);
  section("changed verdicts", c.changed);
  section("added cases", c.added);
  section("removed cases", c.removed);
  out << c.regressions.size() << " new failures, " << c.fixes.size() << " fixed, " << c.changed.size() << " changed, "
      << c.added.size() << " added, " << c.removed.size() << " removed, " << c.unchanged << " unchanged\n";
  if (c.new_setup_error) out << "NEW stopped at its preflight (setup error): it tested nothing, so it cannot be compared (exit 3)\n";
  return out.str();
}

}  // namespace ac::reports
