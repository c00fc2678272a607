// The a_domain auth service: POST /auth/token (a2acp-1.0.md §Token Acquisition).
//
//   1. method POST                                          -> else 405 SCHEMA_MISMATCH
//   2. body is a strict JSON object                         -> else 400 SCHEMA_MISMATCH
//   3. caller authentication (the spec is silent, reading A2-20): an API key of the lobby in
//      the body member `api_key` and/or the X-API-Key header; every key given must be valid and
//      at least one must be given                          -> else 401 AUTH_FAILED
//   4. the rest against schemas/a2acp/token_request         -> 400 SCHEMA_MISMATCH (pointer, rule)
//   5. an agent outside the directory when unlisted agents are not allowed -> 403 AUTH_FAILED
//   6. 200 {token, expires_at}: an HS256 JWT with sub = agent_id, aud = target_agent_id,
//      iss = a_domain-auth-service, iat = now, exp = now + ttl (the request's, default
//      token_ttl_s, capped at max_token_ttl_s), capabilities = the requested ones (those the
//      directory lets the agent hold, when it lists grantable_capabilities), domain = the
//      directory's domain of the agent, else the body's `domain`, else default_domain.
// Error bodies: {"error": {"code", "message", "details"?, "retry_after"}}, the Error Response
// Format of §Error Codes with A2ACP codes.
#include <algorithm>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/a2acp/codec.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/a2acp/endpoints.hpp"

namespace ac::ref::a2acp {
namespace {

class TokenEndpoint final : public net::HttpHandler {
 public:
  TokenEndpoint(HubContext& context, std::shared_ptr<const Settings> settings, std::shared_ptr<Authenticator> auth)
      : context_(context), settings_(std::move(settings)), auth_(std::move(auth)) {}

  net::HttpResponse handle(const net::HttpRequest& req) override {
    const Settings& s = *settings_;
    if (req.method != "POST") {
      auto r = fail(405, "SCHEMA_MISMATCH", "use POST with a JSON body (§Token Acquisition)");
      r.headers.emplace("allow", "POST");
      return r;
    }
    auto parsed = json::parse_strict(req.body);
    if (!parsed) {
      return fail(400, "SCHEMA_MISMATCH", "the body is not JSON: " + parsed.error().message,
                  Json{{"rule", "json." + std::string(json::rule_name(parsed.error().rule))}, {"offset", parsed.error().offset}});
    }
    Json body = std::move(*parsed);
    if (!body.is_object()) {
      return fail(400, "SCHEMA_MISMATCH", "the body must be a JSON object {agent_id, target_agent_id, requested_capabilities, ttl?}",
                  Json{{"pointer", ""}, {"rule", "type"}});
    }

    const std::string header_key = req.header("x-api-key");
    const auto body_key = body.find("api_key");
    const bool has_key = !header_key.empty() || body_key != body.end();
    const bool header_ok = header_key.empty() || known(header_key);
    const bool body_ok = body_key == body.end() || (body_key->is_string() && known(body_key->get<std::string>()));
    if (!has_key || !header_ok || !body_ok) {
      return fail(401, "AUTH_FAILED",
                  has_key ? "the API key is not valid for this auth service"
                          : "an API key is required: body member api_key or header X-API-Key");
    }
    if (body_key != body.end()) body.erase(body_key);
    std::optional<std::string> domain_hint;
    if (auto d = body.find("domain"); d != body.end() && d->is_string() && !d->get_ref<const std::string&>().empty()) {
      domain_hint = d->get<std::string>();
    }

    auto request = proto::a2acp::token_request_from_json(std::move(body));
    if (!request) {
      const auto& e = request.error();
      return fail(400, "SCHEMA_MISMATCH", e.describe(), Json{{"pointer", e.pointer}, {"rule", e.rule}, {"section", e.section}});
    }
    const AgentSpec* agent = s.directory.find(request->agent_id);
    if (agent == nullptr && !s.allow_unlisted_agents) {
      return fail(403, "AUTH_FAILED", "agent " + request->agent_id + " is not in the broker's directory");
    }

    proto::a2acp::IssueParams p;
    p.sub = request->agent_id;
    p.aud = request->target_agent_id;
    p.iss = s.issuer;
    const std::int64_t wanted = request->ttl ? static_cast<std::int64_t>(std::min<std::uint64_t>(*request->ttl, INT64_MAX)) : s.token_ttl_s;
    p.ttl = std::min(wanted, s.max_token_ttl_s);
    for (const auto& cap : request->requested_capabilities) {
      if (std::find(p.capabilities.begin(), p.capabilities.end(), cap) != p.capabilities.end()) continue;
      if (agent != nullptr && agent->grantable_capabilities &&
          std::find(agent->grantable_capabilities->begin(), agent->grantable_capabilities->end(), cap) == agent->grantable_capabilities->end()) {
        continue;
      }
      p.capabilities.push_back(cap);
    }
    p.domain = agent != nullptr ? agent->domain : domain_hint.value_or(s.default_domain);
    auto token = auth_->issue(p);
    if (!token) return fail(500, "INTERNAL_ERROR", "cannot issue the token: " + token.error().describe(), std::nullopt, s.internal_retry_after_s);
    const auto claims = peek_claims(*token);
    const std::int64_t exp = claims ? claims->value("exp", std::int64_t{0}) : 0;
    proto::a2acp::TokenResponse response;
    response.token = std::move(*token);
    response.expires_at = proto::typed::utc_timestamp(std::chrono::system_clock::time_point(std::chrono::seconds(exp)));
    return net::HttpResponse::json(200, proto::a2acp::to_json(response).dump());
  }

 private:
  bool known(const std::string& key) const {
    return std::find(settings_->api_keys.begin(), settings_->api_keys.end(), key) != settings_->api_keys.end();
  }

  net::HttpResponse fail(int status, const std::string& code, const std::string& message, std::optional<Json> details = {},
                         std::uint64_t retry_after = 0) {
    context_.metrics.error(proto::ProtocolId::a2acp, code);
    Json error = {{"code", code}, {"message", message}, {"retry_after", retry_after}};
    if (details) error["details"] = std::move(*details);
    return net::HttpResponse::json(status, Json{{"error", std::move(error)}}.dump());
  }

  HubContext& context_;
  std::shared_ptr<const Settings> settings_;
  std::shared_ptr<Authenticator> auth_;
};

class AgentsEndpoint final : public net::HttpHandler {
 public:
  explicit AgentsEndpoint(std::shared_ptr<Broker> broker) : broker_(std::move(broker)) {}
  net::HttpResponse handle(const net::HttpRequest& req) override {
    if (req.method != "GET") {
      auto r = net::HttpResponse::json(405, R"({"error":{"code":"SCHEMA_MISMATCH","message":"use GET","retry_after":0}})");
      r.headers.emplace("allow", "GET");
      return r;
    }
    return net::HttpResponse::json(200, broker_->agents_json().dump());
  }

 private:
  std::shared_ptr<Broker> broker_;
};

}  // namespace

std::shared_ptr<net::HttpHandler> make_token_endpoint(HubContext& context, std::shared_ptr<const Settings> settings,
                                                      std::shared_ptr<Authenticator> auth) {
  return std::make_shared<TokenEndpoint>(context, std::move(settings), std::move(auth));
}

std::shared_ptr<net::HttpHandler> make_agents_endpoint(std::shared_ptr<Broker> broker) {
  return std::make_shared<AgentsEndpoint>(std::move(broker));
}

}  // namespace ac::ref::a2acp
