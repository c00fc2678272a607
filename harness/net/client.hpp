// The harness's side of the wire: HTTP requests and WebSocket connections to a target under
// test, over TCP or TLS. Built for hostile targets: every call has a deadline, every buffer a
// cap, and what the target does wrong (bad frames, invalid UTF-8, missing close handshake) is
// reported as data, never as a crash or a hang.
//
// The API is blocking-with-timeout (a case runs on its own thread and waits for the next
// event); the I/O runs on a shared Runtime.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "harness/net/types.hpp"
#include "harness/util/expected.hpp"
#include "harness/websocket/frame.hpp"

namespace ac::net {

// The I/O threads shared by all clients of a run.
class Runtime {
 public:
  explicit Runtime(std::size_t threads = 1);
  // No I/O thread: the I/O runs on the thread that waits (connect, http_request, next, flush),
  // and that thread alone may use the runtime and its clients. For a fuzz job, which is one
  // thread: handing every frame to an I/O thread and every event back cost a dozen futex calls
  // and two context switches per frame, a third of a campaign on two cores (issue 16, perf).
  // `budget`: share that runtime's cap on unread bytes (kRuntimeQueuedBytes), so N jobs hold no
  // more than one runtime would.
  struct CallerDriven {};
  explicit Runtime(CallerDriven, const Runtime* budget = nullptr);
  ~Runtime();
  // Caller-driven: runs what is ready now (bounded like a zero wait), e.g. so the close frames and
  // socket closes of clients just destroyed leave at once rather than at the next wait.
  void run_ready();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

struct TlsClientOptions {
  std::string ca_file;    // PEM bundle to trust; empty: the system store
  bool insecure = false;  // skip certificate and host name verification
  std::string server_name;  // the name the certificate must carry (and SNI); empty: the URL's host
};

struct ClientError {
  enum class Kind { bad_url, unreachable, timeout, tls, protocol, refused };
  Kind kind = Kind::unreachable;
  std::string message;
  // For Kind::refused (the server answered the WebSocket upgrade with a non-101 status):
  int status = 0;
  Headers headers;
  std::string body;

  std::string describe() const;
};

struct HttpResult {
  int status = 0;
  Headers headers;
  std::string body;
};

struct HttpCall {
  std::string method = "GET";
  std::string url;  // http:// or https://
  Headers headers;
  std::string body;
  std::chrono::milliseconds timeout{5000};
  std::size_t max_response_bytes = 8 * 1024 * 1024;
  TlsClientOptions tls;
};

Expected<HttpResult, ClientError> http_request(Runtime& runtime, const HttpCall& call);

// HTTP/1.1 requests over one connection kept open between them (plain http; an https URL gets a
// connection per request, as http_request). A new connection is opened when there is none yet,
// when the URL names another host or port, when the server said "Connection: close" or ended
// the connection, or when the last request failed. A connection the server closed while it was
// idle is noticed before the request is written, so a request is never sent twice. For a
// sequence of POSTs (the fuzzer's AgentProtocol-over-HTTP sessions) this saves a TCP handshake
// and teardown per request on both sides. Used from one thread at a time.
class HttpConnection {
 public:
  explicit HttpConnection(Runtime& runtime);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  Expected<HttpResult, ClientError> request(const HttpCall& call);
  // Connections opened so far (1 for a run of requests the server kept alive).
  std::uint64_t connections_opened() const { return opened_; }

  struct Impl;

 private:
  Runtime& runtime_;
  std::shared_ptr<Impl> impl_;
  std::uint64_t opened_ = 0;
};

// What one WebSocket connection may make the harness hold (docs/limits.md, "What a peer can
// make a run spend"). A frame header declaring more than max_message_bytes is refused before any
// payload is read (close 1009); past max_queued_bytes / max_queued_events of unread messages the
// client stops reading (TCP pushes back on the peer) until the case takes some; a run of pings
// the case has not taken yet is one event with a count; pongs are skipped while more than
// max_pending_pong_bytes wait to be sent, and a peer that leaves more than max_pending_bytes of
// ours unread is disconnected.
struct WsConnectOptions {
  Headers headers;          // extra request headers
  std::string subprotocol;  // Sec-WebSocket-Protocol, when non-empty
  std::chrono::milliseconds timeout{5000};
  std::size_t max_message_bytes = 4 * 1024 * 1024;
  std::size_t max_queued_bytes = 4 * 1024 * 1024;
  std::size_t max_queued_events = 4096;
  std::size_t max_pending_bytes = 16 * 1024 * 1024;
  std::size_t max_pending_pong_bytes = 64 * 1024;
  bool auto_pong = true;     // answer pings (turned off by the fuzzer's "ignore pings" mutation)
  TlsClientOptions tls;
};

// Every WebSocket client of a Runtime together holds at most this many bytes of unread
// messages; past it, connections pause reading until the cases take theirs.
inline constexpr std::size_t kRuntimeQueuedBytes = 64 * 1024 * 1024;

struct WsEvent {
  ws::Event::Kind kind = ws::Event::Kind::text;
  std::string data;
  std::uint16_t close_code = 0;
  std::string close_reason;
  bool invalid_utf8 = false;
  bool transport_closed = false;  // the TCP connection ended (with or without a close frame)
  std::uint64_t repeats = 1;      // ping/pong: how many with this payload arrived in a row before the case took them
  std::chrono::system_clock::time_point at;
};

class WsClient : public std::enable_shared_from_this<WsClient> {
 public:
  // Connects and performs the opening handshake (ws:// or wss://). A non-101 answer is
  // ClientError::Kind::refused with the status, headers and body.
  static Expected<std::shared_ptr<WsClient>, ClientError> connect(Runtime& runtime, const std::string& url,
                                                                  const WsConnectOptions& options);
  ~WsClient();

  void send_text(std::string_view text);
  void send_binary(std::string_view bytes);
  void send_frame(const ws::FrameSpec& frame);  // masked per its spec; may be invalid on purpose
  void send_raw(std::string bytes);             // bytes straight onto the connection
  void ping(std::string payload = {});
  // Waits until every frame sent before it was handed to the kernel (or the connection failed);
  // false if that took longer than `timeout`. The fuzzer uses it so that a frame sent on one
  // connection reaches the target before the next step's frame on another connection.
  bool flush(std::chrono::milliseconds timeout);
  void close(std::uint16_t code, std::string_view reason = {});
  void abort();  // drop the TCP connection without a close frame

  // Next event, waiting at most `timeout`. nullopt on timeout. After the transport closed and
  // all events were taken, returns a close event with transport_closed = true immediately.
  std::optional<WsEvent> next(std::chrono::milliseconds timeout);
  bool transport_open() const;
  const HttpResult& handshake_response() const { return handshake_; }

  struct Impl;

 private:
  WsClient() = default;
  std::shared_ptr<Impl> impl_;
  HttpResult handshake_;
};

}  // namespace ac::net
