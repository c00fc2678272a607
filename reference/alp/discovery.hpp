// DISCOVER_CAPABILITIES (§7.2.1) -> the agents[] of CAPABILITIES_FOUND (§7.2.2): which agents
// offer capabilities matching a capability_filter. A pure function of the registry, so the
// rules are testable without a network:
//   - name: exact, case-sensitive equality (no prefix matching);
//   - version_match: a harness/semver range (npm grammar: "1.x", ">=2.0.0", "^1.2.0", "1.0.2"),
//     pre-releases only when the range names one of the same MAJOR.MINOR.PATCH (npm rule);
//   - keywords: "all" (default) = the capability carries every requested keyword, "any" = at
//     least one; compared ASCII-case-insensitively; an empty list filters nothing;
//   - an agent is listed once, with only its matching capabilities, and only if it has one;
//   - order: connected agents first (by agent_id), then offline ones, most recently seen first
//     (when include_offline); at most max_results agents.
#pragma once

#include <optional>
#include <vector>

#include "harness/protocols/alp/messages.hpp"
#include "harness/semver/range.hpp"
#include "reference/alp/registry.hpp"

namespace ac::ref::alp {

struct DiscoveryQuery {
  std::optional<std::string> name;
  std::optional<semver::Range> version_range;
  std::vector<std::string> keywords;
  bool keywords_all = true;
  std::size_t max_results = 10;
  bool include_offline = true;
  TimePoint now{};
};

bool capability_matches(const StoredCapability& capability, const DiscoveryQuery& query);
std::vector<proto::alp::AgentMatch> discover(const Registry& registry, const DiscoveryQuery& query);

}  // namespace ac::ref::alp
