// Semantic Versioning 2.0.0 (https://semver.org): parse, compare, print.
//
// ALP capability versions ("1.0.2", "2.1.0-beta", spec §9), A2ACP agent versions (MAJOR.MINOR.PATCH)
// and Chopsticks protocol versions are all SemVer strings. Parsing follows the SemVer BNF exactly:
// no leading 'v', no whitespace, no leading zeros in numeric identifiers, no empty identifiers.
//
// Precedence (SemVer §11) ignores build metadata, so two versions that differ only in their
// build metadata are *equivalent* but not *identical*: compare() and operator<=> give a weak
// ordering, operator== means "same precedence" (consistent with <=>), identical() also compares
// the build metadata.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/util/expected.hpp"

namespace ac::semver {

// Where and why a version or range string is malformed.
struct SemverError {
  std::size_t offset = 0;  // byte offset into the input at which the problem was found
  std::string message;     // one line: "leading zero in numeric identifier \"01\""

  std::string describe() const;  // "at byte 4: leading zero in ..."
};

// One dot-separated pre-release identifier. Numeric identifiers are kept as text (they have no
// upper bound in SemVer) and compared by length, then digits, which is numeric order because
// leading zeros are forbidden.
struct Identifier {
  std::string text;
  bool numeric = false;

  bool operator==(const Identifier&) const = default;
};

std::strong_ordering compare(const Identifier& a, const Identifier& b);

struct Version {
  std::uint64_t major = 0;
  std::uint64_t minor = 0;
  std::uint64_t patch = 0;
  std::vector<Identifier> prerelease;  // empty: a release
  std::vector<std::string> build;      // ignored by precedence

  bool is_prerelease() const { return !prerelease.empty(); }
  // The version without pre-release and build metadata.
  Version core() const { return Version{major, minor, patch, {}, {}}; }
  std::string to_string() const;
};

// SemVer §11 precedence.
std::weak_ordering compare(const Version& a, const Version& b);
inline std::weak_ordering operator<=>(const Version& a, const Version& b) { return compare(a, b); }
inline bool operator==(const Version& a, const Version& b) { return compare(a, b) == 0; }
// Same precedence and same build metadata.
bool identical(const Version& a, const Version& b);

// Parses a complete SemVer 2.0.0 string. Anything else (including "1.2", "v1.2.3", " 1.2.3")
// is an error naming the offset and the rule.
Expected<Version, SemverError> parse(std::string_view text);

// Parses a pre-release or build identifier list ("beta.1"); exposed for the range parser.
// `base` is the offset of `text` within the whole input, for error messages.
Expected<std::vector<Identifier>, SemverError> parse_prerelease(std::string_view text, std::size_t base = 0);
Expected<std::vector<std::string>, SemverError> parse_build(std::string_view text, std::size_t base = 0);

// Parses a numeric identifier ("0" or no leading zero) that fits in 64 bits.
Expected<std::uint64_t, SemverError> parse_number(std::string_view text, std::size_t base = 0);

}  // namespace ac::semver
