#include "harness/load/prometheus.hpp"

#include <cmath>
#include <cstdlib>
#include <vector>

namespace ac::load {
namespace {

bool interesting(std::string_view name) {
  for (std::string_view w : {"memory", "heap", "resident", "connection", "routed", "message", "error", "slow", "open_fds", "goroutines"}) {
    if (name.find(w) != std::string_view::npos) return true;
  }
  return false;
}

bool name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':' || (!first && std::isdigit(static_cast<unsigned char>(c)));
}

}  // namespace

MetricSamples parse_prometheus(std::string_view text, std::size_t max_series) {
  MetricSamples out;
  std::vector<std::pair<std::string, double>> first, rest;
  std::size_t lines = 0;
  while (!text.empty() && lines < 100000) {
    ++lines;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    if (line.size() > 4096) {
      ++out.lines_skipped;
      continue;
    }
    // name, optional {labels}, whitespace, value, optional timestamp
    std::size_t i = 0;
    while (i < line.size() && name_char(line[i], i == 0)) ++i;
    if (i == 0) {
      ++out.lines_skipped;
      continue;
    }
    const std::string_view name = line.substr(0, i);
    std::size_t key_end = i;
    if (i < line.size() && line[i] == '{') {
      bool quoted = false;
      std::size_t j = i + 1;
      for (; j < line.size(); ++j) {
        if (quoted && line[j] == '\\') {
          ++j;
          continue;
        }
        if (line[j] == '"') quoted = !quoted;
        if (!quoted && line[j] == '}') break;
      }
      if (j >= line.size()) {
        ++out.lines_skipped;
        continue;
      }
      key_end = j + 1;
    }
    std::size_t v = key_end;
    while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
    std::size_t ve = v;
    while (ve < line.size() && line[ve] != ' ' && line[ve] != '\t') ++ve;
    const std::string value(line.substr(v, ve - v));
    char* end = nullptr;
    const double d = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(d)) {
      ++out.lines_skipped;
      continue;
    }
    auto& bucket = interesting(name) ? first : rest;
    if (bucket.size() < max_series) bucket.emplace_back(std::string(line.substr(0, key_end)), d);
  }
  for (auto* list : {&first, &rest}) {
    for (auto& [k, d] : *list) {
      if (out.series.size() >= max_series) break;
      out.series.emplace(std::move(k), d);
    }
  }
  return out;
}

}  // namespace ac::load
