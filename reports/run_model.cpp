// The members issue 11 added to a results document, read defensively into the RunView (see
// model.hpp): the preflight checklist, a setup error, an interrupt, a target that stopped
// answering, the MUST coverage, and the N/A and root-cause groups. As everywhere in the model, a
// member of another type than the engine writes is ignored, never an exception.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>

#include "reports/model.hpp"

namespace ac::reports {
namespace {

const Json* member(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::optional<Tally> tally(const Json& j, const char* key) {
  const Json* t = member(j, key);
  if (!t || !t->is_object()) return std::nullopt;
  Tally out;
  auto integer = [t](const char* k) -> long long {  // a count: negative or not an integer reads as 0
    const Json* n = member(*t, k);
    if (n && n->is_number_unsigned()) return static_cast<long long>(std::min<std::uint64_t>(n->get<std::uint64_t>(), LLONG_MAX));
    return 0;
  };
  out.applicable = integer("applicable");
  out.tested = integer("tested");
  if (const Json* p = member(*t, "percent"); p && p->is_number()) {
    out.percent = num(*t, "percent");  // finite or 0
  } else {
    out.percent = out.applicable == 0 ? 0.0 : 100.0 * static_cast<double>(out.tested) / static_cast<double>(out.applicable);
  }
  return out;
}

std::vector<GroupView> groups(const Json& doc, const char* key) {
  std::vector<GroupView> out;
  const Json* list = member(doc, key);
  if (!list || !list->is_array()) return out;
  for (const Json& g : *list) {
    if (!g.is_object()) continue;
    GroupView v{str(g, "cause"), 0, strings(g, "cases")};
    if (const Json* n = member(g, "count"); n && n->is_number_integer() && n->get<long long>() >= 0) {
      v.count = n->get<long long>();
    } else {
      v.count = static_cast<long long>(v.cases.size());
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

std::string tally_text(const Tally& t) {
  if (t.applicable == 0) return "none applicable";
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f", t.percent);
  return std::to_string(t.tested) + " of " + std::to_string(t.applicable) + " (" + pct + "%)";
}

bool PreflightView::passed() const {
  if (ok) return *ok;
  for (const auto& c : checks) {
    if (c.status == "failed") return false;
  }
  return true;
}

bool RunView::is_reading(const std::string& requirement, const CaseView& c) const {
  if (auto it = requirement_by_id.find(requirement); it != requirement_by_id.end()) return it->second->is_reading();
  return c.reading;
}

std::string RunView::level_of(const std::string& requirement, const CaseView& c) const {
  if (auto it = requirement_by_id.find(requirement); it != requirement_by_id.end() && !it->second->level.empty()) {
    return it->second->level;
  }
  return c.level;
}

std::string RunView::reading_label() const {
  return strict_readings ? "reading (gated as MUST: --strict-readings)" : "reading (gated as SHOULD)";
}

const PreflightCheckView* RunView::failed_check(std::string* protocol) const {
  for (const auto& p : preflight) {
    for (const auto& c : p.checks) {
      if (c.status == "failed") {
        if (protocol) *protocol = p.protocol;
        return &c;
      }
    }
  }
  return nullptr;
}

std::size_t RunView::not_run_count() const {
  std::size_t n = 0;
  for (const auto& c : cases) n += c.not_run();
  return n;
}

void read_run_members(const Json& doc, RunView& v) {
  if (!doc.is_object()) return;
  v.setup_error = str(doc, "setup_error");
  v.interrupted = str(doc, "interrupted");
  if (const Json* o = member(doc, "options"); o && o->is_object()) {
    if (const Json* s = member(*o, "strict_readings"); s && s->is_boolean()) v.strict_readings = s->get<bool>();
  }

  // {"protocol": {"ok", "checks": [...], "summary", "transcript"}}; std::map order: by protocol name.
  if (const Json* pf = member(doc, "preflight"); pf && pf->is_object()) {
    for (const auto& [protocol, p] : pf->items()) {
      if (!p.is_object()) continue;
      PreflightView view;
      view.protocol = protocol;
      view.summary = str(p, "summary");
      if (const Json* ok = member(p, "ok"); ok && ok->is_boolean()) view.ok = ok->get<bool>();
      if (const Json* cs = member(p, "checks"); cs && cs->is_array()) {
        for (const Json& c : *cs) {
          if (c.is_object()) view.checks.push_back({str(c, "check"), str(c, "status"), str(c, "detail"), str(c, "fix")});
        }
      }
      if (const Json* t = member(p, "transcript"); t && t->is_array()) view.transcript = t;
      v.preflight.push_back(std::move(view));
    }
  }

  if (const Json* d = member(doc, "target_down"); d && d->is_object()) {
    v.target_down = TargetDownView{str(*d, "protocol"), str(*d, "detected_in"), str(*d, "last_completed")};
  }

  if (const Json* deaths = member(doc, "target_deaths"); deaths && deaths->is_array()) {
    for (const auto& d : *deaths) {
      if (!d.is_object()) continue;
      const Json* culprit = member(d, "culprit");
      v.target_deaths.push_back(TargetDeathView{str(d, "detected_after"), str(d, "how"), str(d, "evidence"),
                                                culprit && culprit->is_string() ? culprit->get<std::string>() : std::string(),
                                                d.value("alone", false)});
    }
  }

  if (const Json* c = member(doc, "coverage"); c && c->is_object() && !c->empty()) {
    CoverageView cov;
    cov.side = str(*c, "side");
    cov.must = tally(*c, "must");
    cov.readings = tally(*c, "readings");
    if (const Json* ps = member(*c, "protocols"); ps && ps->is_object()) {
      for (const auto& [name, p] : ps->items()) {
        if (p.is_object()) cov.protocols[name] = {tally(p, "must"), tally(p, "readings")};
      }
    }
    if (const Json* u = member(*c, "untested"); u && u->is_array()) {
      for (const Json& x : *u) {
        if (x.is_object()) cov.untested.push_back({str(x, "id"), str(x, "protocol"), str(x, "reason")});
      }
    }
    v.coverage = std::move(cov);
  }

  v.not_applicable = groups(doc, "not_applicable");
  v.root_causes = groups(doc, "root_causes");
  for (const auto& g : v.root_causes) v.root_cause_by_cause.emplace(g.cause, &g);
  // A document from before the groups were written: its N/A cases grouped here, by their reason.
  if (!member(doc, "not_applicable")) {
    std::vector<GroupView> by;
    std::map<std::string, std::size_t> index;  // cause -> position in `by` (first-seen order)
    for (const auto& c : v.cases) {
      if (c.verdict != "NOT_APPLICABLE") continue;
      const std::string& cause = c.na_cause.empty() ? c.reason : c.na_cause;
      auto [it, fresh] = index.emplace(cause, by.size());
      if (fresh) by.push_back(GroupView{cause, 0, {}});
      GroupView& g = by[it->second];
      ++g.count;
      g.cases.push_back(c.id);
    }
    std::stable_sort(by.begin(), by.end(), [](const GroupView& a, const GroupView& b) { return a.count > b.count; });
    v.not_applicable = std::move(by);
  }
}

}  // namespace ac::reports
