// RapidCheck generators of the values messages are made of, valid by construction: UTF-8
// text (including escapes, controls, non-BMP characters and U+0000), UUIDs, RFC 3339 UTC
// timestamps, SemVer strings, base64 keys, and arbitrary JSON values of bounded depth.
#pragma once

#include <rapidcheck.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::test::gen {

using Json = nlohmann::json;

inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Any Unicode scalar value, weighted towards ASCII and the characters JSON must escape.
inline rc::Gen<std::uint32_t> code_point() {
  return rc::gen::weightedOneOf<std::uint32_t>({
      {8, rc::gen::inRange<std::uint32_t>(0x20, 0x7F)},
      {2, rc::gen::element<std::uint32_t>(0x00, 0x01, 0x08, 0x09, 0x0A, 0x0D, 0x1F, '"', '\\', '/', 0x7F)},
      {1, rc::gen::inRange<std::uint32_t>(0x80, 0xD800)},
      {1, rc::gen::inRange<std::uint32_t>(0xE000, 0x10000)},
      {1, rc::gen::inRange<std::uint32_t>(0x10000, 0x110000)},
  });
}

inline rc::Gen<std::string> text() {
  return rc::gen::map(rc::gen::resize(12, rc::gen::container<std::vector<std::uint32_t>>(code_point())),
                      [](const std::vector<std::uint32_t>& cps) {
                        std::string out;
                        for (auto cp : cps) append_utf8(out, cp);
                        return out;
                      });
}

// Non-empty, and the first character is not U+0000: valijson measures minLength/maxLength with
// u8_strlen(c_str()), which stops at an embedded NUL, so "\u0000..." would count as 0 characters
// (reported to the schema store's owner). Later characters may still be U+0000.
inline rc::Gen<std::string> nonempty_text() {
  return rc::gen::exec([] {
    std::string out;
    append_utf8(out, *rc::gen::suchThat(code_point(), [](std::uint32_t cp) { return cp != 0; }));
    return out + *text();
  });
}

// [a-z0-9_-]+: ids, keys of extra members (prefixed so they never collide with modelled ones).
inline rc::Gen<std::string> word() {
  return rc::gen::resize(10, rc::gen::nonEmpty(rc::gen::container<std::string>(
                                 rc::gen::element('a', 'b', 'c', 'x', 'z', '0', '7', '9', '_', '-'))));
}

template <typename T>
rc::Gen<std::optional<T>> optional(rc::Gen<T> g) {
  return rc::gen::oneOf(rc::gen::just(std::optional<T>()),
                        rc::gen::map(std::move(g), [](T v) { return std::optional<T>(std::move(v)); }));
}

template <typename T>
rc::Gen<std::vector<T>> list(rc::Gen<T> g, int max_size = 4) {
  return rc::gen::resize(max_size, rc::gen::container<std::vector<T>>(std::move(g)));
}

inline std::string hex(std::uint64_t v, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = kHex[v & 0xF];
    v >>= 4;
  }
  return out;
}

inline rc::Gen<std::string> uuid() {
  return rc::gen::exec([] {
    const auto a = *rc::gen::arbitrary<std::uint64_t>();
    const auto b = *rc::gen::arbitrary<std::uint64_t>();
    std::string s = hex(a >> 32, 8) + "-" + hex((a >> 16) & 0xFFFF, 4) + "-4" + hex(a & 0xFFF, 3) + "-" +
                    hex(0x8 | ((b >> 62) & 0x3), 1) + hex((b >> 48) & 0xFFF, 3) + "-" + hex(b & 0xFFFFFFFFFFFFull, 12);
    if (*rc::gen::arbitrary<bool>()) {
      for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return s;
  });
}

// RFC 3339 date-time in UTC ("Z"), optionally with a fraction of a second; every day valid.
inline rc::Gen<std::string> utc_timestamp() {
  return rc::gen::exec([] {
    const int year = *rc::gen::inRange(1970, 2100);
    const int month = *rc::gen::inRange(1, 13);
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    const int days = kDays[month - 1] + (month == 2 && leap ? 1 : 0);
    const int day = *rc::gen::inRange(1, days + 1);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, *rc::gen::inRange(0, 24),
                  *rc::gen::inRange(0, 60), *rc::gen::inRange(0, 60));
    std::string out = buf;
    if (*rc::gen::arbitrary<bool>()) out += "." + std::to_string(*rc::gen::inRange(0, 1000000));
    return out + "Z";
  });
}

// SemVer 2.0.0 strings: numeric parts, optional pre-release and build metadata.
inline rc::Gen<std::string> semver() {
  return rc::gen::exec([] {
    std::string out = std::to_string(*rc::gen::inRange(0, 30)) + "." + std::to_string(*rc::gen::inRange(0, 30)) + "." +
                      std::to_string(*rc::gen::inRange(0, 300));
    const auto pre = *list(rc::gen::oneOf(rc::gen::map(rc::gen::inRange(0, 99), [](int n) { return std::to_string(n); }),
                                          rc::gen::element<std::string>("alpha", "beta", "rc", "x-y", "0a")),
                           3);
    for (std::size_t i = 0; i < pre.size(); ++i) out += (i == 0 ? "-" : ".") + pre[i];
    if (*rc::gen::arbitrary<bool>()) out += "+build." + std::to_string(*rc::gen::inRange(0, 999));
    return out;
  });
}

inline std::string base64(const std::vector<unsigned char>& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (bytes.size() - i == 1) {
    const unsigned v = bytes[i] << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (bytes.size() - i == 2) {
    const unsigned v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

// Standard padded base64 of `n` random bytes (Ed25519 keys: 32, signatures: 64).
inline rc::Gen<std::string> base64_bytes(std::size_t n) {
  return rc::gen::map(rc::gen::container<std::vector<unsigned char>>(n, rc::gen::arbitrary<unsigned char>()),
                      [](const std::vector<unsigned char>& b) { return base64(b); });
}

inline rc::Gen<double> finite_double() {
  return rc::gen::suchThat(rc::gen::arbitrary<double>(), [](double d) { return std::isfinite(d); });
}

// Any JSON value, nesting at most `depth` levels.
inline rc::Gen<Json> json_value(int depth = 2);

inline rc::Gen<Json> json_object(int depth = 2) {
  return rc::gen::exec([depth] {
    Json out = Json::object();
    const auto keys = *list(text(), 4);
    for (const auto& k : keys) out[k] = *json_value(depth - 1);
    return out;
  });
}

inline rc::Gen<Json> json_value(int depth) {
  return rc::gen::exec([depth] {
    const int kind = *rc::gen::inRange(0, depth > 0 ? 8 : 6);
    switch (kind) {
      case 0: return Json(nullptr);
      case 1: return Json(*rc::gen::arbitrary<bool>());
      case 2: return Json(*rc::gen::arbitrary<std::int64_t>());
      case 3: return Json(*rc::gen::arbitrary<std::uint64_t>());
      case 4: return Json(*finite_double());
      case 5: return Json(*text());
      case 6: {
        Json arr = Json::array();
        for (const auto& v : *list(json_value(depth - 1), 3)) arr.push_back(v);
        return arr;
      }
      default: return *json_object(depth - 1);
    }
  });
}

// Members of an open object that no schema models: keys "x_..." that never collide with a
// modelled member.
inline rc::Gen<Json> extras() {
  return rc::gen::exec([] {
    Json out = Json::object();
    for (const auto& k : *list(word(), 2)) out["x_" + k] = *json_value(1);
    return out;
  });
}

}  // namespace ac::test::gen
