#include "reference/alp/wire.hpp"

namespace ac::ref::alp {

net::HttpResponse http_error(int status, const std::string& code, const std::string& message,
                             std::optional<nlohmann::json> details, std::optional<bool> retryable) {
  nlohmann::json error = {{"code", code}, {"message", message}};
  if (details) error["details"] = std::move(*details);
  if (retryable) error["retryable"] = *retryable;
  return net::HttpResponse::json(status, nlohmann::json{{"error", std::move(error)}}.dump());
}

std::optional<std::string> scan_message_id(std::string_view frame) {
  constexpr std::string_view key = "\"message_id\"";
  std::size_t at = frame.find(key);
  while (at != std::string_view::npos) {
    std::size_t i = at + key.size();
    auto skip_ws = [&] {
      while (i < frame.size() && (frame[i] == ' ' || frame[i] == '\t' || frame[i] == '\n' || frame[i] == '\r')) ++i;
    };
    skip_ws();
    if (i < frame.size() && frame[i] == ':') {
      ++i;
      skip_ws();
      if (i < frame.size() && frame[i] == '"') {
        const std::size_t start = ++i;
        while (i < frame.size() && i - start <= 128 && frame[i] != '"' && frame[i] != '\\' &&
               static_cast<unsigned char>(frame[i]) >= 0x20 && static_cast<unsigned char>(frame[i]) < 0x7f) {
          ++i;
        }
        if (i < frame.size() && frame[i] == '"' && i > start && i - start <= 128) return std::string(frame.substr(start, i - start));
      }
    }
    at = frame.find(key, at + 1);
  }
  return std::nullopt;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool key_in(std::string_view key, const std::vector<std::string>& keys) {
  bool found = false;
  for (const auto& k : keys) found = constant_time_equal(key, k) || found;
  return found;
}

bool version_supported(const semver::Version& v, const std::vector<semver::Version>& supported) {
  for (const auto& s : supported) {
    if (v.major == s.major && (s.major != 0 || v.minor == s.minor)) return true;
  }
  return false;
}

}  // namespace ac::ref::alp
