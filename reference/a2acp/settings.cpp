// protocols.a2acp -> Settings (see settings.hpp and the key table in reference/a2acp/README.md).
#include "reference/a2acp/settings.hpp"

#include <algorithm>
#include <cmath>

namespace ac::ref::a2acp {
namespace {

constexpr const char* kPrefix = "protocols.a2acp.";

std::size_t count(const SectionReader& r, const char* key, std::size_t fallback, std::vector<std::string>& errors,
                  bool zero_ok = false) {
  const std::int64_t v = r.integer(key, static_cast<std::int64_t>(fallback));
  if (v < 0 || (v == 0 && !zero_ok)) {
    errors.push_back(r.prefix + key + ": must be " + (zero_ok ? ">= 0" : ">= 1"));
    return fallback;
  }
  return static_cast<std::size_t>(v);
}

std::int64_t positive(const SectionReader& r, const char* key, std::int64_t fallback, std::vector<std::string>& errors) {
  const std::int64_t v = r.integer(key, fallback);
  if (v < 1) {
    errors.push_back(r.prefix + key + ": must be >= 1");
    return fallback;
  }
  return v;
}

Faults read_faults(const FaultSet& f) {
  Faults x;
  x.jwt_skip_expiry = f.on("a2acp.jwt.skip-expiry");
  x.jwt_accept_alg_none = f.on("a2acp.jwt.accept-alg-none");
  x.jwt_skip_signature = f.on("a2acp.jwt.skip-signature");
  x.jwt_skip_audience = f.on("a2acp.jwt.skip-audience");
  x.jwt_skip_issuer = f.on("a2acp.jwt.skip-issuer");
  x.jwt_skip_capabilities = f.on("a2acp.jwt.skip-capabilities");
  x.routing_skip_auth = f.on("a2acp.routing.skip-auth");
  x.routing_no_timeout = f.on("a2acp.routing.no-timeout");
  x.handshake_no_collaboration_id = f.on("a2acp.handshake.no-collaboration-id");
  x.handshake_ignore_rejection = f.on("a2acp.handshake.ignore-rejection");
  x.handshake_no_timeout = f.on("a2acp.handshake.no-timeout");
  x.contract_skip_payload_validation = f.on("a2acp.contract.skip-payload-validation");
  x.contract_skip_response_validation = f.on("a2acp.contract.skip-response-validation");
  x.contract_accept_unknown = f.on("a2acp.contract.accept-unknown-contract");
  x.contract_skip_schema_compatibility = f.on("a2acp.contract.skip-schema-compatibility");
  x.policy_skip_pii_encryption = f.on("a2acp.policy.skip-pii-encryption");
  x.policy_allow_cross_domain = f.on("a2acp.policy.allow-cross-domain");
  x.version_accept_incompatible_major = f.on("a2acp.version.accept-incompatible-major");
  x.version_reject_previous_major = f.on("a2acp.version.reject-previous-major");
  x.size_no_limit = f.on("a2acp.size.no-limit");
  x.error_no_retry_after = f.on("a2acp.error.no-retry-after");
  x.error_wrong_code = f.on("a2acp.error.wrong-code");
  x.ratelimit_disabled = f.on("a2acp.ratelimit.disabled");
  x.coerce_wrong_types = f.on("a2acp.schema.coerce-wrong-types");
  return x;
}

bool is_error_code(const std::string& code) {
  static const std::set<std::string> codes = {"CAPABILITY_NOT_FOUND", "SCHEMA_MISMATCH",    "AUTH_FAILED",
                                              "TIMEOUT",              "INTERNAL_ERROR",     "RATE_LIMIT_EXCEEDED",
                                              "CONTRACT_VIOLATION",   "SECURITY_POLICY_VIOLATION"};
  return codes.count(code) != 0;
}

void read_domain_pairs(const Json& section, Settings& s, std::vector<std::string>& errors) {
  auto it = section.find("cross_domain_allowed");
  if (it == section.end()) {
    s.cross_domain_allowed = {{"a_domain", "medtronic_poc"}};  // the spec's example collaboration
    return;
  }
  const std::string where = std::string(kPrefix) + "cross_domain_allowed";
  if (!it->is_array()) {
    errors.push_back(where + ": expected an array of {\"source\": domain, \"target\": domain}");
    return;
  }
  for (const auto& p : *it) {
    if (!p.is_object() || p.size() != 2 || !p.contains("source") || !p.contains("target") || !p["source"].is_string() ||
        !p["target"].is_string()) {
      errors.push_back(where + ": every entry is {\"source\": string, \"target\": string} (\"*\" matches any domain)");
      return;
    }
    s.cross_domain_allowed.push_back({p["source"].get<std::string>(), p["target"].get<std::string>()});
  }
}

}  // namespace

std::chrono::milliseconds Settings::routing_timeout_for(const IntentSpec* intent) const {
  if (intent == nullptr || !intent->routing_timeout) return routing_timeout;
  const double ms = static_cast<double>(intent->routing_timeout->count()) * timeout_scale;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::max(1.0, ms)));
}

bool Settings::cross_domain_allowed_for(const std::string& source_domain, const std::string& target_domain) const {
  if (source_domain == target_domain) return true;
  for (const auto& p : cross_domain_allowed) {
    if ((p.source == "*" || p.source == source_domain) && (p.target == "*" || p.target == target_domain)) return true;
  }
  return false;
}

Expected<Settings, std::string> read_settings(const HubContext& context) {
  const LobbyConfig& config = context.config;
  std::vector<std::string> errors;
  const Json& section = config.section("a2acp");
  if (!section.is_object()) return unexpected(std::string("protocols.a2acp: expected an object"));
  SectionReader r{section, errors, kPrefix};
  Settings s;
  s.api_keys = config.api_keys;
  s.timeout_scale = config.timeout_scale;

  s.jwt_secret = r.string("jwt_secret", kDefaultJwtSecret);
  s.issuer = r.string("issuer", s.issuer);
  if (s.issuer.empty()) errors.push_back(std::string(kPrefix) + "issuer: must not be empty");
  s.token_ttl_s = positive(r, "token_ttl_s", s.token_ttl_s, errors);
  s.max_token_ttl_s = positive(r, "max_token_ttl_s", s.max_token_ttl_s, errors);
  s.leeway_s = static_cast<std::int64_t>(count(r, "leeway_s", 0, errors, true));
  s.default_domain = r.string("default_domain", s.default_domain);
  s.require_sub_match = r.boolean("require_sub_match", s.require_sub_match);
  s.require_attach_token = r.boolean("require_attach_token", s.require_attach_token);

  s.broker.agent_id = r.string("broker_agent_id", s.broker.agent_id);
  s.broker.domain = r.string("broker_domain", s.broker.domain);
  s.broker.version = r.string("broker_version", s.broker.version);
  if (s.broker.agent_id.empty() || s.broker.domain.empty()) errors.push_back(std::string(kPrefix) + "broker_agent_id / broker_domain: must not be empty");
  if (!is_agent_version(s.broker.version)) errors.push_back(std::string(kPrefix) + "broker_version: not MAJOR.MINOR.PATCH");
  s.broker_token_ttl_s = positive(r, "broker_token_ttl_s", s.broker_token_ttl_s, errors);

  const auto agents = section.find("agents");
  auto directory = Directory::parse(agents == section.end() ? Directory::default_json() : *agents, std::string(kPrefix) + "agents");
  if (!directory) {
    errors.push_back(directory.error());
  } else {
    s.directory = std::move(*directory);
    if (s.directory.find(s.broker.agent_id) != nullptr) {
      errors.push_back(std::string(kPrefix) + "agents: \"" + s.broker.agent_id + "\" is the broker's own agent_id");
    }
  }
  s.allow_unlisted_agents = r.boolean("allow_unlisted_agents", s.allow_unlisted_agents);
  s.notify_target = r.boolean("notify_target", s.notify_target);

  for (const auto& i : r.strings("pii_intents", {"provision_patient_records"})) s.pii_intents.insert(i);
  read_domain_pairs(section, s, errors);
  s.rejection_code = r.string("rejection_code", s.rejection_code);
  if (!is_error_code(s.rejection_code)) errors.push_back(std::string(kPrefix) + "rejection_code: not an A2ACP error code");

  s.handshake_timeout = config.scaled(std::chrono::milliseconds(positive(r, "handshake_timeout_ms", 5000, errors)));
  s.routing_timeout = config.scaled(std::chrono::milliseconds(positive(r, "routing_timeout_ms", 30000, errors)));
  // Contract lifetime: contract_ttl_ms (tests) wins over contract_ttl_s.
  const std::int64_t ttl_s = positive(r, "contract_ttl_s", 3600, errors);
  s.contract_ttl = std::chrono::milliseconds(positive(r, "contract_ttl_ms", ttl_s * 1000, errors));

  s.max_message_bytes = count(r, "max_message_bytes", s.max_message_bytes, errors);
  s.max_payload_bytes = count(r, "max_payload_bytes", s.max_payload_bytes, errors);
  s.transport_max_bytes = count(r, "transport_max_bytes", s.transport_max_bytes, errors);
  if (s.transport_max_bytes < s.max_message_bytes) {
    errors.push_back(std::string(kPrefix) + "transport_max_bytes: must be >= max_message_bytes (the broker answers up to the transport limit)");
  }

  s.rate_per_agent = count(r, "rate_limit_per_agent", s.rate_per_agent, errors, true);
  s.rate_per_collaboration = count(r, "rate_limit_per_collaboration", s.rate_per_collaboration, errors, true);
  s.rate_global = count(r, "rate_limit_global", s.rate_global, errors, true);
  s.rate_window = std::chrono::milliseconds(positive(r, "rate_limit_window_ms", 60000, errors));
  s.timeout_retry_after_s = count(r, "timeout_retry_after_s", s.timeout_retry_after_s, errors);
  s.internal_retry_after_s = count(r, "internal_retry_after_s", s.internal_retry_after_s, errors);

  s.max_pending_handshakes = count(r, "max_pending_handshakes", s.max_pending_handshakes, errors);
  s.max_pending_handshakes_per_agent = count(r, "max_pending_handshakes_per_agent", s.max_pending_handshakes_per_agent, errors);
  s.max_pending_requests_per_collaboration =
      count(r, "max_pending_requests_per_collaboration", s.max_pending_requests_per_collaboration, errors);
  s.max_collaborations = count(r, "max_collaborations", s.max_collaborations, errors);

  // Unknown keys are mistakes (a typo must not silently keep a default).
  static const std::vector<std::string> known = {
      "jwt_secret", "issuer", "token_ttl_s", "max_token_ttl_s", "leeway_s", "default_domain", "require_sub_match",
      "require_attach_token", "broker_agent_id", "broker_domain", "broker_version", "broker_token_ttl_s", "agents",
      "allow_unlisted_agents", "notify_target", "pii_intents", "cross_domain_allowed", "rejection_code",
      "handshake_timeout_ms", "routing_timeout_ms", "contract_ttl_s", "contract_ttl_ms", "max_message_bytes",
      "max_payload_bytes", "transport_max_bytes", "rate_limit_per_agent", "rate_limit_per_collaboration",
      "rate_limit_global", "rate_limit_window_ms", "timeout_retry_after_s", "internal_retry_after_s",
      "max_pending_handshakes", "max_pending_handshakes_per_agent", "max_pending_requests_per_collaboration",
      "max_collaborations"};
  for (const auto& [key, value] : section.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) errors.push_back(std::string(kPrefix) + key + ": unknown key");
  }
  if (!errors.empty()) return unexpected(errors.front());
  s.faults = read_faults(context.faults);
  return s;
}

}  // namespace ac::ref::a2acp
