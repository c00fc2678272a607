// The target's life as the fuzzer sees it (guard.hpp).
#include "harness/fuzz/guard.hpp"

#include <sstream>
#include <thread>

namespace ac::fuzz {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

bool down(const Trip& t) { return t.oracle == "crash" || t.oracle == "hang" || t.oracle == "liveness"; }

// The value of a Prometheus text-format sample `name` (or `name{labels}`).
std::optional<double> metric(const std::string& body, const std::string& name) {
  std::istringstream in(body);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
    std::size_t at = name.size();
    if (line[at] == '{') {
      at = line.find('}', at);
      if (at == std::string::npos) continue;
      ++at;
    } else if (line[at] != ' ') {
      continue;
    }
    try {
      return std::stod(line.substr(at));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace

Trip observe(Trip t) {
  if (!t.observed.empty() || t.oracle == "crash") return t;
  if (t.oracle == "hang") {
    const bool ping = t.signature.find("ping on a session connection") != std::string::npos;
    return Trip{"hang", kStoppedAnswering, t.signature + (t.detail.empty() ? "" : ": " + t.detail), ping ? "hung" : "silent"};
  }
  if (t.oracle == "liveness" && t.signature == "target unreachable") {
    // The client reports the socket's error text: ECONNREFUSED reads "Connection refused"; a
    // reset, an end of stream or a broken pipe is a connection the target cut.
    const bool refused = t.detail.find("refused") != std::string::npos;
    return Trip{"crash", kWentDown, t.detail, refused ? "refused" : "reset"};
  }
  return t;
}

bool same_trip(const Trip& a, const Trip& b) { return a.oracle == b.oracle && a.signature == b.signature; }

Guard::Guard(const TargetView& target, Protocol protocol, process::Monitor* monitor, GuardOptions options)
    : target_(target), monitor_(monitor), options_(std::move(options)), prober_(target, protocol) {
  prober_.options().health_every = 1;
}

// Healthy: the probe is answered (as the spec says or not: a target that never answered it
// correctly is not restarted over and over for that).
std::optional<Trip> Guard::check() {
  auto trip = prober_.probe();
  if (answers(trip)) return std::nullopt;
  return trip;
}

Trip Guard::classify(Trip raw) {
  Trip t = observe(std::move(raw));
  if (monitor_ == nullptr || !down(t)) return t;
  // A target printing a crash report dies in a moment: give it that moment.
  for (int i = 0; t.oracle == "crash" && i < 40 && monitor_->alive(); ++i) std::this_thread::sleep_for(50ms);
  if (monitor_->alive()) {
    if (t.oracle == "hang") t.detail += " (the process still runs: it is killed and started again)";
    return t;
  }
  const auto status = monitor_->exit_status();
  if (status && status->killed_by_monitor) return t;  // stopped by us, not a crash
  const std::string output = monitor_->output_tail(6000);
  const std::string excerpt = process::crash_excerpt(output);
  Trip crash{"crash", "the target " + (status ? status->describe() : std::string("ended")) + (excerpt.empty() ? "" : ": " + excerpt),
             "seen as: " + (t.observed.empty() ? t.oracle : t.observed) + " (" + t.detail + ")\nthe target's last output:\n" + output,
             "exited"};
  return crash;
}

bool Guard::wait_healthy(std::chrono::milliseconds budget, const char* what) {
  const auto start = Clock::now();
  auto last_note = start;
  for (int restarts = 0;;) {
    if (monitor_ != nullptr && !monitor_->alive()) {
      // It ended while starting (a port still held by the instance just killed, say): again.
      if (++restarts > 20 || !monitor_->restart()) return false;
    }
    if (!check()) return true;
    const auto now = Clock::now();
    if (now - start >= budget) return false;
    if (options_.waiting && now - last_note >= 5s) {
      last_note = now;
      options_.waiting(std::string("waiting for ") + what + " to answer the liveness probe (" +
                       std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - start).count()) + " s)");
    }
    std::this_thread::sleep_for(100ms);
  }
}

bool Guard::recover(bool known_down) {
  if (monitor_ != nullptr) {
    if (monitor_->alive() && !known_down && !check()) return true;
    // Ended, or running without answering (hung): a new instance.
    ++epoch_;
    if (!monitor_->restart()) return false;
    return wait_healthy(options_.restart_timeout, "the restarted target");
  }
  if (!check()) return true;
  ++epoch_;
  return wait_healthy(options_.restart_timeout, "the target (not started by agentconform: waiting for it to answer again)");
}

bool Guard::fresh() {
  if (monitor_ == nullptr) return recover();
  ++epoch_;
  if (!monitor_->restart()) return false;
  return wait_healthy(options_.restart_timeout, "the restarted target");
}

bool Guard::measures_memory() const { return !target_.config.setting("metrics_path").empty() || monitor_ != nullptr; }

std::optional<double> Guard::memory_bytes() {
  if (const std::string path = target_.config.setting("metrics_path"); !path.empty()) {
    auto r = probe_http(target_, "GET", path, "");
    if (!r || r->status != 200) return std::nullopt;
    return metric(r->body, target_.config.setting("memory_metric", "process_resident_memory_bytes"));
  }
  if (monitor_ != nullptr) {
    if (auto rss = monitor_->rss_bytes()) return static_cast<double>(*rss);
  }
  return std::nullopt;
}

std::optional<Trip> Judge::run(const std::vector<Step>& steps) {
  auto trip = executor_.run(steps);
  if (!trip) return std::nullopt;
  return classify(std::move(*trip));
}

Trip Judge::classify(Trip trip) {
  if (guard_ == nullptr) return observe(std::move(trip));
  Trip t = guard_->classify(std::move(trip));
  if (down(t)) (void)guard_->recover(t.oracle != "liveness");
  return t;
}

}  // namespace ac::fuzz
