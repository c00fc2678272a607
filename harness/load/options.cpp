#include "harness/load/options.hpp"

#include <cmath>
#include <cstdlib>

namespace ac::load {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// A finite, non-negative decimal number that is the whole of `text`.
std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.')) return std::nullopt;
  }
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Splits "12.5ms" into "12.5" and "ms".
std::pair<std::string, std::string> split_unit(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  return {text.substr(0, i), text.substr(i)};
}

}  // namespace

Expected<std::chrono::milliseconds, std::string> parse_duration(const std::string& raw) {
  const std::string text = trim(raw);
  const auto [digits, unit] = split_unit(text);
  const auto v = number(digits);
  if (!v) return unexpected("'" + raw + "' is not a duration (examples: 30s, 500ms, 2m, 1h)");
  double ms = 0;
  if (unit.empty() || unit == "s") ms = *v * 1000;
  else if (unit == "ms") ms = *v;
  else if (unit == "m" || unit == "min") ms = *v * 60000;
  else if (unit == "h") ms = *v * 3600000;
  else return unexpected("'" + raw + "': unknown unit '" + unit + "' (ms, s, m, h)");
  if (ms < 1 || ms > 7 * 24 * 3600000.0) return unexpected("'" + raw + "' is out of range (1 ms to 7 days)");
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(ms)));
}

Expected<double, std::string> parse_rate(const std::string& raw) {
  const std::string text = trim(raw);
  const auto [digits, unit] = split_unit(text);
  const auto v = number(digits);
  if (!v) return unexpected("'" + raw + "' is not a rate in messages per second (examples: 20000, 20k)");
  double r = *v;
  if (unit == "k") r *= 1e3;
  else if (unit == "m" || unit == "M") r *= 1e6;
  else if (!unit.empty()) return unexpected("'" + raw + "': unknown suffix '" + unit + "' (k, m)");
  if (r <= 0 || r > 1e8) return unexpected("'" + raw + "' is out of range (more than 0, at most 100m messages per second)");
  return r;
}

Expected<std::uint64_t, std::string> parse_size(const std::string& raw) {
  const std::string text = trim(raw);
  const auto [digits, unit] = split_unit(text);
  const auto v = number(digits);
  if (!v || digits.find('.') != std::string::npos) return unexpected("'" + raw + "' is not a size in bytes (examples: 256, 4k)");
  double b = *v;
  if (unit == "k" || unit == "K" || unit == "KiB") b *= 1024;
  else if (unit == "m" || unit == "M" || unit == "MiB") b *= 1024 * 1024;
  else if (!unit.empty() && unit != "B") return unexpected("'" + raw + "': unknown suffix '" + unit + "' (k, m)");
  if (b > 64.0 * 1024 * 1024) return unexpected("'" + raw + "' is larger than 64 MiB");
  return static_cast<std::uint64_t>(b);
}

bool Slo::holds(double value) const {
  switch (op) {
    case Op::le: return value <= bound;
    case Op::lt: return value < bound;
    case Op::ge: return value >= bound;
    case Op::gt: return value > bound;
  }
  return false;
}

std::string metric_name(Slo::Metric m) {
  switch (m) {
    case Slo::Metric::p50: return "p50";
    case Slo::Metric::p90: return "p90";
    case Slo::Metric::p99: return "p99";
    case Slo::Metric::p999: return "p99.9";
    case Slo::Metric::max: return "max";
    case Slo::Metric::mean: return "mean";
    case Slo::Metric::throughput: return "throughput";
    case Slo::Metric::lost: return "lost";
    case Slo::Metric::duplicated: return "duplicated";
    case Slo::Metric::reordered: return "reordered";
    case Slo::Metric::misdelivered: return "misdelivered";
    case Slo::Metric::invalid: return "invalid";
    case Slo::Metric::errors: return "errors";
    case Slo::Metric::connection_failures: return "connection_failures";
  }
  return "?";
}

Expected<std::vector<Slo>, std::string> parse_slos(const std::string& text) {
  static const std::vector<std::pair<std::string, Slo::Metric>> names = {
      {"p50", Slo::Metric::p50}, {"p90", Slo::Metric::p90}, {"p99.9", Slo::Metric::p999}, {"p999", Slo::Metric::p999},
      {"p99", Slo::Metric::p99}, {"max", Slo::Metric::max}, {"mean", Slo::Metric::mean},
      {"throughput", Slo::Metric::throughput}, {"lost", Slo::Metric::lost}, {"duplicated", Slo::Metric::duplicated},
      {"reordered", Slo::Metric::reordered}, {"misdelivered", Slo::Metric::misdelivered}, {"invalid", Slo::Metric::invalid},
      {"errors", Slo::Metric::errors}, {"connection_failures", Slo::Metric::connection_failures}};
  std::vector<Slo> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) return unexpected(std::string("an empty objective (write them as p99<=5ms,throughput>=1000)"));
    Slo slo;
    slo.text = item;
    std::size_t op_at = item.find_first_of("<>");
    if (op_at == std::string::npos) return unexpected("'" + item + "' has no comparison (<=, <, >=, >)");
    const std::string name = trim(item.substr(0, op_at));
    bool known = false;
    for (const auto& [n, m] : names) {
      if (n == name) {
        slo.metric = m;
        known = true;
        break;
      }
    }
    if (!known) {
      return unexpected("'" + item + "': unknown figure '" + name +
                        "' (p50, p90, p99, p99.9, max, mean, throughput, lost, duplicated, reordered, misdelivered, invalid, "
                        "errors, connection_failures)");
    }
    std::size_t after = op_at + 1;
    const bool equal = after < item.size() && item[after] == '=';
    if (equal) ++after;
    slo.op = item[op_at] == '<' ? (equal ? Slo::Op::le : Slo::Op::lt) : (equal ? Slo::Op::ge : Slo::Op::gt);
    const std::string value = trim(item.substr(after));
    const auto [digits, unit] = split_unit(value);
    const auto v = number(digits);
    if (!v) return unexpected("'" + item + "': '" + value + "' is not a number");
    slo.bound = *v;
    if (slo.is_latency()) {
      if (unit.empty() || unit == "ms") slo.bound = *v;
      else if (unit == "us") slo.bound = *v / 1000;
      else if (unit == "ns") slo.bound = *v / 1e6;
      else if (unit == "s") slo.bound = *v * 1000;
      else return unexpected("'" + item + "': unknown latency unit '" + unit + "' (ns, us, ms, s)");
    } else if (slo.metric == Slo::Metric::throughput) {
      if (unit == "k") slo.bound = *v * 1000;
      else if (!unit.empty() && unit != "/s" && unit != "msg/s") return unexpected("'" + item + "': throughput is in messages per second");
    } else if (!unit.empty() || digits.find('.') != std::string::npos) {
      return unexpected("'" + item + "': " + name + " is a count (a whole number)");
    }
    out.push_back(std::move(slo));
  }
  return out;
}

}  // namespace ac::load
