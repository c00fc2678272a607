// The hub's JWT side, on top of harness/protocols/a2acp/token.hpp (which owns the claims and the
// spec's five validation rules): one HS256 key (protocols.a2acp.jwt_secret) shared by the auth
// service, which issues tokens, and the broker, which verifies them and signs its own messages.
//
// The token faults live here, each relaxing exactly one rule: when verification fails for that
// rule's reason, the check is repeated with that rule satisfied (alg none / a bad signature: the
// unverified claims re-signed with the key; expiry: a clock just before exp; audience / issuer:
// the token's own aud / iss expected). Every other rule still applies.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/crypto/jwt.hpp"
#include "harness/protocols/a2acp/token.hpp"
#include "reference/a2acp/settings.hpp"

namespace ac::ref::a2acp {

class Authenticator {
 public:
  static Expected<std::shared_ptr<Authenticator>, std::string> create(const Settings& settings, Clock clock);

  // The five rules (proto::a2acp::verify) with `audience` = target_agent.agent_id and the
  // capabilities the intent requires.
  Expected<proto::a2acp::TokenClaims, proto::a2acp::TokenError> verify(std::string_view token, const std::string& audience,
                                                                       const std::vector<std::string>& capabilities) const;

  // A token from the auth service.
  Expected<std::string, proto::a2acp::TokenError> issue(proto::a2acp::IssueParams params) const;

  // The broker's own token for a message to `audience` (sub = the broker), cached until it has
  // less than a fifth of its lifetime left.
  std::string broker_token(const std::string& audience);

  std::int64_t now_seconds() const;

 private:
  Authenticator(crypto::jwt::Key key, const Settings& settings, Clock clock);

  crypto::jwt::Key key_;
  std::string issuer_;
  std::int64_t leeway_;
  Faults faults_;
  proto::a2acp::Agent broker_;
  std::int64_t broker_ttl_;
  Clock clock_;

  std::mutex cache_mutex_;
  std::map<std::string, std::pair<std::string, std::int64_t>> cache_;  // audience -> (token, exp)
};

// The claims of a JWT read without verifying anything (for the fault relaxations and for error
// details); nullopt when the payload segment is not a base64url JSON object.
std::optional<Json> peek_claims(std::string_view token);

}  // namespace ac::ref::a2acp
