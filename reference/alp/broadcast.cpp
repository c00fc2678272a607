// LOBBY_BROADCAST (§7.4.1), triggered by an administrative HTTP call (the spec defines the
// message, not what triggers it):
//
//   POST /api/v1/admin/broadcast
//   Authorization: Bearer <admin_token of the lobby configuration>
//   {"receiver_id": "<agent_id>" | "BROADCAST_ALL", "event_type": "system_maintenance", "data": {...}}
//
// BROADCAST_ALL reaches every connected agent (one message each, fresh message_id, receiver_id
// "BROADCAST_ALL", one shared conversation_id = the broadcast_id of the answer); an agent_id
// reaches that agent only. Answers 200 {"broadcast_id", "delivered", "receivers"}; 401
// AUTH_TOKEN_INVALID without the admin token; 400 for a bad body; 404 RECEIVER_NOT_FOUND;
// 409 RECEIVER_UNAVAILABLE for an agent that is offline.
#include "harness/json/strict_reader.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/alp/endpoints.hpp"
#include "reference/alp/wire.hpp"

namespace ac::ref::alp {
namespace {

class BroadcastEndpoint final : public net::HttpHandler {
 public:
  explicit BroadcastEndpoint(std::shared_ptr<Core> core) : core_(std::move(core)) {}

  net::HttpResponse handle(const net::HttpRequest& req) override {
    auto fail = [&](int status, const std::string& code, const std::string& message, std::optional<Json> details = {}) {
      return http_error(status, core_->http_error_metric(code), message, std::move(details));
    };
    if (req.method != "POST") {
      auto r = fail(405, "METHOD_NOT_ALLOWED", "use POST");
      r.headers.emplace("allow", "POST");
      return r;
    }
    const std::string auth = req.header("authorization");
    const std::string& admin = core_->settings().admin_token;
    if (admin.empty() || !constant_time_equal(auth, "Bearer " + admin)) {
      auto r = fail(401, "AUTH_TOKEN_INVALID", "an administrative call needs Authorization: Bearer <admin_token>");
      r.headers.emplace("www-authenticate", "Bearer");
      return r;
    }
    auto parsed = json::parse_strict(req.body);
    if (!parsed || !parsed->is_object()) {
      return fail(400, "MESSAGE_MALFORMED", "the body must be a JSON object {receiver_id, event_type, data}");
    }
    const Json& b = *parsed;
    for (const auto& [key, value] : b.items()) {
      if (key != "receiver_id" && key != "event_type" && key != "data") {
        return fail(400, "MESSAGE_MALFORMED", "unknown member " + key, Json{{"pointer", "/" + key}, {"rule", "additionalProperties"}});
      }
    }
    for (const char* key : {"receiver_id", "event_type"}) {
      auto it = b.find(key);
      if (it == b.end()) return fail(400, "MISSING_REQUIRED_FIELD", std::string(key) + " is required", Json{{"pointer", std::string("/") + key}});
      if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
        return fail(400, "MESSAGE_MALFORMED", std::string(key) + " must be a non-empty string", Json{{"pointer", std::string("/") + key}});
      }
    }
    Json data = b.value("data", Json::object());
    if (!data.is_object()) return fail(400, "MESSAGE_MALFORMED", "data must be an object (§7.4.1)", Json{{"pointer", "/data"}});
    return core_->broadcast(b["receiver_id"].get<std::string>(), b["event_type"].get<std::string>(), data);
  }

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace

net::HttpResponse Core::broadcast(const std::string& receiver_id, const std::string& event_type, const Json& data) {
  Outbox out;
  std::lock_guard lock(mutex_);
  const std::string broadcast_id = proto::typed::new_uuid_v4();
  Json receivers = Json::array();
  auto deliver = [&](const AgentRecord& agent, const std::shared_ptr<net::Peer>& peer, const std::string& to) {
    wire::Message m = wire::make_lobby_broadcast(settings_.lobby_id, to, event_type, data);
    m.envelope.conversation_id = broadcast_id;
    out.send(peer, encode(m));
    receivers.push_back(agent.agent_id);
    context_.metrics.routed(proto::ProtocolId::alp);
  };
  if (receiver_id == "BROADCAST_ALL") {
    for (const auto& [id, agent] : registry_.agents()) {
      if (!agent.online) continue;
      if (auto peer = live_peer(agent)) deliver(agent, peer, "BROADCAST_ALL");
    }
  } else {
    const AgentRecord* agent = registry_.find(receiver_id);
    if (agent == nullptr) {
      context_.metrics.error(proto::ProtocolId::alp, "RECEIVER_NOT_FOUND");
      return http_error(404, "RECEIVER_NOT_FOUND", "no agent " + receiver_id + " is registered");
    }
    auto peer = agent->online ? live_peer(*agent) : nullptr;
    if (!peer) {
      context_.metrics.error(proto::ProtocolId::alp, "RECEIVER_UNAVAILABLE");
      return http_error(409, "RECEIVER_UNAVAILABLE", "agent " + receiver_id + " is offline", std::nullopt, true);
    }
    deliver(*agent, peer, receiver_id);
  }
  return net::HttpResponse::json(
      200, Json{{"broadcast_id", broadcast_id}, {"delivered", receivers.size()}, {"receivers", receivers}}.dump());
}

std::shared_ptr<net::HttpHandler> make_broadcast_endpoint(std::shared_ptr<Core> core) {
  return std::make_shared<BroadcastEndpoint>(std::move(core));
}

}  // namespace ac::ref::alp
