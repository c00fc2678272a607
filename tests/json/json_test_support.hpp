// Helpers shared by the JSON tests: fixture files, hex, and printable renderings of raw bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ac::json::test {

inline std::string fixture_path(const std::string& relative) {
  return std::string(AC_SOURCE_DIR) + "/fixtures/rfc8785/" + relative;
}

// Whole file, byte-exact. Throws (failing the test) when the fixture is missing.
inline std::string read_fixture(const std::string& relative) {
  std::ifstream in(fixture_path(relative), std::ios::binary);
  if (!in) throw std::runtime_error("missing fixture " + fixture_path(relative));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "7b 22 ..." (any whitespace between pairs) -> bytes.
inline std::string decode_hex(std::string_view hex) {
  std::string out;
  int pending = -1;
  for (char c : hex) {
    int v;
    if (c >= '0' && c <= '9') v = c - '0';
    else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    else continue;
    if (pending < 0) {
      pending = v;
    } else {
      out += static_cast<char>(pending * 16 + v);
      pending = -1;
    }
  }
  return out;
}

inline double double_from_hex(std::string_view hex) {
  std::uint64_t bits = 0;
  for (char c : hex) {
    bits <<= 4;
    bits |= static_cast<std::uint64_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// Control and non-ASCII bytes as \xNN, so failure messages show exactly what differs.
inline std::string printable(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (c < 0x20 || c >= 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace ac::json::test
