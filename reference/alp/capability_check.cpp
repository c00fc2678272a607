#include "reference/alp/capability_check.hpp"

#include <algorithm>

namespace ac::ref::alp {

Selection select_capability(const AgentRecord& receiver, const std::string& name, const std::optional<std::string>& version,
                            bool ignore_version) {
  Selection s;
  std::optional<semver::Version> wanted;
  if (version && !ignore_version) {
    auto parsed = semver::parse(*version);
    if (parsed) wanted = *parsed;  // an unparsable one (64-bit overflow) matches nothing
  }
  for (const auto& c : receiver.capabilities) {
    if (c.capability.name != name) continue;
    s.advertised_versions.push_back(c.capability.capability_version);
    if (version && !ignore_version) {
      if (wanted && c.version == *wanted && s.capability == nullptr) s.capability = &c;
    } else if (s.capability == nullptr || c.version > s.capability->version) {
      s.capability = &c;
    }
  }
  if (s.capability != nullptr) {
    s.outcome = Selection::Outcome::ok;
  } else {
    s.outcome = s.advertised_versions.empty() ? Selection::Outcome::not_found : Selection::Outcome::version_mismatch;
  }
  return s;
}

Authorization authorize(const proto::alp::Capability& capability, const std::string& caller_id,
                        const std::vector<std::string>& caller_roles) {
  if (!capability.authorization_rules) return {};
  const auto& rules = *capability.authorization_rules;
  if (rules.type == "public") return {};
  if (rules.type == "allow_list") {
    const auto& ids = rules.allowed_agent_ids.value_or(std::vector<std::string>{});
    if (std::find(ids.begin(), ids.end(), caller_id) != ids.end()) return {};
    return {false, "agent " + caller_id + " is not in the allow_list of capability " + capability.name};
  }
  if (rules.type == "requires_role") {
    for (const auto& role : rules.required_roles.value_or(std::vector<std::string>{})) {
      if (std::find(caller_roles.begin(), caller_roles.end(), role) == caller_roles.end()) {
        return {false, "capability " + capability.name + " requires role \"" + role + "\", which agent " + caller_id +
                           " does not hold"};
      }
    }
    return {};
  }
  return {false, "capability " + capability.name + " has authorization_rules of unknown type \"" + rules.type +
                     "\"; the lobby refuses what it cannot check"};
}

std::vector<schema::Violation> check_input(const StoredCapability& capability, const nlohmann::json& input_data,
                                           std::size_t max_violations) {
  if (!capability.input_schema) return {};
  return capability.input_schema->validate(input_data, max_violations);
}

Expected<std::vector<StoredCapability>, std::string> prepare_capabilities(const std::vector<proto::alp::Capability>& caps,
                                                                          std::size_t max, bool compile) {
  if (caps.size() > max) {
    return unexpected("too many capabilities: " + std::to_string(caps.size()) + " (this lobby stores at most " +
                      std::to_string(max) + " per agent)");
  }
  std::vector<StoredCapability> out;
  out.reserve(caps.size());
  for (std::size_t i = 0; i < caps.size(); ++i) {
    const auto& c = caps[i];
    const std::string where = "capabilities[" + std::to_string(i) + "] (" + c.name + " " + c.capability_version + "): ";
    auto version = semver::parse(c.capability_version);
    if (!version) return unexpected(where + "capability_version: " + version.error().describe());
    for (const auto& earlier : out) {
      if (earlier.capability.name == c.name && earlier.version == *version) {
        return unexpected(where + "advertised twice (same name and capability_version)");
      }
    }
    StoredCapability stored{c, *version, nullptr};
    if (compile) {
      auto compiled = schema::compile_untrusted(c.input_schema);
      if (!compiled) return unexpected(where + "input_schema is not a usable JSON Schema: " + compiled.error());
      stored.input_schema = *compiled;
    }
    out.push_back(std::move(stored));
  }
  return out;
}

}  // namespace ac::ref::alp
