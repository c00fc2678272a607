#include "harness/engine/results.hpp"

#include <algorithm>
#include <map>

namespace ac::engine {

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail: return "FAIL";
    case Verdict::warn: return "WARN";
    case Verdict::not_applicable: return "NOT_APPLICABLE";
    case Verdict::error: return "ERROR";
    case Verdict::blocked: return "BLOCKED";
  }
  return "ERROR";
}

std::optional<Verdict> parse_verdict(std::string_view s) {
  for (Verdict v : {Verdict::pass, Verdict::fail, Verdict::warn, Verdict::not_applicable, Verdict::error, Verdict::blocked}) {
    if (verdict_name(v) == s) return v;
  }
  return std::nullopt;
}

Json to_json(const CaseResult& c) {
  Json j = {{"id", c.id},
            {"title", c.title},
            {"protocol", c.protocol},
            {"suite", c.suite},
            {"file", c.file},
            {"role", c.role},
            {"level", c.level},
            {"requirements", c.requirements},
            {"tags", c.tags},
            {"features", c.features},
            {"verdict", verdict_name(c.verdict)},
            {"reason", c.reason},
            {"duration_ms", c.duration_ms},
            {"started_at", c.started_at},
            {"transcript", c.transcript}};
  if (!c.blamed.empty()) j["blamed"] = c.blamed;
  if (c.reading) j["reading"] = true;
  if (!c.na_cause.empty()) j["na_cause"] = c.na_cause;
  if (!c.root_cause.empty()) j["root_cause"] = c.root_cause;
  if (!c.blocked_by.empty()) j["blocked_by"] = c.blocked_by;
  if (!c.capacity.empty()) j["capacity"] = c.capacity;
  if (!c.capacity_in_run.empty()) j["capacity_in_run"] = c.capacity_in_run;
  if (c.order_dependent) j["order_dependent"] = {{"ran_before", c.ran_before}};
  if (c.failed_step) {
    const auto& f = *c.failed_step;
    j["failed_step"] = {{"index", f.index}, {"path", f.path}, {"step", f.step}, {"message", f.message},
                        {"expected", f.expected}, {"actual", f.actual}};
  }
  return j;
}

namespace {

// The status of a requirement from the verdicts of its cases: FAIL dominates, then ERROR, WARN,
// PASS; NOT_APPLICABLE only when every case was.
std::string rollup(const std::vector<Verdict>& verdicts) {
  if (verdicts.empty()) return "UNTESTED";
  bool pass = false, na = false, warn = false, error = false, blocked = false;
  for (Verdict v : verdicts) {
    if (v == Verdict::fail) return "FAIL";
    error |= v == Verdict::error;
    warn |= v == Verdict::warn;
    pass |= v == Verdict::pass;
    na |= v == Verdict::not_applicable;
    blocked |= v == Verdict::blocked;
  }
  if (error) return "ERROR";
  if (warn) return "WARN";
  if (pass) return "PASS";
  if (blocked) return "BLOCKED";
  return na ? "NOT_APPLICABLE" : "UNTESTED";
}

// Cases grouped by a shared key (N/A cause, root cause), largest group first.
template <typename Key>
Json groups(const std::vector<CaseResult>& cases, Key key, std::size_t min_size) {
  std::map<std::string, std::vector<std::string>> by;
  for (const auto& c : cases) {
    if (std::string k = key(c); !k.empty()) by[k].push_back(c.id);
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> sorted(by.begin(), by.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  Json out = Json::array();
  for (const auto& [k, ids] : sorted) {
    if (ids.size() >= min_size) out.push_back({{"cause", k}, {"count", ids.size()}, {"cases", ids}});
  }
  return out;
}

}  // namespace

Json not_applicable_groups(const std::vector<CaseResult>& cases) {
  return groups(cases, [](const CaseResult& c) { return c.na_cause; }, 1);
}

std::string root_cause_key(const CaseResult& c) {
  if (c.verdict == Verdict::blocked && !c.blocked_by.empty()) return "blocked by " + c.blocked_by + (c.root_cause.empty() ? "" : ": " + c.root_cause);
  if (!c.capacity.empty()) return "target capacity: " + c.capacity;
  if (c.verdict == Verdict::pass || c.verdict == Verdict::not_applicable) return "";
  // Cases a death or an unreachable target kept from being judged share that reason.
  if (c.verdict == Verdict::error && (c.reason.starts_with("not run: ") || c.reason.starts_with("the target stopped answering"))) {
    return c.reason.substr(0, c.reason.find(" ("));
  }
  return c.root_cause;
}

Json root_cause_groups(const std::vector<CaseResult>& cases) {
  // Only failures that share their cause with others form a group.
  return groups(cases, root_cause_key, 3);
}

Json to_json(const RunResult& r, const RequirementCatalog& requirements) {
  Json out = {{"format", "agentconform-results/1"},
              {"tool", {{"name", "agentconform"}, {"version", r.tool_version}}},
              {"started_at", r.started_at},
              {"finished_at", r.finished_at},
              {"duration_ms", r.duration_ms},
              {"seed", r.seed},
              {"target", r.target},
              {"options", r.options},
              {"cases", Json::array()},
              {"protocols", Json::object()},
              {"requirements", Json::array()},
              {"findings", r.findings}};
  if (r.fuzz.is_object()) out["fuzz"] = r.fuzz;
  if (!r.preflight.is_null()) out["preflight"] = r.preflight;
  if (!r.setup_error.empty()) out["setup_error"] = r.setup_error;
  if (!r.interrupted.empty()) out["interrupted"] = r.interrupted;
  if (!r.target_down.is_null()) out["target_down"] = r.target_down;
  if (r.target_deaths.is_array() && !r.target_deaths.empty()) out["target_deaths"] = r.target_deaths;
  out["coverage"] = r.coverage;
  out["not_applicable"] = not_applicable_groups(r.cases);
  out["root_causes"] = root_cause_groups(r.cases);
  std::map<std::string, std::vector<std::pair<std::string, Verdict>>> by_requirement;
  std::map<std::string, bool> protocols;
  for (const auto& c : r.cases) {
    out["cases"].push_back(to_json(c));
    protocols[c.protocol] = true;
    // A failed case judged only the requirements its failing step checks; the others of the case
    // were not reached.
    const bool failed = c.verdict == Verdict::fail || c.verdict == Verdict::warn;
    for (const auto& req : c.requirements) {
      if (failed && !c.blamed.empty() && std::find(c.blamed.begin(), c.blamed.end(), req) == c.blamed.end()) continue;
      by_requirement[req].emplace_back(c.id, c.verdict);
    }
  }
  for (const auto& [p, _] : protocols) {
    Json summary = {{"PASS", 0}, {"FAIL", 0}, {"WARN", 0}, {"NOT_APPLICABLE", 0}, {"ERROR", 0}, {"BLOCKED", 0}};
    Json by_level = Json::object();
    Json by_suite = Json::object();
    bool must_failed = false;
    for (const auto& c : r.cases) {
      if (c.protocol != p) continue;
      const std::string v = verdict_name(c.verdict);
      summary[v] = summary[v].get<int>() + 1;
      auto bump = [&v](Json& counts) { counts[v] = (counts.is_object() && counts.contains(v) ? counts[v].get<int>() : 0) + 1; };
      bump(by_level[c.level]);
      bump(by_suite[c.suite]);
      must_failed |= c.verdict == Verdict::fail && c.level == "MUST";
    }
    std::size_t reqs = 0, covered = 0;
    for (const Requirement* req : requirements.of_protocol(p)) {
      ++reqs;
      covered += by_requirement.count(req->id) != 0;
    }
    std::string spec;
    if (auto list = requirements.of_protocol(p); !list.empty()) spec = list.front()->spec;
    out["protocols"][p] = {{"spec", spec},
                           {"spec_version", requirements.spec_version(p)},
                           {"summary", summary},
                           {"by_level", by_level},
                           {"by_suite", by_suite},
                           {"requirements", reqs},
                           {"requirements_covered", covered},
                           {"conformant", !must_failed && summary["ERROR"] == 0}};
  }
  for (const auto& [p, _] : protocols) {
    for (const Requirement* req : requirements.of_protocol(p)) {
      Json cases = Json::array();
      std::vector<Verdict> verdicts;
      if (auto it = by_requirement.find(req->id); it != by_requirement.end()) {
        for (const auto& [id, v] : it->second) {
          cases.push_back({{"id", id}, {"verdict", verdict_name(v)}});
          verdicts.push_back(v);
        }
      }
      out["requirements"].push_back({{"id", req->id}, {"protocol", p}, {"level", req->level}, {"kind", req->kind},
                                     {"spec", req->spec}, {"section", req->section}, {"text", req->text},
                                     {"summary", req->summary}, {"feature", req->feature}, {"cases", cases},
                                     {"status", rollup(verdicts)}});
    }
  }
  return out;
}

Expected<RunResult, std::string> run_result_from_json(const Json& doc) {
  try {
    if (doc.value("format", std::string()) != "agentconform-results/1") {
      return unexpected(std::string("not an agentconform results file (format agentconform-results/1 expected)"));
    }
    RunResult r;
    r.tool_version = doc.at("tool").value("version", std::string());
    r.started_at = doc.value("started_at", std::string());
    r.finished_at = doc.value("finished_at", std::string());
    r.duration_ms = doc.value("duration_ms", 0.0);
    r.seed = doc.value("seed", std::uint64_t{0});
    r.target = doc.value("target", Json::object());
    r.options = doc.value("options", Json::object());
    r.findings = doc.value("findings", Json::array());
    if (auto f = doc.find("fuzz"); f != doc.end() && f->is_object()) r.fuzz = *f;
    r.preflight = doc.value("preflight", Json());
    r.setup_error = doc.value("setup_error", std::string());
    r.interrupted = doc.value("interrupted", std::string());
    r.target_down = doc.value("target_down", Json());
    r.target_deaths = doc.value("target_deaths", Json::array());
    r.coverage = doc.value("coverage", Json::object());
    for (const auto& c : doc.at("cases")) {
      CaseResult k;
      k.id = c.at("id").get<std::string>();
      k.title = c.value("title", std::string());
      k.protocol = c.value("protocol", std::string());
      k.suite = c.value("suite", std::string());
      k.file = c.value("file", std::string());
      k.role = c.value("role", std::string());
      k.level = c.value("level", std::string());
      k.requirements = c.value("requirements", std::vector<std::string>{});
      k.tags = c.value("tags", std::vector<std::string>{});
      k.features = c.value("features", std::vector<std::string>{});
      auto v = parse_verdict(c.at("verdict").get<std::string>());
      if (!v) return unexpected("case " + k.id + ": unknown verdict");
      k.verdict = *v;
      k.reason = c.value("reason", std::string());
      k.duration_ms = c.value("duration_ms", 0.0);
      k.started_at = c.value("started_at", std::string());
      k.transcript = c.value("transcript", Json::array());
      k.blamed = c.value("blamed", std::vector<std::string>{});
      k.reading = c.value("reading", false);
      k.na_cause = c.value("na_cause", std::string());
      k.root_cause = c.value("root_cause", std::string());
      k.blocked_by = c.value("blocked_by", std::string());
      k.capacity = c.value("capacity", std::string());
      k.capacity_in_run = c.value("capacity_in_run", std::string());
      if (auto o = c.find("order_dependent"); o != c.end() && o->is_object()) {
        k.order_dependent = true;
        k.ran_before = o->value("ran_before", std::vector<std::string>{});
      }
      if (auto f = c.find("failed_step"); f != c.end() && f->is_object()) {
        FailedStep s;
        s.index = f->value("index", std::size_t{0});
        s.path = f->value("path", std::string());
        s.step = f->value("step", Json());
        s.message = f->value("message", std::string());
        s.expected = f->value("expected", std::string());
        s.actual = f->value("actual", std::string());
        k.failed_step = std::move(s);
      }
      r.cases.push_back(std::move(k));
    }
    return r;
  } catch (const std::exception& ex) {
    return unexpected(std::string("malformed results file: ") + ex.what());
  }
}

}  // namespace ac::engine
