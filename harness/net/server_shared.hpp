// Internal to harness/net: state shared by the server and its sessions.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "harness/net/beast_fwd.hpp"
#include "harness/net/server.hpp"

namespace ac::net::detail {

// A session the server can ask to shut down (close 1001 for WebSocket, close for HTTP), and,
// when a peer does not complete that within the grace period, to terminate: drop the TCP
// connection so every pending operation completes and the session (and what its handler holds
// for it) is released before the server's threads stop.
class Session {
 public:
  virtual ~Session() = default;
  virtual void shutdown() = 0;
  virtual void terminate() = 0;
};

struct Shared {
  explicit Shared(ServerOptions o) : options(std::move(o)) {}

  ServerOptions options;
  std::map<std::string, std::shared_ptr<HttpHandler>> http_routes;
  std::map<std::string, std::shared_ptr<WsHandler>> ws_routes;
  std::optional<asio::ssl::context> tls;

  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> next_id{1};
  std::atomic<std::uint64_t> connections_open{0}, connections_total{0}, connections_refused{0};
  std::atomic<std::uint64_t> ws_open{0}, frames_in{0}, frames_out{0}, slow_consumer_closes{0};

  std::mutex sessions_mutex;
  std::unordered_map<std::uint64_t, std::weak_ptr<Session>> sessions;
  std::condition_variable sessions_cv;

  void add_session(std::uint64_t id, std::weak_ptr<Session> s) {
    std::lock_guard lock(sessions_mutex);
    sessions.emplace(id, std::move(s));
  }
  void remove_session(std::uint64_t id) {
    std::lock_guard lock(sessions_mutex);
    sessions.erase(id);
    sessions_cv.notify_all();
  }
};

// Counts one open TCP connection for as long as it lives; moved from the HTTP session to the
// WebSocket session on upgrade.
class ConnectionToken {
 public:
  ConnectionToken() = default;
  explicit ConnectionToken(std::shared_ptr<Shared> s) : shared_(std::move(s)) {}
  ConnectionToken(ConnectionToken&&) = default;
  ConnectionToken& operator=(ConnectionToken&&) = default;
  ~ConnectionToken() {
    if (shared_) shared_->connections_open.fetch_sub(1);
  }
  Shared& shared() const { return *shared_; }
  const std::shared_ptr<Shared>& shared_ptr() const { return shared_; }

 private:
  std::shared_ptr<Shared> shared_;
};

HttpRequest to_request(const http::request<http::string_body>& req, const std::string& remote, bool tls);
http::response<http::string_body> to_beast_response(const HttpResponse& res, unsigned version, bool keep_alive);

template <class Stream>
void run_http_session(ConnectionToken token, Stream&& stream, beast::flat_buffer&& buffer, std::string remote);

// Starts the WebSocket session of an upgrade the HTTP session checked (websocket_refusal) and the
// handler accepted: writes the 101 and runs the connection. `leftover`: bytes the client sent
// behind its upgrade request (its first frames), read with the request.
template <class Stream>
void run_ws_session(ConnectionToken token, Stream&& stream, const std::string& ws_key, HttpRequest request,
                    std::shared_ptr<WsHandler> handler, UpgradeDecision decision, std::string leftover);

// Why an upgrade request is not a valid RFC 6455 opening handshake (the HTTP status and a text
// for the body), or nullopt when it is. Checked before the handler sees the request, so a bad
// handshake never creates handler state.
struct Refusal {
  int status = 400;
  std::string text;
  bool version_header = false;  // 426: answer with Sec-WebSocket-Version: 13
};
std::optional<Refusal> websocket_refusal(const http::request<http::string_body>& req);

}  // namespace ac::net::detail
