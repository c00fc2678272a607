#include "reference/lobby/lobby.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <optional>

#include "harness/net/self_signed.hpp"
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
  // With TLS the lobby is TLS-only (ALP §11: "All HTTP and WebSocket communication MUST use
  // TLS") with a TLS 1.3 floor (A2ACP: "All transport encrypted with TLS 1.3"; one port serves
  // every protocol). The faults *.tls.* undo each (apply_tls_faults).
  o.tls_min_version = "1.3";
  o.tls_only = true;
  return o;
}

// Transport faults are the server's, whichever protocol's catalogue declares them (one port
// serves every protocol): a fault named "<protocol>.tls.<what>" is recognised by its suffix.
bool tls_fault(const FaultSet& faults, std::string_view what) {
  for (const auto& name : faults.names()) {
    if (name.ends_with(".tls." + std::string(what))) return true;
  }
  return false;
}

// Applies the TLS faults to the server options before the server is built. The wrong-name fault
// issues, with the configured key, a certificate for another host: it chains to the same trust
// anchor (when the configured certificate is its own CA, as a self-signed one is) but does not
// name this lobby. Its files go into `scratch`, removed when the lobby stops.
// Returns an error message, or nothing.
std::optional<std::string> apply_tls_faults(net::ServerOptions& o, const FaultSet& faults, std::filesystem::path& scratch) {
  if (o.tls_cert_file.empty()) return std::nullopt;
  if (tls_fault(faults, "accept-tls12")) o.tls_min_version = "1.2";
  if (tls_fault(faults, "plaintext-beside-tls")) o.tls_only = false;
  if (tls_fault(faults, "wrong-certificate-name")) {
    static std::atomic<unsigned> counter{0};
    scratch = std::filesystem::temp_directory_path() /
              ("agentconform-wrong-name-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
    auto files = net::write_certificate_for_name(scratch, {o.tls_cert_file, o.tls_key_file}, "wrong-name.invalid");
    if (!files) return "fault tls.wrong-certificate-name: " + files.error();
    o.tls_cert_file = files->cert_pem.string();
    o.tls_key_file = files->key_pem.string();
  }
  return std::nullopt;
}

// A lobby that upgrades a WebSocket at any path and hangs up at once (close 1000), as public
// lobbies do, instead of refusing a path it does not serve.
class HangUpAnyPath : public net::WsHandler {
 public:
  void on_open(const std::shared_ptr<net::Peer>& peer) override { peer->close(1000, ""); }
  void on_message(const std::shared_ptr<net::Peer>&, std::string_view, bool) override {}
  void on_close(const std::shared_ptr<net::Peer>&, const net::CloseInfo&) override {}
};

}  // namespace

struct Lobby::Impl {
  Impl(LobbyConfig c, const net::ServerOptions& o) : config(std::move(c)), server(o) {}
  ~Impl() {
    std::error_code ignored;
    if (!scratch.empty()) std::filesystem::remove_all(scratch, ignored);
  }
  std::filesystem::path scratch;  // files a fault wrote (removed at the end)
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
  std::filesystem::path scratch;
  net::ServerOptions options = server_options(config);
  if (auto error = apply_tls_faults(options, *faults, scratch)) {
    std::error_code ignored;
    if (!scratch.empty()) std::filesystem::remove_all(scratch, ignored);
    return unexpected(*error);
  }
  auto impl = std::make_unique<Impl>(std::move(config), options);
  impl->scratch = std::move(scratch);
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
  if (impl->faults.on("alp.ws.any-path") || impl->faults.on("chopsticks.ws.any-path")) {
    impl->server.route_ws("*", std::make_shared<HangUpAnyPath>());
  }
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
