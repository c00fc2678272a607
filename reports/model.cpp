// See model.hpp.
#include "reports/model.hpp"

#include <cmath>
#include <cstdio>
#include <memory>

#include "reports/text.hpp"

namespace ac::reports {

std::string str(const Json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num(const Json& j, const char* key) {
  if (!j.is_object()) return 0;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  const double d = it->get<double>();
  return std::isfinite(d) ? d : 0;
}

std::vector<std::string> strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.is_object()) return out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

namespace {

bool flag(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

std::string format_ms(double ms) {
  char buf[32];
  if (ms < 1000) {
    std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", ms / 1000);
  }
  return buf;
}

std::unique_ptr<RunView> view_of(const Json& doc) {
  auto v = std::make_unique<RunView>();
  if (!doc.is_object()) return v;
  if (auto t = doc.find("tool"); t != doc.end()) v->tool_version = str(*t, "version");
  v->started_at = str(doc, "started_at");
  v->finished_at = str(doc, "finished_at");
  v->duration_ms = num(doc, "duration_ms");
  if (auto s = doc.find("seed"); s != doc.end() && s->is_number_unsigned()) v->seed = s->get<std::uint64_t>();
  if (auto t = doc.find("target"); t != doc.end()) {
    v->target_kind = str(*t, "kind");
    v->target_url = str(*t, "url");
    v->faults = strings(*t, "faults");
  }
  if (auto g = doc.find("gate"); g != doc.end() && g->is_object()) v->gate = &*g;

  if (auto cs = doc.find("cases"); cs != doc.end() && cs->is_array()) {
    for (const Json& c : *cs) {
      if (!c.is_object()) continue;
      CaseView k;
      k.id = str(c, "id");
      k.title = str(c, "title");
      k.protocol = str(c, "protocol");
      k.suite = str(c, "suite");
      k.file = str(c, "file");
      k.role = str(c, "role");
      k.level = str(c, "level");
      k.verdict = str(c, "verdict");
      k.reason = str(c, "reason");
      k.started_at = str(c, "started_at");
      k.requirements = strings(c, "requirements");
      k.tags = strings(c, "tags");
      k.duration_ms = num(c, "duration_ms");
      if (auto f = c.find("failed_step"); f != c.end() && f->is_object()) {
        FailedStepView s{str(*f, "path"), str(*f, "message"), str(*f, "expected"), str(*f, "actual"), Json()};
        if (s.path.empty()) {
          if (auto i = f->find("index"); i != f->end() && i->is_number_unsigned()) s.path = std::to_string(i->get<std::uint64_t>());
        }
        if (auto st = f->find("step"); st != f->end()) s.step = *st;
        k.failed = std::move(s);
      }
      if (auto t = c.find("transcript"); t != c.end() && t->is_array()) k.transcript = &*t;
      if (auto st = c.find("steps"); st != c.end() && st->is_array()) k.steps = &*st;
      k.description = str(c, "description");
      k.blamed = strings(c, "blamed");
      k.reading = flag(c, "reading");
      k.na_cause = str(c, "na_cause");
      k.root_cause = str(c, "root_cause");
      k.blocked_by = str(c, "blocked_by");
      k.capacity = str(c, "capacity");
      if (auto o = c.find("order_dependent"); o != c.end() && o->is_object()) {
        k.order_dependent = true;
        k.ran_before = strings(*o, "ran_before");
      }
      v->cases.push_back(std::move(k));
    }
  }

  if (auto rs = doc.find("requirements"); rs != doc.end() && rs->is_array()) {
    for (const Json& r : *rs) {
      if (!r.is_object()) continue;
      RequirementView q{str(r, "id"), str(r, "protocol"), str(r, "level"), str(r, "kind"), str(r, "spec"),
                        str(r, "section"), str(r, "text"), str(r, "summary"), str(r, "status"), {}};
      if (auto cs = r.find("cases"); cs != r.end() && cs->is_array()) {
        for (const Json& c : *cs) q.cases.emplace_back(str(c, "id"), str(c, "verdict"));
      }
      v->requirements.push_back(std::move(q));
    }
  }
  for (const auto& r : v->requirements) v->requirement_by_id.emplace(r.id, &r);
  for (const auto& c : v->cases) v->case_by_id.emplace(c.id, &c);

  std::map<std::string, ProtocolView> protocols;
  for (const auto& c : v->cases) {
    ProtocolView& p = protocols[c.protocol];
    p.name = c.protocol;
    p.counts[c.verdict]++;
    p.by_suite[c.suite][c.verdict]++;
    p.by_level[c.level][c.verdict]++;
    if ((c.verdict == "FAIL" && c.level == "MUST") || c.verdict == "ERROR") p.conformant = false;
  }
  const Json* declared = nullptr;
  if (auto ps = doc.find("protocols"); ps != doc.end() && ps->is_object()) declared = &*ps;
  for (auto& [name, p] : protocols) {
    if (declared) {
      if (auto d = declared->find(name); d != declared->end() && d->is_object()) {
        p.spec = str(*d, "spec");
        p.spec_version = str(*d, "spec_version");
        if (auto n = d->find("requirements"); n != d->end() && n->is_number_integer()) p.requirements = n->get<long long>();
        if (auto n = d->find("requirements_covered"); n != d->end() && n->is_number_integer()) {
          p.requirements_covered = n->get<long long>();
        }
      }
    }
    v->protocols.push_back(std::move(p));
  }
  read_fuzz_members(doc, *v);
  read_run_members(doc, *v);
  return v;
}

BoundedTranscript bound_transcript(const Json* transcript, const Limits& limits) {
  BoundedTranscript out;
  if (!transcript || !transcript->is_array()) return out;
  out.total_entries = transcript->size();
  std::size_t bytes = 0, cut_entries = 0;
  for (const Json& e : *transcript) {
    if (out.entries.size() >= limits.case_entries || bytes >= limits.case_transcript_bytes) break;
    EntryView x;
    x.t_ms = num(e, "t_ms");
    x.channel = str(e, "channel");
    x.direction = str(e, "direction");
    x.kind = str(e, "kind");
    if (e.is_object()) {
      if (auto c = e.find("code"); c != e.end() && c->is_number_integer()) x.code = c->get<long long>();
      x.truncated = flag(e, "truncated");
      x.invalid_utf8 = flag(e, "invalid_utf8");
    }
    const std::string data = str(e, "data");
    const std::size_t room = std::min(limits.entry_bytes, limits.case_transcript_bytes - bytes);
    bool cut = false;
    x.data = truncate_utf8(data, room, &cut);
    if (cut) {
      x.cut_here = true;
      ++cut_entries;
      x.data += "\n[... " + std::to_string(data.size() - x.data.size()) + " more bytes not shown]";
    }
    bytes += x.data.size();
    out.entries.push_back(std::move(x));
  }
  const std::size_t omitted = out.total_entries - out.entries.size();
  if (omitted > 0 || cut_entries > 0) {
    out.note = "transcript truncated for this report: ";
    if (omitted > 0) out.note += std::to_string(omitted) + " of " + std::to_string(out.total_entries) + " entries not shown";
    if (omitted > 0 && cut_entries > 0) out.note += ", ";
    if (cut_entries > 0) out.note += std::to_string(cut_entries) + " entries cut";
    out.note += " (the complete transcript is in the JSON results file)";
  }
  return out;
}

}  // namespace ac::reports
