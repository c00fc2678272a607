// The networking core of the reference lobby (and of `agentconform serve`): one port serving
// HTTP, HTTPS, WebSocket and secure WebSocket (TLS is detected per connection, or required with
// tls_only), routed by path to HttpHandler / WsHandler implementations that never see Beast or
// Asio.
//
// Every limit that protects the process lives here, in one place: connection cap, header and
// body sizes, WebSocket message size (oversized -> close 1009), invalid UTF-8 (-> 1007), a
// bounded send queue per connection (slow consumer -> close 1008), handshake and idle timeouts
// with keep-alive pings, TCP_NODELAY on every socket.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "harness/net/types.hpp"
#include "harness/util/expected.hpp"

namespace ac::net {

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0: an ephemeral port, see Server::port()
  std::size_t threads = 2;
  std::size_t max_connections = 10000;
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_body_bytes = 1024 * 1024;
  std::size_t max_send_queue_bytes = 8 * 1024 * 1024;
  std::chrono::milliseconds handshake_timeout{10000};  // TLS + HTTP request + WS handshake
  std::chrono::milliseconds http_idle_timeout{30000};
  std::chrono::milliseconds ws_idle_timeout{60000};    // ping at half, close at full silence
  // TLS: PEM files; when both are set, connections starting with a TLS ClientHello are served
  // over TLS (tls_min_version and up) on the same port.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_min_version = "1.2";  // "1.2" or "1.3"
  // With TLS: a connection that does not start with a TLS ClientHello is closed without an
  // answer (a TLS-only port) instead of being served in plain text.
  bool tls_only = false;
};

struct ServerStats {
  std::uint64_t connections_open = 0;
  std::uint64_t connections_total = 0;
  std::uint64_t connections_refused = 0;  // over max_connections
  std::uint64_t ws_open = 0;
  std::uint64_t frames_in = 0;
  std::uint64_t frames_out = 0;
  std::uint64_t slow_consumer_closes = 0;
};

class Server {
 public:
  explicit Server(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Routes, by exact path (query ignored); a WebSocket route "*" takes the upgrades no other
  // route matches (otherwise they are refused with 404). Register before start().
  void route(const std::string& path, std::shared_ptr<HttpHandler> handler);
  void route_ws(const std::string& path, std::shared_ptr<WsHandler> handler);

  // Binds and starts the threads. Returns the bound port.
  Expected<std::uint16_t, std::string> start();
  // Stops accepting, closes every WebSocket with 1001 (going away), waits up to `grace` for
  // clients to finish the close handshake, then stops the threads. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));
  // Blocks until stop() has completed (used by the standalone `agentconform lobby`).
  void wait();

  std::uint16_t port() const;
  bool tls_enabled() const;
  Scheduler& scheduler();
  ServerStats stats() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace ac::net
