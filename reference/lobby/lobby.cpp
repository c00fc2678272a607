#include "reference/lobby/lobby.hpp"

#include "harness/net/server.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref {
namespace {

class HealthHandler final : public net::HttpHandler {
 public:
  HealthHandler(const LobbyConfig& config, const std::vector<std::unique_ptr<Hub>>& hubs) : config_(config), hubs_(hubs) {}
  net::HttpResponse handle(const net::HttpRequest& req) override {
    if (req.method != "GET") return net::HttpResponse::json(405, R"({"error":{"code":"METHOD_NOT_ALLOWED","message":"use GET"}})");
    nlohmann::json body = {{"status", "ok"}, {"lobby_id", config_.lobby_id}, {"faults", config_.faults},
                           {"protocols", nlohmann::json::object()}};
    for (const auto& hub : hubs_) body["protocols"][std::string(proto::name(hub->protocol()))] = hub->status();
    return net::HttpResponse::json(200, body.dump());
  }

 private:
  const LobbyConfig& config_;
  const std::vector<std::unique_ptr<Hub>>& hubs_;
};

class MetricsHandler final : public net::HttpHandler {
 public:
  MetricsHandler(Metrics& metrics, net::Server& server) : metrics_(metrics), server_(server) {}
  net::HttpResponse handle(const net::HttpRequest& req) override {
    if (req.method != "GET") return net::HttpResponse::json(405, R"({"error":{"code":"METHOD_NOT_ALLOWED","message":"use GET"}})");
    const auto s = server_.stats();
    std::string text = metrics_.prometheus();
    text += "# HELP agentconform_tcp_connections_open TCP connections currently open (all endpoints).\n";
    text += "# TYPE agentconform_tcp_connections_open gauge\nagentconform_tcp_connections_open " +
            std::to_string(s.connections_open) + "\n";
    text += "# HELP agentconform_tcp_connections_refused_total Connections refused over the connection limit.\n";
    text += "# TYPE agentconform_tcp_connections_refused_total counter\nagentconform_tcp_connections_refused_total " +
            std::to_string(s.connections_refused) + "\n";
    text += "# HELP agentconform_slow_consumer_closes_total Connections closed because their send queue overflowed.\n";
    text += "# TYPE agentconform_slow_consumer_closes_total counter\nagentconform_slow_consumer_closes_total " +
            std::to_string(s.slow_consumer_closes) + "\n";
    net::HttpResponse r = net::HttpResponse::text(200, std::move(text));
    r.headers.erase("content-type");
    r.headers.emplace("content-type", "text/plain; version=0.0.4");
    return r;
  }

 private:
  Metrics& metrics_;
  net::Server& server_;
};

net::ServerOptions server_options(const LobbyConfig& c) {
  net::ServerOptions o;
  o.address = c.listen_address;
  o.port = c.port;
  o.threads = c.threads;
  o.max_connections = c.max_connections;
  o.max_send_queue_bytes = c.max_send_queue_bytes;
  o.handshake_timeout = c.scaled(c.handshake_timeout);
  o.ws_idle_timeout = c.scaled(c.ws_idle_timeout);
  o.http_idle_timeout = c.scaled(c.http_idle_timeout);
  o.tls_cert_file = c.tls_cert_file;
  o.tls_key_file = c.tls_key_file;
  return o;
}

}  // namespace

struct Lobby::Impl {
  explicit Impl(LobbyConfig c) : config(std::move(c)), server(server_options(config)) {}
  LobbyConfig config;
  FaultSet faults;
  Metrics metrics;
  net::Server server;
  std::unique_ptr<HubContext> context;
  std::vector<std::unique_ptr<Hub>> hubs;
  bool stopped = false;
};

Lobby::Lobby(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Expected<std::unique_ptr<Lobby>, std::string> Lobby::start(LobbyConfig config) {
  auto faults = FaultSet::from(config.faults, FaultCatalog::builtin());
  if (!faults) return unexpected(faults.error());
  auto impl = std::make_unique<Impl>(std::move(config));
  impl->faults = std::move(*faults);
  impl->context = std::make_unique<HubContext>(HubContext{impl->config, impl->faults, impl->metrics, impl->server.scheduler()});
  RouteTable routes;
  for (const auto& [id, factory] : hub_factories()) {
    auto hub = factory(*impl->context);
    if (!hub) return unexpected(std::string(proto::name(id)) + ": " + hub.error());
    (*hub)->install(routes);
    impl->hubs.push_back(std::move(*hub));
  }
  for (auto& [path, handler] : routes.http) impl->server.route(path, handler);
  for (auto& [path, handler] : routes.ws) impl->server.route_ws(path, handler);
  impl->server.route("/healthz", std::make_shared<HealthHandler>(impl->config, impl->hubs));
  impl->server.route("/metrics", std::make_shared<MetricsHandler>(impl->metrics, impl->server));
  auto port = impl->server.start();
  if (!port) return unexpected(port.error());
  const std::string host = impl->config.listen_address.find(':') != std::string::npos
                               ? "[" + impl->config.listen_address + "]"
                               : impl->config.listen_address;
  impl->context->base_url = (impl->server.tls_enabled() ? "https://" : "http://") + host + ":" + std::to_string(*port);
  return std::unique_ptr<Lobby>(new Lobby(std::move(impl)));
}

Lobby::~Lobby() { stop(); }

void Lobby::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  for (auto& hub : impl_->hubs) hub->shutdown();
  impl_->server.stop();
}

void Lobby::wait() { impl_->server.wait(); }
std::uint16_t Lobby::port() const { return impl_->server.port(); }
bool Lobby::tls() const { return impl_->server.tls_enabled(); }
std::string Lobby::http_url() const { return impl_->context->base_url; }
std::string Lobby::ws_url() const {
  const std::string& base = impl_->context->base_url;
  return base.starts_with("https") ? "wss" + base.substr(5) : "ws" + base.substr(4);
}
const LobbyConfig& Lobby::config() const { return impl_->config; }
Metrics& Lobby::metrics() { return impl_->metrics; }

}  // namespace ac::ref
