// Token verification with the fault relaxations, issuance, and the broker's own tokens (see tokens.hpp).
#include "reference/a2acp/tokens.hpp"

#include "harness/crypto/base64.hpp"
#include "harness/json/strict_reader.hpp"

namespace ac::ref::a2acp {
namespace {

namespace jwt = crypto::jwt;
using proto::a2acp::TokenErrc;

constexpr std::size_t kMaxCachedTokens = 4096;

const std::string* claim_string(const Json& claims, const char* name) {
  auto it = claims.find(name);
  return it != claims.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

}  // namespace

std::optional<Json> peek_claims(std::string_view token) {
  if (token.size() > jwt::kMaxTokenBytes) return std::nullopt;
  const auto d1 = token.find('.');
  if (d1 == std::string_view::npos) return std::nullopt;
  const auto d2 = token.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return std::nullopt;
  auto payload = crypto::base64url_decode(token.substr(d1 + 1, d2 - d1 - 1));
  if (!payload) return std::nullopt;
  auto claims = json::parse_strict(*payload);
  if (!claims || !claims->is_object()) return std::nullopt;
  return std::move(*claims);
}

Authenticator::Authenticator(jwt::Key key, const Settings& s, Clock clock)
    : key_(std::move(key)), issuer_(s.issuer), leeway_(s.leeway_s), faults_(s.faults), broker_(s.broker),
      broker_ttl_(s.broker_token_ttl_s), clock_(std::move(clock)) {}

Expected<std::shared_ptr<Authenticator>, std::string> Authenticator::create(const Settings& settings, Clock clock) {
  auto key = jwt::Key::hmac(settings.jwt_secret);
  if (!key) return unexpected("protocols.a2acp.jwt_secret: " + key.error().describe());
  return std::shared_ptr<Authenticator>(new Authenticator(std::move(*key), settings, std::move(clock)));
}

std::int64_t Authenticator::now_seconds() const {
  return std::chrono::duration_cast<std::chrono::seconds>(clock_().time_since_epoch()).count();
}

Expected<proto::a2acp::TokenClaims, proto::a2acp::TokenError> Authenticator::verify(std::string_view token, const std::string& audience,
                                                                                    const std::vector<std::string>& capabilities) const {
  proto::a2acp::Expectations expect;
  expect.audience = audience;  // an empty target agent id matches no token (aud is non-empty)
  expect.issuer = issuer_;
  if (!faults_.jwt_skip_capabilities) expect.required_capabilities = capabilities;
  const std::int64_t now = now_seconds();
  expect.clock = [now] { return now; };
  expect.leeway = leeway_;

  std::string current(token);
  auto result = proto::a2acp::verify(current, key_, expect);
  // Each enabled fault may relax its own rule once; the loop ends when no fault applies.
  bool relaxed_signature = false, relaxed_expiry = false, relaxed_audience = false, relaxed_issuer = false;
  while (!result) {
    const auto& e = result.error();
    const auto claims = peek_claims(current);
    if (!claims) break;
    const bool alg_none = e.code == TokenErrc::signature && e.jwt == jwt::Errc::alg_none;
    const bool bad_sig = e.code == TokenErrc::signature && e.jwt == jwt::Errc::bad_signature;
    if (!relaxed_signature && ((alg_none && faults_.jwt_accept_alg_none) || (bad_sig && faults_.jwt_skip_signature))) {
      relaxed_signature = true;
      auto resigned = jwt::issue(*claims, key_);
      if (!resigned) break;
      current = std::move(*resigned);
    } else if (!relaxed_expiry && e.code == TokenErrc::expired && faults_.jwt_skip_expiry) {
      relaxed_expiry = true;
      auto exp = claims->find("exp");
      if (exp == claims->end() || !exp->is_number()) break;
      const auto at = static_cast<std::int64_t>(exp->get<double>()) - 1;
      expect.clock = [at] { return at; };
    } else if (!relaxed_audience && e.code == TokenErrc::audience && faults_.jwt_skip_audience) {
      relaxed_audience = true;
      const std::string* aud = claim_string(*claims, "aud");
      if (aud == nullptr) break;
      expect.audience = *aud;
    } else if (!relaxed_issuer && e.code == TokenErrc::issuer && faults_.jwt_skip_issuer) {
      relaxed_issuer = true;
      const std::string* iss = claim_string(*claims, "iss");
      if (iss == nullptr) break;
      expect.issuer = *iss;
    } else {
      break;
    }
    result = proto::a2acp::verify(current, key_, expect);
  }
  return result;
}

Expected<std::string, proto::a2acp::TokenError> Authenticator::issue(proto::a2acp::IssueParams params) const {
  const std::int64_t now = now_seconds();
  params.clock = [now] { return now; };
  return proto::a2acp::issue(params, key_);
}

std::string Authenticator::broker_token(const std::string& audience_in) {
  const std::string audience = audience_in.empty() ? std::string("unknown-agent") : audience_in;
  const std::int64_t now = now_seconds();
  {
    std::lock_guard lock(cache_mutex_);
    auto it = cache_.find(audience);
    if (it != cache_.end() && it->second.second - now > broker_ttl_ / 5) return it->second.first;
  }
  proto::a2acp::IssueParams p;
  p.sub = broker_.agent_id;
  p.aud = audience;
  p.ttl = broker_ttl_;
  p.iss = issuer_;
  p.domain = broker_.domain;
  auto token = issue(p);
  if (!token) return "unsigned";  // cannot happen with a valid key and non-empty ids; still a string
  std::lock_guard lock(cache_mutex_);
  if (cache_.size() >= kMaxCachedTokens) cache_.clear();
  cache_[audience] = {*token, now + broker_ttl_};
  return std::move(*token);
}

}  // namespace ac::ref::a2acp
