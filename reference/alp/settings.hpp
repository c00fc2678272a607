// Settings of the ALP hub: the `protocols.alp` section of the lobby configuration (defaults are
// the spec's values where it has any, otherwise the reference's documented choices, see
// reference/alp/README.md) and the faults of reference/alp/faults.json, read once into booleans.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "harness/semver/version.hpp"
#include "harness/util/expected.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref::alp {

// What POST /api/v1/register does with a desired agent_id that a live agent holds.
enum class IdConflict { refuse, provision, reissue };
// What GET /ws/connect does when the agent already has a live session.
enum class DuplicateSession { replace, refuse };
// How the lobby reports its own refusal of an INVOKE_CAPABILITY_REQUEST.
enum class InvokeErrorFormat { protocol_error, response };

struct Faults {
  bool ack_missing_session_id = false;
  bool ack_reuse_session_id = false;
  bool offline_stale_status = false;
  bool ping_wrong_nonce = false;
  bool error_close_connection = false;
  bool sender_trust_client = false;
  bool accept_invalid_token = false;
  bool accept_expired_token = false;
  bool ignore_agent_id_mismatch = false;
  bool accept_bad_api_key = false;
  bool omit_auth_token = false;
  bool allow_id_takeover = false;
  bool discover_ignore_version_match = false;
  bool discover_no_query_ref = false;
  bool invoke_skip_authorization = false;
  bool invoke_skip_input_schema = false;
  bool invoke_ignore_capability_version = false;
  bool capabilities_append = false;
  bool stream_drop_progress = false;
  bool stream_rewrite_conversation_id = false;
  bool response_accept_from_anyone = false;
  bool version_accept_any = false;
  bool schema_coerce_wrong_types = false;  // alp.schema.coerce-wrong-types (reference/core/lenient_types.hpp)
  bool version_wrong_outgoing = false;
  bool error_wrong_code = false;
  bool error_wrong_offending_id = false;
  bool ratelimit_disabled = false;
  bool receiver_not_found_as_unavailable = false;
  bool invoke_no_timeout = false;
  // Planted bugs (kind planted-bug): real bugs for the fuzzer to find, not rule breaks.
  bool planted_crash_deep_input = false;  // alp.planted.crash-on-deep-input-data
  bool planted_stale_route = false;       // alp.planted.stale-route-after-reconnect
};

struct Settings {
  std::string lobby_id;
  std::vector<std::string> api_keys;
  std::string admin_token;

  std::chrono::milliseconds token_ttl{std::chrono::hours(1)};  // never scaled: a lifetime, not a timeout
  std::vector<semver::Version> supported_versions;             // parsed "0.2.0"
  IdConflict id_conflict = IdConflict::refuse;
  DuplicateSession duplicate_session = DuplicateSession::replace;
  bool keywords_all = true;                // keyword_match "all" (else "any")
  bool discovery_include_offline = true;
  std::size_t max_results_limit = 100;
  std::size_t rate_limit_messages = 1000;  // 0: no rate limit
  std::chrono::milliseconds rate_limit_window{1000};
  std::chrono::milliseconds invoke_timeout{60000};    // scaled
  std::chrono::milliseconds unregister_grace{5000};   // scaled
  InvokeErrorFormat invoke_error_format = InvokeErrorFormat::protocol_error;
  bool validate_input_schema = true;
  bool route_custom_message_types = false;
  bool require_tls = false;
  std::size_t max_agents = 10000;
  std::size_t max_capabilities = 256;
  std::size_t max_pending_per_agent = 256;
  std::size_t max_pending = 65536;
  std::size_t max_roles = 32;
  std::size_t max_message_bytes = 1024 * 1024;

  Faults faults;
};

// Reads `protocols.alp` and the faults; a wrong type or an unknown enum value is an error naming the key.
Expected<Settings, std::string> read_settings(const HubContext& context);

}  // namespace ac::ref::alp
