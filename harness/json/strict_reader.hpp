// The one strict JSON reader under every codec, the scenario loader and the reference lobby.
//
// nlohmann::json alone is too lenient for a conformance tool: parsing from a C string stops at
// a NUL byte (so `{"a":1}\0garbage` is accepted), and duplicate member names silently keep the
// last value (a parser-differential hole: a signature checked over one reading, a message
// processed under another). parse_strict() rejects, each with its own rule and byte offset:
//   - input larger than ReadLimits::max_bytes, or empty;
//   - NUL bytes anywhere, invalid UTF-8 anywhere (overlongs, surrogates encoded in UTF-8, ...);
//   - lone UTF-16 surrogates in \u escapes, unescaped control characters;
//   - duplicate member names in one object;
//   - nesting deeper than ReadLimits::max_depth;
//   - numbers that overflow an IEEE double;
//   - any data after the first value other than JSON whitespace.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::json {

using Json = nlohmann::json;

enum class JsonRule {
  empty_input,
  too_large,
  nul_byte,
  invalid_utf8,
  lone_surrogate,
  control_character,
  duplicate_key,
  too_deep,
  number_out_of_range,
  trailing_data,
  syntax,
};

// Stable, kebab-case name of a rule ("duplicate-key"), used in error output and tests.
std::string_view rule_name(JsonRule rule);

struct JsonError {
  JsonRule rule = JsonRule::syntax;
  std::size_t offset = 0;  // 0-based byte offset at which the problem was detected
  std::string pointer;     // JSON Pointer of the offending member when known ("" = root)
  std::string message;     // one line, human readable

  // "invalid-utf8 at byte 17: ..." : what the CLI and codecs print.
  std::string describe() const;
};

struct ReadLimits {
  std::size_t max_bytes = 16u * 1024u * 1024u;
  std::size_t max_depth = 128;
};

Expected<Json, JsonError> parse_strict(std::string_view text, const ReadLimits& limits = {});

// Validates UTF-8 (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF) and, when
// nul_is_error, the absence of NUL. Returns true and fills `problem` (rule and offset of the
// first bad byte) when the text is not clean.
struct Utf8Problem {
  JsonRule rule;
  std::size_t offset;
};
bool find_encoding_problem(std::string_view text, Utf8Problem& problem, bool nul_is_error = true);

}  // namespace ac::json
