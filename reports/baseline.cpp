// Baseline parsing, gate evaluation and baseline update (see baseline.hpp for the semantics).
#include "reports/baseline.hpp"
#include "reports/model.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "harness/schema/schema_store.hpp"

namespace ac::reports {

std::optional<Policy> parse_policy(std::string_view s) {
  if (s == "must") return Policy::must;
  if (s == "should") return Policy::should;
  return std::nullopt;
}

std::string policy_name(Policy p) { return p == Policy::must ? "must" : "should"; }

bool failing(std::string_view verdict, Policy policy) {
  return verdict == "FAIL" || verdict == "ERROR" || (policy == Policy::should && verdict == "WARN");
}

const BaselineEntry* Baseline::find(std::string_view case_id) const {
  auto it = std::lower_bound(entries.begin(), entries.end(), case_id,
                             [](const BaselineEntry& e, std::string_view id) { return e.case_id < id; });
  return it != entries.end() && it->case_id == case_id ? &*it : nullptr;
}

Expected<Baseline, std::string> baseline_from_json(const Json& doc) {
  if (!doc.is_object()) return unexpected(std::string("baseline: the document must be an object"));
  static const std::set<std::string> top = {"format", "updated_at", "policy", "entries", "$comment"};
  for (const auto& [k, _] : doc.items()) {
    if (!top.count(k)) return unexpected("baseline: /" + k + ": unknown member");
  }
  auto fmt = doc.find("format");
  if (fmt == doc.end() || !fmt->is_string() || *fmt != "agentconform-baseline/1") {
    return unexpected(std::string("baseline: /format: must be \"agentconform-baseline/1\""));
  }
  auto entries = doc.find("entries");
  if (entries == doc.end() || !entries->is_array()) return unexpected(std::string("baseline: /entries: must be an array"));
  if (entries->size() > 100000) return unexpected(std::string("baseline: /entries: more than 100000 entries"));
  Baseline b;
  static const std::set<std::string> members = {"case", "protocol", "verdict", "reason", "expires", "added"};
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const Json& e = (*entries)[i];
    const std::string where = "baseline: /entries/" + std::to_string(i);
    if (!e.is_object()) return unexpected(where + ": must be an object");
    for (const auto& [k, v] : e.items()) {
      if (!members.count(k)) return unexpected(where + "/" + k + ": unknown member");
      if (!v.is_string()) return unexpected(where + "/" + k + ": must be a string");
    }
    BaselineEntry x;
    x.case_id = str(e, "case");
    x.protocol = str(e, "protocol");
    x.verdict = e.value("verdict", std::string("FAIL"));
    x.reason = str(e, "reason");
    x.expires = str(e, "expires");
    x.added = str(e, "added");
    if (x.case_id.empty()) return unexpected(where + "/case: required, non-empty");
    if (x.reason.empty()) return unexpected(where + "/reason: required, non-empty (say why the failure is accepted)");
    if (x.verdict != "FAIL" && x.verdict != "ERROR" && x.verdict != "WARN") {
      return unexpected(where + "/verdict: must be FAIL, ERROR or WARN");
    }
    if (!x.expires.empty() && !schema::is_date(x.expires)) return unexpected(where + "/expires: not a date (YYYY-MM-DD)");
    if (!x.added.empty() && !schema::is_date(x.added)) return unexpected(where + "/added: not a date (YYYY-MM-DD)");
    b.entries.push_back(std::move(x));
  }
  std::sort(b.entries.begin(), b.entries.end(), [](const auto& a, const auto& c) { return a.case_id < c.case_id; });
  for (std::size_t i = 1; i < b.entries.size(); ++i) {
    if (b.entries[i].case_id == b.entries[i - 1].case_id) {
      return unexpected("baseline: case " + b.entries[i].case_id + " is listed twice");
    }
  }
  return b;
}

Json to_json(const Baseline& baseline, std::string_view updated_at) {
  Json entries = Json::array();
  for (const auto& e : baseline.entries) {
    Json j = {{"case", e.case_id}, {"verdict", e.verdict}, {"reason", e.reason}};
    if (!e.protocol.empty()) j["protocol"] = e.protocol;
    if (!e.expires.empty()) j["expires"] = e.expires;
    if (!e.added.empty()) j["added"] = e.added;
    entries.push_back(std::move(j));
  }
  return {{"format", "agentconform-baseline/1"}, {"updated_at", std::string(updated_at)}, {"entries", std::move(entries)}};
}

bool expired(const BaselineEntry& e, std::string_view today) {
  return !e.expires.empty() && today > std::string_view(e.expires);  // YYYY-MM-DD compares as text
}

namespace {

GateCase gate_case(const Json& c, std::string note = {}) {
  return {str(c, "id"), str(c, "protocol"), str(c, "suite"),
          str(c, "level"), str(c, "verdict"), std::move(note)};
}

const Json& cases_of(const Json& results) {
  static const Json empty = Json::array();
  auto it = results.find("cases");
  return it != results.end() && it->is_array() ? *it : empty;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Gate evaluate(const Json& results, const Baseline* baseline, Policy policy, std::string_view today, bool unreachable) {
  Gate g;
  g.policy = policy;
  g.baseline_used = baseline != nullptr;
  g.unreachable = unreachable;
  std::set<std::string> ran;
  for (const Json& c : cases_of(results)) {
    if (!c.is_object()) continue;
    const std::string id = str(c, "id");
    const std::string verdict = str(c, "verdict");
    ran.insert(id);
    const BaselineEntry* entry = baseline ? baseline->find(id) : nullptr;
    if (!failing(verdict, policy)) {
      // An entry records a verdict: a case that still gets it is not fixed, whatever the policy.
      // (A WARN entry of a baseline made under --fail-on should is unchanged behaviour under
      // --fail-on must, which does not gate WARN: neither tolerated nor "now passes".)
      if (entry && entry->verdict != verdict) {
        g.fixed.push_back(gate_case(c, "baselined (" + entry->reason + ") but now " + verdict));
      }
      continue;
    }
    if (entry && entry->verdict == verdict) {
      if (expired(*entry, today)) {
        g.expired.push_back(gate_case(c, "baseline entry expired on " + entry->expires + ": " + entry->reason));
      } else {
        g.baselined.push_back(gate_case(c, entry->reason));
      }
      continue;
    }
    std::string note = entry ? "baselined as " + entry->verdict + ", now " + verdict : std::string();
    if (verdict == "ERROR") {
      g.errors.push_back(gate_case(c, std::move(note)));
    } else {
      g.new_failures.push_back(gate_case(c, std::move(note)));
    }
  }
  if (baseline) {
    for (const auto& e : baseline->entries) {
      if (!ran.count(e.case_id)) g.not_run.push_back(e.case_id);
    }
  }
  if (unreachable) {
    g.exit_code = 3;
  } else if (!g.new_failures.empty() || !g.expired.empty() || !g.fixed.empty()) {
    g.exit_code = 1;
  } else if (!g.errors.empty()) {
    g.exit_code = 3;
  } else {
    g.exit_code = 0;
  }
  std::vector<std::string> parts;
  if (unreachable) parts.push_back("target unreachable");
  if (!g.new_failures.empty()) parts.push_back(plural(g.new_failures.size(), "new failure", "new failures"));
  if (!g.expired.empty()) parts.push_back(plural(g.expired.size(), "failure with an expired baseline entry", "failures with expired baseline entries"));
  if (!g.fixed.empty()) parts.push_back(plural(g.fixed.size(), "baselined case now passes (update the baseline)", "baselined cases now pass (update the baseline)"));
  if (!g.errors.empty()) parts.push_back(plural(g.errors.size(), "case in ERROR", "cases in ERROR"));
  if (!g.baselined.empty()) parts.push_back(plural(g.baselined.size(), "baselined failure tolerated", "baselined failures tolerated"));
  std::string s = g.exit_code == 0 ? "conformant under --fail-on " + policy_name(policy) : "not conformant under --fail-on " + policy_name(policy);
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? ": " : ", ") + parts[i];
  g.summary = s;
  return g;
}

Json to_json(const Gate& g) {
  auto list = [](const std::vector<GateCase>& v) {
    Json a = Json::array();
    for (const auto& c : v) {
      a.push_back({{"id", c.id}, {"protocol", c.protocol}, {"suite", c.suite}, {"level", c.level}, {"verdict", c.verdict},
                   {"note", c.note}});
    }
    return a;
  };
  Json j = {{"policy", policy_name(g.policy)},
            {"exit_code", g.exit_code},
            {"summary", g.summary},
            {"baseline", g.baseline_used ? Json(g.baseline_file) : Json(nullptr)},
            {"unreachable", g.unreachable},
            {"new_failures", list(g.new_failures)},
            {"expired", list(g.expired)},
            {"fixed", list(g.fixed)},
            {"baselined", list(g.baselined)},
            {"errors", list(g.errors)},
            {"not_run", g.not_run}};
  return j;
}

Baseline update_baseline(const Baseline* old, const Json& results, Policy policy, std::string_view today) {
  std::map<std::string, BaselineEntry> out;
  std::set<std::string> ran;
  for (const Json& c : cases_of(results)) {
    if (!c.is_object()) continue;
    const std::string id = str(c, "id");
    const std::string verdict = str(c, "verdict");
    ran.insert(id);
    const BaselineEntry* previous = old ? old->find(id) : nullptr;
    // Not failing under this policy: dropped, unless the case still gets the verdict its entry
    // records (a WARN kept under --fail-on must, so a later --fail-on should run still has it).
    if (!failing(verdict, policy) && !(previous && previous->verdict == verdict)) continue;
    BaselineEntry e;
    if (previous) {
      e = *previous;
    } else {
      e.case_id = id;
      e.added = std::string(today);
      const std::string why = str(c, "reason");
      e.reason = "accepted by --update-baseline" + (why.empty() ? std::string() : ": " + why);
    }
    e.protocol = str(c, "protocol").empty() ? e.protocol : str(c, "protocol");
    e.verdict = verdict;
    out[id] = std::move(e);
  }
  if (old) {
    for (const auto& e : old->entries) {
      if (!ran.count(e.case_id)) out.emplace(e.case_id, e);
    }
  }
  Baseline b;
  for (auto& [_, e] : out) b.entries.push_back(std::move(e));
  return b;
}

}  // namespace ac::reports
