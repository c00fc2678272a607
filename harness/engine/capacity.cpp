#include "harness/engine/capacity.hpp"

#include <algorithm>
#include <cctype>

namespace ac::engine {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool speaks_of_capacity(const std::string& text) {
  const std::string t = lower(text);
  for (const char* word : {"too many", "too-many", "too_many", "capacity", "busy", "overload", "try again", "try-again",
                           "rate limit", "rate-limit", "rate_limit", "limit exceeded", "breaker", "unavailable", "max connections",
                           "connection limit"}) {
    if (t.find(word) != std::string::npos) return true;
  }
  return false;
}

// A cap on connections, as opposed to a rate limit: a rate-limit case still meets it by chance.
bool speaks_of_connections(const std::string& text) {
  const std::string t = lower(text);
  for (const char* word : {"too many connections", "too-many-connections", "too_many_connections", "max connections", "connection limit",
                           "connections per"}) {
    if (t.find(word) != std::string::npos) return true;
  }
  return false;
}

// Whether the case's steps expect `code` as a status or close code (then meeting it is the case's point).
bool expected_by_case(const nlohmann::json& steps, int code) {
  if (steps.is_object()) {
    for (const auto& [k, v] : steps.items()) {
      if ((k == "status" || k == "close") && v.is_number_integer() && v.get<int>() == code) return true;
      if (expected_by_case(v, code)) return true;
    }
  } else if (steps.is_array()) {
    for (const auto& v : steps) {
      if (expected_by_case(v, code)) return true;
    }
  }
  return false;
}

}  // namespace

std::chrono::milliseconds retry_after_of(const std::string& data) {
  const std::string t = lower(data);
  const auto p = t.find("retry-after:");
  if (p == std::string::npos) return std::chrono::milliseconds(0);
  std::size_t i = p + 12;
  while (i < t.size() && t[i] == ' ') ++i;
  long long seconds = 0;
  std::size_t digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && digits < 4) {
    seconds = seconds * 10 + (t[i++] - '0');
    ++digits;
  }
  return std::chrono::milliseconds(std::min<long long>(seconds, 30) * 1000);
}

namespace {

std::string excerpt(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  return out;
}

}  // namespace

bool capacity_status(int status) { return status == 429 || status == 503; }

bool capacity_close(int code, const std::string& reason) {
  return code == 1013 || ((code == 1008 || code == 1001 || code == 1011) && speaks_of_capacity(reason));
}

CapacityRefusal capacity_refusal(const nlohmann::json& transcript, const nlohmann::json& steps) {
  CapacityRefusal out;
  if (!transcript.is_array()) return out;
  // A case about rate limits waits for the target's refusal: that refusal is its verdict; only a
  // refusal that names a connection cap is still capacity.
  const std::string text = steps.dump();
  const bool rate_limit_case = text.find("RATE_LIMIT") != std::string::npos || text.find("rate_limit") != std::string::npos;
  std::string last_out_kind;
  for (const auto& e : transcript) {
    if (!e.is_object()) continue;
    const std::string kind = e.value("kind", std::string());
    const std::string dir = e.value("direction", std::string());
    const std::string data = e.value("data", std::string());
    const int code = e.contains("code") && e["code"].is_number_integer() ? e["code"].get<int>() : 0;
    if (dir == "out") last_out_kind = kind;
    if (dir != "in") continue;
    if (rate_limit_case && !speaks_of_connections(data)) continue;
    // A close whose reason speaks of capacity is one even in a case that expects its code (a
    // version refusal closes 1008 too, with another reason).
    if (kind == "close" && capacity_close(code, data) && (speaks_of_capacity(data) || !expected_by_case(steps, code))) {
      out.what = "close " + std::to_string(code) + (data.empty() ? "" : " \"" + excerpt(data) + "\"");
      return out;
    }
    if ((kind == "refused" || kind == "http-response") && capacity_status(code) && !expected_by_case(steps, code)) {
      out.retry_after = retry_after_of(data);
      out.what = "HTTP " + std::to_string(code) + (out.retry_after.count() > 0 ? " (Retry-After: " + std::to_string(out.retry_after.count() / 1000) + ")" : "");
      const auto body = data.find("\n");
      if (body != std::string::npos && speaks_of_capacity(data)) out.what += " " + excerpt(data.substr(data.rfind('\n') + 1));
      return out;
    }
    if (kind == "error" && last_out_kind == "connect" && lower(data).find("reset") != std::string::npos) {
      out.what = "connection reset at accept (" + excerpt(data) + ")";
      return out;
    }
  }
  return out;
}

}  // namespace ac::engine
