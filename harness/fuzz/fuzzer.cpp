// The fuzzing loop (fuzzer.hpp). Jobs run sessions under a shared lock; an incident (a trip)
// takes the lock exclusively, so the target is quiet while the finding is classified (crash,
// hang), attributed to the session that causes it, minimized and replayed for its transcript.
// A trip of a session that ran while the embedded lobby died or was restarted is collateral and
// dropped; the session that caused it is found among those in flight at the time.
#include "harness/fuzz/fuzzer.hpp"

#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>

namespace ac::fuzz {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// A stable description of a crash: the sanitizer's verdict and the top frame when the report
// has them, else how the process ended.
std::string crash_signature(const std::string& log, const std::string& exit) {
  std::string kind, frame;
  if (auto at = log.find("ERROR: AddressSanitizer: "); at != std::string::npos) {
    const auto eol = log.find('\n', at);
    kind = log.substr(at + 7, (eol == std::string::npos ? log.size() : eol) - at - 7);
    if (auto on = kind.find(" on "); on != std::string::npos) kind.resize(on);
    if (auto f = log.find("#0 ", at); f != std::string::npos) {
      const auto in = log.find(" in ", f);
      const auto end = log.find_first_of("\n(", in == std::string::npos ? f : in + 4);
      if (in != std::string::npos && end != std::string::npos && in < end) frame = log.substr(in + 4, end - in - 4);
    }
  } else if (auto rt = log.find("runtime error: "); rt != std::string::npos) {
    const auto eol = log.find('\n', rt);
    kind = "UndefinedBehaviorSanitizer: " + log.substr(rt + 15, (eol == std::string::npos ? log.size() : eol) - rt - 15);
  } else if (auto as = log.find("Assertion"); as != std::string::npos) {
    const auto eol = log.find('\n', as);
    kind = log.substr(as, (eol == std::string::npos ? log.size() : eol) - as);
  }
  std::string out = "the target process crashed: " + (kind.empty() ? exit : kind);
  if (!frame.empty()) out += " in " + frame;
  return out;
}

std::optional<double> heap_bytes(const TargetView& target) {
  auto r = probe_http(target, "GET", "/metrics", "");
  if (!r || r->status != 200) return std::nullopt;
  const std::string name = "\nagentconform_heap_in_use_bytes ";
  const auto at = r->body.find(name);
  if (at == std::string::npos) return std::nullopt;
  try {
    return std::stod(r->body.substr(at + name.size()));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

struct Flight {
  std::uint64_t index = 0;
  Session session;
  std::uint64_t generation = 0;  // target restarts when it started
};

}  // namespace

std::optional<Trip> Judge::run(const std::vector<Step>& steps) {
  auto trip = executor_.run(steps);
  if (!trip) return std::nullopt;
  return classify(std::move(*trip));
}

Trip Judge::classify(Trip trip) {
  if (process_ == nullptr) return trip;
  const bool suspicious = trip.oracle == "liveness" || trip.oracle == "hang";
  // A refused or reset connection from a lobby that is printing a sanitizer report: give it
  // the moment it takes to die. (A hang is a timeout: the lobby is stuck, not dying.)
  const bool dying = trip.oracle == "liveness" && trip.signature == "target unreachable";
  for (int i = 0; dying && i < 100 && process_->alive(); ++i) std::this_thread::sleep_for(50ms);
  if (!process_->alive()) {
    const std::string log = process_->stderr_tail(6000);
    Trip crash{"crash", crash_signature(log, process_->exit_description()),
               "the lobby " + process_->exit_description() + " (" + trip.signature + ")\n" + log};
    (void)process_->restart();
    return crash;
  }
  if (suspicious) (void)process_->restart();  // a stuck lobby does not get better
  return trip;
}

FuzzReport run_fuzz(const FuzzOptions& o) {
  FuzzReport report;
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
  }
  const std::size_t jobs = std::max<std::size_t>(1, o.jobs);
  std::atomic<std::uint64_t> next{0}, sessions{0}, frames{0}, generation{0}, harness_errors{0};
  std::atomic<bool> done{false};
  std::shared_mutex gate;  // shared: a session runs; exclusive: an incident is handled
  std::mutex mu;           // report, seen, recent, flights
  std::map<std::pair<std::string, std::string>, bool> seen;
  std::vector<std::optional<Flight>> flights(jobs);
  std::deque<Flight> recent;  // the last sessions run, for the memory oracle
  std::optional<double> heap_baseline;
  std::size_t transcript_bytes = 0;  // of the findings' transcripts (mu)

  auto budget_left = [&](std::uint64_t index) {
    if (done.load() || (o.stop != nullptr && o.stop->load())) return false;
    if (o.iterations > 0 && index >= o.iterations) return false;
    if (o.duration_s > 0 && elapsed() >= o.duration_s) return false;
    return o.iterations > 0 || o.duration_s > 0;
  };

  // Records a finding: attribution among the candidates, minimization, transcript, file.
  auto record = [&](Executor& ex, Judge& judge, const Trip& trip, const std::vector<Flight>& candidates,
                    const std::function<bool(const std::vector<Step>&)>& reproduces,
                    const std::function<bool(const std::vector<Step>&)>& trips) {
    Finding f;
    f.trip = trip;
    const Flight* culprit = nullptr;
    for (const auto& c : candidates) {
      if (reproduces(c.session.steps)) {
        culprit = &c;
        break;
      }
    }
    f.reproduced = culprit != nullptr;
    if (culprit == nullptr) culprit = &candidates.front();
    f.iteration = culprit->index;
    f.original = culprit->session.steps;
    f.mutations = culprit->session.mutations;
    f.minimized = o.minimize && f.reproduced ? minimize(f.original, trips, o.minimize_budget) : f.original;
    ex.options().record_transcript = true;
    (void)judge.run(f.minimized);
    f.transcript = ex.transcript();
    ex.options().record_transcript = false;
    std::lock_guard lock(mu);
    const std::size_t size = f.transcript.dump(-1, ' ', false, Json::error_handler_t::replace).size();
    if (transcript_bytes + size > o.findings_transcript_bytes) {
      f.transcript = Json::array({Json{{"t_ms", 0}, {"channel", "harness"}, {"direction", "note"}, {"kind", "note"},
                                       {"data", "transcript not kept: the run's findings already hold " + std::to_string(transcript_bytes) +
                                                    " bytes of transcripts (limit " + std::to_string(o.findings_transcript_bytes) +
                                                    "); replay the reproducer to see it"}}});
    } else {
      transcript_bytes += size;
    }
    const std::size_t number = report.findings.size() + 1;
    if (!o.out_dir.empty()) {
      f.file = o.out_dir / (std::string(protocol_name(o.protocol)) + "-" + trip.oracle + "-" + std::to_string(number) + ".json");
      std::ofstream out(f.file, std::ios::binary | std::ios::trunc);
      out << reproducer_json(o, f).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
    }
    if (o.log) {
      o.log("finding " + std::to_string(number) + " at session " + std::to_string(f.iteration) + ": [" + trip.oracle + "] " +
            trip.signature + " (" + std::to_string(f.original.size()) + " -> " + std::to_string(f.minimized.size()) + " steps" +
            (f.reproduced ? "" : ", not reproduced alone") + ")" + (f.file.empty() ? "" : " " + f.file.string()));
    }
    report.findings.push_back(std::move(f));
    if (o.max_findings > 0 && report.findings.size() >= o.max_findings) done = true;
    if (report.findings.size() >= o.kept_findings) {
      if (o.log && !done.load()) o.log("stopping: " + std::to_string(o.kept_findings) + " distinct findings, the most one run keeps");
      done = true;
    }
  };

  // The same bug again: the same oracle and signature; a hang only needs to hang again (which
  // of the barrier and the probe notices it first is timing), and an isolation breach to breach
  // isolation again (which agent a misrouted frame lands on, and so how it shows, is too).
  auto same_trip = [](Judge& judge, const Trip& trip, int attempts) {
    return [&judge, trip, attempts](const std::vector<Step>& steps) {
      for (int i = 0; i < std::max(1, attempts); ++i) {
        auto again = judge.run(steps);
        const bool loose = trip.oracle == "hang" || trip.oracle == "isolation";
        if (again && again->oracle == trip.oracle && (loose || again->signature == trip.signature)) return true;
      }
      return false;
    };
  };

  auto incident = [&](Executor& ex, Judge& judge, Flight flight, Trip raw) {
    std::unique_lock lk(gate);
    if (done.load()) return;  // --max-findings reached while this one waited
    if (raw.oracle == "liveness" || raw.oracle == "hang") {
      // Collateral: the lobby was restarted (or died of another session) while this one ran.
      if (flight.generation != generation.load()) return;
    }
    const pid_t before = o.process != nullptr ? o.process->pid() : 0;
    Trip trip = judge.classify(std::move(raw));
    if (o.process != nullptr && o.process->pid() != before) ++generation;
    {
      std::lock_guard lock(mu);
      if (seen.count({trip.oracle, trip.signature})) return;
      seen[{trip.oracle, trip.signature}] = true;
    }
    // Who did it: this session first, then the sessions in flight and the last ones run, each
    // alone (a dead or stuck lobby, or a message of one session delivered into another).
    std::vector<Flight> candidates{flight};
    {
      std::lock_guard lock(mu);
      auto add = [&](const Flight& f) {
        for (const auto& c : candidates) {
          if (c.index == f.index) return;
        }
        if (candidates.size() < 2 * jobs + 2) candidates.push_back(f);
      };
      for (const auto& f : flights) {
        if (f) add(*f);
      }
      for (auto it = recent.rbegin(); it != recent.rend(); ++it) add(*it);
    }
    const bool needs_probe = trip.oracle != "protocol" && trip.oracle != "isolation";
    const bool probe = ex.options().probe;
    ex.options().probe = needs_probe && probe;
    record(ex, judge, trip, candidates, same_trip(judge, trip, o.reproduce_attempts), same_trip(judge, trip, o.minimize_attempts));
    ex.options().probe = probe;
    if (o.process != nullptr && o.process->pid() != before) ++generation;
  };

  auto memory_check = [&](Executor& ex, Judge& judge) {
    auto heap = heap_bytes(o.target);
    if (!heap) return;
    if (!heap_baseline) {
      heap_baseline = heap;
      return;
    }
    if (*heap - *heap_baseline <= o.memory_limit_bytes) return;
    std::unique_lock lk(gate);
    std::vector<Flight> candidates;
    {
      std::lock_guard lock(mu);
      candidates.assign(recent.rbegin(), recent.rend());
    }
    const bool probe = ex.options().probe;
    ex.options().probe = false;
    auto leaks = [&](const std::vector<Step>& steps) {
      auto h0 = heap_bytes(o.target);
      for (int r = 0; r < o.memory_repeats; ++r) (void)ex.run(steps);
      auto h1 = heap_bytes(o.target);
      return h0 && h1 && (*h1 - *h0) / o.memory_repeats > o.memory_session_bytes;
    };
    const Trip trip{"memory", "the lobby's heap grows with every run of a session (unbounded memory)",
                    "heap in use grew by " + std::to_string(static_cast<long long>((*heap - *heap_baseline) / 1024)) +
                        " KiB since the start of the run; each run of this session leaves more than " +
                        std::to_string(static_cast<long long>(o.memory_session_bytes / 1024)) + " KiB behind"};
    bool fresh = false;
    {
      std::lock_guard lock(mu);
      fresh = !seen.count({trip.oracle, trip.signature});
      seen[{trip.oracle, trip.signature}] = true;
    }
    if (fresh && !candidates.empty()) {
      if (candidates.size() > 64) candidates.resize(64);
      record(ex, judge, trip, candidates, leaks, leaks);
    }
    ex.options().probe = probe;
    if (o.process != nullptr) {
      (void)o.process->restart();  // back to a small heap
      ++generation;
    }
    heap_baseline.reset();
  };

  auto worker = [&](std::size_t job) {
    Executor ex(o.target, o.protocol, o.exec);
    Judge judge(ex, o.process);
    auto last_progress = Clock::now();
    std::uint64_t job0_sessions = 0;
    for (;;) {
      const std::uint64_t index = next.fetch_add(1);
      if (!budget_left(index)) break;
      try {
        Flight flight{index, generate(o.protocol, o.seed, index, o.families), 0};
        std::optional<Trip> trip;
        {
          std::shared_lock lk(gate);
          flight.generation = generation.load();
          {
            std::lock_guard lock(mu);
            flights[job] = flight;
          }
          const std::uint64_t before = ex.frames_sent();
          trip = ex.run(flight.session.steps);
          frames += ex.frames_sent() - before;
          ++sessions;
          std::lock_guard lock(mu);
          flights[job].reset();
          recent.push_back(flight);
          if (recent.size() > 64) recent.pop_front();
        }
        if (trip) incident(ex, judge, std::move(flight), std::move(*trip));
      } catch (const std::exception& e) {
        // A bug of the fuzzer, not of the target: reported as such, and the run goes on.
        {
          std::lock_guard lock(mu);
          flights[job].reset();
        }
        ++harness_errors;
        if (o.log) o.log("harness error in session " + std::to_string(index) + " (a bug of agentconform, please report it): " + e.what());
      }
      if (job == 0 && o.process != nullptr && ++job0_sessions % 16 == 0) memory_check(ex, judge);
      if (job == 0 && o.progress && Clock::now() - last_progress >= 1s) {
        last_progress = Clock::now();
        std::lock_guard lock(mu);
        o.progress(Progress{sessions.load(), frames.load(), report.findings.size(), elapsed()});
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t j = 1; j < jobs; ++j) threads.emplace_back(worker, j);
  worker(0);
  for (auto& t : threads) t.join();
  report.sessions = sessions.load();
  report.harness_errors = harness_errors.load();
  report.frames = frames.load();
  report.seconds = elapsed();
  return report;
}

}  // namespace ac::fuzz
