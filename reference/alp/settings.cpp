#include "reference/alp/settings.hpp"

#include <algorithm>

#include "harness/semver/version.hpp"

namespace ac::ref::alp {
namespace {

template <typename E>
E choice(const SectionReader& r, const char* key, const std::vector<std::pair<std::string, E>>& options, E fallback,
         std::vector<std::string>& errors) {
  const std::string value = r.string(key, "");
  if (value.empty()) return fallback;
  std::string names;
  for (const auto& [name, e] : options) {
    if (name == value) return e;
    names += (names.empty() ? "" : ", ") + name;
  }
  errors.push_back(r.prefix + key + ": \"" + value + "\" is not one of " + names);
  return fallback;
}

std::size_t positive(const SectionReader& r, const char* key, std::size_t fallback, std::vector<std::string>& errors,
                     bool zero_ok = false) {
  const std::int64_t v = r.integer(key, static_cast<std::int64_t>(fallback));
  if (v < 0 || (v == 0 && !zero_ok)) {
    errors.push_back(r.prefix + key + ": must be " + (zero_ok ? ">= 0" : ">= 1"));
    return fallback;
  }
  return static_cast<std::size_t>(v);
}

Faults read_faults(const FaultSet& f) {
  Faults x;
  x.ack_missing_session_id = f.on("alp.ack.missing-session-id");
  x.ack_reuse_session_id = f.on("alp.ack.reuse-session-id");
  x.offline_stale_status = f.on("alp.offline.stale-status");
  x.ping_wrong_nonce = f.on("alp.ping.wrong-nonce");
  x.error_close_connection = f.on("alp.error.close-connection");
  x.sender_trust_client = f.on("alp.sender.trust-client");
  x.accept_invalid_token = f.on("alp.handshake.accept-invalid-token");
  x.accept_expired_token = f.on("alp.handshake.accept-expired-token");
  x.ignore_agent_id_mismatch = f.on("alp.handshake.ignore-agent-id-mismatch");
  x.accept_bad_api_key = f.on("alp.register.accept-bad-api-key");
  x.omit_auth_token = f.on("alp.register.omit-auth-token");
  x.allow_id_takeover = f.on("alp.register.allow-id-takeover");
  x.discover_ignore_version_match = f.on("alp.discover.ignore-version-match");
  x.discover_no_query_ref = f.on("alp.discover.no-query-ref");
  x.invoke_skip_authorization = f.on("alp.invoke.skip-authorization");
  x.invoke_skip_input_schema = f.on("alp.invoke.skip-input-schema");
  x.invoke_ignore_capability_version = f.on("alp.invoke.ignore-capability-version");
  x.capabilities_append = f.on("alp.capabilities.append");
  x.stream_drop_progress = f.on("alp.stream.drop-progress");
  x.stream_rewrite_conversation_id = f.on("alp.stream.rewrite-conversation-id");
  x.response_accept_from_anyone = f.on("alp.response.accept-from-anyone");
  x.version_accept_any = f.on("alp.version.accept-any");
  x.schema_coerce_wrong_types = f.on("alp.schema.coerce-wrong-types");
  x.version_wrong_outgoing = f.on("alp.version.wrong-outgoing-version");
  x.error_wrong_code = f.on("alp.error.wrong-code");
  x.error_wrong_offending_id = f.on("alp.error.wrong-offending-id");
  x.ratelimit_disabled = f.on("alp.ratelimit.disabled");
  x.receiver_not_found_as_unavailable = f.on("alp.receiver.not-found-as-unavailable");
  x.invoke_no_timeout = f.on("alp.invoke.no-timeout");
  x.planted_crash_deep_input = f.on("alp.planted.crash-on-deep-input-data");
  x.planted_stale_route = f.on("alp.planted.stale-route-after-reconnect");
  return x;
}

}  // namespace

Expected<Settings, std::string> read_settings(const HubContext& context) {
  const LobbyConfig& config = context.config;
  std::vector<std::string> errors;
  SectionReader r{config.section("alp"), errors, "protocols.alp."};
  Settings s;
  s.lobby_id = config.lobby_id;
  s.api_keys = config.api_keys;
  s.admin_token = config.admin_token;
  s.max_message_bytes = config.max_message_bytes;

  // Token lifetime: token_ttl_ms (for tests and tight harness runs) wins over token_ttl_s.
  const std::int64_t ttl_s = r.integer("token_ttl_s", 3600);
  const std::int64_t ttl_ms = r.integer("token_ttl_ms", ttl_s * 1000);
  if (ttl_ms < 1) errors.push_back("protocols.alp.token_ttl_ms / token_ttl_s: must be positive");
  s.token_ttl = std::chrono::milliseconds(ttl_ms < 1 ? 3600000 : ttl_ms);

  for (const auto& v : r.strings("supported_versions", {"0.2.0"})) {
    auto parsed = semver::parse(v);
    if (!parsed) {
      errors.push_back("protocols.alp.supported_versions: \"" + v + "\": " + parsed.error().describe());
      continue;
    }
    s.supported_versions.push_back(*parsed);
  }
  if (s.supported_versions.empty() && errors.empty()) errors.push_back("protocols.alp.supported_versions is empty");

  s.id_conflict = choice<IdConflict>(
      r, "agent_id_conflict",
      {{"refuse", IdConflict::refuse}, {"provision", IdConflict::provision}, {"reissue", IdConflict::reissue}},
      IdConflict::refuse, errors);
  s.duplicate_session = choice<DuplicateSession>(
      r, "duplicate_session", {{"replace", DuplicateSession::replace}, {"refuse", DuplicateSession::refuse}},
      DuplicateSession::replace, errors);
  s.keywords_all = choice<bool>(r, "keyword_match", {{"all", true}, {"any", false}}, true, errors);
  s.invoke_error_format = choice<InvokeErrorFormat>(
      r, "invoke_error_format",
      {{"protocol_error", InvokeErrorFormat::protocol_error}, {"response", InvokeErrorFormat::response}},
      InvokeErrorFormat::protocol_error, errors);
  s.discovery_include_offline = r.boolean("discovery_include_offline", true);
  s.max_results_limit = positive(r, "max_results_limit", 100, errors);
  s.rate_limit_messages = positive(r, "rate_limit_messages", 1000, errors, /*zero_ok=*/true);
  s.rate_limit_window = std::chrono::milliseconds(positive(r, "rate_limit_window_ms", 1000, errors));
  s.invoke_timeout = config.scaled(std::chrono::milliseconds(positive(r, "invoke_timeout_ms", 60000, errors)));
  s.unregister_grace = config.scaled(std::chrono::milliseconds(positive(r, "unregister_grace_ms", 5000, errors)));
  s.validate_input_schema = r.boolean("validate_input_schema", true);
  s.route_custom_message_types = r.boolean("route_custom_message_types", false);
  s.require_tls = r.boolean("require_tls", false);
  s.max_agents = positive(r, "max_agents", 10000, errors);
  s.max_capabilities = positive(r, "max_capabilities", 256, errors);
  s.max_pending_per_agent = positive(r, "max_pending_per_agent", 256, errors);
  s.max_pending = positive(r, "max_pending", 65536, errors);
  s.max_roles = positive(r, "max_roles", 32, errors);

  // Unknown keys are mistakes (a typo must not silently keep a default).
  static const std::vector<std::string> known = {
      "token_ttl_s", "token_ttl_ms", "supported_versions", "agent_id_conflict", "duplicate_session", "keyword_match",
      "invoke_error_format", "discovery_include_offline", "max_results_limit", "rate_limit_messages",
      "rate_limit_window_ms", "invoke_timeout_ms", "unregister_grace_ms", "validate_input_schema",
      "route_custom_message_types", "require_tls", "max_agents", "max_capabilities", "max_pending_per_agent",
      "max_pending", "max_roles"};
  if (r.section.is_object()) {
    for (const auto& [key, value] : r.section.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) errors.push_back("protocols.alp." + key + ": unknown key");
    }
  }
  if (!errors.empty()) return unexpected(errors.front());
  s.faults = read_faults(context.faults);
  return s;
}

}  // namespace ac::ref::alp
