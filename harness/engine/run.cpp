#include "harness/engine/run.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "harness/engine/capacity.hpp"
#include "harness/engine/connection_slots.hpp"
#include "harness/engine/coverage.hpp"
#include "harness/engine/driver.hpp"
#include "harness/engine/preflight.hpp"
#include "harness/engine/runner.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/util/data_dir.hpp"
#include "harness/util/did_you_mean.hpp"

namespace ac::engine {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

bool glob(const std::string& pattern, const std::string& id) { return fnmatch(pattern.c_str(), id.c_str(), 0) == 0; }

bool selected(const Case& c, const RunOptions& o) {
  if (!o.protocols.empty() && !contains(o.protocols, c.protocol)) return false;
  if (!o.suites.empty() && !contains(o.suites, c.suite)) return false;
  if (!o.levels.empty() && !contains(o.levels, c.level)) return false;
  if (!o.case_globs.empty() && std::none_of(o.case_globs.begin(), o.case_globs.end(), [&](const auto& g) { return glob(g, c.id); })) {
    return false;
  }
  if (!o.tags.empty() && std::none_of(c.tags.begin(), c.tags.end(), [&](const auto& t) { return contains(o.tags, t); })) return false;
  return true;
}

CaseResult not_run(const Case& c, std::string reason) {
  CaseResult r;
  r.id = c.id;
  r.title = c.title;
  r.protocol = c.protocol;
  r.suite = c.suite;
  r.file = c.file;
  r.role = c.role;
  r.level = c.level;
  r.requirements = c.requirements;
  r.tags = c.tags;
  r.features = c.features;
  r.verdict = Verdict::error;
  r.reason = std::move(reason);
  return r;
}

// Whether a remote target still answers: a short HTTP exchange (any status is an answer).
bool answers(const TargetConfig& t, net::Runtime& runtime) {
  if (t.kind != "remote") return true;
  net::HttpCall call;
  call.url = t.http_base + "/";
  call.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(2000 * t.timeout_scale));
  call.tls = t.tls;
  call.max_response_bytes = 16u << 20;  // only the status matters, but a large page is still an answer
  auto r = net::http_request(runtime, call);
  return r || r.error().kind == net::ClientError::Kind::refused || r.error().kind == net::ClientError::Kind::tls;
}

// A preflight check that broke a requirement, as the run's first result: a FAIL of that
// requirement (a WARN when it is a SHOULD, or a reading under the default gate).
CaseResult preflight_failure(const std::string& protocol, const PreflightCheck& check, const RequirementCatalog& requirements,
                             bool strict_readings) {
  CaseResult r;
  const Requirement* req = requirements.find(check.requirement);
  r.id = "PREFLIGHT-" + protocol + "-" + check.name;
  r.title = "preflight: " + check.name + " (an entry point every case needs)";
  r.protocol = protocol;
  r.suite = "preflight";
  r.role = "";
  r.level = req != nullptr ? req->level : "MUST";
  r.requirements = {check.requirement};
  r.blamed = {check.requirement};
  r.reading = req != nullptr && req->kind == "reading";
  const bool must = r.level == "MUST" && (!r.reading || strict_readings);
  r.verdict = must ? Verdict::fail : Verdict::warn;
  r.reason = check.detail;
  r.root_cause = check.name + ": " + check.detail;
  FailedStep f;
  f.path = "preflight";
  f.message = "preflight " + check.name + ": " + check.detail + (check.fix.empty() ? "" : "\n  " + check.fix);
  if (req != nullptr) f.message += "\n  requirement: " + req->id + " (" + req->level + ", " + req->spec + " " + req->section + "): \"" + req->text + "\"";
  f.actual = check.detail;
  r.failed_step = std::move(f);
  r.started_at = proto::typed::utc_now();
  return r;
}

}  // namespace

// Cases mostly wait (silence windows, token lifetimes, timeouts the target must report): the
// whole run of 626 cases spends ~5 s of CPU in ~100 s of case time, so 32 at a time keeps it near
// 7 s on two cores against the embedded lobby. A third-party deployment may cap connections per
// address or rate-limit: 4 at a time is what a small one survives (target.json "limits" and
// --jobs say more). Cases never share an identifier (agent ids and ${ns} are per case and run).
std::size_t default_jobs(bool embedded) { return embedded ? 32 : 4; }

Expected<Loaded, std::string> load_all(const std::string& suites_dir) {
  const auto builtin = data_dir() / "suites";
  auto declarations = Declarations::load(builtin);
  if (!declarations) return unexpected(declarations.error());
  // One loader (the linter's checks) for the built-in suites and a custom directory: a custom
  // directory's cases run beside the built-in ones, its requirements.json extends the
  // catalogues, and a case id it reuses is refused like any duplicate.
  LoadOptions options;
  options.with_builtin_cases = true;
  auto set = load_suite_dir(suites_dir.empty() ? builtin : std::filesystem::path(suites_dir), options);
  if (!set) {
    const std::string where = suites_dir.empty() ? std::string("the suites") : "--suites " + suites_dir;
    return unexpected(std::to_string(set.error().size()) + " problem(s) in " + where + " (agentconform lint" +
                      (suites_dir.empty() ? std::string() : " " + suites_dir) + " lists them):\n" + describe_problems(set.error()));
  }
  return Loaded{std::move(set->requirements), std::move(set->suites), std::move(*declarations)};
}

Expected<Plan, std::string> make_plan(const Loaded& loaded, const RunOptions& o) {
  const std::vector<std::string> protocols = {"alp", "agora", "agentprotocol", "a2acp", "chopsticks"};
  for (const auto& p : o.protocols) {
    if (!contains(protocols, p)) return unexpected("unknown protocol '" + p + "'" + did_you_mean(p, protocols));
  }
  for (const auto& s : o.suites) {
    if (!contains(suite_names(), s)) return unexpected("unknown suite '" + s + "'" + did_you_mean(s, suite_names()));
  }
  for (const auto& l : o.levels) {
    if (l != "MUST" && l != "SHOULD" && l != "MAY") return unexpected("unknown level '" + l + "' (MUST, SHOULD, MAY)");
  }
  Plan plan;
  for (const auto& suite : loaded.suites) {
    for (const auto& c : suite.cases) {
      if (selected(c, o)) plan.cases.push_back(&c);
    }
  }
  // Each pattern must select a case on its own, or a typo hides behind another pattern's matches.
  for (const auto& g : o.case_globs) {
    if (std::none_of(plan.cases.begin(), plan.cases.end(), [&](const Case* c) { return glob(g, c->id); })) {
      // The nearest id of the protocols selected, for a typo; the id prefixes otherwise.
      std::vector<std::string> ids;
      std::set<std::string> prefixes;
      for (const auto& s : loaded.suites) {
        if (!o.protocols.empty() && !contains(o.protocols, s.protocol)) continue;
        for (const auto& c : s.cases) {
          ids.push_back(c.id);
          prefixes.insert(c.id.substr(0, c.id.rfind('-') + 1) + "*");
        }
      }
      const std::string near = nearest_name(g, ids);
      std::string hint = near.empty() ? "" : " (did you mean '" + near + "'?)";
      if (hint.empty()) {
        hint = " (case ids look like";
        std::size_t n = 0;
        for (const auto& p : prefixes) hint += (n++ == 0 ? " " : ", ") + p;
        hint += "; `agentconform run --list` lists them)";
      }
      return unexpected("--case '" + g + "' matches no case of the selection" + hint);
    }
  }
  for (const auto& s : o.suites) {
    if (std::none_of(plan.cases.begin(), plan.cases.end(), [&](const Case* c) { return c->suite == s; })) {
      return unexpected("--suite " + s + " has no case in the selection (check --protocol, --case, --tag and --level)");
    }
  }
  return plan;
}

Expected<RunOutcome, std::string> execute(const Loaded& loaded, const Plan& plan, const std::map<std::string, TargetConfig>& targets,
                                          const RunOptions& o, const CaseCallback& on_case, const PreflightCallback& on_preflight) {
  RunOutcome outcome;
  RunResult& result = outcome.result;
  result.seed = o.seed != 0 ? o.seed : std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
  result.started_at = proto::typed::utc_now();
  const auto started = std::chrono::steady_clock::now();
  for (const Case* c : plan.cases) {
    if (!targets.count(c->protocol)) return unexpected("no target for protocol " + c->protocol);
  }
  if (targets.size() == 1) {
    result.target = targets.begin()->second.describe();
  } else {
    Json all = Json::object();
    for (const auto& [p, t] : targets) all[p] = t.describe();
    result.target = {{"kind", targets.empty() ? "none" : targets.begin()->second.kind}, {"protocols", all}};
    if (!targets.empty()) result.target["url"] = targets.begin()->second.url;
  }
  if (!o.lobby_faults.empty()) result.target["faults"] = o.lobby_faults;
  result.options = {{"protocols", o.protocols}, {"suites", o.suites}, {"cases", o.case_globs}, {"tags", o.tags},
                    {"levels", o.levels}, {"jobs", o.jobs}, {"timeout_scale", o.timeout_scale},
                    {"strict_readings", o.strict_readings}};
  net::Runtime runtime(2);
  TranscriptBudget transcript_budget(o.transcript_run_bytes);
  // Identifiers (agent ids, ${ns}) differ from run to run even under one --seed: a deployment
  // keeps the ids of earlier runs, and may refuse one it has seen.
  const std::uint64_t id_salt = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);

  // Preflight: a setup mistake ends the run here, with one message and no FAIL. An entry point
  // that answers but breaks the protocol is a FAIL of that requirement, and the run goes on.
  std::set<std::string> used;
  for (const Case* c : plan.cases) used.insert(c->protocol);
  std::vector<CaseResult> preflight_fails;             // one per check that broke a requirement
  std::map<std::string, std::pair<std::string, std::string>> blocking;  // protocol -> (requirement, what the preflight saw)
  if (!o.skip_preflight && o.preflight != "off") {
    Json all = Json::object();
    for (const auto& p : used) {
      const TargetConfig& t = targets.at(p);
      PreflightOptions po;
      po.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(5000 * o.timeout_scale * t.timeout_scale));
      // The probe's agent id is fresh on every run, whatever --seed says: a target may refuse an
      // id it has seen before.
      po.seed = result.seed ^ id_salt;
      const PreflightResult pf = preflight(t, runtime, po);
      all[p] = pf.to_json();
      if (on_preflight) on_preflight(t, all[p]);
      const bool stop = o.preflight == "strict" ? !pf.ok() : o.preflight == "warn" ? false : !pf.setup_ok();
      if (stop) {
        result.preflight = all;
        result.setup_error = p + ": " + pf.summary();
        outcome.setup_error = true;
        result.finished_at = proto::typed::utc_now();
        result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        return outcome;
      }
      for (const PreflightCheck* f : pf.conformance_failures()) {
        preflight_fails.push_back(preflight_failure(p, *f, loaded.requirements, o.strict_readings));
        if (!blocking.count(p)) blocking[p] = {f->requirement, f->name + ": " + f->detail};
      }
    }
    result.preflight = all;
  }

  // The cases, on a pool of workers; results keep the plan's order.
  const bool embedded = std::all_of(targets.begin(), targets.end(), [](const auto& t) { return t.second.kind == "embedded"; });
  std::size_t jobs = std::max<std::size_t>(1, o.jobs != 0 ? o.jobs : default_jobs(embedded));
  // A deployment's connection cap: each case holds a slot per agent it declares while it runs.
  std::size_t connection_cap = 0;
  for (const auto& [p, t] : targets) {
    if (t.max_connections != 0) connection_cap = connection_cap == 0 ? t.max_connections : std::min(connection_cap, t.max_connections);
  }
  // One connection is the preflight's and the liveness probe's.
  if (connection_cap > 1) connection_cap -= 1;
  ConnectionSlots slots(connection_cap);
  result.options["jobs"] = jobs;
  if (connection_cap != 0) result.options["connections"] = connection_cap;
  std::vector<CaseResult> results(plan.cases.size());
  std::vector<std::size_t> start_order;  // plan indices in the order the cases started
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex mutex;  // guards done, start_order, the down state and the callback
  std::string down_protocol, last_completed, detected_in;
  std::atomic<bool> cancel{false};
  // A watched target (--target-command): each death bumps the generation once the target is back;
  // a case that started in an earlier generation overlapped a death and is re-run alone later.
  std::mutex watch_mutex;  // one check (and restart) at a time
  std::uint64_t generation = 0;
  std::vector<std::size_t> suspects;
  constexpr std::size_t kMaxDeaths = 10;
  const auto deadline = o.deadline.count() > 0 ? started + o.deadline : std::chrono::steady_clock::time_point::max();
  auto interrupted = [&] { return o.interrupt != nullptr && o.interrupt->load() != 0; };
  // Every case of the run, in the pool or re-run alone, runs with the same options; a re-run
  // gets a seed of its own, so its identifiers are fresh (a target may refuse a reused id).
  const CaseOptions case_options = [&] {
    CaseOptions co;
    co.timeout_scale = o.timeout_scale;
    co.seed = result.seed;
    co.strict_readings = o.strict_readings;
    co.cancel = &cancel;
    co.transcript_budget = &transcript_budget;
    co.id_salt = id_salt;
    return co;
  }();
  std::uint64_t reruns = 0;
  auto run_one = [&](const Case& c) { return run_case(c, loaded.requirements, targets.at(c.protocol), runtime, case_options); };
  auto run_again = [&](const Case& c) {
    CaseOptions co = case_options;
    co.seed = result.seed ^ (0x9E3779B97F4A7C15ULL * ++reruns);
    return run_case(c, loaded.requirements, targets.at(c.protocol), runtime, co);
  };
  auto record_death = [&](const Case& c, const TargetDeath& death, bool alone) {
    result.target_deaths.push_back({{"protocol", c.protocol}, {"detected_after", c.id}, {"how", death.how}, {"evidence", death.evidence},
                                    {"restarted", death.restarted}, {"culprit", nullptr}});
    if (alone) result.target_deaths.back()["alone"] = true;
    if (!death.restarted || result.target_deaths.size() >= kMaxDeaths) {
      if (down_protocol.empty()) {
        down_protocol = c.protocol;
        detected_in = c.id;
        result.target_down = {{"protocol", c.protocol}, {"detected_in", c.id}, {"last_completed", last_completed},
                              {"detail", death.restarted ? "the target died " + std::to_string(kMaxDeaths) + " times; the run stops restarting it"
                                                         : "the target could not be restarted: " + death.restart_error}};
      }
    }
  };
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= plan.cases.size()) return;
      const Case& c = *plan.cases[i];
      CaseResult r;
      std::string down_now;
      {
        std::lock_guard lock(mutex);
        down_now = down_protocol == c.protocol ? detected_in : std::string();
      }
      if (interrupted()) {
        cancel = true;
        r = not_run(c, "not run: the run was interrupted");
      } else if (!down_now.empty()) {
        r = not_run(c, "not run: the target stopped answering (first noticed in " + down_now + ")");
      } else if (std::chrono::steady_clock::now() >= deadline) {
        r = not_run(c, "not run: the run's deadline passed");
      } else {
        std::uint64_t started_in = 0;
        const ConnectionSlots::Held held = slots.acquire(c.agents.size());
        {
          std::lock_guard lock(mutex);
          started_in = generation;
          start_order.push_back(i);
        }
        r = run_one(c);
        slots.release(held);
        if (r.verdict != Verdict::pass && r.verdict != Verdict::not_applicable && capacity_refusal(r.transcript, c.steps).found()) {
          slots.lower(held);
        }
        if (interrupted()) cancel = true;
        const bool failed = r.verdict != Verdict::pass && r.verdict != Verdict::not_applicable;
        if (o.watch != nullptr && !cancel) {
          // A target that dies of a case's last message dies a moment after it: give it that moment
          // before the check, so the death is this case's, not the next one's.
          if (r.verdict != Verdict::not_applicable) std::this_thread::sleep_for(o.watch_grace);
          // The generation moves on before the next check, so no case that overlapped the death
          // can see the old one.
          std::lock_guard wl(watch_mutex);
          const std::optional<TargetDeath> death = o.watch->check(r.verdict != Verdict::not_applicable);
          std::lock_guard lock(mutex);
          if (death) {
            ++generation;
            record_death(c, *death, false);
          }
          if (started_in != generation) {
            suspects.push_back(i);
            r.verdict = Verdict::error;
            r.provisional = true;
            r.blamed.clear();
            r.reason = "the target died while this case ran (" + result.target_deaths.back().value("how", std::string()) +
                       "); the case is run again alone after the others";
          }
        } else if (failed && !cancel && !answers(targets.at(c.protocol), runtime)) {
          // A failure may be the target dying: if it no longer answers, the case cannot be judged.
          std::lock_guard lock(mutex);
          if (down_protocol.empty()) {
            down_protocol = c.protocol;
            detected_in = c.id;
            result.target_down = {{"protocol", c.protocol}, {"detected_in", c.id}, {"last_completed", last_completed}};
          }
          r.verdict = Verdict::error;
          r.blamed.clear();
          r.reason = "the target stopped answering during this case (" + r.reason + ")";
        }
      }
      std::lock_guard lock(mutex);
      if (o.confirm_failures && r.verdict == Verdict::fail) r.provisional = true;
      results[i] = std::move(r);
      if (results[i].verdict != Verdict::error) last_completed = c.id;
      ++done;
      if (on_case) on_case(results[i], done, plan.cases.size());
      results[i].provisional = false;
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t j = 0; j < std::min(jobs, std::max<std::size_t>(1, plan.cases.size())); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();

  // The cases that overlapped a death of a watched target, one at a time. A culprit is a case
  // after which the target dies when it runs alone, twice, each time on a freshly started
  // target; only the deaths of its kind are pinned on it. The others get the verdict of their
  // quiet re-run, and a death no case causes alone stays unattributed.
  std::sort(suspects.begin(), suspects.end());
  std::vector<bool> judged_alone(plan.cases.size(), false);  // by the culprit search: not confirmed again below
  auto same_kind = [](const std::string& a, const std::string& b) { return a.substr(0, a.find(" (")) == b.substr(0, b.find(" (")); };
  for (const std::size_t i : suspects) {
    if (interrupted() || !down_protocol.empty()) break;
    const Case& c = *plan.cases[i];
    CaseResult r = run_again(c);
    r.provisional = false;
    std::this_thread::sleep_for(o.watch_grace);
    auto death = o.watch->check(true);
    if (death) {
      record_death(c, *death, true);
      std::optional<TargetDeath> again;
      if (death->restarted && down_protocol.empty()) {
        r = run_again(c);
        std::this_thread::sleep_for(o.watch_grace);
        again = o.watch->check(true);
        if (again) record_death(c, *again, true);
      }
      if (again && same_kind(again->how, death->how)) {
        for (auto& d : result.target_deaths) {
          if (d["culprit"].is_null() && d.value("protocol", std::string()) == c.protocol && same_kind(d.value("how", std::string()), death->how)) {
            d["culprit"] = c.id;
          }
        }
        r.verdict = Verdict::fail;
        r.blamed.clear();
        r.reason = "the target " + death->how + " after this case, run alone on a fresh target, twice (its crash evidence is in the report's target deaths)";
      } else {
        r.verdict = Verdict::error;
        r.blamed.clear();
        r.reason = "the target " + death->how + " once after this case run alone, " +
                   (again ? "and died otherwise (" + again->how + ") the second time" : std::string("not the second time")) +
                   ": not attributed";
      }
    }
    judged_alone[i] = death.has_value();
    results[i] = std::move(r);
    if (on_case) on_case(results[i], plan.cases.size(), plan.cases.size());
  }

  // A case that could not connect its agents because the preflight found the protocol's entry
  // point broken judged nothing: BLOCKED by that requirement (unless it is that requirement's own
  // case, whose FAIL is its evidence).
  for (std::size_t i = 0; i < results.size(); ++i) {
    CaseResult& r = results[i];
    const auto b = blocking.find(r.protocol);
    if (b == blocking.end() || !(r.verdict == Verdict::fail || r.verdict == Verdict::warn || r.verdict == Verdict::error)) continue;
    if (std::find(r.requirements.begin(), r.requirements.end(), b->second.first) != r.requirements.end()) continue;
    if (!r.failed_step || !r.failed_step->step.is_object() || !r.failed_step->step.contains("connect")) continue;
    r.verdict = Verdict::blocked;
    r.blocked_by = b->second.first;
    r.blamed.clear();
    r.root_cause = b->second.second;
    r.reason = "blocked by " + b->second.first + " (the preflight's " + b->second.second.substr(0, b->second.second.find(':')) +
               " check): this case could not connect its agents (" + r.reason + ")";
  }

  if (const std::size_t learned = slots.learned(); learned != 0) result.options["connections_learned"] = learned;

  // A FAIL is the target's only when it recurs: each one, and each case the target refused for
  // capacity, runs once more alone (after the pause a capacity refusal asked for: its
  // Retry-After each time, else one pause for the whole phase, since the cases of the run that
  // filled the target have all ended by then).
  bool paused_for_capacity = false;
  if (o.confirm_failures) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (interrupted() || std::chrono::steady_clock::now() >= deadline) break;
      CaseResult& r = results[i];
      if (!down_protocol.empty() && r.protocol == down_protocol) continue;
      if (r.reason.starts_with("not run")) continue;
      // The culprit search ran it alone already, twice on a fresh target: a third run would
      // only kill the target once more and add a death nobody is pinned to.
      if (judged_alone[i]) continue;
      const Case& c = *plan.cases[i];
      const CapacityRefusal first = r.verdict == Verdict::pass || r.verdict == Verdict::not_applicable || r.verdict == Verdict::blocked
                                        ? CapacityRefusal{}
                                        : capacity_refusal(r.transcript, c.steps);
      if (r.verdict != Verdict::fail && !first.found()) continue;
      if (first.found() && (first.retry_after.count() > 0 || !paused_for_capacity)) {
        const auto pause = first.retry_after.count() > 0 ? first.retry_after : std::chrono::milliseconds(static_cast<std::int64_t>(1000 * o.timeout_scale));
        std::this_thread::sleep_for(pause);
        paused_for_capacity = true;
      }
      if (o.watch != nullptr) {
        if (auto e = o.watch->restart()) {
          r.reason += " (not confirmed alone: the target did not restart: " + *e + ")";
          continue;
        }
      }
      CaseResult alone = run_again(c);
      if (o.watch != nullptr) {
        // Alone on a fresh target, a death after the case is this case's.
        std::this_thread::sleep_for(o.watch_grace);
        if (auto death = o.watch->check(true)) {
          record_death(c, *death, true);
          alone.verdict = Verdict::fail;
          alone.blamed.clear();
          alone.reason = "the target " + death->how + " after this case, run alone on a fresh target (its evidence is in the report's target deaths)";
        }
      }
      const CapacityRefusal second = alone.verdict == Verdict::pass ? CapacityRefusal{} : capacity_refusal(alone.transcript, c.steps);
      if (first.found()) {
        if (second.found() && alone.verdict != Verdict::pass && alone.verdict != Verdict::not_applicable) {
          alone.verdict = Verdict::error;
          alone.blamed.clear();
          alone.capacity = second.what;
          alone.reason = "target capacity: the target refused with " + second.what +
                         " in the run and again when the case ran alone; not judged (lower --jobs, or declare limits.connections / "
                         "limits.requests_per_second in target.json)";
        } else {
          alone.reason += " (run alone: in the run the target refused it for capacity, " + first.what + ")";
          alone.capacity_in_run = first.what;
        }
        r = std::move(alone);
      } else if (alone.verdict == Verdict::fail) {
        r.reason += " (confirmed: it failed again when run alone)";
      } else if (alone.verdict == Verdict::pass) {
        r.order_dependent = true;
        std::lock_guard lock(mutex);
        const auto pos = std::find(start_order.begin(), start_order.end(), i);
        for (auto it = pos; it != start_order.begin() && r.ran_before.size() < 8;) {
          --it;
          if (plan.cases[*it]->protocol == c.protocol) r.ran_before.push_back(plan.cases[*it]->id);
        }
        if (!o.strict_order) r.verdict = Verdict::warn;
        std::string before;
        for (const auto& id : r.ran_before) before += (before.empty() ? "" : ", ") + id;
        r.reason = "order-dependent: it failed in the run and passed when run again alone (the target's state from earlier cases: " +
                   (before.empty() ? std::string("none before it") : before) + "); gated as WARN unless --strict-order. In the run: " + r.reason;
      } else {
        r.reason += " (run alone, it ended " + verdict_name(alone.verdict) + ": " + alone.reason.substr(0, 200) + ")";
      }
      if (on_case) on_case(r, plan.cases.size(), plan.cases.size());
    }
  }
  // The preflight's FAILs lead: they are the run's first root causes.
  if (!preflight_fails.empty()) results.insert(results.begin(), preflight_fails.begin(), preflight_fails.end());
  outcome.target_deaths = result.target_deaths.size();

  if (interrupted()) {
    const int sig = o.interrupt->load();
    result.interrupted = sig == 15 ? "SIGTERM" : sig == 2 ? "SIGINT" : "signal " + std::to_string(sig);
  }
  outcome.target_unreachable = !down_protocol.empty();
  for (const auto& r : results) {
    if (r.verdict == Verdict::pass || r.verdict == Verdict::fail || r.verdict == Verdict::warn) ++outcome.executed;
  }
  result.cases = std::move(results);
  // Where the run's transcript budget cut transcripts (each cut one ends with a note saying so).
  result.options["transcript_budget"] = {{"bytes", transcript_budget.total()}, {"cases_cut", transcript_budget.cases_cut()}};
  result.coverage = compute_coverage(loaded.requirements, result.cases, targets);
  result.finished_at = proto::typed::utc_now();
  result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}

}  // namespace ac::engine
