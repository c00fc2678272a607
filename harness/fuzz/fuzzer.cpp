// The fuzzing campaign (fuzzer.hpp). Jobs run sessions under a shared lock; an incident takes it
// exclusively, so the target is quiet while the trip is classified, attributed, minimized and
// verified. A progress thread reports every second whatever phase the campaign is in.
#include "harness/fuzz/fuzzer.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <thread>

namespace ac::fuzz {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

bool is_down(const Trip& t) { return t.oracle == "crash" || t.oracle == "hang" || t.oracle == "liveness"; }

struct Flight {
  std::uint64_t index = 0;
  Session session;
  std::uint64_t epoch = 0;  // the guard's epoch when it started
  double at = 0;            // seconds into the campaign when it started
};

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

class Campaign {
 public:
  explicit Campaign(const FuzzOptions& o)
      : o_(o), guard_(o.target, o.protocol, o.monitor, GuardOptions{o.restart_timeout, [this](const std::string& s) { detail(s); }}) {}

  FuzzReport run() {
    start_ = Clock::now();
    if (!o_.out_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(o_.out_dir, ec);
    }
    jobs_ = std::max<std::size_t>(1, o_.jobs);
    flights_.resize(jobs_);
    std::thread progress([this] { progress_loop(); });
    std::vector<std::thread> threads;
    for (std::size_t j = 1; j < jobs_; ++j) threads.emplace_back([this, j] { worker(j); });
    worker(0);
    for (auto& t : threads) t.join();
    {
      std::lock_guard lock(progress_mu_);
      finished_ = true;
    }
    progress_cv_.notify_all();
    progress.join();
    report_.sessions = sessions_.load();
    report_.frames = frames_.load();
    report_.harness_errors = harness_errors_.load();
    report_.seconds = elapsed();
    report_.generating_seconds = std::max(0.0, report_.seconds - incident_seconds_.load());
    report_.restarts = guard_.epoch();
    return std::move(report_);
  }

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  bool signalled() const { return o_.stop != nullptr && o_.stop->load(); }
  bool past_deadline(double reserve = 0) const { return o_.duration_s > 0 && elapsed() + reserve >= o_.duration_s; }
  // The campaign is over (nothing new starts, what runs stops at its next check).
  bool over() const { return done_.load() || signalled() || past_deadline(); }

  bool budget_left(std::uint64_t index) const {
    if (over()) return false;
    if (o_.iterations > 0 && index >= o_.iterations) return false;
    return o_.iterations > 0 || o_.duration_s > 0;
  }

  // ---- progress

  void phase(std::string name, std::string what = {}) {
    std::lock_guard lock(progress_mu_);
    phase_ = std::move(name);
    detail_ = std::move(what);
  }
  void detail(std::string what) {
    std::lock_guard lock(progress_mu_);
    detail_ = std::move(what);
  }

  void progress_loop() {
    std::unique_lock lock(progress_mu_);
    while (!finished_) {
      progress_cv_.wait_for(lock, 1s, [&] { return finished_; });
      if (finished_ || !o_.progress) continue;
      Progress p{sessions_.load(), frames_.load(), findings_count_.load(), elapsed(), 0, phase_, detail_};
      double incident = incident_seconds_.load();
      if (incident_start_) incident += std::chrono::duration<double>(Clock::now() - *incident_start_).count();
      p.generating_seconds = std::max(0.0, p.seconds - incident);
      lock.unlock();
      o_.progress(p);
      lock.lock();
    }
  }

  void log(const std::string& line) {
    if (o_.log) o_.log(line);
  }

  // ---- the workers

  void worker(std::size_t job) {
    Executor ex(o_.target, o_.protocol, o_.exec);
    ex.options().settle = false;  // generating: see ExecOptions::settle (reproduction settles)
    std::uint64_t job_sessions = 0;
    for (;;) {
      const std::uint64_t index = next_.fetch_add(1);
      if (!budget_left(index)) break;
      try {
        Flight flight{index, generate(o_.protocol, o_.seed, index, o_.families, o_.scope), 0, 0};
        std::optional<Trip> trip;
        {
          std::shared_lock lk(gate_);
          if (over()) break;
          flight.epoch = guard_.epoch();
          flight.at = elapsed();
          {
            std::lock_guard lock(mu_);
            flights_[job] = flight;
          }
          const std::uint64_t before = ex.frames_sent();
          trip = ex.run(flight.session.steps);
          frames_ += ex.frames_sent() - before;
          ++sessions_;
          std::lock_guard lock(mu_);
          flights_[job].reset();
          recent_.push_back(flight);
          if (recent_.size() > 64) recent_.pop_front();
        }
        if (trip) incident(ex, std::move(flight), std::move(*trip));
      } catch (const std::exception& e) {
        // A bug of the fuzzer, not of the target: reported as such, and the run goes on.
        {
          std::lock_guard lock(mu_);
          flights_[job].reset();
        }
        ++harness_errors_;
        log("harness error in session " + std::to_string(index) + " (a bug of agentconform, please report it): " + e.what());
      }
      if (job == 0 && ++job_sessions % 16 == 0 && guard_.measures_memory()) memory_check(ex);
    }
  }

  // ---- incidents

  // The executor's options as generation uses them, put back once an incident's runs are over.
  struct OptionsKept {
    Executor& ex;
    const ExecOptions kept = ex.options();
    ~OptionsKept() { ex.options() = kept; }
  };

  // Accounts the time of an incident (the generation is stopped meanwhile) and restores the phase.
  struct IncidentClock {
    Campaign& c;
    explicit IncidentClock(Campaign& campaign) : c(campaign) {
      std::lock_guard lock(c.progress_mu_);
      c.incident_start_ = Clock::now();
    }
    ~IncidentClock() {
      std::lock_guard lock(c.progress_mu_);
      const double spent = std::chrono::duration<double>(Clock::now() - *c.incident_start_).count();
      c.incident_seconds_ = c.incident_seconds_.load() + spent;
      c.incident_start_.reset();
      c.phase_ = "generating";
      c.detail_.clear();
    }
  };

  // Minimization stops when its share of the campaign is spent, or to leave time for verifying.
  bool minimization_over(Clock::time_point began, double reserve) const {
    if (done_.load() || signalled()) return true;
    if (o_.duration_s <= 0) return false;
    const double used = minimize_seconds_ + std::chrono::duration<double>(Clock::now() - began).count();
    return used >= o_.minimize_share * o_.duration_s || past_deadline(reserve);
  }

  // A run of `steps` trips the same way as `trip` (on a healthy target: the judge brings the target
  // back after every crash or hang, and a crash with a monitor starts from a fresh target).
  bool trips_again(Judge& judge, const Trip& trip, const std::vector<Step>& steps, int attempts, bool fresh_each) {
    for (int i = 0; i < std::max(1, attempts); ++i) {
      if (fresh_each && !guard_.fresh()) return false;
      auto again = judge.run(steps);
      if (again && same_trip(*again, trip)) return true;
    }
    return false;
  }

  // What the finding is, for deduplication (see fuzzer.hpp, step 3).
  std::string key_of(const Trip& trip, const std::vector<std::string>& tags) const {
    std::string key = trip.oracle + "|" + trip.signature;
    const bool told_by_signature = trip.oracle == "crash" && trip.observed == "exited";
    if (!told_by_signature && (trip.oracle == "crash" || trip.oracle == "hang")) key += "|" + join(tags, "|");
    return key;
  }
  // A session whose mutations include every mutation of a known finding of the same kind is
  // taken for that finding again (a session carries 1-3 mutations per round, most of them beside
  // the point).
  bool known(const Trip& trip, const std::vector<Step>& steps) const {
    std::lock_guard lock(mu_);
    if (seen_.count(key_of(trip, {})) && trip.oracle != "crash" && trip.oracle != "hang") return true;
    const auto tags = mutation_tags(steps);
    if (seen_.count(key_of(trip, tags))) return true;
    if (trip.oracle != "crash" && trip.oracle != "hang") return false;
    if (trip.observed == "exited") return seen_.count(key_of(trip, {})) != 0;
    for (const auto& k : known_) {
      if (k.oracle != trip.oracle || k.signature != trip.signature) continue;
      bool all = true;
      for (const auto& t : k.tags) all = all && std::find(tags.begin(), tags.end(), t) != tags.end();
      if (all) return true;
    }
    return false;
  }
  // A kind (its key: for a crash seen from outside or a hang, with the session's mutations) whose
  // culprit searches found nothing this often is no longer searched; nor is an oracle and
  // signature after four times as many.
  static constexpr int kUnreproducedTries = 3;
  bool given_up(const Trip& trip, const std::vector<Step>& steps) const {
    std::lock_guard lock(mu_);
    auto exact = unreproduced_.find(key_of(trip, mutation_tags(steps)));
    auto kind = unreproduced_.find(trip.oracle + "|" + trip.signature + "|*");
    return (exact != unreproduced_.end() && exact->second >= kUnreproducedTries) ||
           (kind != unreproduced_.end() && kind->second >= 4 * kUnreproducedTries);
  }
  void remember(const Trip& trip, const std::vector<std::string>& tags) {
    std::lock_guard lock(mu_);
    seen_.insert(key_of(trip, tags));
    known_.push_back({trip.oracle, trip.signature, tags});
  }

  std::vector<Flight> candidates_for(const Flight& flight) const {
    std::vector<Flight> out{flight};
    std::lock_guard lock(mu_);
    auto add = [&](const Flight& f) {
      for (const auto& c : out) {
        if (c.index == f.index) return;
      }
      if (out.size() < 2 * jobs_ + 2) out.push_back(f);
    };
    for (const auto& f : flights_) {
      if (f) add(*f);
    }
    for (auto it = recent_.rbegin(); it != recent_.rend(); ++it) add(*it);
    return out;
  }

  void incident(Executor& ex, Flight flight, Trip raw) {
    std::unique_lock lk(gate_);
    if (over()) return;
    IncidentClock clock(*this);
    ++report_.incidents;
    phase("incident", "session " + std::to_string(flight.index) + ": [" + raw.oracle + "] " + shorten(raw.signature, 80));
    OptionsKept kept{ex};
    ex.options().probe = true;  // every run of an incident ends with the liveness probe
    ex.options().probe_every = 1;
    ex.options().settle = true;  // ... and with its connections ended: a reproducer trips on its own
    handle(ex, flight, std::move(raw));
  }

  void handle(Executor& ex, const Flight& flight, Trip raw) {
    Judge judge(ex, &guard_);
    found_at_ = elapsed();
    // A session that ran while the target was restarted (or came back) saw someone else's incident.
    if (is_down(observe(raw)) && flight.epoch != guard_.epoch()) {
      incident_note(flight, observe(raw), "the target was restarted while it ran (someone else's incident)");
      return;
    }
    Trip trip = guard_.classify(std::move(raw));
    if (is_down(trip) && !guard_.recover(trip.oracle != "liveness")) {
      log("the target did not answer the liveness probe again within " + seconds_text(o_.restart_timeout.count() / 1000.0) +
          " after [" + trip.oracle + "] " + trip.signature + ": the campaign ends");
      report_.target_lost = true;
      done_ = true;
      record(ex, flight, trip, flight.session.steps, false, 0, false);
      return;
    }
    if (known(trip, flight.session.steps)) {
      incident_note(flight, trip, "a known finding again");
      return;
    }
    if (given_up(trip, flight.session.steps)) {
      incident_note(flight, trip, "not reproduced alone several times before: no longer searched");
      return;
    }
    const bool fresh_each = trip.oracle == "crash" && guard_.monitor() != nullptr;
    const int attempts = trip.oracle == "isolation" ? o_.reproduce_attempts : 2;

    // Who did it: each candidate alone, on a healthy target.
    phase("culprit search", "[" + trip.oracle + "] " + shorten(trip.signature, 80));
    const auto candidates = candidates_for(flight);
    const Flight* culprit = nullptr;
    for (std::size_t i = 0; i < candidates.size() && !over(); ++i) {
      detail("[" + trip.oracle + "] candidate " + std::to_string(i + 1) + " of " + std::to_string(candidates.size()) + " (session " +
             std::to_string(candidates[i].index) + ")");
      if (trips_again(judge, trip, candidates[i].session.steps, candidates[i].index == flight.index ? attempts : 1, fresh_each)) {
        culprit = &candidates[i];
        break;
      }
    }
    if (culprit == nullptr) {
      // Not reproduced alone (a bug between parallel sessions, or timing): reported once per
      // kind and never minimized; it does not stand for the kind, so a later incident of it may
      // still be attributed (a few times, then the kind is no longer searched).
      incident_note(flight, trip, "not reproduced by any of " + std::to_string(candidates.size()) + " candidate sessions alone");
      int tries = 0;
      {
        std::lock_guard lock(mu_);
        ++unreproduced_[key_of(trip, mutation_tags(flight.session.steps))];
        tries = ++unreproduced_[trip.oracle + "|" + trip.signature + "|*"];
      }
      if (tries == 1) record(ex, flight, trip, flight.session.steps, false, 0, false);
      return;
    }
    if (known(trip, culprit->session.steps)) {
      incident_note(*culprit, trip, "a known finding again (culprit: session " + std::to_string(culprit->index) + ")");
      return;
    }

    // Minimization within its share of the campaign.
    std::vector<Step> steps = culprit->session.steps;
    bool cut = false;
    if (o_.minimize) {
      phase("minimizing", "[" + trip.oracle + "] " + std::to_string(steps.size()) + " steps");
      const auto began = Clock::now();
      const double run_s = 1.0 + 2.0 * o_.target.probe_timeout.count() / 1000.0;  // time kept for the verification runs
      MinimizeLimits limits;
      limits.budget = o_.minimize_budget;
      limits.stop = [&] {
        cut = cut || minimization_over(began, o_.verify_runs * run_s);
        return cut;
      };
      limits.progress = [&](std::size_t tried, std::size_t left) {
        detail("[" + trip.oracle + "] " + std::to_string(tried) + " candidates tried, " + std::to_string(left) + " steps left");
      };
      steps = minimize(std::move(steps), [&](const std::vector<Step>& c) { return trips_again(judge, trip, c, attempts, false); }, limits);
      minimize_seconds_ += std::chrono::duration<double>(Clock::now() - began).count();
      if (known(trip, steps)) return;
    }

    // The reproducer, replayed from a fresh target; if minimization was fooled by a flaky run, the
    // culprit as it was generated.
    phase("verifying", "[" + trip.oracle + "] " + std::to_string(steps.size()) + " steps");
    int verified = verify(judge, trip, steps);
    if (verified < o_.verify_runs && steps != culprit->session.steps) {
      steps = culprit->session.steps;
      verified = verify(judge, trip, steps);
    }
    remember(trip, mutation_tags(steps));
    record(ex, *culprit, trip, steps, verified >= o_.verify_runs, verified, cut);
  }

  // Incidents that are no new finding, in the log (the first ones, then one in a hundred).
  void incident_note(const Flight& flight, const Trip& trip, const std::string& outcome) {
    const std::uint64_t n = ++incident_notes_;
    if (n > 30 && n % 100 != 0) return;
    log("incident at session " + std::to_string(flight.index) + ": [" + trip.oracle + "] " + shorten(trip.signature, 120) +
        (trip.observed.empty() ? "" : " (" + trip.observed + ")") + ": " + outcome + (n == 30 ? " (further such lines: one in 100)" : ""));
  }

  int verify(Judge& judge, const Trip& trip, const std::vector<Step>& steps) {
    int ok = 0;
    const int attempts = trip.oracle == "isolation" ? o_.reproduce_attempts : 1;
    judge.executor().options().record_transcript = true;
    for (int r = 0; r < o_.verify_runs && !done_.load() && !signalled(); ++r) {
      if (!guard_.fresh()) break;
      for (int a = 0; a < attempts; ++a) {
        auto again = judge.run(steps);
        if (again && same_trip(*again, trip)) {
          ++ok;
          transcript_ = judge.executor().transcript();
          break;
        }
      }
    }
    judge.executor().options().record_transcript = false;
    return ok;
  }

  void record(Executor& ex, const Flight& culprit, const Trip& trip, const std::vector<Step>& steps, bool reproduced, int verified,
              bool cut) {
    Finding f;
    f.trip = trip;
    f.iteration = culprit.index;
    f.found_at_s = found_at_;
    f.original = culprit.session.steps;
    f.minimized = steps;
    f.mutations = culprit.session.mutations;
    f.reproduced = reproduced;
    f.verified = verified;
    f.minimization_cut = cut;
    f.transcript = transcript_.empty() ? ex.transcript() : transcript_;
    transcript_ = Json::array();
    std::lock_guard lock(mu_);
    // The findings' transcripts together are bounded (docs/limits.md): past the budget a finding
    // keeps a note instead; its reproducer replays it.
    const std::size_t size = f.transcript.dump(-1, ' ', false, Json::error_handler_t::replace).size();
    if (findings_transcript_bytes_ + size > o_.findings_transcript_bytes) {
      f.transcript = Json::array({Json{{"t_ms", 0}, {"channel", "harness"}, {"direction", "note"}, {"kind", "note"},
                                       {"data", "transcript not kept: the run's findings already hold " + std::to_string(findings_transcript_bytes_) +
                                                    " bytes of transcripts (limit " + std::to_string(o_.findings_transcript_bytes) +
                                                    "); replay the reproducer to see it"}}});
    } else {
      findings_transcript_bytes_ += size;
    }
    const std::size_t number = report_.findings.size() + 1;
    if (!o_.out_dir.empty()) {
      f.file = o_.out_dir / (std::string(protocol_name(o_.protocol)) + "-" + trip.oracle + "-" + std::to_string(number) + ".json");
      std::ofstream out(f.file, std::ios::binary | std::ios::trunc);
      out << reproducer_json(o_, f).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
    }
    const std::string observed = trip.observed.empty() ? "" : " (" + trip.observed + ")";
    log("finding " + std::to_string(number) + " after " + seconds_text(f.found_at_s) + " (session " + std::to_string(f.iteration) +
        "): [" + trip.oracle + "] " + shorten(trip.signature, 160) + observed + "; " + std::to_string(f.original.size()) + " -> " +
        std::to_string(f.minimized.size()) + " steps" +
        (reproduced ? ", reproduced " + std::to_string(verified) + "/" + std::to_string(o_.verify_runs) + " from a fresh target"
                    : ", NOT reproduced alone") +
        (cut ? ", minimization cut at its time share" : "") + (f.file.empty() ? "" : ": " + f.file.string()));
    report_.findings.push_back(std::move(f));
    findings_count_ = report_.findings.size();
    // --max-findings counts reproduced findings: an incident no session reproduces alone (seen
    // from outside, a restart racing a probe) must not end a campaign before it found its bug.
    if (reproduced) ++reproduced_findings_;
    if (o_.max_findings > 0 && reproduced_findings_ >= o_.max_findings) done_ = true;
    if (report_.findings.size() >= o_.kept_findings) {
      if (!done_.load()) log("stopping: " + std::to_string(o_.kept_findings) + " distinct findings, the most one run keeps");
      done_ = true;
    }
  }

  // ---- memory

  void memory_check(Executor& ex) {
    auto now = guard_.memory_bytes();
    if (!now) return;
    // The baseline is taken once the target has warmed up (a runtime's heap, caches and pools
    // grow during the first sessions), and again after every memory incident.
    if (!memory_baseline_) {
      if (sessions_.load() >= sessions_at_baseline_reset_ + 64) memory_baseline_ = now;
      return;
    }
    if (*now - *memory_baseline_ <= o_.memory_limit_bytes) return;
    std::unique_lock lk(gate_);
    if (over()) return;
    IncidentClock clock(*this);
    found_at_ = elapsed();
    ++report_.incidents;
    phase("memory", "grew by " + std::to_string(static_cast<long long>((*now - *memory_baseline_) / 1024)) + " KiB");
    std::vector<Flight> candidates;
    {
      std::lock_guard lock(mu_);
      candidates.assign(recent_.rbegin(), recent_.rend());
    }
    OptionsKept kept{ex};
    ex.options().probe = false;
    ex.options().settle = true;
    auto leaky = [&](const std::vector<Step>& steps) { return leaks(ex, guard_, steps, o_.memory_repeats, o_.memory_session_bytes); };
    const Trip trip{"memory", "the target's memory grows with every run of a session (unbounded memory)",
                    "memory grew by " + std::to_string(static_cast<long long>((*now - *memory_baseline_) / 1024)) +
                        " KiB since the start of the run; each run of this session leaves more than " +
                        std::to_string(static_cast<long long>(o_.memory_session_bytes / 1024)) + " KiB behind",
                    ""};
    bool fresh = false;
    {
      std::lock_guard lock(mu_);
      fresh = !seen_.count(key_of(trip, {}));
    }
    const Flight* culprit = nullptr;
    // The most recent sessions first (a leak that keeps growing is in what ran lately), and a
    // bounded number of them: each costs five runs.
    if (candidates.size() > 24) candidates.resize(24);
    for (std::size_t i = 0; fresh && i < candidates.size() && !over(); ++i) {
      detail("candidate " + std::to_string(i + 1) + " of " + std::to_string(candidates.size()));
      if (leaky(candidates[i].session.steps)) {
        culprit = &candidates[i];
        break;
      }
    }
    if (fresh && culprit == nullptr) {
      log("the target's memory grew by " + std::to_string(static_cast<long long>((*now - *memory_baseline_) / 1024)) +
          " KiB, but no session of the last " + std::to_string(candidates.size()) + " leaks on its own: not a finding");
    }
    if (culprit != nullptr) {
      std::vector<Step> steps = culprit->session.steps;
      bool cut = false;
      if (o_.minimize) {
        phase("minimizing", "[memory] " + std::to_string(steps.size()) + " steps");
        const auto began = Clock::now();
        MinimizeLimits limits;
        limits.budget = std::min<std::size_t>(o_.minimize_budget, 60);
        limits.stop = [&] {
          cut = cut || minimization_over(began, 5);
          return cut;
        };
        steps = minimize(std::move(steps), leaky, limits);
        minimize_seconds_ += std::chrono::duration<double>(Clock::now() - began).count();
      }
      phase("verifying", "[memory] " + std::to_string(steps.size()) + " steps");
      int verified = 0;
      for (int r = 0; r < o_.verify_runs; ++r) verified += guard_.fresh() && leaky(steps) ? 1 : 0;
      if (verified < o_.verify_runs && steps != culprit->session.steps) {
        steps = culprit->session.steps;
        verified = 0;
        for (int r = 0; r < o_.verify_runs; ++r) verified += guard_.fresh() && leaky(steps) ? 1 : 0;
      }
      if (verified >= o_.verify_runs) {
        // The leak measures runs without transcripts: one more run of the reproducer, recorded.
        ex.options().record_transcript = true;
        (void)ex.run(steps);
        transcript_ = ex.transcript();
        ex.options().record_transcript = false;
        remember(trip, {});
        record(ex, *culprit, trip, steps, true, verified, cut);
      } else {
        // Memory is noisy (a heap that grows in steps): what a fresh target does not repeat is no finding.
        log("the target's memory grew, and session " + std::to_string(culprit->index) +
            " seemed to leak, but not again on a fresh target: not a finding");
      }
    }
    if (guard_.monitor() != nullptr) (void)guard_.fresh();  // back to a small footprint
    memory_baseline_.reset();
    sessions_at_baseline_reset_ = sessions_.load();
  }

  const FuzzOptions& o_;
  Guard guard_;
  Clock::time_point start_;
  std::size_t jobs_ = 1;
  std::atomic<std::uint64_t> next_{0}, sessions_{0}, frames_{0}, harness_errors_{0}, findings_count_{0};
  std::atomic<bool> done_{false};
  std::shared_mutex gate_;  // shared: a session runs; exclusive: an incident is handled
  mutable std::mutex mu_;   // report_, seen_, known_, recent_, flights_
  struct Known {
    std::string oracle, signature;
    std::vector<std::string> tags;
  };
  std::set<std::string> seen_;
  std::vector<Known> known_;
  std::map<std::string, int> unreproduced_;  // key (and oracle|signature|*) -> culprit searches that found none
  std::vector<std::optional<Flight>> flights_;
  std::deque<Flight> recent_;
  std::optional<double> memory_baseline_;
  std::uint64_t sessions_at_baseline_reset_ = 0;
  std::uint64_t incident_notes_ = 0;
  double minimize_seconds_ = 0;
  double found_at_ = 0;  // when the incident being handled was seen
  Json transcript_ = Json::array();
  std::size_t reproduced_findings_ = 0;  // (under mu_)
  std::size_t findings_transcript_bytes_ = 0;  // of the findings' transcripts (under mu_)
  FuzzReport report_;

  // progress
  std::mutex progress_mu_;
  std::condition_variable progress_cv_;
  bool finished_ = false;
  std::string phase_ = "generating", detail_;
  std::atomic<double> incident_seconds_{0};
  std::optional<Clock::time_point> incident_start_;
};

}  // namespace

// A leak grows the memory by about the same amount on every run; a garbage-collected or pooled
// runtime grows it in steps (a heap expanding, a pool filling) and then not at all. So: one run to
// warm up, then the median of the per-run growths must exceed `per_run`, and so must their mean.
bool leaks(Executor& executor, Guard& guard, const std::vector<Step>& steps, int repeats, double per_run) {
  (void)executor.run(steps);
  auto previous = guard.memory_bytes();
  if (!previous) return false;
  const double first = *previous;
  std::vector<double> growth;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    (void)executor.run(steps);
    const auto now = guard.memory_bytes();
    if (!now) return false;
    growth.push_back(*now - *previous);
    previous = now;
  }
  double total = 0;
  for (double g : growth) total += g;
  std::sort(growth.begin(), growth.end());
  if (growth[growth.size() / 2] <= per_run || total / static_cast<double>(growth.size()) <= per_run) return false;
  // A leak keeps what it took. A target that frees a session's memory only when it gets round to
  // the session's closed connections (an event loop behind on a loaded machine) gives it back
  // within moments: the fixed Node relay was once blamed so in CI. Look again for up to a second.
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto now = guard.memory_bytes();
    if (now && *now - first < total / 2) return false;
  }
  return true;
}

FuzzReport run_fuzz(const FuzzOptions& options) { return Campaign(options).run(); }

}  // namespace ac::fuzz
