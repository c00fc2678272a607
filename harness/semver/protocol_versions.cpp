#include "harness/semver/protocol_versions.hpp"

#include <algorithm>
#include <limits>

namespace ac::semver {
namespace {

Expected<std::uint64_t, SemverError> parse_digits(std::string_view s, std::size_t base, const char* what) {
  if (s.empty()) return unexpected(SemverError{base, std::string("empty ") + what + " version"});
  std::uint64_t value = 0;
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') {
      return unexpected(SemverError{base + i, std::string("expected a digit in the ") + what + " version"});
    }
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (value > (kMax - digit) / 10) {
      return unexpected(SemverError{base, std::string(what) + " version does not fit in 64 bits"});
    }
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

std::string ProtocolVersion::to_string() const { return std::to_string(major) + "." + std::to_string(minor); }

Expected<ProtocolVersion, SemverError> parse_protocol_version(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) {
    return unexpected(SemverError{text.size(), "expected MAJOR.MINOR (e.g. \"1.0\"), found no '.'"});
  }
  auto major = parse_digits(text.substr(0, dot), 0, "major");
  if (!major) return unexpected(std::move(major).error());
  auto minor = parse_digits(text.substr(dot + 1), dot + 1, "minor");
  if (!minor) return unexpected(std::move(minor).error());
  return ProtocolVersion{*major, *minor};
}

std::string_view to_string(Compatibility c) {
  switch (c) {
    case Compatibility::compatible: return "compatible";
    case Compatibility::previous_major: return "previous-major";
    case Compatibility::incompatible: return "incompatible";
  }
  return "incompatible";
}

Compatibility a2acp_compatibility(const ProtocolVersion& ours, const ProtocolVersion& theirs) {
  if (ours.major == theirs.major) return Compatibility::compatible;
  if (ours.major > 0 && theirs.major == ours.major - 1) return Compatibility::previous_major;
  return Compatibility::incompatible;
}

Expected<Compatibility, SemverError> a2acp_compatibility(std::string_view ours, std::string_view theirs) {
  auto a = parse_protocol_version(ours);
  if (!a) {
    auto e = std::move(a).error();
    e.message = "own protocol version: " + e.message;
    return unexpected(std::move(e));
  }
  auto b = parse_protocol_version(theirs);
  if (!b) {
    auto e = std::move(b).error();
    e.message = "peer protocol version: " + e.message;
    return unexpected(std::move(e));
  }
  return a2acp_compatibility(*a, *b);
}

SupportedVersions::SupportedVersions(std::initializer_list<std::string_view> versions) {
  for (auto v : versions) versions_.emplace_back(v);
}

bool SupportedVersions::contains(std::string_view version) const {
  return std::find(versions_.begin(), versions_.end(), version) != versions_.end();
}

std::string SupportedVersions::joined() const {
  std::string out;
  for (const auto& v : versions_) {
    if (!out.empty()) out += ", ";
    out += v;
  }
  return out;
}

const SupportedVersions& chopsticks_supported_versions() {
  static const SupportedVersions versions{kChopsticksCurrentVersion};
  return versions;
}

}  // namespace ac::semver
