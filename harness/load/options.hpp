// The settings of a load run and the parsing of the values a user types for them: durations
// ("30s", "500ms", "2m", "1h"), rates ("20000", "20k"), sizes ("256", "4k") and service-level
// objectives ("p99<=5ms,throughput>=10000,lost<=0"). Every parser names what is wrong and what
// would be right, so the CLI can exit 2 with a message about the option at fault.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/util/expected.hpp"

namespace ac::load {

// "1h", "2m", "30s", "500ms", "1.5s"; a bare number is seconds.
Expected<std::chrono::milliseconds, std::string> parse_duration(const std::string& text);
// A positive number with an optional k (x1000) or m (x1000000) suffix: "20000", "20k", "1.5m".
Expected<double, std::string> parse_rate(const std::string& text);
// Bytes with an optional k (x1024) or m (x1048576) suffix: "256", "4k".
Expected<std::uint64_t, std::string> parse_size(const std::string& text);

// One objective: a figure of the run compared with a bound.
struct Slo {
  enum class Metric { p50, p90, p99, p999, max, mean, throughput, lost, duplicated, reordered, misdelivered, invalid, errors,
                      connection_failures };
  enum class Op { le, lt, ge, gt };
  Metric metric = Metric::p99;
  Op op = Op::le;
  double bound = 0;  // latency: milliseconds; throughput: messages per second; counters: a count
  std::string text;  // as written ("p99<=5ms")

  bool is_latency() const { return metric <= Metric::mean; }
  bool holds(double value) const;
};

// "p99<=5ms,p50<=1ms,throughput>=10000,errors<=0". Latency bounds take ns, us, ms (default) or s.
Expected<std::vector<Slo>, std::string> parse_slos(const std::string& text);
std::string metric_name(Slo::Metric m);

}  // namespace ac::load
