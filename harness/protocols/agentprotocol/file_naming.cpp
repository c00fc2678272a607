// The file-exchange naming convention (see file_naming.hpp).
#include "harness/protocols/agentprotocol/file_naming.hpp"

#include <cctype>

#include "harness/protocols/typed/stamp.hpp"

namespace ac::proto::agentprotocol {
namespace {

constexpr std::size_t kKeyFileIdSize = 43;  // base64url of 32 bytes, unpadded
constexpr std::size_t kUuidSize = 36;
constexpr std::size_t kMaxTimestamp = 40;

bool url_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_'; }
bool uuid_char(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == '-'; }
bool stamp_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '+'; }

bool all_of(std::string_view s, bool (*pred)(char)) {
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string file_id(std::string_view agent_id) {
  static const char* hex = "0123456789ABCDEF";
  std::string_view body = agent_id;
  while (!body.empty() && body.back() == '=') body.remove_suffix(1);  // padding is implied by the length
  std::string out;
  out.reserve(body.size());
  for (char c : body) {
    if (c == '+') {
      out += '-';
    } else if (c == '/') {
      out += '_';
    } else if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out += c;
    } else {
      const auto u = static_cast<unsigned char>(c);
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

std::string agent_id_from_file_id(std::string_view id) {
  std::string out;
  out.reserve(id.size() + 2);
  for (std::size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (c == '-') {
      out += '+';
    } else if (c == '_') {
      out += '/';
    } else if (c == '%' && i + 2 < id.size() && hex_value(id[i + 1]) >= 0 && hex_value(id[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(id[i + 1]) * 16 + hex_value(id[i + 2]));
      i += 2;
    } else {
      out += c;
    }
  }
  // Keys (and any base64 body) get their padding back: 43 characters -> 44 with one '='.
  if (id.size() == kKeyFileIdSize && all_of(id, url_char)) out += '=';
  return out;
}

std::string file_timestamp(std::string_view iso8601) {
  std::string out;
  for (char c : iso8601) {
    if (c == '-' || c == ':') continue;
    if (stamp_char(c)) out += c;
  }
  if (out.size() > kMaxTimestamp) return std::string();
  return out;
}

std::string exchange_file_name(std::string_view from_agent_id, std::string_view to_agent_id, std::string_view timestamp,
                               std::string_view id) {
  std::string stamp = file_timestamp(timestamp);
  if (stamp.empty()) stamp = file_timestamp(proto::typed::utc_now());
  const bool good_id = id.size() == kUuidSize && all_of(id, uuid_char);
  return file_id(from_agent_id) + "-" + file_id(to_agent_id) + "-" + stamp + "-" +
         (good_id ? std::string(id) : proto::typed::new_uuid_v4()) + ".json";
}

std::optional<ExchangeName> parse_exchange_name(std::string_view name) {
  static constexpr std::string_view kSuffix = ".json";
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) return std::nullopt;
  const std::string_view stem = name.substr(0, name.size() - kSuffix.size());
  // from(43) '-' to(>=1) '-' timestamp(>=1) '-' id(36)
  if (stem.size() < kKeyFileIdSize + 1 + 1 + 1 + 1 + 1 + kUuidSize) return std::nullopt;
  const std::string_view from = stem.substr(0, kKeyFileIdSize);
  if (!all_of(from, url_char) || stem[kKeyFileIdSize] != '-') return std::nullopt;
  const std::string_view id = stem.substr(stem.size() - kUuidSize);
  if (!all_of(id, uuid_char) || stem[stem.size() - kUuidSize - 1] != '-') return std::nullopt;
  const std::string_view middle = stem.substr(kKeyFileIdSize + 1, stem.size() - kUuidSize - 1 - (kKeyFileIdSize + 1));
  const auto dash = middle.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= middle.size()) return std::nullopt;
  const std::string_view to = middle.substr(0, dash);
  const std::string_view stamp = middle.substr(dash + 1);
  if (!all_of(stamp, stamp_char)) return std::nullopt;
  for (char c : to) {
    if (!url_char(c) && c != '%') return std::nullopt;
  }
  return ExchangeName{std::string(from), std::string(to), std::string(stamp), std::string(id)};
}

}  // namespace ac::proto::agentprotocol
