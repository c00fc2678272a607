#include "harness/engine/run.hpp"

#include <fnmatch.h>
#include <unistd.h>

#include <atomic>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "harness/engine/driver.hpp"
#include "harness/engine/runner.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/util/data_dir.hpp"
#include "reference/lobby/lobby.hpp"

namespace ac::engine {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

bool selected(const Case& c, const RunOptions& o) {
  if (!o.protocols.empty() && !contains(o.protocols, c.protocol)) return false;
  if (!o.suites.empty() && !contains(o.suites, c.suite)) return false;
  if (!o.levels.empty() && !contains(o.levels, c.level)) return false;
  if (!o.case_globs.empty()) {
    bool any = false;
    for (const auto& g : o.case_globs) any |= fnmatch(g.c_str(), c.id.c_str(), 0) == 0;
    if (!any) return false;
  }
  if (!o.tags.empty()) {
    bool any = false;
    for (const auto& t : c.tags) any |= contains(o.tags, t);
    if (!any) return false;
  }
  return true;
}

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

}  // namespace

Expected<Loaded, std::string> load_all() {
  auto requirements = RequirementCatalog::load(data_dir() / "suites");
  if (!requirements) return unexpected(requirements.error());
  auto suites = load_suites(data_dir() / "suites", *requirements);
  if (!suites) return unexpected(suites.error());
  return Loaded{std::move(*requirements), std::move(*suites)};
}

Expected<Plan, std::string> make_plan(const Loaded& loaded, const RunOptions& o) {
  for (const auto& p : o.protocols) {
    if (!proto::parse_protocol(p)) return unexpected("unknown protocol '" + p + "' (alp, agora, agentprotocol, a2acp, chopsticks)");
  }
  for (const auto& s : o.suites) {
    if (!contains(suite_names(), s)) return unexpected("unknown suite '" + s + "'");
  }
  for (const auto& l : o.levels) {
    if (l != "MUST" && l != "SHOULD" && l != "MAY") return unexpected("unknown level '" + l + "' (MUST, SHOULD, MAY)");
  }
  if (!o.target_url.empty() && o.protocols.size() != 1) return unexpected(std::string("--target needs exactly one --protocol"));
  Plan plan;
  for (const auto& suite : loaded.suites) {
    for (const auto& c : suite.cases) {
      if (selected(c, o)) plan.cases.push_back(&c);
    }
  }
  return plan;
}

Expected<RunOutcome, std::string> execute(const Loaded& loaded, const Plan& plan, const RunOptions& o, std::ostream& progress) {
  RunOutcome outcome;
  RunResult& result = outcome.result;
  result.seed = o.seed != 0 ? o.seed : std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
  result.started_at = proto::typed::utc_now();
  const auto started = std::chrono::steady_clock::now();

  // Targets, one per protocol in the plan.
  std::set<std::string> protocols;
  for (const Case* c : plan.cases) protocols.insert(c->protocol);
  std::unique_ptr<ref::Lobby> lobby;
  std::map<std::string, TargetConfig> targets;
  if (o.target_url.empty()) {
    ref::LobbyConfig config;
    config.port = 0;
    config.threads = 2;
    for (const auto& f : o.lobby_faults) config.faults.insert(f);
    for (const auto& p : protocols) driver_for(*proto::parse_protocol(p)).configure_embedded(config);
    auto started_lobby = ref::Lobby::start(config);
    if (!started_lobby) return unexpected("cannot start the embedded reference lobby: " + started_lobby.error());
    lobby = std::move(*started_lobby);
    for (const auto& p : protocols) {
      const Driver& d = driver_for(*proto::parse_protocol(p));
      TargetConfig& t = targets[p];
      t.protocol = p;
      t.kind = "embedded";
      t.url = lobby->http_url();
      t.http_base = lobby->http_url();
      t.ws_base = lobby->ws_url();
      d.defaults(t);
      t.features = d.reference_features();
      d.embedded_settings(lobby->config(), t);
    }
    result.target = {{"kind", "embedded"}, {"url", lobby->http_url()}, {"faults", o.lobby_faults}};
  } else {
    const std::string p = o.protocols.front();
    const Driver& d = driver_for(*proto::parse_protocol(p));
    TargetConfig& t = targets[p];
    t.protocol = p;
    if (auto r = apply_target_url(t, o.target_url, d.primary_path()); !r) return unexpected(r.error());
    if (!o.target_config.empty()) {
      if (auto r = apply_target_file(t, o.target_config); !r) return unexpected(r.error());
    }
    d.defaults(t);
    std::vector<std::string> features(t.features.begin(), t.features.end());
    result.target = {{"kind", t.kind}, {"url", o.target_url}, {"features", features}};
  }
  result.options = {{"protocols", o.protocols}, {"suites", o.suites}, {"cases", o.case_globs}, {"tags", o.tags},
                    {"levels", o.levels}, {"jobs", o.jobs}, {"timeout_scale", o.timeout_scale}};

  // Run the cases on a pool of workers; results keep the plan's order.
  net::Runtime runtime(2);
  const std::size_t jobs = std::max<std::size_t>(1, o.jobs != 0 ? o.jobs : std::thread::hardware_concurrency());
  std::vector<CaseResult> results(plan.cases.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex out_mutex;
  const bool tty = ::isatty(STDOUT_FILENO) && &progress == &std::cout;
  const auto deadline = o.deadline.count() > 0 ? started + o.deadline : std::chrono::steady_clock::time_point::max();
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= plan.cases.size()) return;
      const Case& c = *plan.cases[i];
      if (std::chrono::steady_clock::now() >= deadline) {
        results[i].id = c.id;
        results[i].title = c.title;
        results[i].protocol = c.protocol;
        results[i].suite = c.suite;
        results[i].file = c.file;
        results[i].level = c.level;
        results[i].requirements = c.requirements;
        results[i].verdict = Verdict::error;
        results[i].reason = "not run: the run's deadline passed";
      } else {
        CaseOptions co;
        co.timeout_scale = o.timeout_scale;
        co.seed = result.seed;
        results[i] = run_case(c, loaded.requirements, targets.at(c.protocol), runtime, co);
      }
      const std::size_t n = done.fetch_add(1) + 1;
      if (o.quiet) continue;
      std::lock_guard lock(out_mutex);
      const auto& r = results[i];
      // A failure names what it breaks: each requirement, its level, section and quoted sentence.
      std::string broken;
      if (r.verdict == Verdict::fail || r.verdict == Verdict::warn) {
        for (const auto& id : r.requirements) {
          if (const Requirement* req = loaded.requirements.find(id)) {
            broken += "               breaks " + req->id + " (" + req->level + ", " + req->spec + " " + req->section + "): \"" +
                      req->text + "\"\n";
          }
        }
      }
      if (tty) {
        progress << "\r\033[K[" << n << "/" << plan.cases.size() << "] " << pad(verdict_name(r.verdict), 14) << r.id;
        if (r.verdict == Verdict::fail || r.verdict == Verdict::error || r.verdict == Verdict::warn) {
          progress << "\n    " << r.title << "\n    " << r.reason << "\n" << broken;
        }
        progress.flush();
      } else {
        progress << pad(verdict_name(r.verdict), 15) << pad(r.id, 28) << r.title << "\n";
        if (r.verdict == Verdict::fail || r.verdict == Verdict::error || r.verdict == Verdict::warn) {
          progress << "               " << r.reason << "\n" << broken;
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t j = 0; j < std::min(jobs, std::max<std::size_t>(1, plan.cases.size())); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (tty && !o.quiet) progress << "\r\033[K";

  result.cases = std::move(results);
  result.finished_at = proto::typed::utc_now();
  result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  for (const auto& c : result.cases) {
    if (c.verdict == Verdict::error && c.reason.find("unreachable") != std::string::npos) outcome.target_unreachable = true;
  }
  if (lobby) lobby->stop();
  return outcome;
}

void print_summary(const RunResult& result, std::ostream& out) {
  std::map<std::string, std::map<std::string, int>> counts;
  for (const auto& c : result.cases) counts[c.protocol][verdict_name(c.verdict)]++;
  out << "\n" << pad("protocol", 15) << pad("cases", 7) << pad("PASS", 7) << pad("FAIL", 7) << pad("WARN", 7) << pad("N/A", 7)
      << pad("ERROR", 7) << "\n";
  int total = 0;
  std::map<std::string, int> totals;
  for (const auto& [p, v] : counts) {
    int n = 0;
    for (const auto& [k, c] : v) n += c;
    total += n;
    out << pad(p, 15) << pad(std::to_string(n), 7);
    for (const char* k : {"PASS", "FAIL", "WARN", "NOT_APPLICABLE", "ERROR"}) {
      const int c = v.count(k) ? v.at(k) : 0;
      totals[k] += c;
      out << pad(std::to_string(c), 7);
    }
    out << "\n";
  }
  out << pad("total", 15) << pad(std::to_string(total), 7);
  for (const char* k : {"PASS", "FAIL", "WARN", "NOT_APPLICABLE", "ERROR"}) out << pad(std::to_string(totals[k]), 7);
  out << "\n" << "seed " << result.seed << ", " << std::fixed << std::setprecision(2) << result.duration_ms / 1000.0 << " s\n";
}

}  // namespace ac::engine
