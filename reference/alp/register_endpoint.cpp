// POST /api/v1/register (§4.1, §6 step 1, §10.1 step 1) and GET /api/v1/agents (the
// reference's own view of the registry, for the harness to observe online/offline status).
//
// Registration, in this order:
//   1. method POST (405), TLS when require_tls (403 TLS_REQUIRED)
//   2. body is a JSON object                      -> else 400 MESSAGE_MALFORMED
//   3. API key: X-API-Key header and/or body api_key; at least one, every one given valid
//                                                  -> else 401 API_KEY_INVALID
//   4. `roles` (agentconform extension, array of non-empty strings) taken out of the body
//   5. the rest against schemas/alp/register_request.schema.json (agent_id may be absent: the
//      lobby then provisions a UUID)               -> 400 MISSING_REQUIRED_FIELD / MESSAGE_MALFORMED
//   6. agent_id held by a live agent              -> 409 AGENT_ID_TAKEN (agent_id_conflict "refuse"),
//      or a fresh UUID (201, "provision"), or a new token for the same id (200, "reissue")
//   7. 201 (new agent) / 200 (an agent_id whose previous lease ended) with auth_token, lobby_id,
//      agent_id, expires_at.
// Error bodies are {"error": <§8.2 Error object>} (schemas/alp/register_error.schema.json).
#include "harness/json/strict_reader.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/alp/endpoints.hpp"
#include "reference/alp/wire.hpp"

namespace ac::ref::alp {
namespace {

class RegisterEndpoint final : public net::HttpHandler {
 public:
  explicit RegisterEndpoint(std::shared_ptr<Core> core) : core_(std::move(core)) {}

  net::HttpResponse handle(const net::HttpRequest& req) override {
    const Settings& s = core_->settings();
    auto fail = [&](int status, const std::string& code, const std::string& message, std::optional<Json> details = {}) {
      return http_error(status, core_->http_error_metric(code), message, std::move(details));
    };
    if (s.require_tls && !req.tls) return fail(403, "TLS_REQUIRED", "registration is served over HTTPS only (alp-0.2.0.md §4.1)");
    if (req.method != "POST") {
      auto r = fail(405, "METHOD_NOT_ALLOWED", "use POST");
      r.headers.emplace("allow", "POST");
      return r;
    }
    auto parsed = json::parse_strict(req.body);
    if (!parsed) {
      return fail(400, "MESSAGE_MALFORMED", "the body is not JSON: " + parsed.error().message,
                  Json{{"rule", "json." + std::string(json::rule_name(parsed.error().rule))},
                       {"offset", parsed.error().offset},
                       {"pointer", parsed.error().pointer}});
    }
    Json body = std::move(*parsed);
    if (!body.is_object()) {
      return fail(400, "MESSAGE_MALFORMED", "the body must be a JSON object {agent_id, agent_type, api_key?}",
                  Json{{"pointer", ""}, {"rule", "type"}});
    }

    // The API key may travel in the X-API-Key header or the body member api_key (§6 step 1 names
    // neither); every key the request carries must be valid, and it must carry one.
    const std::string header_key = req.header("x-api-key");
    const auto body_key = body.find("api_key");
    const bool body_key_string = body_key != body.end() && body_key->is_string();
    const bool has_key = !header_key.empty() || body_key != body.end();
    const bool valid = has_key && (header_key.empty() || key_in(header_key, s.api_keys)) &&
                       (body_key == body.end() || (body_key_string && key_in(body_key->get_ref<const std::string&>(), s.api_keys)));
    if (!valid && !s.faults.accept_bad_api_key) {
      return fail(401, "API_KEY_INVALID",
                  has_key ? "the API key is not valid for this lobby"
                          : "an API key is required: body member api_key or header X-API-Key");
    }
    if (s.faults.accept_bad_api_key && body_key != body.end() && !body_key_string) body.erase("api_key");

    // agentconform extension: the roles this agent holds, for authorization_rules requires_role (§9).
    std::vector<std::string> roles;
    if (auto r = body.find("roles"); r != body.end()) {
      bool ok = r->is_array() && r->size() <= s.max_roles;
      if (ok) {
        for (const auto& role : *r) ok = ok && role.is_string() && !role.get_ref<const std::string&>().empty();
      }
      if (!ok) {
        return fail(400, "MESSAGE_MALFORMED",
                    "roles must be an array of at most " + std::to_string(s.max_roles) + " non-empty strings",
                    Json{{"pointer", "/roles"}, {"rule", "type"}});
      }
      roles = r->get<std::vector<std::string>>();
      body.erase(r);
    }

    // §6 "registers the agent (if agent_id is available or provisions one)": without a desired
    // agent_id the lobby provisions one; the schema still checks everything else.
    const bool provision = !body.contains("agent_id");
    if (provision) body["agent_id"] = "to-be-provisioned";
    auto request = wire::register_request_from_json(std::move(body));
    if (!request) {
      const auto& e = request.error();
      return fail(400, e.code, e.message, Json{{"pointer", e.pointer}, {"rule", e.rule}, {"section", e.section}});
    }
    RegistrationRequest rr;
    if (!provision) rr.agent_id = request->agent_id;
    rr.agent_type = request->agent_type;
    rr.roles = std::move(roles);
    return core_->register_agent(rr);
  }

 private:
  std::shared_ptr<Core> core_;
};

class AgentsEndpoint final : public net::HttpHandler {
 public:
  explicit AgentsEndpoint(std::shared_ptr<Core> core) : core_(std::move(core)) {}

  net::HttpResponse handle(const net::HttpRequest& req) override {
    if (req.method != "GET") {
      auto r = http_error(405, core_->http_error_metric("METHOD_NOT_ALLOWED"), "use GET");
      r.headers.emplace("allow", "GET");
      return r;
    }
    const std::string id = req.query_value("agent_id");
    if (id.empty()) return net::HttpResponse::json(200, Json{{"agents", core_->agents_json()}}.dump());
    auto agent = core_->agent_json(id);
    if (!agent) return http_error(404, core_->http_error_metric("AGENT_NOT_FOUND"), "no agent " + id + " is registered");
    return net::HttpResponse::json(200, agent->dump());
  }

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace

net::HttpResponse Core::register_agent(const RegistrationRequest& request) {
  auto fail = [this](int status, const std::string& code, const std::string& message, std::optional<Json> details = {},
                     std::optional<bool> retryable = {}) {
    context_.metrics.error(proto::ProtocolId::alp, code);
    return http_error(status, code, message, std::move(details), retryable);
  };
  std::lock_guard lock(mutex_);
  if (stopping_) return fail(503, "INTERNAL_LOBBY_ERROR", "the lobby is shutting down", std::nullopt, true);
  const TimePoint now = context_.clock();
  IdConflict mode = settings_.faults.allow_id_takeover ? IdConflict::reissue : settings_.id_conflict;
  RegistrationRequest effective = request;
  // The lobby's own id and BROADCAST_ALL name no agent (§5 receiver_id): treated as taken.
  if (request.agent_id && (*request.agent_id == settings_.lobby_id || *request.agent_id == "BROADCAST_ALL")) {
    if (mode != IdConflict::provision) {
      return fail(409, "AGENT_ID_TAKEN", "agent_id \"" + *request.agent_id + "\" is reserved by the lobby",
                  Json{{"agent_id", *request.agent_id}});
    }
    effective.agent_id.reset();
  }
  const Registration r = registry_.register_agent(effective, mode, now, settings_.token_ttl);
  using O = Registration::Outcome;
  switch (r.outcome) {
    case O::taken: return fail(409, "AGENT_ID_TAKEN", r.message, Json{{"agent_id", request.agent_id.value_or("")}});
    case O::full: return fail(503, "LOBBY_FULL", r.message, std::nullopt, true);
    case O::internal_error: return fail(500, "INTERNAL_LOBBY_ERROR", r.message, std::nullopt, true);
    default: break;
  }
  AgentRecord& agent = *r.agent;
  ensure_bucket(agent, now);
  wire::RegisterResponse body;
  body.auth_token = agent.token;
  body.lobby_id = settings_.lobby_id;
  body.agent_id = agent.agent_id;
  body.expires_at = proto::typed::utc_timestamp(agent.token_expires);
  const int status = r.outcome == O::created || r.outcome == O::provisioned ? 201 : 200;
  Json answer = wire::to_json(body);
  if (settings_.faults.omit_auth_token) answer.erase("auth_token");
  return net::HttpResponse::json(status, answer.dump());
}

std::shared_ptr<net::HttpHandler> make_register_endpoint(std::shared_ptr<Core> core) {
  return std::make_shared<RegisterEndpoint>(std::move(core));
}

std::shared_ptr<net::HttpHandler> make_agents_endpoint(std::shared_ptr<Core> core) {
  return std::make_shared<AgentsEndpoint>(std::move(core));
}

}  // namespace ac::ref::alp
