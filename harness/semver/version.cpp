#include "harness/semver/version.hpp"

#include <algorithm>
#include <limits>

namespace ac::semver {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

Unexpected<SemverError> fail(std::size_t offset, std::string message) {
  return unexpected(SemverError{offset, std::move(message)});
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  // Bounded quote: a hostile megabyte-long identifier does not end up in every error message.
  if (s.size() > 40) {
    out.append(s.substr(0, 40));
    out += "...";
  } else {
    out.append(s);
  }
  out += '"';
  return out;
}

}  // namespace

std::string SemverError::describe() const { return "at byte " + std::to_string(offset) + ": " + message; }

std::strong_ordering compare(const Identifier& a, const Identifier& b) {
  // SemVer §11.4.3: numeric identifiers have lower precedence than alphanumeric ones.
  if (a.numeric != b.numeric) return a.numeric ? std::strong_ordering::less : std::strong_ordering::greater;
  if (a.numeric && a.text.size() != b.text.size()) return a.text.size() <=> b.text.size();
  // Alphanumeric: ASCII order; numeric of equal length: digit order = numeric order.
  const int c = a.text.compare(b.text);
  return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
}

std::weak_ordering compare(const Version& a, const Version& b) {
  if (auto c = a.major <=> b.major; c != 0) return c;
  if (auto c = a.minor <=> b.minor; c != 0) return c;
  if (auto c = a.patch <=> b.patch; c != 0) return c;
  // §11.3: a pre-release has lower precedence than the release.
  if (a.prerelease.empty() != b.prerelease.empty()) {
    return a.prerelease.empty() ? std::weak_ordering::greater : std::weak_ordering::less;
  }
  const std::size_t n = std::min(a.prerelease.size(), b.prerelease.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (auto c = compare(a.prerelease[i], b.prerelease[i]); c != 0) return c;
  }
  // §11.4.4: a larger set of fields has higher precedence when all preceding ones are equal.
  return a.prerelease.size() <=> b.prerelease.size();
}

bool identical(const Version& a, const Version& b) { return compare(a, b) == 0 && a.build == b.build; }

std::string Version::to_string() const {
  std::string out = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  for (std::size_t i = 0; i < prerelease.size(); ++i) {
    out += i == 0 ? '-' : '.';
    out += prerelease[i].text;
  }
  for (std::size_t i = 0; i < build.size(); ++i) {
    out += i == 0 ? '+' : '.';
    out += build[i];
  }
  return out;
}

Expected<std::uint64_t, SemverError> parse_number(std::string_view text, std::size_t base) {
  if (text.empty()) return fail(base, "expected a number");
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_digit(text[i])) return fail(base + i, "expected a digit in " + quote(text));
  }
  if (text.size() > 1 && text[0] == '0') return fail(base, "leading zero in numeric identifier " + quote(text));
  std::uint64_t value = 0;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (kMax - digit) / 10) return fail(base, "number " + quote(text) + " does not fit in 64 bits");
    value = value * 10 + digit;
  }
  return value;
}

Expected<std::vector<Identifier>, SemverError> parse_prerelease(std::string_view text, std::size_t base) {
  std::vector<Identifier> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    const std::string_view id = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (id.empty()) return fail(base + start, "empty pre-release identifier");
    bool numeric = true;
    for (std::size_t i = 0; i < id.size(); ++i) {
      if (!is_ident_char(id[i])) {
        return fail(base + start + i, "pre-release identifiers may contain only [0-9A-Za-z-]");
      }
      numeric = numeric && is_digit(id[i]);
    }
    if (numeric && id.size() > 1 && id[0] == '0') {
      return fail(base + start, "leading zero in numeric pre-release identifier " + quote(id));
    }
    out.push_back(Identifier{std::string(id), numeric});
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

Expected<std::vector<std::string>, SemverError> parse_build(std::string_view text, std::size_t base) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    const std::string_view id = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (id.empty()) return fail(base + start, "empty build identifier");
    for (std::size_t i = 0; i < id.size(); ++i) {
      if (!is_ident_char(id[i])) return fail(base + start + i, "build identifiers may contain only [0-9A-Za-z-]");
    }
    out.emplace_back(id);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

Expected<Version, SemverError> parse(std::string_view text) {
  if (text.empty()) return fail(0, "empty version");
  // Split off build metadata first ('+' cannot occur elsewhere), then the pre-release.
  const std::size_t plus = text.find('+');
  const std::string_view before_build = text.substr(0, plus);
  const std::size_t dash = before_build.find('-');
  const std::string_view core = before_build.substr(0, dash);

  Version v;
  std::uint64_t* parts[3] = {&v.major, &v.minor, &v.patch};
  static constexpr const char* kNames[3] = {"major", "minor", "patch"};
  std::size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    std::size_t end = i < 2 ? core.find('.', start) : core.size();
    if (end == std::string_view::npos) {
      return fail(core.size(), std::string("expected MAJOR.MINOR.PATCH, the ") + kNames[i + 1] + " part is missing");
    }
    const std::string_view part = core.substr(start, end - start);
    if (part.empty()) return fail(start, std::string("empty ") + kNames[i] + " version");
    if (i == 2 && part.find('.') != std::string_view::npos) {
      return fail(start + part.find('.'), "more than three dot-separated numbers in the version core");
    }
    auto n = parse_number(part, start);
    if (!n) return unexpected(std::move(n).error());
    *parts[i] = *n;
    start = end + 1;
  }
  if (dash != std::string_view::npos) {
    auto pre = parse_prerelease(before_build.substr(dash + 1), dash + 1);
    if (!pre) return unexpected(std::move(pre).error());
    v.prerelease = std::move(*pre);
  }
  if (plus != std::string_view::npos) {
    auto build = parse_build(text.substr(plus + 1), plus + 1);
    if (!build) return unexpected(std::move(build).error());
    v.build = std::move(*build);
  }
  return v;
}

}  // namespace ac::semver
