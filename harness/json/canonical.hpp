// RFC 8785 JSON Canonicalization Scheme (JCS).
//
// The canonical form is what AgentProtocol signatures are computed over, so every detail is
// exact: object members sorted by their UTF-16 code units (not bytes, not code points), numbers
// in ECMAScript Number.prototype.toString form (shortest round-trip, the spec's exponent rules,
// -0 -> 0), strings with JCS's minimal escaping, no whitespace.
//
// Integers that nlohmann stores as int64/uint64 are converted to IEEE doubles first (RFC 8785
// §3.2.2.3: JSON numbers are doubles), so 2^63 canonicalizes as 9223372036854776000, exactly as
// a JavaScript or any other JCS implementation writes it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "harness/json/strict_reader.hpp"
#include "harness/util/expected.hpp"

namespace ac::json {

struct CanonError {
  // "non-finite-number", "invalid-utf8", "lone-surrogate", "not-json" (binary/discarded values),
  // "too-deep", or "json.<rule>" (rule_name() of the strict reader) from canonicalize_text.
  std::string rule;
  std::string pointer;  // where in the value ("" = the root)
  std::string message;
  std::optional<std::size_t> offset;  // byte offset in the input text, for "json.*" errors

  // `json.duplicate-key at byte 10 (pointer "/a"): ...` : what the CLI prints.
  std::string describe() const;
};

// Nesting bound of canonicalize(): the serializer recurses, and a value built in memory has no
// reader limit in front of it. Far above anything parse_strict() accepts by default (128).
inline constexpr std::size_t kMaxCanonicalDepth = 1024;

// Canonical form of a value. Fails on values JCS cannot represent (NaN, Infinity), on strings
// and member names that are not valid UTF-8 (a UTF-16 surrogate encoded in UTF-8 is reported as
// "lone-surrogate"), on binary values and on nesting deeper than kMaxCanonicalDepth.
Expected<std::string, CanonError> canonicalize(const Json& value);

// Strict parse (see strict_reader.hpp: duplicate keys, lone surrogates, NUL, ... are errors)
// followed by canonicalize().
Expected<std::string, CanonError> canonicalize_text(std::string_view text, const ReadLimits& limits = {});

// ECMAScript Number::toString(v) for a finite double, as RFC 8785 §3.2.2.3 requires. (NaN and
// the infinities give ECMAScript's "NaN", "Infinity", "-Infinity"; canonicalize() rejects them.)
std::string format_number(double v);

// True when a sorts before b under RFC 8785 §3.2.3: comparison of the UTF-16 code units of the
// two names. Both must be valid UTF-8 (canonicalize() checks before it sorts).
bool utf16_less(std::string_view a, std::string_view b);

}  // namespace ac::json
