// RFC 8785 (JCS) serializer over nlohmann::json values; see canonical.hpp for the contract.
//
// Written for throughput (bench/canonical.cpp) without giving up exactness:
//   - output goes through a small cursor over one std::string that grows geometrically; every
//     write is a store or memcpy at the cursor (no per-character std::string::push_back);
//   - object members come out of nlohmann's std::map already in UTF-8 byte order, which is code
//     point order. UTF-16 order differs from it only between U+E000..U+FFFF and astral characters
//     (astral ones become surrogates D800..DFFF, which sort before E000). A scan of the names'
//     bytes decides: members are written straight from the map, or, only for an object with
//     names of both kinds, through member pointers sorted by utf16_less. No per-member
//     allocation otherwise, and every value is written exactly once;
//   - integers below 2^53 print with the integer formatter (the digits ECMAScript prints); all
//     other numbers go through the shortest round-trip std::to_chars and the ECMAScript layout;
//   - strings are written in one pass (copy, or escape the few bytes JCS escapes) and validated
//     as UTF-8 only when they hold a non-ASCII byte, and not at all after parse_strict(), whose
//     output is valid UTF-8 by construction.
// Errors are values: the failing frame fills CanonError, and each enclosing frame prepends its
// JSON Pointer segment while unwinding, so the success path never builds paths.
#include "harness/json/canonical.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ac::json {

std::string CanonError::describe() const {
  std::string out = rule;
  if (offset) {
    out += " at byte ";
    out += std::to_string(*offset);
  }
  out += " (pointer \"";
  out += pointer;
  out += "\"): ";
  out += message;
  return out;
}

namespace {

// ---- numbers ---------------------------------------------------------------------------------

// Longest outputs: "-0.0000033333333333333333" (25), "-1.7976931348623157e+308" (24),
// "-295147905179352830000" (22).
constexpr std::size_t kNumberBuffer = 40;

// ECMAScript Number::toString (ECMA-262 §7.1.12.1 as RFC 8785 §3.2.2.3 cites it) for finite,
// non-zero |v| given as `digits` (k significant decimal digits, no trailing zeros) and n (the
// position of the decimal point: value = 0.d1d2...dk × 10^n).
char* layout_number(char* out, const char* digits, int k, int n) {
  if (k <= n && n <= 21) {  // integer: digits then n-k zeros
    std::memcpy(out, digits, static_cast<std::size_t>(k));
    out += k;
    std::memset(out, '0', static_cast<std::size_t>(n - k));
    return out + (n - k);
  }
  if (0 < n && n <= 21) {  // decimal point inside the digits
    std::memcpy(out, digits, static_cast<std::size_t>(n));
    out += n;
    *out++ = '.';
    std::memcpy(out, digits + n, static_cast<std::size_t>(k - n));
    return out + (k - n);
  }
  if (-6 < n && n <= 0) {  // 0.000ddd
    *out++ = '0';
    *out++ = '.';
    std::memset(out, '0', static_cast<std::size_t>(-n));
    out += -n;
    std::memcpy(out, digits, static_cast<std::size_t>(k));
    return out + k;
  }
  // Exponent form: d[.ddd]e±x
  *out++ = digits[0];
  if (k > 1) {
    *out++ = '.';
    std::memcpy(out, digits + 1, static_cast<std::size_t>(k - 1));
    out += k - 1;
  }
  *out++ = 'e';
  const int e = n - 1;
  *out++ = e < 0 ? '-' : '+';
  return std::to_chars(out, out + 8, e < 0 ? -e : e).ptr;
}

// Writes ECMAScript's Number::toString(v) at out (at least kNumberBuffer bytes); returns the end.
char* write_double(char* out, double v) {
  if (v == 0) {  // +0 and -0 (RFC 8785 §3.2.2.3: minus zero serializes as 0)
    *out++ = '0';
    return out;
  }
  if (std::isnan(v)) {
    std::memcpy(out, "NaN", 3);
    return out + 3;
  }
  if (v < 0) {
    *out++ = '-';
    v = -v;
  }
  if (std::isinf(v)) {
    std::memcpy(out, "Infinity", 8);
    return out + 8;
  }
  // Exact integers below 2^53: the integer formatter writes the same digits, faster.
  if (v < 9007199254740992.0) {
    const auto i = static_cast<std::int64_t>(v);
    if (static_cast<double>(i) == v) return std::to_chars(out, out + 20, i).ptr;
  }
  // Shortest round-trip digits (ties broken towards the closer, then the even candidate, as
  // ECMA-262 asks) in scientific form "d.ddde±xx"; re-laid out by the ECMAScript rules.
  char sci[32];
  const auto res = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  char digits[20];
  int k = 0;
  const char* p = sci;
  digits[k++] = *p++;
  if (*p == '.') {
    for (++p; *p != 'e'; ++p) digits[k++] = *p;
  }
  ++p;  // 'e'
  const bool negative_exponent = *p == '-';
  ++p;  // sign
  int e = 0;
  std::from_chars(p, res.ptr, e);
  if (negative_exponent) e = -e;
  return layout_number(out, digits, k, e + 1);
}

// ---- strings ---------------------------------------------------------------------------------

// Byte classes for the string writer: 0 copy, 1 escape (RFC 8785 §3.2.2.2: '"', '\\' and
// U+0000..U+001F only; DEL, U+2028/9 and all non-ASCII stay raw), 2 non-ASCII (copy, and note
// that the string needs UTF-8 validation).
constexpr std::array<std::uint8_t, 256> make_byte_classes() {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<std::size_t>(c)] = 1;
  t['"'] = 1;
  t['\\'] = 1;
  for (int c = 0x80; c < 0x100; ++c) t[static_cast<std::size_t>(c)] = 2;
  return t;
}
constexpr std::array<std::uint8_t, 256> kByteClass = make_byte_classes();

// The escape of a class-1 byte at out (at most 6 bytes); returns the end. The five characters
// with a short form use it; the others are \u00xx with lowercase hex.
char* write_escape(char* out, unsigned char c) {
  char short_form = 0;
  switch (c) {
    case '"': short_form = '"'; break;
    case '\\': short_form = '\\'; break;
    case '\b': short_form = 'b'; break;
    case '\t': short_form = 't'; break;
    case '\n': short_form = 'n'; break;
    case '\f': short_form = 'f'; break;
    case '\r': short_form = 'r'; break;
    default: break;
  }
  *out++ = '\\';
  if (short_form != 0) {
    *out++ = short_form;
    return out;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out[0] = 'u';
  out[1] = '0';
  out[2] = '0';
  out[3] = kHex[c >> 4];
  out[4] = kHex[c & 0x0F];
  return out + 5;
}

// ---- UTF-16 order ----------------------------------------------------------------------------

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The code point starting at s[i], mapped so that comparing keys compares UTF-16 code units:
// U+E000..U+FFFF are lifted above the astral range, since as single code units they sort after
// the surrogates (D800..DFFF) that encode U+10000..U+10FFFF. Astral characters with the same high
// surrogate compare like their low surrogates, i.e. like their code points. Reads stay in bounds
// even for invalid UTF-8 (callers validate first; this only must not overrun).
std::uint32_t utf16_order_key(std::string_view s, std::size_t i) {
  auto at = [&](std::size_t k) -> std::uint32_t {
    return k < s.size() ? static_cast<unsigned char>(s[k]) & 0x3Fu : 0u;
  };
  const auto c = static_cast<unsigned char>(s[i]);
  std::uint32_t cp;
  if (c < 0x80) {
    cp = c;
  } else if (c < 0xE0) {
    cp = ((c & 0x1Fu) << 6) | at(i + 1);
  } else if (c < 0xF0) {
    cp = ((c & 0x0Fu) << 12) | (at(i + 1) << 6) | at(i + 2);
  } else {
    cp = ((c & 0x07u) << 18) | (at(i + 1) << 12) | (at(i + 2) << 6) | at(i + 3);
  }
  if (cp >= 0xE000 && cp <= 0xFFFF) cp += 0x200000;
  return cp;
}

// ---- output ----------------------------------------------------------------------------------

// Append-only cursor over a std::string used as a raw buffer: the string's size is the capacity,
// finish() trims it to what was written. The buffer bounds are cached in the cursor so that the
// hot path is a compare and a store; growing is out of line.
class Output {
 public:
  Output(std::string& s, std::size_t hint) : s_(s) {
    s_.resize(std::max<std::size_t>(hint, 64));
    base_ = s_.data();
    cur_ = base_;
    end_ = base_ + s_.size();
  }

  // Room for n more bytes; returns where to write them. Commit with advance_to().
  char* room(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) [[unlikely]] grow(n);
    return cur_;
  }
  void advance_to(char* end) { cur_ = end; }

  void put(char c) { *room(1) = c, ++cur_; }
  void put(const char* data, std::size_t n) {
    std::memcpy(room(n), data, n);
    cur_ += n;
  }

  std::size_t size() const { return static_cast<std::size_t>(cur_ - base_); }
  void finish() { s_.resize(size()); }

 private:
  [[gnu::noinline]] void grow(std::size_t n) {
    const std::size_t used = size();
    s_.resize(std::max(s_.size() * 2, used + n));
    base_ = s_.data();
    cur_ = base_ + used;
    end_ = base_ + s_.size();
  }

  std::string& s_;
  char* base_;
  char* cur_;
  char* end_;
};

// SWAR test of 8 bytes at once: true when none of them needs attention from the string writer
// (all are printable ASCII other than '"' and '\\'), so they can be copied as a block.
bool plain_ascii8(std::uint64_t x) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  auto has_zero = [](std::uint64_t v) { return ((v - kOnes) & ~v & kHigh) != 0; };
  const bool below_space = ((x - kOnes * 0x20) & ~x & kHigh) != 0;  // some byte < 0x20 (x has no high bits)
  return (x & kHigh) == 0 && !below_space && !has_zero(x ^ (kOnes * '"')) && !has_zero(x ^ (kOnes * '\\'));
}

// ---- the serializer --------------------------------------------------------------------------

std::string escape_pointer_segment(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// Which of the two kinds of characters whose relative UTF-16 order differs from their byte order
// an object's member names hold.
struct NameKinds {
  bool upper_bmp = false;  // U+E000..U+FFFF (lead byte EE or EF)
  bool astral = false;     // U+10000.. (lead byte F0..F4)
};

class Writer {
 public:
  // check_utf8 = false only for values that parse_strict() produced (valid by construction).
  Writer(Output& out, bool check_utf8) : out_(out), check_utf8_(check_utf8) {}

  bool value(const Json& v, std::size_t depth) {
    switch (v.type()) {
      case Json::value_t::null: out_.put("null", 4); return true;
      case Json::value_t::boolean:
        if (*v.get_ptr<const Json::boolean_t*>()) out_.put("true", 4);
        else out_.put("false", 5);
        return true;
      case Json::value_t::number_integer: {
        const auto i = *v.get_ptr<const Json::number_integer_t*>();
        // Beyond ±2^53 the integer is not a double: convert, as an ES reader would.
        if (i > -9007199254740992LL && i < 9007199254740992LL) return integer(i);
        return number(static_cast<double>(i));
      }
      case Json::value_t::number_unsigned: {
        const auto u = *v.get_ptr<const Json::number_unsigned_t*>();
        if (u < 9007199254740992ULL) return integer(static_cast<std::int64_t>(u));
        return number(static_cast<double>(u));
      }
      case Json::value_t::number_float: {
        const double d = *v.get_ptr<const Json::number_float_t*>();
        if (!std::isfinite(d)) {
          return fail("non-finite-number", std::string(std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity") +
                                               " has no JSON representation (RFC 8785 §3.2.2.3, I-JSON numbers)");
        }
        return number(d);
      }
      case Json::value_t::string: return string(*v.get_ptr<const Json::string_t*>(), false);
      case Json::value_t::array: return array(*v.get_ptr<const Json::array_t*>(), depth);
      case Json::value_t::object: return object(*v.get_ptr<const Json::object_t*>(), depth);
      case Json::value_t::binary: return fail("not-json", "binary value (CBOR/MessagePack extension) has no JSON form");
      case Json::value_t::discarded: return fail("not-json", "discarded value has no JSON form");
    }
    return fail("not-json", "unknown value type");
  }

  CanonError take_error() {
    std::string pointer;
    for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
      pointer += '/';
      pointer += *it;
    }
    error_.pointer = std::move(pointer);
    return std::move(error_);
  }

 private:
  bool integer(std::int64_t i) {
    char* p = out_.room(24);
    out_.advance_to(std::to_chars(p, p + 24, i).ptr);
    return true;
  }

  bool number(double d) {
    out_.advance_to(write_double(out_.room(kNumberBuffer), d));
    return true;
  }

  // Writes one string in a single pass; validates it afterwards when it held a non-ASCII byte
  // (on failure the output is discarded anyway).
  bool string(std::string_view s, bool is_name) {
    out_.put('"');
    bool non_ascii = false;
    // In chunks, so that the worst case (6 output bytes per input byte) is reserved for a bounded
    // piece at a time, not for a whole multi-megabyte string.
    constexpr std::size_t kChunk = 4096;
    for (std::size_t i = 0; i < s.size(); i += kChunk) {
      const std::string_view chunk = s.substr(i, kChunk);
      char* p = out_.room(chunk.size() * 6);
      for (std::size_t k = 0; k < chunk.size();) {
        // Eight plain bytes are copied as one word; anything else byte by byte.
        const std::size_t n = std::min<std::size_t>(8, chunk.size() - k);
        if (n == 8) {
          std::uint64_t word;
          std::memcpy(&word, chunk.data() + k, 8);
          if (plain_ascii8(word)) {
            std::memcpy(p, &word, 8);
            p += 8;
            k += 8;
            continue;
          }
        }
        for (const std::size_t stop = k + n; k < stop; ++k) {
          const char ch = chunk[k];
          const auto c = static_cast<unsigned char>(ch);
          switch (kByteClass[c]) {
            case 0: *p++ = ch; break;
            case 1: p = write_escape(p, c); break;
            default:
              non_ascii = true;
              *p++ = ch;
              break;
          }
        }
      }
      out_.advance_to(p);
    }
    out_.put('"');
    return !(non_ascii && check_utf8_) || valid_utf8(s, is_name);
  }

  bool valid_utf8(std::string_view s, bool is_name) {
    Utf8Problem problem{};
    if (!find_encoding_problem(s, problem, /*nul_is_error=*/false)) return true;
    const auto* b = reinterpret_cast<const unsigned char*>(s.data()) + problem.offset;
    const bool surrogate = b[0] == 0xED && problem.offset + 1 < s.size() && b[1] >= 0xA0 && b[1] <= 0xBF;
    const std::string what = is_name ? "member name" : "string";
    const std::string where = " at byte " + std::to_string(problem.offset) + " of the " + (is_name ? "name" : "string");
    if (surrogate) {
      return fail("lone-surrogate", what + " holds a UTF-16 surrogate encoded in UTF-8" + where +
                                        " (RFC 8785 §3.2.2.2: strings are Unicode; surrogate code points are not)");
    }
    return fail("invalid-utf8", what + " is not valid UTF-8" + where + " (RFC 8785 §3.2.2.2)");
  }

  bool array(const Json::array_t& arr, std::size_t depth) {
    if (depth >= kMaxCanonicalDepth) return too_deep();
    out_.put('[');
    for (std::size_t i = 0; i < arr.size(); ++i) {
      if (i != 0) out_.put(',');
      if (!value(arr[i], depth + 1)) {
        segments_.push_back(std::to_string(i));
        return false;
      }
    }
    out_.put(']');
    return true;
  }

  bool object(const Json::object_t& obj, std::size_t depth) {
    if (depth >= kMaxCanonicalDepth) return too_deep();
    // Decided from the names alone, before anything is written, so that every value is written
    // exactly once (redoing a subtree would cost 2^depth for nested objects of this kind).
    NameKinds kinds;
    for (const auto& m : obj) {
      for (const char ch : m.first) {
        const auto c = static_cast<unsigned char>(ch);
        kinds.upper_bmp |= c == 0xEE || c == 0xEF;
        kinds.astral |= c >= 0xF0;
      }
    }
    out_.put('{');
    if (!(kinds.upper_bmp && kinds.astral)) {
      bool first = true;
      for (const auto& m : obj) {
        if (!first) out_.put(',');
        first = false;
        if (!member(m, depth)) return false;
      }
    } else {
      // Map order is wrong for this object: sort member pointers in UTF-16 order. utf16_less is
      // a strict weak order only over valid UTF-8, so the names are checked first.
      for (const auto& m : obj) {
        if (check_utf8_ && !valid_utf8(m.first, true)) return false;
      }
      std::vector<const Json::object_t::value_type*> members;
      members.reserve(obj.size());
      for (const auto& m : obj) members.push_back(&m);
      std::sort(members.begin(), members.end(),
                [](const auto* a, const auto* b) { return utf16_less(a->first, b->first); });
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (i != 0) out_.put(',');
        if (!member(*members[i], depth)) return false;
      }
    }
    out_.put('}');
    return true;
  }

  // One "name":value pair of an object at `depth`. A bad name points at the object (the name
  // itself is not printable); a bad value at the member.
  bool member(const Json::object_t::value_type& m, std::size_t depth) {
    if (!string(m.first, true)) return false;
    out_.put(':');
    if (!value(m.second, depth + 1)) {
      segments_.push_back(escape_pointer_segment(m.first));
      return false;
    }
    return true;
  }

  bool too_deep() {
    return fail("too-deep", "nesting deeper than " + std::to_string(kMaxCanonicalDepth) + " levels");
  }

  bool fail(std::string rule, std::string message) {
    error_.rule = std::move(rule);
    error_.message = std::move(message);
    return false;
  }

  Output& out_;
  bool check_utf8_;
  CanonError error_;
  std::vector<std::string> segments_;  // innermost first, filled while unwinding
};

Expected<std::string, CanonError> serialize(const Json& value, std::size_t size_hint, bool check_utf8) {
  std::string text;
  Output out(text, size_hint);
  Writer writer(out, check_utf8);
  if (!writer.value(value, 0)) return unexpected(writer.take_error());
  out.finish();
  return text;
}

}  // namespace

bool utf16_less(std::string_view a, std::string_view b) {
  const auto [pa, pb] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (pb == b.end()) return false;  // equal, or b is a prefix of a
  if (pa == a.end()) return true;   // a is a proper prefix of b
  // The bytes before the first difference are shared, so the character holding it starts at the
  // same index in both names.
  const auto i = static_cast<std::size_t>(pa - a.begin());
  std::size_t start = i;
  while (start > 0 && is_continuation(static_cast<unsigned char>(a[start]))) --start;
  const std::uint32_t ka = utf16_order_key(a, start), kb = utf16_order_key(b, start);
  if (ka != kb) return ka < kb;
  return static_cast<unsigned char>(*pa) < static_cast<unsigned char>(*pb);  // only for invalid UTF-8
}

std::string format_number(double v) {
  char buf[kNumberBuffer];
  return std::string(buf, write_double(buf, v));
}

Expected<std::string, CanonError> canonicalize(const Json& value) { return serialize(value, 256, true); }

Expected<std::string, CanonError> canonicalize_text(std::string_view text, const ReadLimits& limits) {
  auto parsed = parse_strict(text, limits);
  if (!parsed) {
    JsonError& e = parsed.error();
    return unexpected(CanonError{"json." + std::string(rule_name(e.rule)), std::move(e.pointer), std::move(e.message),
                                 e.offset});
  }
  // parse_strict() validated the raw bytes and decodes escapes to valid UTF-8 (lone surrogates
  // are rejected), so the strings need no second check. The canonical form is rarely longer than
  // the text.
  return serialize(*parsed, text.size() + 16, false);
}

}  // namespace ac::json
