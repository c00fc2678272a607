// A2ACP 1.0 authentication tokens (a2acp-1.0.md §Authentication): the JWT claims set of
// "JWT Token Structure" and the five "Token Validation Rules", on top of ac::crypto::jwt.
//
// Claims (all required): sub (source agent id), iss ("a_domain-auth-service"), aud (target
// agent id, one string, as schemas/a2acp/jwt_claims.schema.json reads it), exp and iat
// (integer Unix timestamps), capabilities (array of strings), domain (source agent's domain).
//
// verify() applies the rules in the spec's order and answers with the first that fails:
//   1 signature (the key fixes the algorithm; alg none / confusion / bad signature fail here),
//   2 exp > now, 3 aud == target agent id, 4 required capabilities present, 5 iss.
// Structural problems (not a JWT, claims missing or mistyped, iat/nbf in the future) have their
// own codes. Every failure maps to the A2ACP error code AUTH_FAILED.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/crypto/jwt.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto::a2acp {

using Json = nlohmann::json;

inline constexpr std::string_view kDefaultIssuer = "a_domain-auth-service";

struct TokenClaims {
  std::string sub, iss, aud, domain;
  std::int64_t exp = 0, iat = 0;
  std::vector<std::string> capabilities;
  Json json;  // the whole claims set as verified (other claims included)
};

enum class TokenErrc {
  malformed,        // not a well-formed JWT (segments, base64, header JSON)
  signature,        // rule 1: alg none, algorithm not allowed for the key, bad signature
  missing_claim,    // a required claim is absent
  invalid_claim,    // a claim has the wrong type or an empty value
  expired,          // rule 2: exp <= now (minus leeway)
  not_yet_valid,    // iat (or nbf) in the future beyond the leeway
  audience,         // rule 3: aud != the target agent id
  capabilities,     // rule 4: a required capability is not granted
  issuer,           // rule 5: iss != the expected issuer
  issue_failed,     // issue(): bad parameters or key
};

std::string_view errc_name(TokenErrc code);  // "expired", "audience", ...

struct TokenError {
  TokenErrc code = TokenErrc::malformed;
  std::optional<crypto::jwt::Errc> jwt;  // the JWT layer's finer reason, when it found the problem
  std::string message;

  // 1..5 for the spec's validation rules, 0 for anything else.
  int rule() const;
  // "a2acp-1.0.md §Token Validation Rules 2 (exp > current_time)", or the claims section.
  std::string section() const;
  // The A2ACP error code a broker reports: always AUTH_FAILED.
  static constexpr std::string_view a2acp_code() { return "AUTH_FAILED"; }
  // "expired [rule 2] (...): message"
  std::string describe() const;
};

struct IssueParams {
  std::string sub;
  std::string aud;
  std::int64_t ttl = 3600;  // seconds; exp = iat + ttl
  std::string iss = std::string(kDefaultIssuer);
  std::vector<std::string> capabilities;
  std::string domain;
  crypto::jwt::Clock clock;  // empty: system clock
};

Expected<std::string, TokenError> issue(const IssueParams& params, const crypto::jwt::Key& key);

struct Expectations {
  std::string audience;                            // the target agent's id (required, non-empty)
  std::string issuer = std::string(kDefaultIssuer);
  std::vector<std::string> required_capabilities;  // all must be granted
  crypto::jwt::Clock clock;                        // empty: system clock
  std::int64_t leeway = 0;
};

Expected<TokenClaims, TokenError> verify(std::string_view token, const crypto::jwt::Key& key, const Expectations& expect);

}  // namespace ac::proto::a2acp
