// Strict base64 (RFC 4648 §4, standard alphabet, padded) and base64url (RFC 4648 §5, unpadded,
// as JWS/JWT compact serialization uses it, RFC 7515 §2).
//
// Why strict: an encoding that accepts several spellings of the same bytes lets a signed value
// be altered without changing what it decodes to (signature and agentId strings in AgentProtocol,
// every JWT segment). The decoders therefore accept exactly one spelling per byte string, the one
// the encoders produce, and reject everything else with the rule that was broken:
//   - any byte outside the alphabet (including the other alphabet's '+/' or '-_');
//   - whitespace anywhere (RFC 4648 §3.3: implementations MUST reject non-alphabet characters);
//   - a length that no encoder produces;
//   - padding: missing, excess or misplaced in base64; any '=' in base64url;
//   - non-zero trailing bits in the last character (RFC 4648 §3.5: "decoders MAY reject").
//
// Byte strings are carried in std::string (arbitrary octets, not text).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "harness/util/expected.hpp"

namespace ac::crypto {

enum class Base64Rule {
  invalid_character,  // a byte outside the alphabet
  whitespace,         // space, tab, CR, LF, FF or VT
  bad_length,         // length no encoder produces
  bad_padding,        // '=' missing, misplaced, excessive, or present in base64url
  non_canonical,      // unused trailing bits of the last character are not zero
};

// Stable kebab-case name ("non-canonical"), used in error output and tests.
std::string_view rule_name(Base64Rule rule);

struct Base64Error {
  Base64Rule rule = Base64Rule::invalid_character;
  std::size_t offset = 0;  // 0-based offset of the offending character (or the length for bad_length)
  std::string message;

  // "non-canonical at offset 42: ..."
  std::string describe() const;
};

std::string base64_encode(std::string_view bytes);
Expected<std::string, Base64Error> base64_decode(std::string_view text);

std::string base64url_encode(std::string_view bytes);
Expected<std::string, Base64Error> base64url_decode(std::string_view text);

// Decoded size of a well-formed encoding of n bytes (what the encoders produce).
constexpr std::size_t base64_encoded_size(std::size_t n) { return (n + 2) / 3 * 4; }
constexpr std::size_t base64url_encoded_size(std::size_t n) { return n / 3 * 4 + (n % 3 == 0 ? 0 : n % 3 + 1); }

}  // namespace ac::crypto
