// RapidCheck properties of RFC 8785 canonicalization and the strict reader over arbitrary JSON
// values (nested objects and arrays, strings with control, non-ASCII, upper-BMP and astral
// characters, doubles from any bit pattern and the extremes, int64/uint64):
//   - canonical form is idempotent: canon(parse(canon(x))) == canon(x);
//   - invariant under member order, whitespace, escaping and number spelling (nlohmann's pretty
//     print, and a text written here with shuffled members and random spellings);
//   - parses back to an equal value (numbers compared as doubles);
//   - members come out in UTF-16 code unit order (checked against an independent UTF-16 sort);
//   - format_number reads back to the same double and agrees with a printf-based reference;
//   - parse_strict round-trips nlohmann's dump (plain and ensure_ascii) of generated values.
// RC_PARAMS="max_success=2000" runs them harder.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "harness/json/canonical.hpp"

namespace ac::json {
namespace {

// ---- generators --------------------------------------------------------------------------------

std::string utf8(std::uint32_t cp) {
  std::string out;
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
  return out;
}

rc::Gen<std::uint32_t> gen_code_point() {
  return rc::gen::weightedOneOf<std::uint32_t>({
      {8, rc::gen::inRange<std::uint32_t>(0x20, 0x7F)},
      {2, rc::gen::element<std::uint32_t>('"', '\\', '/', 0x7F)},
      {2, rc::gen::inRange<std::uint32_t>(0x00, 0x20)},
      {2, rc::gen::inRange<std::uint32_t>(0x80, 0x800)},
      {2, rc::gen::inRange<std::uint32_t>(0x800, 0xD800)},
      {2, rc::gen::inRange<std::uint32_t>(0xE000, 0x10000)},
      {1, rc::gen::element<std::uint32_t>(0x2028, 0x2029, 0xFEFF, 0xFFFF, 0xE000, 0xFB33)},
      {2, rc::gen::inRange<std::uint32_t>(0x10000, 0x110000)},
  });
}

rc::Gen<std::string> gen_string() {
  return rc::gen::map(rc::gen::resize(12, rc::gen::container<std::vector<std::uint32_t>>(gen_code_point())),
                      [](const std::vector<std::uint32_t>& cps) {
                        std::string s;
                        for (auto cp : cps) s += utf8(cp);
                        return s;
                      });
}

// Short, colliding names, including the ones that need true UTF-16 ordering.
rc::Gen<std::string> gen_key() {
  return rc::gen::weightedOneOf<std::string>({
      {3, rc::gen::element<std::string>("", "a", "b", "aa", "A", "10", "9", "\r", "\u00e9", "\u20ac", "\uE000", "\uFFFF",
                                        "\U0001F600", "\U00010000", "\uFB33", "a/b", "~")},
      {2, gen_string()},
  });
}

double finite_from_bits(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return std::isfinite(d) ? d : static_cast<double>(bits >> 11);
}

rc::Gen<double> gen_double() {
  return rc::gen::weightedOneOf<double>({
      {4, rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), finite_from_bits)},
      {2, rc::gen::element(5e-324, -5e-324, DBL_MAX, -DBL_MAX, DBL_MIN, 1e21, 999999999999999900000.0, 1e-7, 1e-6,
                           9.999999999999997e-7, -0.0, 0.0, 9007199254740992.0, 9007199254740994.0, 0.1, 1e23,
                           333333333.33333329, 1424953923781206.2, 295147905179352830000.0)},
      {2, rc::gen::map(rc::gen::inRange(-1000000, 1000000), [](int i) { return i / 1000.0; })},
      {1, rc::gen::map(rc::gen::inRange(-400, 400), [](int e) { return std::pow(10.0, e / 2); })},
  });
}

rc::Gen<Json> gen_scalar() {
  return rc::gen::weightedOneOf<Json>({
      {1, rc::gen::just(Json(nullptr))},
      {1, rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Json(b); })},
      {2, rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t i) { return Json(i); })},
      {1, rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t u) { return Json(u); })},
      {4, rc::gen::map(gen_double(), [](double d) { return Json(d); })},
      {4, rc::gen::map(gen_string(), [](std::string s) { return Json(std::move(s)); })},
  });
}

rc::Gen<Json> gen_json(int depth) {
  if (depth <= 0) return gen_scalar();
  auto child = gen_json(depth - 1);
  auto array = rc::gen::map(rc::gen::resize(6, rc::gen::container<std::vector<Json>>(child)), [](std::vector<Json> items) {
    Json a = Json::array();
    for (auto& item : items) a.push_back(std::move(item));
    return a;
  });
  auto object = rc::gen::map(
      rc::gen::resize(7, rc::gen::container<std::vector<std::pair<std::string, Json>>>(rc::gen::pair(gen_key(), child))),
      [](std::vector<std::pair<std::string, Json>> members) {
        Json o = Json::object();
        for (auto& [k, v] : members) o[k] = std::move(v);
        return o;
      });
  return rc::gen::weightedOneOf<Json>({{3, gen_scalar()}, {2, array}, {2, object}});
}

rc::Gen<Json> gen_document() { return gen_json(4); }

// ---- helpers -----------------------------------------------------------------------------------

// Structural equality with every number compared as a double (JCS's number model).
bool same_value(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_value(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !same_value(it.value(), *other)) return false;
    }
    return true;
  }
  return a == b;
}

std::u16string to_utf16(const std::string& s) {
  std::u16string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::uint32_t cp;
    std::size_t len;
    if (c < 0x80) { cp = c; len = 1; }
    else if (c < 0xE0) { cp = c & 0x1F; len = 2; }
    else if (c < 0xF0) { cp = c & 0x0F; len = 3; }
    else { cp = c & 0x07; len = 4; }
    for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out += static_cast<char16_t>(0xD800 + (cp >> 10));
      out += static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
    } else {
      out += static_cast<char16_t>(cp);
    }
  }
  return out;
}

// Writes `v` as JSON text with shuffled members, random whitespace, random (valid) string
// escapes and random number spellings, all of which denote the same JCS value.
class ScrambledWriter {
 public:
  explicit ScrambledWriter(std::uint64_t seed) : rng_(seed) {}

  std::string write(const Json& v) {
    std::string out;
    ws(out);
    value(v, out);
    ws(out);
    return out;
  }

 private:
  bool coin(int one_in) { return std::uniform_int_distribution<int>(0, one_in - 1)(rng_) == 0; }

  void ws(std::string& out) {
    static const char* kSpaces[] = {"", "", "", " ", "\n", "\t", "\r\n  ", " \t"};
    out += kSpaces[std::uniform_int_distribution<int>(0, 7)(rng_)];
  }

  void hex4(std::string& out, unsigned unit) {
    char buf[8];
    std::snprintf(buf, sizeof buf, coin(2) ? "\\u%04x" : "\\u%04X", unit);
    out += buf;
  }

  void string(const std::string& s, std::string& out) {
    out += '"';
    const std::u16string units = to_utf16(s);
    std::size_t byte = 0;
    for (std::size_t i = 0; i < units.size(); ++i) {
      const char16_t u = units[i];
      const bool pair = u >= 0xD800 && u <= 0xDBFF;
      const std::size_t len = u < 0x80 ? 1 : u < 0x800 ? 2 : pair ? 4 : 3;
      if (u < 0x20 || u == '"' || u == '\\') {
        const char* short_form = u == '"' ? "\\\"" : u == '\\' ? "\\\\" : u == '\b' ? "\\b" : u == '\f' ? "\\f"
                               : u == '\n' ? "\\n" : u == '\r' ? "\\r" : u == '\t' ? "\\t" : nullptr;
        if (short_form && coin(2)) out += short_form;
        else hex4(out, u);
      } else if (u == '/' && coin(2)) {
        out += "\\/";
      } else if (coin(4)) {
        hex4(out, u);
        if (pair) hex4(out, units[i + 1]);
      } else {
        out.append(s, byte, len);
      }
      if (pair) ++i;
      byte += len;
    }
    out += '"';
  }

  void number(const Json& v, std::string& out) {
    if (!v.is_number_float()) {
      out += v.dump();
      return;
    }
    const double d = v.get<double>();
    char buf[64];
    switch (std::uniform_int_distribution<int>(0, 3)(rng_)) {
      case 0: std::snprintf(buf, sizeof buf, "%.17g", d); break;
      case 1: std::snprintf(buf, sizeof buf, "%.17e", d); break;
      case 2: std::snprintf(buf, sizeof buf, "%.17E", d); break;
      default: out += v.dump(); return;
    }
    out += buf;
  }

  void value(const Json& v, std::string& out) {
    if (v.is_string()) return string(v.get_ref<const std::string&>(), out);
    if (v.is_number()) return number(v, out);
    if (v.is_array()) {
      out += '[';
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += ',';
        ws(out);
        value(v[i], out);
        ws(out);
      }
      out += ']';
      return;
    }
    if (v.is_object()) {
      std::vector<std::pair<std::string, const Json*>> members;
      for (auto it = v.begin(); it != v.end(); ++it) members.emplace_back(it.key(), &it.value());
      std::shuffle(members.begin(), members.end(), rng_);
      out += '{';
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (i) out += ',';
        ws(out);
        string(members[i].first, out);
        ws(out);
        out += ':';
        ws(out);
        value(*members[i].second, out);
        ws(out);
      }
      out += '}';
      return;
    }
    out += v.dump();
  }

  std::mt19937_64 rng_;
};

std::string canon_or_fail(const Json& v) {
  auto c = canonicalize(v);
  RC_ASSERT(c.has_value());
  return *c;
}

// ---- properties --------------------------------------------------------------------------------

RC_GTEST_PROP(CanonicalProperties, CanonicalFormIsIdempotent, ()) {
  const Json x = *gen_document();
  const std::string c1 = canon_or_fail(x);
  auto c2 = canonicalize_text(c1);
  RC_ASSERT(c2.has_value());
  RC_ASSERT(*c2 == c1);
}

RC_GTEST_PROP(CanonicalProperties, InvariantUnderNlohmannPrettyPrint, ()) {
  const Json x = *gen_document();
  const std::string c1 = canon_or_fail(x);
  for (const std::string& text : {x.dump(2), x.dump(1, '\t', /*ensure_ascii=*/true), x.dump()}) {
    auto c = canonicalize_text(text);
    RC_ASSERT(c.has_value());
    RC_ASSERT(*c == c1);
  }
}

RC_GTEST_PROP(CanonicalProperties, InvariantUnderMemberOrderWhitespaceAndSpelling, ()) {
  const Json x = *gen_document();
  const std::string c1 = canon_or_fail(x);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const std::string text = ScrambledWriter(seed).write(x);
  auto c = canonicalize_text(text);
  if (!c) RC_FAIL("scrambled text rejected: " + c.error().describe() + "\n" + text);
  RC_ASSERT(*c == c1);
}

RC_GTEST_PROP(CanonicalProperties, ParsesBackToAnEqualValue, ()) {
  const Json x = *gen_document();
  const std::string c1 = canon_or_fail(x);
  auto back = parse_strict(c1);
  RC_ASSERT(back.has_value());
  RC_ASSERT(same_value(*back, x));
}

RC_GTEST_PROP(CanonicalProperties, MembersAreInUtf16CodeUnitOrder, ()) {
  const auto members = *rc::gen::resize(
      10, rc::gen::container<std::vector<std::pair<std::string, Json>>>(rc::gen::pair(gen_key(), gen_scalar())));
  Json object = Json::object();
  for (const auto& [k, v] : members) object[k] = v;

  // Expected text built independently: names sorted by their UTF-16 form.
  std::vector<std::string> names;
  for (auto it = object.begin(); it != object.end(); ++it) names.push_back(it.key());
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return to_utf16(a) < to_utf16(b); });
  std::string expected = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) expected += ',';
    expected += canon_or_fail(Json(names[i])) + ":" + canon_or_fail(object[names[i]]);
  }
  expected += "}";
  RC_ASSERT(canon_or_fail(object) == expected);

  for (std::size_t i = 0; i + 1 < names.size(); ++i) {
    RC_ASSERT(utf16_less(names[i], names[i + 1]));
    RC_ASSERT(!utf16_less(names[i + 1], names[i]));
  }
}

// Reference: the shortest %.*e precision that reads back, laid out by ECMA-262 Number::toString.
std::string reference_number(double d) {
  if (d == 0) return "0";
  std::string sign = d < 0 ? "-" : "";
  d = std::fabs(d);
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string mantissa(buf, std::strchr(buf, 'e'));
  const int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int k = static_cast<int>(digits.size()), n = exponent + 1;
  if (k <= n && n <= 21) return sign + digits + std::string(static_cast<std::size_t>(n - k), '0');
  if (0 < n && n <= 21) return sign + digits.substr(0, static_cast<std::size_t>(n)) + "." + digits.substr(static_cast<std::size_t>(n));
  if (-6 < n && n <= 0) return sign + "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
  std::string e = (n - 1 < 0 ? "-" : "+") + std::to_string(std::abs(n - 1));
  return sign + digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : "") + "e" + e;
}

RC_GTEST_PROP(CanonicalProperties, FormatNumberReadsBackAndMatchesReference, ()) {
  const double d = *gen_double();
  const std::string s = format_number(d);
  RC_ASSERT(std::strtod(s.c_str(), nullptr) == d);
  auto parsed = parse_strict(s);
  RC_ASSERT(parsed.has_value());
  RC_ASSERT(parsed->get<double>() == d);
  RC_ASSERT(s == reference_number(d));
}

RC_GTEST_PROP(StrictReaderProperties, RoundTripsNlohmannDump, ()) {
  const Json x = *gen_document();
  for (const std::string& text : {x.dump(), x.dump(2), x.dump(-1, ' ', /*ensure_ascii=*/true)}) {
    auto back = parse_strict(text);
    RC_ASSERT(back.has_value());
    RC_ASSERT(*back == x);
    RC_ASSERT(same_value(*back, x));
  }
}

}  // namespace
}  // namespace ac::json
