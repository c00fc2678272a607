#include "harness/load/marker.hpp"

#include <chrono>
#include <cstring>
#include <ctime>
#include <random>

namespace ac::load {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void hex(char* out, std::uint64_t v, int digits) {
  for (int i = digits - 1; i >= 0; --i) {
    out[i] = kHex[v & 15];
    v >>= 4;
  }
}

std::optional<std::uint64_t> unhex(std::string_view s) {
  std::uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else return std::nullopt;
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  return v;
}

}  // namespace

void write_marker(char* out, std::string_view tag, std::string_view run_id, std::uint32_t lane, std::uint64_t seq, std::uint64_t t_ns) {
  std::memcpy(out, tag.data(), 4);
  std::memcpy(out + 4, run_id.data(), 8);
  out[12] = '~';
  hex(out + 13, lane, 6);
  hex(out + 19, seq, 12);
  hex(out + 31, t_ns, 16);
  out[47] = '~';
}

std::optional<Marker> find_marker(std::string_view frame, std::string_view tag, std::string_view run_id) {
  std::size_t from = 0;
  for (;;) {
    const std::size_t at = frame.find(tag, from);
    if (at == std::string_view::npos || frame.size() - at < kMarkerBytes) return std::nullopt;
    const std::string_view m = frame.substr(at, kMarkerBytes);
    if (m.substr(4, 8) == run_id && m[12] == '~' && m[47] == '~') {
      auto lane = unhex(m.substr(13, 6));
      auto seq = unhex(m.substr(19, 12));
      auto t = unhex(m.substr(31, 16));
      if (!lane || !seq || !t) return std::nullopt;
      return Marker{static_cast<std::uint32_t>(*lane), *seq, *t, at};
    }
    from = at + 1;
  }
}

void write_uuid(char* out, std::string_view run_id, std::uint32_t lane, std::uint64_t seq) {
  std::memcpy(out, run_id.data(), 8);
  out[8] = '-';
  hex(out + 9, (lane >> 12) & 0xFFFF, 4);
  out[13] = '-';
  out[14] = '4';
  hex(out + 15, lane & 0xFFF, 3);
  out[18] = '-';
  out[19] = '8';
  hex(out + 20, (seq >> 48) & 0xFFF, 3);
  out[23] = '-';
  hex(out + 24, seq & 0xFFFFFFFFFFFFULL, 12);
}

std::string uuid_for(std::string_view run_id, std::uint32_t lane, std::uint64_t seq) {
  std::string s(36, '0');
  write_uuid(s.data(), run_id, lane, seq);
  return s;
}

void write_utc_now(char* out) {
  thread_local std::int64_t cached_second = -1;
  thread_local char cached[20];
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::int64_t second = ms / 1000;
  if (second != cached_second) {
    const std::time_t t = static_cast<std::time_t>(second);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min, tm.tm_sec);
    std::memcpy(cached, buf, 20);
    cached_second = second;
  }
  std::memcpy(out, cached, 20);
  const int milli = static_cast<int>(ms % 1000);
  out[20] = static_cast<char>('0' + milli / 100);
  out[21] = static_cast<char>('0' + (milli / 10) % 10);
  out[22] = static_cast<char>('0' + milli % 10);
  out[23] = 'Z';
}

std::string new_run_id() {
  std::random_device rd;
  std::string s(8, '0');
  hex(s.data(), (static_cast<std::uint64_t>(rd()) << 16) ^ rd(), 8);
  return s;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace ac::load
