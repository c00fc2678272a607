#include "harness/engine/run.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <thread>

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

}  // namespace

// Cases mostly wait (silence windows, token lifetimes, timeouts the target must report): the
// whole run of 593 cases spends ~5 s of CPU in ~100 s of case time, so 32 at a time keeps it near
// 7 s on two cores. Cases never share an agent id (directory agents are leased), so parallel
// cases do not interfere; a target with tight global limits is run with a lower --jobs.
std::size_t default_jobs() { return 32; }

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

  // Preflight: a setup mistake ends the run here, with one message and no FAIL.
  std::set<std::string> used;
  for (const Case* c : plan.cases) used.insert(c->protocol);
  if (!o.skip_preflight) {
    Json all = Json::object();
    for (const auto& p : used) {
      const TargetConfig& t = targets.at(p);
      PreflightOptions po;
      po.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(5000 * o.timeout_scale * t.timeout_scale));
      po.seed = result.seed;
      const PreflightResult pf = preflight(t, runtime, po);
      all[p] = pf.to_json();
      if (on_preflight) on_preflight(t, all[p]);
      if (!pf.ok()) {
        result.preflight = all;
        result.setup_error = p + ": " + pf.summary();
        outcome.setup_error = true;
        result.finished_at = proto::typed::utc_now();
        result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        return outcome;
      }
    }
    result.preflight = all;
  }

  // The cases, on a pool of workers; results keep the plan's order.
  const std::size_t jobs = std::max<std::size_t>(1, o.jobs != 0 ? o.jobs : default_jobs());
  std::vector<CaseResult> results(plan.cases.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex mutex;  // guards done, the down state and the callback
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
  // Every case of the run, in the pool or re-run alone, runs with the same options.
  const CaseOptions case_options = [&] {
    CaseOptions co;
    co.timeout_scale = o.timeout_scale;
    co.seed = result.seed;
    co.strict_readings = o.strict_readings;
    co.cancel = &cancel;
    co.transcript_budget = &transcript_budget;
    return co;
  }();
  auto run_one = [&](const Case& c) { return run_case(c, loaded.requirements, targets.at(c.protocol), runtime, case_options); };
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
        {
          std::lock_guard lock(mutex);
          started_in = generation;
        }
        r = run_one(c);
        if (interrupted()) cancel = true;
        const bool failed = r.verdict != Verdict::pass && r.verdict != Verdict::not_applicable;
        if (o.watch != nullptr && !cancel) {
          // The generation moves on before the next check, so no case that overlapped the death
          // can see the old one.
          std::lock_guard wl(watch_mutex);
          const std::optional<TargetDeath> death = o.watch->check(failed);
          std::lock_guard lock(mutex);
          if (death) {
            ++generation;
            result.target_deaths.push_back({{"protocol", c.protocol}, {"detected_after", c.id}, {"how", death->how},
                                            {"evidence", death->evidence}, {"restarted", death->restarted},
                                            {"culprit", nullptr}});
            if (!death->restarted || result.target_deaths.size() >= kMaxDeaths) {
              if (down_protocol.empty()) {
                down_protocol = c.protocol;
                detected_in = c.id;
                result.target_down = {{"protocol", c.protocol}, {"detected_in", c.id}, {"last_completed", last_completed},
                                      {"detail", death->restarted ? "the target died " + std::to_string(kMaxDeaths) + " times; the run stops restarting it"
                                                                  : "the target could not be restarted: " + death->restart_error}};
              }
            }
          }
          if (started_in != generation) {
            suspects.push_back(i);
            r.verdict = Verdict::error;
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
      results[i] = std::move(r);
      if (results[i].verdict != Verdict::error) last_completed = c.id;
      ++done;
      if (on_case) on_case(results[i], done, plan.cases.size());
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t j = 0; j < std::min(jobs, std::max<std::size_t>(1, plan.cases.size())); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();

  // The cases that overlapped a death of a watched target, one at a time: the one after which the
  // target dies again is the culprit (a FAIL: whatever the spec says, a message must not kill the
  // target); the others get the verdict of their quiet re-run.
  std::sort(suspects.begin(), suspects.end());
  for (const std::size_t i : suspects) {
    if (interrupted() || !down_protocol.empty()) break;
    const Case& c = *plan.cases[i];
    CaseResult r = run_one(c);
    auto death = o.watch->check(r.verdict != Verdict::pass && r.verdict != Verdict::not_applicable);
    if (death) {
      for (auto& d : result.target_deaths) {
        if (d["culprit"].is_null() && d.value("protocol", std::string()) == c.protocol) d["culprit"] = c.id;
      }
      result.target_deaths.push_back({{"protocol", c.protocol}, {"detected_after", c.id}, {"how", death->how}, {"evidence", death->evidence},
                                      {"restarted", death->restarted}, {"culprit", c.id}, {"alone", true}});
      r.verdict = Verdict::fail;
      r.blamed.clear();
      r.reason = "the target " + death->how + " during this case, run alone (its crash evidence is in the report's target deaths)";
      if (!death->restarted) {
        down_protocol = c.protocol;
        detected_in = c.id;
        result.target_down = {{"protocol", c.protocol}, {"detected_in", c.id}, {"last_completed", last_completed},
                              {"detail", "the target could not be restarted: " + death->restart_error}};
      }
    }
    results[i] = std::move(r);
    if (on_case) on_case(results[i], plan.cases.size(), plan.cases.size());
  }
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
