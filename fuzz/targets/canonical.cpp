// libFuzzer target fuzz_canonical: RFC 8785 canonicalization of arbitrary input, two ways.
//  1. The bytes as JSON text: canonicalize_text. When it succeeds the output must be a fixed
//     point (canonicalizing it again gives the same bytes) and read back to the same value;
//     when it fails the rule must be a strict-reader rule ("json.*") with an offset.
//  2. The bytes as a program that builds a value in memory (canonicalize(const Json&) sees values
//     no reader would produce: NaN, Infinity, invalid UTF-8 in strings and names, binary values,
//     deep nesting). Success again implies a strict-parseable fixed point; failure must carry one
//     of the documented rules and a pointer that is valid UTF-8.
// abort() on any violation. Seeds: fuzz/corpus/canonical/ and fuzz/seeds/canonical.txt;
// dictionary fuzz/dict/canonical.dict.
#include <cstdint>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "harness/json/canonical.hpp"

namespace {

using ac::json::Json;

void check(bool ok) {
  if (!ok) std::abort();
}

bool valid_utf8(std::string_view s) {
  ac::json::Utf8Problem p{};
  return !ac::json::find_encoding_problem(s, p, /*nul_is_error=*/false);
}

// The reader must accept every canonical output, so read with the canonicalizer's depth bound.
void check_fixed_point(const std::string& canon) {
  ac::json::ReadLimits limits;
  limits.max_depth = ac::json::kMaxCanonicalDepth;
  auto again = ac::json::canonicalize_text(canon, limits);
  check(again.has_value());
  check(*again == canon);
}

void fuzz_text(std::string_view text) {
  auto canon = ac::json::canonicalize_text(text);
  if (!canon) {
    const auto& e = canon.error();
    check(e.rule.rfind("json.", 0) == 0);
    check(e.offset.has_value() && *e.offset <= text.size());
    check(valid_utf8(e.pointer));
    return;
  }
  check(valid_utf8(*canon));
  check_fixed_point(*canon);
  // Same value as the input, read strictly both times.
  auto original = ac::json::parse_strict(text);
  auto back = ac::json::parse_strict(*canon);
  check(original.has_value() && back.has_value());
  auto recanon = ac::json::canonicalize(*back);
  check(recanon.has_value() && *recanon == *canon);
}

// A small stack machine over the input bytes. Every byte is an operation (low 3 bits) with an
// argument (high 5 bits); some take their payload from the following bytes.
class Builder {
 public:
  Builder(const std::uint8_t* data, std::size_t size) : p_(data), end_(data + size) {}

  Json build() {
    while (p_ < end_) step(*p_++);
    Json root = Json::array();
    for (auto& v : stack_) root.push_back(std::move(v));
    return root;
  }

 private:
  std::uint64_t take64() {
    std::uint64_t v = 0;
    const std::size_t n = std::min<std::size_t>(8, static_cast<std::size_t>(end_ - p_));
    std::memcpy(&v, p_, n);
    p_ += n;
    return v;
  }

  std::string take_bytes(std::size_t n) {
    n = std::min<std::size_t>(n, static_cast<std::size_t>(end_ - p_));
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }

  void step(std::uint8_t op) {
    const unsigned arg = op >> 3;
    switch (op & 7) {
      case 0: stack_.emplace_back(nullptr); break;
      case 1: stack_.emplace_back((arg & 1) != 0); break;
      case 2: {  // any double, NaN and the infinities included
        const std::uint64_t bits = take64();
        double d;
        std::memcpy(&d, &bits, sizeof d);
        stack_.emplace_back(d);
        break;
      }
      case 3: stack_.emplace_back(static_cast<std::int64_t>(take64())); break;
      case 4: stack_.emplace_back(take_bytes(arg)); break;  // raw bytes: maybe not UTF-8
      case 5: {  // array of the top `arg` values
        const std::size_t n = std::min<std::size_t>(arg, stack_.size());
        Json a = Json::array();
        for (std::size_t i = stack_.size() - n; i < stack_.size(); ++i) a.push_back(std::move(stack_[i]));
        stack_.resize(stack_.size() - n);
        stack_.push_back(std::move(a));
        break;
      }
      case 6: {  // object of the top `arg` values, names taken from the input (maybe not UTF-8)
        const std::size_t n = std::min<std::size_t>(arg, stack_.size());
        Json o = Json::object();
        for (std::size_t i = stack_.size() - n; i < stack_.size(); ++i) {
          const std::size_t len = p_ < end_ ? (*p_++ & 7u) : 0u;
          o[take_bytes(len)] = std::move(stack_[i]);
        }
        stack_.resize(stack_.size() - n);
        stack_.push_back(std::move(o));
        break;
      }
      default:
        if (arg == 31) stack_.emplace_back(Json::binary({1, 2, 3}));
        else stack_.emplace_back(static_cast<std::uint64_t>(take64()));
        break;
    }
  }

  const std::uint8_t* p_;
  const std::uint8_t* end_;
  std::vector<Json> stack_;
};

void fuzz_value(const std::uint8_t* data, std::size_t size) {
  const Json value = Builder(data, size).build();
  auto canon = ac::json::canonicalize(value);
  if (!canon) {
    const auto& e = canon.error();
    check(e.rule == "non-finite-number" || e.rule == "invalid-utf8" || e.rule == "lone-surrogate" ||
          e.rule == "not-json" || e.rule == "too-deep");
    check(!e.offset.has_value());
    check(valid_utf8(e.pointer));
    check(!e.message.empty());
    return;
  }
  check(valid_utf8(*canon));
  check_fixed_point(*canon);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz_text(std::string_view(reinterpret_cast<const char*>(data), size));
  fuzz_value(data, size);
  return 0;
}
