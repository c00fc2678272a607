#include "harness/json/strict_reader.hpp"

#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <vector>

namespace ac::json {

std::string_view rule_name(JsonRule rule) {
  switch (rule) {
    case JsonRule::empty_input: return "empty-input";
    case JsonRule::too_large: return "too-large";
    case JsonRule::nul_byte: return "nul-byte";
    case JsonRule::invalid_utf8: return "invalid-utf8";
    case JsonRule::lone_surrogate: return "lone-surrogate";
    case JsonRule::control_character: return "unescaped-control-character";
    case JsonRule::duplicate_key: return "duplicate-key";
    case JsonRule::too_deep: return "too-deep";
    case JsonRule::number_out_of_range: return "number-out-of-range";
    case JsonRule::trailing_data: return "trailing-data";
    case JsonRule::syntax: return "syntax";
  }
  return "syntax";
}

std::string JsonError::describe() const {
  std::string out(rule_name(rule));
  out += " at byte ";
  out += std::to_string(offset);
  if (!pointer.empty()) {
    out += " (";
    out += pointer;
    out += ")";
  }
  out += ": ";
  out += message;
  return out;
}

bool find_encoding_problem(std::string_view text, Utf8Problem& problem, bool nul_is_error) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    // Text on the wire is mostly ASCII: skip eight bytes at a time while none has its high bit
    // set (and, where NUL is an error, none is zero). A quarter of the profile of a fuzz job's
    // JSON work was this loop a byte at a time (issue 16, perf of an A2ACP campaign).
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s + i, 8);
      constexpr std::uint64_t kLow = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
      if ((w & kHigh) != 0 || (nul_is_error && ((w - kLow) & ~w & kHigh) != 0)) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char c = s[i];
    if (c < 0x80) {
      if (c == 0 && nul_is_error) {
        problem = {JsonRule::nul_byte, i};
        return true;
      }
      ++i;
      continue;
    }
    // Multi-byte sequence: determine length and the allowed range of the second byte
    // (the RFC 3629 table, which excludes overlongs and UTF-16 surrogates).
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c == 0xE0) {
      len = 3; lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      len = 3;
    } else if (c == 0xED) {
      len = 3; hi = 0x9F;
    } else if (c == 0xF0) {
      len = 4; lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      len = 4;
    } else if (c == 0xF4) {
      len = 4; hi = 0x8F;
    } else {
      problem = {JsonRule::invalid_utf8, i};
      return true;
    }
    if (i + len > n || s[i + 1] < lo || s[i + 1] > hi) {
      problem = {JsonRule::invalid_utf8, i};
      return true;
    }
    for (std::size_t k = 2; k < len; ++k) {
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) {
        problem = {JsonRule::invalid_utf8, i};
        return true;
      }
    }
    i += len;
  }
  return false;
}

namespace {

// A char iterator that publishes how far the lexer has read, so that SAX callbacks (which
// nlohmann gives no position) can report byte offsets.
class CountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* p, const char** published) : p_(p), published_(published) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    *published_ = p_;
    return *this;
  }
  CountingIterator operator++(int) {
    auto copy = *this;
    ++*this;
    return copy;
  }
  bool operator==(const CountingIterator& o) const { return p_ == o.p_; }

 private:
  const char* p_ = nullptr;
  const char** published_ = nullptr;
};

// Builds the DOM like nlohmann's own SAX DOM parser, and additionally enforces the member-name
// uniqueness and depth rules. For error messages it remembers, per open container, where that
// container sits in its parent (a key or an index) and builds the JSON Pointer only on error.
class StrictDomBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  StrictDomBuilder(const char* begin, const char* const* position, std::size_t max_depth)
      : begin_(begin), position_(position), max_depth_(max_depth) {}

  bool null() { return place(nullptr); }
  bool boolean(bool v) { return place(v); }
  bool number_integer(number_integer_t v) { return place(v); }
  bool number_unsigned(number_unsigned_t v) { return place(v); }
  bool number_float(number_float_t v, const string_t&) { return place(v); }
  bool string(string_t& v) { return place(std::move(v)); }
  bool binary(binary_t&) { return fail(JsonRule::syntax, "binary values are not JSON"); }

  bool start_object(std::size_t) { return open(Json::value_t::object); }
  bool start_array(std::size_t) { return open(Json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& k) {
    awaiting_value_ = true;
    auto& obj = stack_.back().value->get_ref<Json::object_t&>();
    auto [it, inserted] = obj.try_emplace(std::move(k), nullptr);
    if (!inserted) {
      // try_emplace left `k` intact when the key existed.
      std::string msg = "duplicate member name \"" + k + "\" in one object (RFC 8259 §4: names SHOULD be unique; "
                        "agentconform rejects duplicates because readers disagree on which value wins)";
      duplicate_ = &it->first;
      return fail(JsonRule::duplicate_key, std::move(msg));
    }
    slot_ = &it->second;
    pending_key_ = &it->first;
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex) {
    if (!error_set_) {
      error_set_ = true;
      error_.offset = position > 0 ? position - 1 : 0;
      error_.rule = classify(ex);
      error_.message = own_words(error_.rule, ex.what(), token);
      error_.pointer = current_pointer() + value_segment();
    }
    return false;
  }

  bool is_errored() const { return error_set_; }
  Json& result() { return root_; }
  JsonError& error() { return error_; }

 private:
  // An open container and where it sits in its parent.
  struct Level {
    Json* value;
    const std::string* key;  // member name in the parent object, or nullptr
    std::size_t index;       // position in the parent array (when key is nullptr)
  };

  // Where the value being read sits in the innermost open container: the next element of an
  // array, or the member whose name was just read ("" before a member name).
  std::string value_segment() const {
    if (stack_.empty()) return "";
    const Json* top = stack_.back().value;
    if (top->is_array()) return "/" + std::to_string(top->size());
    if (awaiting_value_ && pending_key_ != nullptr) {
      std::string out;
      append_segment(out, *pending_key_);
      return out;
    }
    return "";
  }

  // The bytes the parser stopped at, fit for a message: the last 24, controls and bytes that are
  // not ASCII as \xNN.
  static std::string near(std::string_view token) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    const bool cut = token.size() > 24;  // the end is where the parser stopped
    for (unsigned char c : cut ? token.substr(token.size() - 24) : token) {
      if (c < 0x20 || c == 0x7f || c >= 0x80 || c == '\'' || c == '\\') {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
    return cut ? "..." + out : out;
  }

  // Our own words for what the parser found (its messages name library internals: exception
  // ids, "parse_error.101", line and column counting). The rule is already classified.
  static std::string own_words(JsonRule rule, std::string_view what, const std::string& token) {
    const std::string at = token.empty() ? std::string() : " near '" + near(token) + "'";
    switch (rule) {
      case JsonRule::number_out_of_range: return "a number is out of range (it does not fit a 64-bit integer or a double)" + at;
      case JsonRule::lone_surrogate: return "a \\u escape is half of a UTF-16 surrogate pair without its other half" + at;
      case JsonRule::control_character: return "a string holds an unescaped control character (write it as \\u00XX)" + at;
      case JsonRule::trailing_data: return "more text after the end of the JSON value" + at;
      case JsonRule::invalid_utf8: return "invalid UTF-8 inside a string (RFC 8259 §8.1 requires UTF-8)" + at;
      default: break;
    }
    if (what.find("unexpected end of input") != std::string_view::npos) return "the text ends before the JSON value is complete";
    if (what.find("invalid literal") != std::string_view::npos) return "not a JSON value (the only words JSON knows are true, false and null)" + at;
    if (what.find("invalid number") != std::string_view::npos) return "an invalid number (JSON numbers: -?digits[.digits][e[+-]digits], no leading zeros)" + at;
    if (what.find("invalid string") != std::string_view::npos) return "an invalid string (a bad escape, or a string that does not end)" + at;
    if (what.find("expected ']'") != std::string_view::npos) return "expected ',' or ']' after an array element" + at;
    if (what.find("expected '}'") != std::string_view::npos) return "expected ',' or '}' after an object member" + at;
    if (what.find("expected ':'") != std::string_view::npos) return "expected ':' after a member name" + at;
    if (what.find("object key") != std::string_view::npos || what.find("string literal") != std::string_view::npos) {
      return "expected a member name in double quotes" + at;
    }
    return "not valid JSON" + at;
  }

  static JsonRule classify(const nlohmann::detail::exception& ex) {
    if (ex.id == 406) return JsonRule::number_out_of_range;
    const std::string_view what = ex.what();
    if (what.find("surrogate") != std::string_view::npos) return JsonRule::lone_surrogate;
    if (what.find("control character") != std::string_view::npos) return JsonRule::control_character;
    // "; expected end of input" (data after the value), not "unexpected end of input" (truncated).
    if (what.find("; expected end of input") != std::string_view::npos) return JsonRule::trailing_data;
    if (what.find("UTF-8") != std::string_view::npos) return JsonRule::invalid_utf8;
    return JsonRule::syntax;
  }

  static void append_segment(std::string& out, std::string_view key) {
    out += '/';
    for (char c : key) {
      if (c == '~') out += "~0";
      else if (c == '/') out += "~1";
      else out += c;
    }
  }

  std::string current_pointer() const {
    std::string out;
    for (std::size_t i = 1; i < stack_.size(); ++i) {
      if (stack_[i].key) append_segment(out, *stack_[i].key);
      else out += "/" + std::to_string(stack_[i].index);
    }
    if (duplicate_) append_segment(out, *duplicate_);
    return out;
  }

  template <typename V>
  bool place(V&& v) {
    awaiting_value_ = false;
    if (stack_.empty()) {
      root_ = Json(std::forward<V>(v));
      return true;
    }
    Json* top = stack_.back().value;
    if (top->is_array()) {
      top->get_ref<Json::array_t&>().emplace_back(std::forward<V>(v));
    } else {
      *slot_ = Json(std::forward<V>(v));
    }
    return true;
  }

  bool open(Json::value_t type) {
    awaiting_value_ = false;
    if (stack_.size() >= max_depth_) {
      return fail(JsonRule::too_deep, "nesting deeper than " + std::to_string(max_depth_) + " levels");
    }
    if (stack_.empty()) {
      root_ = Json(type);
      stack_.push_back({&root_, nullptr, 0});
    } else if (Json* top = stack_.back().value; top->is_array()) {
      auto& arr = top->get_ref<Json::array_t&>();
      arr.emplace_back(type);
      stack_.push_back({&arr.back(), nullptr, arr.size() - 1});
    } else {
      *slot_ = Json(type);
      stack_.push_back({slot_, pending_key_, 0});
    }
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  bool fail(JsonRule rule, std::string message) {
    error_set_ = true;
    error_.rule = rule;
    error_.offset = static_cast<std::size_t>(*position_ - begin_);
    error_.message = std::move(message);
    error_.pointer = current_pointer();
    return false;
  }

  const char* begin_;
  const char* const* position_;
  std::size_t max_depth_;
  Json root_;
  std::vector<Level> stack_;
  Json* slot_ = nullptr;
  const std::string* pending_key_ = nullptr;
  const std::string* duplicate_ = nullptr;
  bool awaiting_value_ = false;  // a member name was read, its value not yet
  bool error_set_ = false;
  JsonError error_;
};

}  // namespace

Expected<Json, JsonError> parse_strict(std::string_view text, const ReadLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return unexpected(JsonError{JsonRule::too_large, limits.max_bytes, "",
                                "input of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                                    std::to_string(limits.max_bytes) + " bytes"});
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return unexpected(JsonError{JsonRule::empty_input, text.size(), "", "no JSON value in the input"});
  }
  if (Utf8Problem p{}; find_encoding_problem(text, p)) {
    std::string msg = p.rule == JsonRule::nul_byte ? "NUL byte in the input (JSON text never contains U+0000 unescaped)"
                                                   : "invalid UTF-8 sequence (RFC 8259 §8.1 requires UTF-8)";
    return unexpected(JsonError{p.rule, p.offset, "", std::move(msg)});
  }

  const char* position = text.data();
  CountingIterator first(text.data(), &position);
  CountingIterator last(text.data() + text.size(), &position);
  StrictDomBuilder builder(text.data(), &position, limits.max_depth);
  const bool ok = Json::sax_parse(first, last, &builder, nlohmann::detail::input_format_t::json, /*strict=*/true);
  if (!ok || builder.is_errored()) {
    return unexpected(std::move(builder.error()));
  }
  return std::move(builder.result());
}

}  // namespace ac::json
