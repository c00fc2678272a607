// A load run from start to verdict: the topology (who sends to whom), the profile's set-up, the
// engine's connections and traffic, periodic snapshots (throughput over time, latency of each
// interval, this process's memory, the target's /metrics when it has them), the drain, the
// accounting per lane and agent pair, the objectives and the results document
// ("agentconform-load/1", docs/performance.md describes it). The reports (reports/load_report.hpp)
// are rendered from that document.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/engine/target.hpp"
#include "harness/load/options.hpp"
#include "harness/protocols/protocol_id.hpp"
#include "harness/util/expected.hpp"

namespace ac::load {

using Json = nlohmann::json;

struct LoadOptions {
  proto::ProtocolId protocol = proto::ProtocolId::agora;
  engine::TargetConfig target;  // resolved: paths, settings, TLS (the CLI applies --target and --config)
  Json target_info = Json::object();  // shown in the results ({"kind", "url", "faults", ...})
  std::size_t agents = 2;
  std::size_t streams = 1;
  double rate = 0;           // messages per second over the whole run (open loop)
  bool closed_loop = false;  // --max
  std::chrono::milliseconds duration{10000};
  std::size_t message_size = 0;  // 0: 256, or the protocol's smallest message when larger
  std::size_t window = 64;   // closed loop: in flight per lane
  std::size_t threads = 1;   // I/O threads of the load generator
  std::vector<Slo> slos;
  std::chrono::milliseconds drain{10000};          // at most, after the last message, for what is in flight
  std::chrono::milliseconds setup_timeout{30000};  // connections and handshakes
  std::chrono::milliseconds snapshot_every{1000};
  std::chrono::milliseconds scrape_every{5000};
  std::string metrics_url;  // "" = the target's http base + /metrics; "none" = no sampling
  std::size_t max_timeline_points = 600;  // longer runs are downsampled (a soak stays bounded)
};

// What the progress line shows, once per snapshot.
struct Progress {
  std::string phase;  // "setup", "run", "drain"
  double elapsed_s = 0, duration_s = 0;
  std::uint64_t sent = 0, delivered = 0, duplicated = 0, reordered = 0, misdelivered = 0, invalid = 0, errors = 0,
                connection_failures = 0;
  double throughput = 0;  // deliveries per second over the last snapshot interval
  double p99_ms = 0;      // of the last interval
  std::uint64_t rss_bytes = 0;
};

struct LoadError {
  int exit_code = 3;  // 2: usage or configuration; 3: target unreachable or harness error
  std::string message;
};

// Runs the load and returns the results document (its "verdict" says pass or fail and why).
Expected<Json, LoadError> run_load(const LoadOptions& options, const std::function<void(const Progress&)>& on_progress);

// The exit code a results document calls for: 0 when its verdict passed, 1 otherwise.
int exit_code_of(const Json& results);

// Resident set size of this process, in bytes (/proc/self/statm).
std::uint64_t resident_bytes();

}  // namespace ac::load
