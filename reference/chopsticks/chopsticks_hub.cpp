// The Chopsticks hub: the controller at /chopsticks/ws, plus two HTTP endpoints that make a
// controller observable and drivable from outside (the spec gives a controller no API, so these
// are the reference's own, documented in the README and gated by the "chopsticks.admin-api"
// feature for third-party targets):
//   GET  /chopsticks/agents   -> the live agents (agentId, protocolVersion, lastSeen, guilds, sessions)
//   POST /chopsticks/request  {"agentId","op","data"} -> sends `req`, answers with the agent's `resp`
//                             (200), 504 on timeout, 404 for an unknown agent, 410 if it disconnected.
#include "harness/json/strict_reader.hpp"
#include "reference/chopsticks/controller.hpp"

namespace ac::ref {
namespace chopsticks {
namespace {

net::HttpResponse error(int status, const std::string& code, const std::string& message) {
  return net::HttpResponse::json(status, Json{{"error", {{"code", code}, {"message", message}}}}.dump());
}

class AgentsEndpoint final : public net::HttpHandler {
 public:
  explicit AgentsEndpoint(std::shared_ptr<Controller> c) : controller_(std::move(c)) {}
  net::HttpResponse handle(const net::HttpRequest& req) override {
    if (req.method != "GET") return error(405, "METHOD_NOT_ALLOWED", "use GET");
    return net::HttpResponse::json(200, Json{{"agents", controller_->agents_snapshot()}}.dump());
  }

 private:
  std::shared_ptr<Controller> controller_;
};

class RequestEndpoint final : public net::HttpHandler {
 public:
  explicit RequestEndpoint(std::shared_ptr<Controller> c) : controller_(std::move(c)) {}
  net::HttpResponse handle(const net::HttpRequest&) override { return error(500, "INTERNAL_ERROR", "asynchronous endpoint"); }

  void handle_async(const net::HttpRequest& req, std::function<void(net::HttpResponse)> respond) override {
    if (req.method != "POST") return respond(error(405, "METHOD_NOT_ALLOWED", "use POST"));
    auto body = json::parse_strict(req.body);
    if (!body) return respond(error(400, "INVALID_JSON", body.error().describe()));
    const Json& b = *body;
    if (!b.is_object() || !b.contains("agentId") || !b["agentId"].is_string() || !b.contains("op") || !b["op"].is_string()) {
      return respond(error(400, "INVALID_REQUEST", "body must be {\"agentId\": string, \"op\": string, \"data\": any}"));
    }
    controller_->request(b["agentId"].get<std::string>(), b["op"].get<std::string>(), b.value("data", Json(nullptr)),
                         [respond = std::move(respond)](RpcOutcome outcome) {
                           switch (outcome.kind) {
                             case RpcOutcome::Kind::response: respond(net::HttpResponse::json(200, outcome.resp.dump())); break;
                             case RpcOutcome::Kind::timeout: respond(error(504, "TIMEOUT", "no resp within the request timeout")); break;
                             case RpcOutcome::Kind::agent_gone: respond(error(410, "AGENT_GONE", "the agent disconnected")); break;
                             case RpcOutcome::Kind::unknown_agent: respond(error(404, "UNKNOWN_AGENT", "no live agent with that agentId")); break;
                             case RpcOutcome::Kind::busy: respond(error(503, "BUSY", "too many requests are waiting for agents")); break;
                           }
                         });
  }

 private:
  std::shared_ptr<Controller> controller_;
};

class ChopsticksHub final : public Hub {
 public:
  ChopsticksHub(HubContext& context, ControllerSettings settings)
      : controller_(std::make_shared<Controller>(context, std::move(settings))) {}
  proto::ProtocolId protocol() const override { return proto::ProtocolId::chopsticks; }
  void install(RouteTable& routes) override {
    routes.ws.emplace_back("/chopsticks/ws", controller_);
    routes.http.emplace_back("/chopsticks/agents", std::make_shared<AgentsEndpoint>(controller_));
    routes.http.emplace_back("/chopsticks/request", std::make_shared<RequestEndpoint>(controller_));
  }
  Json status() const override { return controller_->status(); }
  void shutdown() override { controller_->shutdown(); }

 private:
  std::shared_ptr<Controller> controller_;
};

}  // namespace
}  // namespace chopsticks

Expected<std::unique_ptr<Hub>, std::string> make_chopsticks_hub(HubContext& context) {
  std::vector<std::string> errors;
  SectionReader r{context.config.section("chopsticks"), errors, "protocols.chopsticks."};
  chopsticks::ControllerSettings s;
  const auto versions = r.strings("supported_versions", {"1.0.0"});
  s.supported_versions = std::set<std::string>(versions.begin(), versions.end());
  s.request_timeout = context.config.scaled(r.millis("request_timeout_ms", std::chrono::milliseconds(30000)));
  s.max_sessions_per_agent = static_cast<std::size_t>(std::max<std::int64_t>(1, r.integer("max_sessions_per_agent", 256)));
  s.max_pending = static_cast<std::size_t>(std::max<std::int64_t>(1, r.integer("max_pending", 4096)));
  // Unknown keys are mistakes, as in every hub (a typo must not silently keep a default).
  if (r.section.is_object()) {
    for (const auto& [key, value] : r.section.items()) {
      if (key != "supported_versions" && key != "request_timeout_ms" && key != "max_sessions_per_agent" && key != "max_pending") errors.push_back("protocols.chopsticks." + key + ": unknown key");
    }
  }
  if (!errors.empty()) return unexpected(errors.front());
  if (s.supported_versions.empty()) return unexpected(std::string("protocols.chopsticks.supported_versions is empty"));
  const FaultSet& f = context.faults;
  s.accept_any_version = f.on("chopsticks.version.accept-any");
  s.accept_missing_version = f.on("chopsticks.version.accept-missing");
  s.no_error_frame = f.on("chopsticks.version.no-error-frame");
  s.wrong_close_code = f.on("chopsticks.version.wrong-close-code");
  s.allow_takeover = f.on("chopsticks.hello.allow-takeover");
  s.answer_missing_agent_id = f.on("chopsticks.hello.answer-missing-agent-id");
  s.accept_resp_from_anyone = f.on("chopsticks.rpc.accept-resp-from-anyone");
  s.coerce_wrong_types = f.on("chopsticks.schema.coerce-wrong-types");
  s.planted_accept_version_prefix = f.on("chopsticks.planted.accept-version-prefix");
  return std::unique_ptr<Hub>(std::make_unique<chopsticks::ChopsticksHub>(context, std::move(s)));
}

}  // namespace ac::ref
