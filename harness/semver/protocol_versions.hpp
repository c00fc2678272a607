// The version rules of two protocols that do not use SemVer ranges.
//
// A2ACP (a2acp-1.0.md "Versioning"): protocol versions are MAJOR.MINOR (the base schema's pattern
// ^\d+\.\d+$, e.g. "1.0"); "Backward compatibility: Support N-1 major versions"; compatibility
// rules: same major = full compatibility, a different major the broker can translate (N-1)
// = supported, anything else = incompatible (contract validation fails with SCHEMA_MISMATCH).
//
// Chopsticks (chopsticks-1.0.0.md "Version Negotiation", "Implementation Notes"): the controller
// checks `protocolVersion` for membership in SUPPORTED_VERSIONS, a JavaScript Set of strings,
// i.e. exact string equality ("1.0.0+build" and "1.0" are not members of {"1.0.0"}).
#pragma once

#include <compare>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "harness/semver/version.hpp"

namespace ac::semver {

// ---- A2ACP ----------------------------------------------------------------------------------

struct ProtocolVersion {
  std::uint64_t major = 0;
  std::uint64_t minor = 0;

  auto operator<=>(const ProtocolVersion&) const = default;
  std::string to_string() const;  // "1.0"
};

// Parses MAJOR.MINOR. Digits only, as the spec's own schema pattern ^\d+\.\d+$ allows (so "01.0"
// is accepted and means 1.0); both parts must fit in 64 bits.
Expected<ProtocolVersion, SemverError> parse_protocol_version(std::string_view text);

enum class Compatibility {
  compatible,        // same major version: full compatibility
  previous_major,    // the peer is one major version behind: supported, the broker translates
  incompatible,      // anything else: SCHEMA_MISMATCH
};

std::string_view to_string(Compatibility c);

// How a broker speaking `ours` treats a peer speaking `theirs`.
Compatibility a2acp_compatibility(const ProtocolVersion& ours, const ProtocolVersion& theirs);
// Same, from strings; an unparsable `theirs` is an error (the caller reports it as the message's
// own schema problem).
Expected<Compatibility, SemverError> a2acp_compatibility(std::string_view ours, std::string_view theirs);

inline constexpr std::string_view kA2acpCurrentVersion = "1.0";

// ---- Chopsticks -----------------------------------------------------------------------------

// The controller's SUPPORTED_VERSIONS: exact strings.
class SupportedVersions {
 public:
  SupportedVersions(std::initializer_list<std::string_view> versions);
  explicit SupportedVersions(std::vector<std::string> versions) : versions_(std::move(versions)) {}

  // Exact membership, as JavaScript's Set.prototype.has compares strings.
  bool contains(std::string_view version) const;
  const std::vector<std::string>& versions() const { return versions_; }
  // "1.0.0" or "1.0.0, 1.1.0": for the controller's error message.
  std::string joined() const;

 private:
  std::vector<std::string> versions_;
};

inline constexpr std::string_view kChopsticksCurrentVersion = "1.0.0";
// The 1.0.0 controller's set (chopsticks-1.0.0.md "Supported Versions").
const SupportedVersions& chopsticks_supported_versions();

}  // namespace ac::semver
