// The target's /metrics in the Prometheus text exposition format, read during a load run (a soak
// shows whether the target's memory, connections and error counters stay steady). The parser
// takes what a hostile or broken target sends: bounded line count and lengths, names and labels
// kept as text, values that are not numbers skipped.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace ac::load {

struct MetricSamples {
  std::map<std::string, double> series;  // "name{labels}" -> value
  std::size_t lines_skipped = 0;         // not parsable as a sample
};

// At most max_series samples are kept: those whose names tell about memory, connections,
// messages and errors first, then others in the order they appear.
MetricSamples parse_prometheus(std::string_view text, std::size_t max_series = 48);

}  // namespace ac::load
