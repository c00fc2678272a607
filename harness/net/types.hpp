// Plain value types shared by the networking core, the reference lobby's handlers and the
// harness. Nothing here includes Boost.Beast or Asio, so protocol code compiles fast and can
// be driven without sockets (the in-process fuzzers do exactly that).
#pragma once

#include <chrono>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ac::net {

// Header names are stored lower-case; HTTP header names are case-insensitive.
using Headers = std::multimap<std::string, std::string>;

std::string header_value(const Headers& headers, const std::string& lower_name);

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: "/ws/connect?token=...&agent_id=..."
  std::string path;    // decoded path without the query: "/ws/connect"
  std::multimap<std::string, std::string> query;  // decoded query parameters
  Headers headers;
  std::string body;
  std::string remote;  // "127.0.0.1:53422"
  bool tls = false;

  std::string query_value(const std::string& name) const;  // "" when absent
  std::string header(const std::string& lower_name) const { return header_value(headers, lower_name); }
};

struct HttpResponse {
  int status = 200;
  Headers headers;  // content-type defaults to application/json when a body is present
  std::string body;

  static HttpResponse json(int status, std::string body);
  static HttpResponse text(int status, std::string body);
};

// RFC 6455 §7.4.1 close codes used across the project.
namespace close_code {
inline constexpr std::uint16_t normal = 1000;
inline constexpr std::uint16_t going_away = 1001;
inline constexpr std::uint16_t protocol_error = 1002;
inline constexpr std::uint16_t unsupported_data = 1003;
inline constexpr std::uint16_t no_status = 1005;
inline constexpr std::uint16_t abnormal = 1006;
inline constexpr std::uint16_t invalid_payload = 1007;
inline constexpr std::uint16_t policy_violation = 1008;
inline constexpr std::uint16_t message_too_big = 1009;
inline constexpr std::uint16_t internal_error = 1011;
inline constexpr std::uint16_t try_again_later = 1013;
}  // namespace close_code

struct CloseInfo {
  std::uint16_t code = close_code::abnormal;  // 1006 when the connection dropped without a close frame
  std::string reason;
};

// One accepted WebSocket connection as a protocol handler sees it. All methods are
// thread-safe; sends are queued (bounded) and never block.
class Peer {
 public:
  virtual ~Peer() = default;
  virtual std::uint64_t id() const = 0;
  virtual const HttpRequest& upgrade_request() const = 0;
  // Queues a text frame. If the peer's queue exceeds its cap, the peer is disconnected
  // (close 1008, "send queue overflow") and the frame dropped.
  virtual void send_text(std::string frame) = 0;
  virtual void close(std::uint16_t code, std::string reason) = 0;
  // Handler-owned per-connection state, set in on_open or by the upgrade decision.
  std::shared_ptr<void> attachment;
};

// What the handler decides when a client asks to upgrade to WebSocket.
struct UpgradeDecision {
  bool accept = true;
  HttpResponse refusal;                // sent instead of 101 when !accept
  std::shared_ptr<void> attachment;    // copied to Peer::attachment when accepted
  std::string subprotocol;             // echoed in Sec-WebSocket-Protocol when non-empty

  static UpgradeDecision allow(std::shared_ptr<void> attachment = nullptr) {
    UpgradeDecision d;
    d.attachment = std::move(attachment);
    return d;
  }
  static UpgradeDecision refuse(int status, std::string json_body) {
    UpgradeDecision d;
    d.accept = false;
    d.refusal = HttpResponse::json(status, std::move(json_body));
    return d;
  }
};

// A WebSocket endpoint. One instance serves every connection to its path, concurrently from
// the server's threads: implementations synchronize their own state.
class WsHandler {
 public:
  virtual ~WsHandler() = default;
  virtual UpgradeDecision on_upgrade(const HttpRequest& request) { (void)request; return UpgradeDecision::allow(); }
  virtual void on_open(const std::shared_ptr<Peer>& peer) = 0;
  virtual void on_message(const std::shared_ptr<Peer>& peer, std::string_view frame, bool binary) = 0;
  virtual void on_close(const std::shared_ptr<Peer>& peer, const CloseInfo& info) = 0;
  // Largest message accepted on this endpoint; larger ones close the connection with 1009.
  virtual std::size_t max_message_bytes() const { return 1024 * 1024; }
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  virtual HttpResponse handle(const HttpRequest& request) = 0;
  // For handlers that wait on something (an RPC to an agent): call `respond` exactly once,
  // from any thread, later. The default answers synchronously with handle().
  virtual void handle_async(const HttpRequest& request, std::function<void(HttpResponse)> respond) {
    respond(handle(request));
  }
};

// Deferred work for handlers (request timeouts, rate-limit windows, handshake deadlines).
// The server implements it with Asio timers; in-process fuzzers with a manual clock.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  using TimerId = std::uint64_t;
  virtual TimerId after(std::chrono::milliseconds delay, std::function<void()> fn) = 0;
  virtual void cancel(TimerId id) = 0;  // no-op if it already ran
};

}  // namespace ac::net
