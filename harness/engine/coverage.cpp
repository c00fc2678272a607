#include "harness/engine/coverage.hpp"

#include <set>

namespace ac::engine {
namespace {

using Json = nlohmann::json;

// Whether a requirement is one the run's side can test against this target.
bool applies(const Requirement& r, const TargetConfig* t, const std::string& side) {
  if (r.roles.empty()) return true;
  for (const auto& role : r.roles) {
    if (side == "client" ? role == "agent" : role != "agent" && (t == nullptr || t->plays(role))) return true;
  }
  return false;
}

// With nothing applicable there is no percentage: "none applicable" is not 100 % (the percent
// is 0, so --min-must-coverage fails, and `none_applicable` says why).
Json tally(std::size_t applicable, std::size_t tested) {
  const double pct = applicable == 0 ? 0.0 : 100.0 * static_cast<double>(tested) / static_cast<double>(applicable);
  Json out = {{"applicable", applicable}, {"tested", tested}, {"percent", static_cast<double>(static_cast<int>(pct * 10 + 0.5)) / 10.0}};
  if (applicable == 0) out["none_applicable"] = true;
  return out;
}

}  // namespace

Json compute_coverage(const RequirementCatalog& requirements, const std::vector<CaseResult>& cases,
                      const std::map<std::string, TargetConfig>& targets, const std::string& side) {
  // What each requirement got: judged by a case, or why not.
  std::map<std::string, std::string> judged_by, not_judged;
  std::set<std::string> protocols;
  // A requirement that a case of a role the target plays checks applies to the target, whatever
  // roles the catalogue gives it (AgentProtocol's peer is an agent: its MUSTs name the role agent).
  std::set<std::string> of_played_cases;
  for (const auto& c : cases) {
    const auto t = targets.find(c.protocol);
    const bool client_case = c.role == "agent";
    const bool played = side == "client" ? client_case : !client_case && !c.role.empty() && (t == targets.end() || t->second.plays(c.role));
    if (played) of_played_cases.insert(c.requirements.begin(), c.requirements.end());
  }
  for (const auto& c : cases) {
    protocols.insert(c.protocol);
    const bool ran = c.verdict == Verdict::pass || c.verdict == Verdict::fail || c.verdict == Verdict::warn;
    const auto& ids = c.verdict == Verdict::pass ? c.requirements : c.blamed;
    if (ran) {
      for (const auto& id : ids) judged_by.emplace(id, c.id);
    }
    for (const auto& id : c.requirements) {
      if (judged_by.count(id)) continue;
      std::string why = c.verdict == Verdict::not_applicable ? "N/A: " + (c.na_cause.empty() ? c.reason : c.na_cause)
                        : c.verdict == Verdict::blocked     ? "BLOCKED by " + c.blocked_by + " in " + c.id
                        : c.verdict == Verdict::error       ? "ERROR in " + c.id
                                                            : "its case " + c.id + " failed before checking it";
      not_judged.emplace(id, why);
    }
  }
  std::size_t must_all = 0, must_tested = 0, reading_all = 0, reading_tested = 0;
  Json per_protocol = Json::object();
  Json untested = Json::array();
  for (const auto& p : protocols) {
    auto it = targets.find(p);
    const TargetConfig* t = it == targets.end() ? nullptr : &it->second;
    std::size_t pa = 0, pt = 0, ra = 0, rt = 0;
    for (const Requirement* r : requirements.of_protocol(p)) {
      if (r->level != "MUST" || !(applies(*r, t, side) || of_played_cases.count(r->id) != 0)) continue;
      const bool tested = judged_by.count(r->id) != 0;
      if (r->kind == "reading") {
        ++ra;
        rt += tested;
        continue;
      }
      ++pa;
      pt += tested;
      if (!tested) {
        auto why = not_judged.find(r->id);
        std::string reason = why != not_judged.end() ? why->second : "no case of this run covers it";
        if (why == not_judged.end() && !r->uncovered_reason().empty()) reason += " (" + r->uncovered_reason() + ")";
        untested.push_back({{"id", r->id}, {"protocol", p}, {"reason", reason}});
      }
    }
    per_protocol[p] = {{"must", tally(pa, pt)}, {"readings", tally(ra, rt)}};
    if (pa == 0) {
      // Which roles would make MUSTs apply: what the user can declare instead.
      std::map<std::string, std::size_t> by_role;
      for (const Requirement* r : requirements.of_protocol(p)) {
        if (r->level != "MUST" || r->kind == "reading") continue;
        for (const auto& role : r->roles) {
          if (side == "client" ? role == "agent" : role != "agent") ++by_role[role];
        }
      }
      std::string hint;
      for (const auto& [role, n] : by_role) hint += (hint.empty() ? "" : ", ") + role + " (" + std::to_string(n) + " MUSTs)";
      per_protocol[p]["must"]["hint"] = hint.empty() ? (side == "client" ? std::string("client cases are judged by agentconform serve")
                                                                         : std::string("server cases are judged by agentconform run"))
                                                     : "no MUST applies to the roles declared; MUSTs apply to the roles " + hint +
                                                           " (target.json \"roles\")";
    }
    must_all += pa;
    must_tested += pt;
    reading_all += ra;
    reading_tested += rt;
  }
  return {{"side", side}, {"must", tally(must_all, must_tested)}, {"readings", tally(reading_all, reading_tested)},
          {"protocols", per_protocol}, {"untested", untested}};
}

}  // namespace ac::engine
