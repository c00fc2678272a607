// RapidCheck properties of versions and ranges: precedence is a total (weak) order consistent
// with ==, printing round-trips, and every version satisfies =v, >=v, <=v, ^v and ~v.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "harness/semver/range.hpp"

namespace ac::semver {
namespace {

rc::Gen<Identifier> gen_identifier() {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange<std::uint64_t>(0, 1000), [](std::uint64_t n) { return Identifier{std::to_string(n), true}; }),
      rc::gen::map(rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::element('a', 'b', 'z', 'A', '-', '0', '7'))),
                   [](std::string s) {
                     // Digits only would be numeric; force an alphanumeric identifier.
                     bool digits = s.find_first_not_of("0123456789") == std::string::npos;
                     if (digits) s += 'a';
                     return Identifier{s, false};
                   }));
}

rc::Gen<std::string> gen_build_id() {
  return rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::element('0', '1', 'a', 'F', '-')));
}

// Small numbers so that equal and adjacent versions are frequent.
rc::Gen<Version> gen_version() {
  return rc::gen::build<Version>(
      rc::gen::set(&Version::major, rc::gen::inRange<std::uint64_t>(0, 4)),
      rc::gen::set(&Version::minor, rc::gen::inRange<std::uint64_t>(0, 4)),
      rc::gen::set(&Version::patch, rc::gen::inRange<std::uint64_t>(0, 4)),
      rc::gen::set(&Version::prerelease, rc::gen::resize(3, rc::gen::container<std::vector<Identifier>>(gen_identifier()))),
      rc::gen::set(&Version::build, rc::gen::resize(2, rc::gen::container<std::vector<std::string>>(gen_build_id()))));
}

RC_GTEST_PROP(SemverProperties, PrintThenParseIsIdentity, ()) {
  const Version v = *gen_version();
  auto parsed = parse(v.to_string());
  RC_ASSERT(parsed.has_value());
  RC_ASSERT(identical(*parsed, v));
  RC_ASSERT(parsed->to_string() == v.to_string());
}

RC_GTEST_PROP(SemverProperties, CompareIsATotalOrderConsistentWithEquality, ()) {
  const Version a = *gen_version();
  const Version b = *gen_version();
  const Version c = *gen_version();
  const auto ab = compare(a, b);
  const auto ba = compare(b, a);
  const bool ab_less = ab < 0, ab_equal = ab == 0, ba_greater = ba > 0, ba_equal = ba == 0;
  // Antisymmetry / totality: exactly one of <, ==, > and the reverse is mirrored.
  RC_ASSERT(ab_less == ba_greater);
  RC_ASSERT(ab_equal == ba_equal);
  RC_ASSERT(ab_equal == (a == b));
  const bool reflexive = compare(a, a) == 0;
  RC_ASSERT(reflexive);
  // Transitivity.
  if (compare(a, b) <= 0 && compare(b, c) <= 0) {
    const bool ac_le = compare(a, c) <= 0;
    RC_ASSERT(ac_le);
  }
  // Equality ignores exactly the build metadata.
  Version a2 = a;
  a2.build = b.build;
  RC_ASSERT(a2 == a);
  // Identity implies same string.
  if (identical(a, b)) RC_ASSERT(a.to_string() == b.to_string());
}

RC_GTEST_PROP(SemverProperties, EveryVersionSatisfiesTheRangesNamingIt, ()) {
  const Version v = *gen_version();
  const std::string s = v.to_string();
  for (const char* op : {"=", ">=", "<=", "^", "~", ""}) {
    auto r = parse_range(std::string(op) + s);
    RC_ASSERT(r.has_value());
    RC_ASSERT(r->satisfied_by(v));
  }
  auto strict_lower = parse_range(">" + s);
  RC_ASSERT(strict_lower.has_value());
  RC_ASSERT(!strict_lower->satisfied_by(v));
  auto strict_upper = parse_range("<" + s);
  RC_ASSERT(strict_upper.has_value());
  RC_ASSERT(!strict_upper->satisfied_by(v));
}

RC_GTEST_PROP(SemverProperties, CaretAndTildeAgreeWithTheirDefinition, ()) {
  // For releases w and v: w satisfies ~v iff v <= w < v.major.(v.minor+1).0, and ^v with v.major > 0
  // iff v <= w < (v.major+1).0.0.
  Version v = *gen_version();
  Version w = *gen_version();
  v.prerelease.clear();
  w.prerelease.clear();
  auto tilde = parse_range("~" + v.to_string());
  auto caret = parse_range("^" + v.to_string());
  RC_ASSERT(tilde.has_value() && caret.has_value());
  const bool in_tilde = w >= v && w < Version{v.major, v.minor + 1, 0, {}, {}};
  RC_ASSERT(tilde->satisfied_by(w) == in_tilde);
  if (v.major > 0) {
    const bool in_caret = w >= v && w < Version{v.major + 1, 0, 0, {}, {}};
    RC_ASSERT(caret->satisfied_by(w) == in_caret);
  }
}

RC_GTEST_PROP(SemverProperties, OrIsUnionAndSpaceIsIntersection, ()) {
  const Version a = *gen_version();
  const Version b = *gen_version();
  const Version w = *gen_version();
  const RangeOptions all{.include_prerelease = true};
  auto ra = parse_range(">=" + a.to_string());
  auto rb = parse_range("<=" + b.to_string());
  auto both = parse_range(">=" + a.to_string() + " <=" + b.to_string());
  auto either = parse_range(">=" + a.to_string() + " || <=" + b.to_string());
  RC_ASSERT(ra.has_value() && rb.has_value() && both.has_value() && either.has_value());
  RC_ASSERT(both->satisfied_by(w, all) == (ra->satisfied_by(w, all) && rb->satisfied_by(w, all)));
  RC_ASSERT(either->satisfied_by(w, all) == (ra->satisfied_by(w, all) || rb->satisfied_by(w, all)));
}

RC_GTEST_PROP(SemverProperties, ParsersNeverCrashOnArbitraryText, (const std::string& text)) {
  auto v = parse(text);
  if (v) RC_ASSERT(parse(v->to_string()).has_value());
  auto r = parse_range(text);
  if (!r) RC_ASSERT(r.error().offset <= text.size());
  if (!v) RC_ASSERT(v.error().offset <= text.size());
}

}  // namespace
}  // namespace ac::semver
