// A2ACP 1.0 JWT claims and validation rules (see token.hpp).
#include "harness/protocols/a2acp/token.hpp"

namespace ac::proto::a2acp {
namespace {

namespace jwt = crypto::jwt;

Unexpected<TokenError> fail(TokenErrc code, std::string message, std::optional<jwt::Errc> inner = std::nullopt) {
  return unexpected(TokenError{code, inner, std::move(message)});
}

constexpr const char* kRequired[] = {"sub", "iss", "aud", "exp", "iat", "capabilities", "domain"};

TokenErrc map_jwt(jwt::Errc e) {
  switch (e) {
    case jwt::Errc::malformed:
    case jwt::Errc::bad_base64:
    case jwt::Errc::bad_header:
      return TokenErrc::malformed;
    case jwt::Errc::alg_none:
    case jwt::Errc::alg_unsupported:
    case jwt::Errc::alg_not_allowed:
    case jwt::Errc::bad_signature:
    case jwt::Errc::bad_key:
    case jwt::Errc::signing_failed:
      return TokenErrc::signature;
    case jwt::Errc::bad_claims: return TokenErrc::invalid_claim;
    case jwt::Errc::missing_claim: return TokenErrc::missing_claim;
    case jwt::Errc::expired: return TokenErrc::expired;
    case jwt::Errc::not_yet_valid:
    case jwt::Errc::issued_in_future:
      return TokenErrc::not_yet_valid;
    case jwt::Errc::wrong_audience: return TokenErrc::audience;
    case jwt::Errc::wrong_issuer: return TokenErrc::issuer;
  }
  return TokenErrc::malformed;
}

// A non-empty string claim.
Expected<std::string, TokenError> string_claim(const Json& claims, const char* name) {
  const auto& v = claims.at(name);
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) {
    return fail(TokenErrc::invalid_claim, std::string("'") + name + "' must be a non-empty string (a2acp-1.0.md §JWT Token Structure)");
  }
  return v.get<std::string>();
}

// An integer Unix timestamp >= 0 (the reading of schemas/a2acp/jwt_claims.schema.json).
Expected<std::int64_t, TokenError> time_claim(const Json& claims, const char* name) {
  const auto& v = claims.at(name);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(v.get<std::uint64_t>());
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return v.get<std::int64_t>();
  return fail(TokenErrc::invalid_claim, std::string("'") + name + "' must be a non-negative integer Unix timestamp (a2acp-1.0.md §JWT Token Structure)");
}

}  // namespace

std::string_view errc_name(TokenErrc code) {
  switch (code) {
    case TokenErrc::malformed: return "malformed";
    case TokenErrc::signature: return "signature";
    case TokenErrc::missing_claim: return "missing-claim";
    case TokenErrc::invalid_claim: return "invalid-claim";
    case TokenErrc::expired: return "expired";
    case TokenErrc::not_yet_valid: return "not-yet-valid";
    case TokenErrc::audience: return "audience";
    case TokenErrc::capabilities: return "capabilities";
    case TokenErrc::issuer: return "issuer";
    case TokenErrc::issue_failed: return "issue-failed";
  }
  return "unknown";
}

int TokenError::rule() const {
  switch (code) {
    case TokenErrc::signature: return 1;
    case TokenErrc::expired: return 2;
    case TokenErrc::audience: return 3;
    case TokenErrc::capabilities: return 4;
    case TokenErrc::issuer: return 5;
    default: return 0;
  }
}

std::string TokenError::section() const {
  switch (rule()) {
    case 1: return "a2acp-1.0.md §Token Validation Rules 1 (signature verification)";
    case 2: return "a2acp-1.0.md §Token Validation Rules 2 (exp > current_time)";
    case 3: return "a2acp-1.0.md §Token Validation Rules 3 (aud == target_agent.agent_id)";
    case 4: return "a2acp-1.0.md §Token Validation Rules 4 (required capabilities present)";
    case 5: return "a2acp-1.0.md §Token Validation Rules 5 (iss == \"a_domain-auth-service\")";
    default: return code == TokenErrc::malformed ? "RFC 7519 §7.2 / RFC 7515 §5.2" : "a2acp-1.0.md §JWT Token Structure";
  }
}

std::string TokenError::describe() const {
  std::string out(errc_name(code));
  if (rule() != 0) out += " [rule " + std::to_string(rule()) + "]";
  if (jwt) out += " [" + std::string(jwt::errc_name(*jwt)) + "]";
  return out + " (" + section() + "): " + message;
}

Expected<std::string, TokenError> issue(const IssueParams& p, const jwt::Key& key) {
  if (p.sub.empty()) return fail(TokenErrc::issue_failed, "sub (the source agent id) must not be empty");
  if (p.aud.empty()) return fail(TokenErrc::issue_failed, "aud (the target agent id) must not be empty");
  if (p.iss.empty()) return fail(TokenErrc::issue_failed, "iss must not be empty");
  if (p.domain.empty()) return fail(TokenErrc::issue_failed, "domain (the source agent's domain) must not be empty");
  if (p.ttl <= 0 || p.ttl > 10LL * 365 * 24 * 3600) return fail(TokenErrc::issue_failed, "ttl must be between 1 second and 10 years");
  const std::int64_t now = p.clock ? p.clock() : jwt::system_now();
  if (now < 0) return fail(TokenErrc::issue_failed, "the clock is before the Unix epoch");
  Json claims = {{"sub", p.sub},       {"iss", p.iss},          {"aud", p.aud},
                 {"iat", now},         {"exp", now + p.ttl},    {"capabilities", p.capabilities},
                 {"domain", p.domain}};
  auto token = jwt::issue(claims, key);
  if (!token) return fail(TokenErrc::issue_failed, token.error().describe(), token.error().code);
  return std::move(*token);
}

Expected<TokenClaims, TokenError> verify(std::string_view token, const jwt::Key& key, const Expectations& expect) {
  // Rule 1 and the structure, plus the time rules (the JWT layer orders exp before iat/nbf);
  // audience, capabilities and issuer are checked below in the spec's order.
  jwt::VerifyOptions options;
  options.clock = expect.clock;
  options.leeway = expect.leeway;
  options.required_claims.assign(std::begin(kRequired), std::end(kRequired));
  auto verified = jwt::verify(token, key, options);
  if (!verified) return fail(map_jwt(verified.error().code), verified.error().message, verified.error().code);
  const Json& claims = verified->claims;

  TokenClaims out;
  for (auto [field, name] : {std::pair{&out.sub, "sub"}, {&out.iss, "iss"}, {&out.aud, "aud"}, {&out.domain, "domain"}}) {
    auto v = string_claim(claims, name);
    if (!v) return unexpected(std::move(v).error());
    *field = std::move(*v);
  }
  auto exp = time_claim(claims, "exp");
  if (!exp) return unexpected(std::move(exp).error());
  auto iat = time_claim(claims, "iat");
  if (!iat) return unexpected(std::move(iat).error());
  out.exp = *exp;
  out.iat = *iat;
  const auto& caps = claims.at("capabilities");
  if (!caps.is_array()) return fail(TokenErrc::invalid_claim, "'capabilities' must be an array of strings (a2acp-1.0.md §JWT Token Structure)");
  for (const auto& c : caps) {
    if (!c.is_string()) return fail(TokenErrc::invalid_claim, "'capabilities' must be an array of strings (a2acp-1.0.md §JWT Token Structure)");
    out.capabilities.push_back(c.get<std::string>());
  }

  if (out.aud != expect.audience) {
    return fail(TokenErrc::audience, "aud \"" + out.aud + "\" is not the target agent \"" + expect.audience + "\"");
  }
  for (const auto& need : expect.required_capabilities) {
    bool granted = false;
    for (const auto& c : out.capabilities) granted = granted || c == need;
    if (!granted) return fail(TokenErrc::capabilities, "capability \"" + need + "\" is not granted by the token");
  }
  if (out.iss != expect.issuer) {
    return fail(TokenErrc::issuer, "iss \"" + out.iss + "\", expected \"" + expect.issuer + "\"");
  }
  out.json = claims;
  return out;
}

}  // namespace ac::proto::a2acp
