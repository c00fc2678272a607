// The lobby's checks of an INVOKE_CAPABILITY_REQUEST against the receiver's advertised
// capabilities (§7.3.2, §9, §11), as pure functions:
//   - selection: the capability named capability_name (CAPABILITY_NOT_FOUND otherwise); with a
//     capability_version, the advertised version of equal SemVer precedence
//     (CAPABILITY_VERSION_MISMATCH otherwise); without one, the highest advertised version;
//   - authorization_rules: absent or "public" -> anyone; "allow_list" -> callers listed in
//     allowed_agent_ids; "requires_role" -> callers holding every role of required_roles (roles
//     come from the caller's registration); any other type -> refused (fail closed);
//   - input_schema: input_data validated with the schema compiled by compile_untrusted when the
//     capability was registered (INVALID_PAYLOAD_SCHEMA, the MAY of §9).
#pragma once

#include <string>
#include <vector>

#include "harness/schema/schema_store.hpp"
#include "reference/alp/registry.hpp"

namespace ac::ref::alp {

struct Selection {
  enum class Outcome { ok, not_found, version_mismatch };
  Outcome outcome = Outcome::not_found;
  const StoredCapability* capability = nullptr;
  std::vector<std::string> advertised_versions;  // of that name, for the error details
};

Selection select_capability(const AgentRecord& receiver, const std::string& name,
                            const std::optional<std::string>& version, bool ignore_version = false);

struct Authorization {
  bool allowed = true;
  std::string reason;  // why not
};

Authorization authorize(const proto::alp::Capability& capability, const std::string& caller_id,
                        const std::vector<std::string>& caller_roles);

// Violations of input_data against the capability's input_schema (empty when it matches or the
// capability has no compiled schema).
std::vector<schema::Violation> check_input(const StoredCapability& capability, const nlohmann::json& input_data,
                                           std::size_t max_violations = 8);

// Compiles and checks the capabilities of a REGISTER_CLIENT for storage: SemVer versions, no two
// with the same name and version, at most `max` of them, every input_schema compilable as an
// untrusted schema (when `compile`). The error names the capability and the reason.
Expected<std::vector<StoredCapability>, std::string> prepare_capabilities(const std::vector<proto::alp::Capability>& caps,
                                                                          std::size_t max, bool compile);

}  // namespace ac::ref::alp
