// The AgentProtocol 0.1 hub: the reference agent (agent.hpp) behind its three transports
// (agentprotocol-0.1.md §Transport Bindings; README.md documents all of it):
//   WebSocket  /agentprotocol/ws   one message per text frame, answers on the same connection;
//                                  the verified senders of a connection are reachable by relay
//   HTTP       POST /agentprotocol one message per body; the answer is the response body, with a
//                                  status derived from it (200 answer, 202 nothing to answer,
//                                  400/401/404/429/500/501/504 for the error codes)
//   files      exchange_dir        polled; see file_exchange.hpp
// The factory reads protocols.agentprotocol (every key in README.md) and the faults.
#include <atomic>
#include <fstream>
#include <set>
#include <sstream>

#include "harness/crypto/pem.hpp"
#include "reference/agentprotocol/agent.hpp"
#include "reference/agentprotocol/file_exchange.hpp"

namespace ac::ref {
namespace agentprotocol {
namespace {

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// The HTTP status of an answer (README.md, "HTTP binding").
int http_status(const std::string& error_code) {
  if (error_code.empty()) return 200;
  if (error_code == "INVALID_MESSAGE") return 400;
  if (error_code == "INVALID_SIGNATURE") return 401;
  if (error_code == "UNKNOWN_AGENT") return 404;
  if (error_code == "RATE_LIMITED") return 429;
  if (error_code == "CAPABILITY_NOT_SUPPORTED") return 501;
  if (error_code == "TIMEOUT") return 504;
  if (error_code == "INTERNAL_ERROR") return 500;
  return 400;
}

// One WebSocket connection, shared by the sinks of its messages (the peer's attachment): a
// delayed action (sleep) may finish after its connection closed, and its answer must then be
// dropped, not sent to a closed connection (found by fuzz_hub_agentprotocol).
struct WsConnection {
  std::atomic<bool> open{true};
};

class WsSink final : public Sink {
 public:
  WsSink(std::shared_ptr<net::Peer> peer, std::shared_ptr<WsConnection> connection)
      : peer_(std::move(peer)), connection_(std::move(connection)) {}
  void reply(const Json& message, const std::string&) override {
    if (connection_->open) peer_->send_text(dump(message));
  }
  void no_reply() override {}

 private:
  std::shared_ptr<net::Peer> peer_;
  std::shared_ptr<WsConnection> connection_;
};

class HttpSink final : public Sink {
 public:
  explicit HttpSink(std::function<void(net::HttpResponse)> respond) : respond_(std::move(respond)) {}
  ~HttpSink() override {
    // Every handled message ends in reply() or no_reply(); this is a safety net only.
    if (!done_.exchange(true)) respond_(net::HttpResponse::json(500, R"({"error":{"code":"INTERNAL_ERROR","message":"no answer"}})"));
  }
  void reply(const Json& message, const std::string& error_code) override {
    if (done_.exchange(true)) return;
    net::HttpResponse r = net::HttpResponse::json(http_status(error_code), dump(message));
    if (error_code == "RATE_LIMITED") {
      const auto ms = message.value(Json::json_pointer("/payload/details/retryAfterMs"), std::int64_t{1000});
      r.headers.emplace("retry-after", std::to_string(std::max<std::int64_t>(1, (ms + 999) / 1000)));
    }
    respond_(std::move(r));
  }
  void no_reply() override {
    if (done_.exchange(true)) return;
    net::HttpResponse r;
    r.status = 202;
    respond_(std::move(r));
  }

 private:
  std::function<void(net::HttpResponse)> respond_;
  std::atomic<bool> done_{false};
};

class WsEndpoint final : public net::WsHandler {
 public:
  WsEndpoint(HubContext& context, std::shared_ptr<Agent> agent) : context_(context), agent_(std::move(agent)) {}
  void on_open(const std::shared_ptr<net::Peer>& peer) override {
    peer->attachment = std::make_shared<WsConnection>();
    context_.metrics.connection_opened(proto::ProtocolId::agentprotocol);
  }
  void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) override {
    auto connection = std::static_pointer_cast<WsConnection>(peer->attachment);
    auto sink = std::make_shared<WsSink>(peer, connection ? connection : std::make_shared<WsConnection>());
    if (binary) return agent_->reject("binary frames carry no AgentProtocol message; send JSON text frames", "binary-frame", Origin{}, sink);
    agent_->handle(frame, Origin{peer, {}}, sink);
  }
  void on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo&) override {
    if (auto connection = std::static_pointer_cast<WsConnection>(peer->attachment)) connection->open = false;
    agent_->disconnected(peer->id());
    context_.metrics.connection_closed(proto::ProtocolId::agentprotocol);
  }
  std::size_t max_message_bytes() const override { return agent_->settings().max_message_bytes; }

 private:
  HubContext& context_;
  std::shared_ptr<Agent> agent_;
};

class HttpEndpoint final : public net::HttpHandler {
 public:
  explicit HttpEndpoint(std::shared_ptr<Agent> agent) : agent_(std::move(agent)) {}
  net::HttpResponse handle(const net::HttpRequest&) override {
    return net::HttpResponse::json(500, R"({"error":{"code":"INTERNAL_ERROR","message":"asynchronous endpoint"}})");
  }
  void handle_async(const net::HttpRequest& req, std::function<void(net::HttpResponse)> respond) override {
    if (req.method != "POST") {
      auto r = net::HttpResponse::json(405, R"({"error":{"code":"METHOD_NOT_ALLOWED","message":"POST one AgentProtocol message"}})");
      r.headers.emplace("allow", "POST");
      return respond(std::move(r));
    }
    auto sink = std::make_shared<HttpSink>(std::move(respond));
    if (req.body.size() > agent_->settings().max_message_bytes) {
      return agent_->reject("the body is larger than " + std::to_string(agent_->settings().max_message_bytes) + " bytes", "max-size",
                            Origin{}, sink);
    }
    agent_->handle(req.body, Origin{}, sink);
  }

 private:
  std::shared_ptr<Agent> agent_;
};

class AgentProtocolHub final : public Hub {
 public:
  AgentProtocolHub(HubContext& context, std::shared_ptr<Agent> agent, std::shared_ptr<FileExchange> exchange)
      : context_(context), agent_(std::move(agent)), exchange_(std::move(exchange)) {}
  proto::ProtocolId protocol() const override { return proto::ProtocolId::agentprotocol; }
  void install(RouteTable& routes) override {
    routes.ws.emplace_back("/agentprotocol/ws", std::make_shared<WsEndpoint>(context_, agent_));
    routes.http.emplace_back("/agentprotocol", std::make_shared<HttpEndpoint>(agent_));
  }
  void shutdown() override {
    if (exchange_) exchange_->stop();
    agent_->shutdown();
  }
  Json status() const override {
    Json s = agent_->status();
    s["exchange_dir"] = exchange_ ? exchange_->dir().string() : std::string();
    return s;
  }

 private:
  HubContext& context_;
  std::shared_ptr<Agent> agent_;
  std::shared_ptr<FileExchange> exchange_;
};

const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = {
      "key_file", "key_pem", "name", "supported_versions", "features", "require_signature", "relay", "rate_limit",
      "rate_limit_burst", "rate_limit_per_second", "max_sleep_ms", "max_pending_per_sender", "exchange_dir",
      "exchange_poll_ms", "exchange_cleanup"};
  return keys;
}

Expected<crypto::Ed25519PrivateKey, std::string> load_key(const std::string& pem, const std::string& file) {
  std::string text = pem;
  if (text.empty() && !file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return unexpected("protocols.agentprotocol.key_file: cannot open " + file);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
    if (text.size() > crypto::kMaxPemBytes) return unexpected("protocols.agentprotocol.key_file: " + file + " is too large for a key");
  }
  if (text.empty()) {
    auto k = crypto::Ed25519PrivateKey::generate();
    if (!k) return unexpected("cannot generate the agent's Ed25519 key: " + k.error().describe());
    return std::move(*k);
  }
  auto k = crypto::Ed25519PrivateKey::from_pem(text);
  if (!k) return unexpected(std::string("protocols.agentprotocol.") + (pem.empty() ? "key_file" : "key_pem") + ": " + k.error().describe());
  return std::move(*k);
}

}  // namespace
}  // namespace agentprotocol

Expected<std::unique_ptr<Hub>, std::string> make_agentprotocol_hub(HubContext& context) {
  using namespace agentprotocol;
  const Json& section = context.config.section("agentprotocol");
  for (const auto& [key, value] : section.items()) {
    if (known_keys().count(key) == 0) return unexpected("protocols.agentprotocol." + key + ": unknown key (see reference/agentprotocol/README.md)");
  }
  std::vector<std::string> errors;
  SectionReader r{section, errors, "protocols.agentprotocol."};
  AgentSettings s;
  s.name = r.string("name", s.name);
  const auto versions = r.strings("supported_versions", {"0.1"});
  s.supported_versions = std::set<std::string>(versions.begin(), versions.end());
  s.features = r.strings("features", s.features);
  s.require_signature = r.boolean("require_signature", s.require_signature);
  s.relay = r.boolean("relay", s.relay);
  s.rate_limit = r.boolean("rate_limit", s.rate_limit);
  s.rate_limit_burst = static_cast<double>(r.integer("rate_limit_burst", 100));
  s.rate_limit_per_second = r.number("rate_limit_per_second", s.rate_limit_per_second);
  s.limits.max_sleep = r.millis("max_sleep_ms", s.limits.max_sleep);
  s.max_pending_per_sender = static_cast<std::size_t>(std::max<std::int64_t>(1, r.integer("max_pending_per_sender", 16)));
  s.max_message_bytes = context.config.max_message_bytes;
  ExchangeSettings x;
  x.dir = r.string("exchange_dir", "");
  x.poll = r.millis("exchange_poll_ms", x.poll);
  x.cleanup = r.boolean("exchange_cleanup", x.cleanup);
  const std::string key_pem = r.string("key_pem", "");
  const std::string key_file = r.string("key_file", "");
  if (!errors.empty()) return unexpected(errors.front());
  if (s.supported_versions.empty()) return unexpected(std::string("protocols.agentprotocol.supported_versions is empty"));
  if (s.rate_limit_burst < 1 || s.rate_limit_per_second < 0) {
    return unexpected(std::string("protocols.agentprotocol.rate_limit_burst must be >= 1 and rate_limit_per_second >= 0"));
  }
  if (x.poll.count() < 1) return unexpected(std::string("protocols.agentprotocol.exchange_poll_ms must be >= 1"));

  const FaultSet& f = context.faults;
  s.skip_verify = f.on("agentprotocol.signature.skip-verify");
  s.coerce_wrong_types = f.on("agentprotocol.schema.coerce-wrong-types");
  s.planted_leak_invalid = f.on("agentprotocol.planted.leak-per-invalid-message");
  s.hello_no_capabilities = f.on("agentprotocol.hello.no-capabilities");
  s.error_wrong_code = f.on("agentprotocol.error.wrong-code");
  s.protocol_accept_any = f.on("agentprotocol.version.accept-any");
  s.hello_accept_any_version = f.on("agentprotocol.hello.accept-any-version");
  s.reply_unsigned = f.on("agentprotocol.reply.unsigned");
  s.reply_bad_signature = f.on("agentprotocol.reply.bad-signature");
  s.error_no_correlation_id = f.on("agentprotocol.error.no-correlation-id");
  s.broadcast_ignored = f.on("agentprotocol.relay.broadcast-ignored");
  s.timeout_ignored = f.on("agentprotocol.timeout.ignored");
  s.response_wrong_correlation = f.on("agentprotocol.response.wrong-correlation-id");
  s.notify_answered = f.on("agentprotocol.notify.answered");

  auto key = load_key(key_pem, key_file);
  if (!key) return unexpected(key.error());
  auto agent = std::make_shared<Agent>(context, std::move(s), std::move(*key));
  std::shared_ptr<FileExchange> exchange;
  if (!x.dir.empty()) {
    exchange = std::make_shared<FileExchange>(context, agent, std::move(x));
    if (auto started = exchange->start(); !started) return unexpected(started.error());
  }
  return std::unique_ptr<Hub>(std::make_unique<AgentProtocolHub>(context, std::move(agent), std::move(exchange)));
}

}  // namespace ac::ref
