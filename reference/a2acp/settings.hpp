// Settings of the A2ACP hub: the `protocols.a2acp` section of the lobby configuration (defaults
// are the spec's values where it gives any: 5 s handshake, 30 s routing, 1 MB / 900 KB, 1000 /
// 100 / 10000 messages per minute; otherwise the reference's documented choices, see
// reference/a2acp/README.md) and the faults of reference/a2acp/faults.json, read once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "harness/protocols/a2acp/messages.hpp"
#include "harness/util/expected.hpp"
#include "reference/a2acp/directory.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref::a2acp {

struct Faults {
  bool jwt_skip_expiry = false;
  bool jwt_accept_alg_none = false;
  bool jwt_skip_signature = false;
  bool jwt_skip_audience = false;
  bool jwt_skip_issuer = false;
  bool jwt_skip_capabilities = false;
  bool routing_skip_auth = false;
  bool routing_no_timeout = false;
  bool handshake_no_collaboration_id = false;
  bool handshake_ignore_rejection = false;
  bool handshake_no_timeout = false;
  bool contract_skip_payload_validation = false;
  bool contract_skip_response_validation = false;
  bool contract_accept_unknown = false;
  bool contract_skip_schema_compatibility = false;
  bool policy_skip_pii_encryption = false;
  bool policy_allow_cross_domain = false;
  bool version_accept_incompatible_major = false;
  bool version_reject_previous_major = false;
  bool size_no_limit = false;
  bool error_no_retry_after = false;
  bool error_wrong_code = false;
  bool ratelimit_disabled = false;
  bool coerce_wrong_types = false;  // a2acp.schema.coerce-wrong-types (reference/core/lenient_types.hpp)
};

// A cross-domain collaboration the domain policy allows ("*" matches any domain).
struct DomainPair {
  std::string source, target;
};

struct Settings {
  // Auth service (POST /auth/token) and token rules.
  std::vector<std::string> api_keys;
  std::string jwt_secret;
  std::string issuer = "a_domain-auth-service";
  std::int64_t token_ttl_s = 3600;       // when the request has no ttl
  std::int64_t max_token_ttl_s = 86400;  // a larger requested ttl is capped
  std::int64_t leeway_s = 0;             // clock tolerance on exp/iat/nbf
  std::string default_domain = "a_domain";
  bool require_sub_match = true;       // token sub == source_agent.agent_id
  bool require_attach_token = false;   // the WebSocket upgrade must carry ?token=

  // The broker's own identity (source_agent of everything it sends) and its tokens' lifetime.
  proto::a2acp::Agent broker{"protocol-broker-agent", "a_domain", "1.0.0", Json::object()};
  std::int64_t broker_token_ttl_s = 300;

  Directory directory;
  bool allow_unlisted_agents = true;  // agents not in the directory may attach (as sources only)
  bool notify_target = true;          // event contract_established to the target after acceptance

  // Contract policy.
  std::set<std::string> pii_intents;
  std::vector<DomainPair> cross_domain_allowed;
  std::string rejection_code = "SECURITY_POLICY_VIOLATION";  // error for a declined handshake

  // Timeouts (scaled) and lifetimes (not scaled).
  std::chrono::milliseconds handshake_timeout{5000};
  std::chrono::milliseconds routing_timeout{30000};
  std::chrono::milliseconds contract_ttl{std::chrono::hours(1)};
  double timeout_scale = 1.0;  // applied to per-intent routing timeouts

  // Sizes: 1 MB = 2^20 bytes, 900 KB = 900 * 2^10 bytes; frames above transport_max_bytes are
  // closed by the network layer (1009) before the hub sees them.
  std::size_t max_message_bytes = 1024 * 1024;
  std::size_t max_payload_bytes = 900 * 1024;
  std::size_t transport_max_bytes = 2 * 1024 * 1024;

  // Rate limits (messages per window; 0 disables one limit).
  std::size_t rate_per_agent = 1000;
  std::size_t rate_per_collaboration = 100;
  std::size_t rate_global = 10000;
  std::chrono::milliseconds rate_window{60000};

  std::uint64_t timeout_retry_after_s = 5;
  std::uint64_t internal_retry_after_s = 5;

  // Bounds on state.
  std::size_t max_pending_handshakes = 1024;
  std::size_t max_pending_handshakes_per_agent = 64;
  std::size_t max_pending_requests_per_collaboration = 256;
  std::size_t max_collaborations = 10000;

  Faults faults;

  // The routing timeout of an intent (its own, scaled, or the section's).
  std::chrono::milliseconds routing_timeout_for(const IntentSpec* intent) const;
  bool cross_domain_allowed_for(const std::string& source_domain, const std::string& target_domain) const;
};

// Reads `protocols.a2acp`, the API keys and the faults; errors name the key.
Expected<Settings, std::string> read_settings(const HubContext& context);

inline constexpr const char* kDefaultJwtSecret = "agentconform-a2acp-test-secret-not-for-production";

}  // namespace ac::ref::a2acp
