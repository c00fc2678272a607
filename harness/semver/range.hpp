// Version ranges, as ALP discovery uses them (DISCOVER_CAPABILITIES capability_filter.version_match,
// alp-0.2.0.md §7.2.1: "e.g., '1.x', '>=2.0.0', semantic versioning preferred").
//
// ALP does not define range syntax; agentconform reads it as the de-facto standard, the npm
// `node-semver` grammar, restricted to what is unambiguous:
//   *  x  X                    any version
//   1.x  1.*  1                >=1.0.0 <2.0.0-0
//   1.2.x  1.2                 >=1.2.0 <1.3.0-0
//   1.0.2  =1.0.2              exactly 1.0.2 (build metadata ignored)
//   >1.0.0  >=2.0.0  <3  <=1.2 comparisons; a partial version is completed as npm does (<3 = <3.0.0-0)
//   ^1.2.3                     >=1.2.3 <2.0.0-0  (^0.2.3: <0.3.0-0, ^0.0.3: <0.0.4-0)
//   ~1.2.3                     >=1.2.3 <1.3.0-0  (~1: 1.x)
//   1.2.3 - 2.3.4              >=1.2.3 <=2.3.4 (hyphen range)
//   A B                        both (space = AND)
//   A || B                     either
// An operator may be followed by spaces (">= 2.0.0"). Empty ranges, empty alternatives
// ("1.0.0 ||"), unknown operators and malformed versions are errors with an offset.
//
// Pre-releases follow npm: a pre-release version satisfies a comparator set only if some
// comparator of that set names a pre-release of the same MAJOR.MINOR.PATCH (so ">=2.0.0" does
// not offer "2.1.0-beta" to an agent that did not ask for pre-releases), unless
// RangeOptions::include_prerelease is set.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/semver/version.hpp"

namespace ac::semver {

enum class Op { eq, lt, le, gt, ge };

struct Comparator {
  Op op = Op::eq;
  Version version;

  bool matches(const Version& v) const;
  std::string to_string() const;  // ">=1.2.3"
};

struct RangeOptions {
  bool include_prerelease = false;
};

class Range {
 public:
  // The OR of AND-sets; an empty AND-set matches every version.
  const std::vector<std::vector<Comparator>>& sets() const { return sets_; }
  // The range as written.
  const std::string& source() const { return source_; }
  // The desugared form: ">=1.0.0 <2.0.0-0 || =1.2.3" ("*" for the any-range).
  std::string to_string() const;

  bool satisfied_by(const Version& v, const RangeOptions& options = {}) const;

 private:
  friend Expected<Range, SemverError> parse_range(std::string_view text);
  std::vector<std::vector<Comparator>> sets_;
  std::string source_;
};

Expected<Range, SemverError> parse_range(std::string_view text);

// Convenience for ALP lobbies: does `version` (a SemVer string) satisfy `range`? Errors name which
// of the two strings is malformed.
Expected<bool, SemverError> satisfies(std::string_view version, std::string_view range, const RangeOptions& options = {});

}  // namespace ac::semver
