// RFC 8785 JSON Canonicalization Scheme (JCS).
//
// The canonical form is what AgentProtocol signatures are computed over, so every detail is
// exact: object members sorted by their UTF-16 code units (not bytes, not code points), numbers
// in ECMAScript Number.prototype.toString form (shortest round-trip, the spec's exponent rules,
// -0 -> 0), strings with JCS's minimal escaping, no whitespace.
#pragma once

#include <string>
#include <string_view>

#include "harness/json/strict_reader.hpp"
#include "harness/util/expected.hpp"

namespace ac::json {

struct CanonError {
  std::string rule;     // "non-finite-number", "invalid-utf8", "lone-surrogate", "duplicate-key", "json.<rule>"
  std::string pointer;  // where in the value
  std::string message;

  std::string describe() const;
};

// Canonical form of a value. Fails on values JCS cannot represent (NaN, Infinity) and on
// strings that are not valid UTF-8.
Expected<std::string, CanonError> canonicalize(const Json& value);

// Strict parse (see strict_reader.hpp: duplicate keys, lone surrogates, NUL, ... are errors)
// followed by canonicalize().
Expected<std::string, CanonError> canonicalize_text(std::string_view text, const ReadLimits& limits = {});

// ECMAScript Number::toString(v) for a finite double, as RFC 8785 §3.2.2.3 requires.
std::string format_number(double v);

}  // namespace ac::json
