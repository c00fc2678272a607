// Helpers shared by the crypto tests: fixture files, hex, and a few rapidcheck generators.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace ac::testing {

inline std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(AC_SOURCE_DIR) + "/" + relative, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open fixture " + relative);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline nlohmann::json read_json_fixture(const std::string& relative) { return nlohmann::json::parse(read_source_file(relative)); }

inline std::string from_hex(const std::string& hex) {
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::runtime_error("bad hex");
  };
  if (hex.size() % 2 != 0) throw std::runtime_error("odd hex length");
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) out += static_cast<char>(nib(hex[i]) * 16 + nib(hex[i + 1]));
  return out;
}

inline std::string to_hex(const std::string& bytes) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

}  // namespace ac::testing
