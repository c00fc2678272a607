// Client side of the harness: HTTP requests and WebSocket connections (own RFC 6455 framing
// on top of Beast's TCP/TLS streams and HTTP parser, see harness/websocket/frame.hpp).
#include "harness/net/client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <optional>
#include <random>
#include <thread>

#include "harness/net/beast_fwd.hpp"
#include "harness/net/handshake.hpp"

namespace ac::net {

using namespace detail;

// A zero wait on a caller-driven runtime runs at most this many ready handlers, for at most this
// long: under a flood each handler decodes thousands of frames, and a fuzz session's zero waits
// (drain, many per session) must stay cheap.
constexpr int kReadyHandlersPerWait = 64;
constexpr std::chrono::milliseconds kReadyWorkPerWait{1};

// See WsClient::Impl::over_budget().
constexpr std::size_t kRuntimeFloorBytes = 256 * 1024;

struct Runtime::Impl {
  explicit Impl(bool caller_driven) : driven(caller_driven), ioc(caller_driven ? 1 : BOOST_ASIO_CONCURRENCY_HINT_DEFAULT) {}

  const bool driven;  // no I/O threads: the waiting thread runs the handlers (Runtime::CallerDriven)
  asio::io_context ioc;
  // Bytes of unread WebSocket events over all clients of this runtime (kRuntimeQueuedBytes).
  std::shared_ptr<std::atomic<std::size_t>> queued = std::make_shared<std::atomic<std::size_t>>(0);
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  std::vector<std::thread> threads;

  // Waits until `done()` or the deadline. On a caller-driven runtime the wait runs the I/O: what
  // is ready first (a zero timeout still reads what has arrived), then one handler at a time.
  // Never io_context::poll(): a peer that floods (pings, which merge into one event) keeps the
  // reactor ready for ever, and a zero wait would never return (the hostile ping_flood peer).
  // A flood is read at the pace of the waits, and TCP holds the rest back at the peer.
  // `done` takes its own locks: no lock may be held here, as the handlers take them too.
  template <class Done>
  bool drive_until(std::chrono::steady_clock::time_point deadline, Done&& done) {
    if (done()) return true;
    const auto ready_until = std::chrono::steady_clock::now() + kReadyWorkPerWait;
    for (int i = 0; i < kReadyHandlersPerWait && !done(); ++i) {
      if (ioc.poll_one() == 0 || std::chrono::steady_clock::now() >= ready_until) break;
    }
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline || ioc.stopped()) return false;
      ioc.run_one_until(deadline);
    }
    return true;
  }
};

Runtime::Runtime(std::size_t threads) : impl_(std::make_unique<Impl>(false)) {
  for (std::size_t i = 0; i < (threads == 0 ? 1 : threads); ++i) impl_->threads.emplace_back([this] { impl_->ioc.run(); });
}

Runtime::Runtime(CallerDriven, const Runtime* budget) : impl_(std::make_unique<Impl>(true)) {
  if (budget != nullptr) impl_->queued = budget->impl_->queued;
}

Runtime::~Runtime() {
  impl_->work.reset();
  impl_->ioc.stop();
  for (auto& t : impl_->threads) t.join();
}

void Runtime::run_ready() {
  if (impl_->driven) impl_->drive_until(std::chrono::steady_clock::now(), [] { return false; });
}

std::string ClientError::describe() const {
  switch (kind) {
    case Kind::bad_url: return "bad URL: " + message;
    case Kind::unreachable: return "target unreachable: " + message;
    case Kind::timeout: return "timed out: " + message;
    case Kind::tls: return "TLS failure: " + message;
    case Kind::protocol: return "protocol error: " + message;
    case Kind::refused: return "upgrade refused with HTTP " + std::to_string(status) + (body.empty() ? "" : ": " + body.substr(0, 200));
  }
  return message;
}

namespace {

// Mask keys (RFC 6455 §5.3: unpredictable to the peer) from an engine seeded once per thread,
// not once per connection, which read /dev/urandom for every connection of a fuzz campaign.
std::mt19937& mask_rng() {
  thread_local std::mt19937 rng{std::random_device{}()};
  return rng;
}

using ParsedUrl = EndpointUrl;

Expected<ParsedUrl, ClientError> parse_url(const std::string& url) {
  auto parsed = parse_endpoint_url(url);
  if (!parsed) return unexpected(ClientError{ClientError::Kind::bad_url, parsed.error()});
  return std::move(*parsed);
}

// Only a failure to open the TCP connection means the target is unreachable. A deadline shows
// up as timeout or as "operation canceled" (the timer closed the socket): no answer in time. A
// reset or end of stream after the connection was made is the target closing it: an answer.
ClientError error_from(const error_code& ec, const std::string& what, bool connecting = false) {
  if (ec == beast::error::timeout || ec == asio::error::timed_out || ec == asio::error::operation_aborted) {
    return {ClientError::Kind::timeout, what + ": no answer in time"};
  }
  if (ec.category() == asio::error::get_ssl_category() || ec == asio::ssl::error::stream_truncated) {
    return {ClientError::Kind::tls, what + ": " + ec.message()};
  }
  if (connecting) return {ClientError::Kind::unreachable, what + ": " + ec.message()};
  if (ec.category() == http::make_error_code(http::error::end_of_stream).category() && ec != http::error::end_of_stream) {
    return {ClientError::Kind::protocol, what + ": the answer is not acceptable HTTP (" + ec.message() + ")"};
  }
  return {ClientError::Kind::protocol, what + ": the target closed the connection (" + ec.message() + ")"};
}

// An open byte stream, plain or TLS.
class Conn {
 public:
  virtual ~Conn() = default;
  virtual void async_read_some(asio::mutable_buffer buf, std::function<void(error_code, std::size_t)> fn) = 0;
  virtual void async_write(std::shared_ptr<const std::string> bytes, std::function<void(error_code, std::size_t)> fn) = 0;
  virtual void close() = 0;
  virtual asio::any_io_executor executor() = 0;
};

template <class Stream>
class ConnT final : public Conn {
 public:
  explicit ConnT(Stream&& s) : stream_(std::move(s)) {}
  void async_read_some(asio::mutable_buffer buf, std::function<void(error_code, std::size_t)> fn) override {
    stream_.async_read_some(buf, std::move(fn));
  }
  void async_write(std::shared_ptr<const std::string> bytes, std::function<void(error_code, std::size_t)> fn) override {
    asio::async_write(stream_, asio::buffer(*bytes), [bytes, fn = std::move(fn)](error_code ec, std::size_t n) { fn(ec, n); });
  }
  void close() override {
    error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(stream_).close();
  }
  asio::any_io_executor executor() override { return stream_.get_executor(); }
  Stream& stream() { return stream_; }

 private:
  Stream stream_;
};

struct Opened {
  std::shared_ptr<Conn> conn;
  beast::flat_buffer leftover;
  HttpResult response;
};

using Result = Expected<Opened, ClientError>;

std::shared_ptr<asio::ssl::context> make_tls_context(const TlsClientOptions& tls, error_code& ec) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 | asio::ssl::context::no_sslv3 |
                   asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
  if (tls.insecure) {
    ctx->set_verify_mode(asio::ssl::verify_none);
    return ctx;
  }
  ctx->set_verify_mode(asio::ssl::verify_peer);
  if (!tls.ca_file.empty()) {
    ctx->load_verify_file(tls.ca_file, ec);
  } else {
    ctx->set_default_verify_paths(ec);
  }
  return ctx;
}

HttpResult to_result(const http::response<http::string_body>& res) {
  HttpResult out;
  out.status = static_cast<int>(res.result_int());
  for (const auto& f : res) {
    std::string name(f.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers.emplace(std::move(name), std::string(f.value()));
  }
  out.body = res.body();
  return out;
}

// Sends `req` and reads one response on an open stream; for WebSocket upgrades also checks
// the 101 answer. Leaves unread bytes (the first frames) in `opened.leftover`.
template <class Stream>
asio::awaitable<Result> exchange(Stream stream, std::shared_ptr<asio::ssl::context> keep_ctx,
                                 http::request<http::string_body> req, std::chrono::milliseconds timeout,
                                 std::size_t max_body, std::string ws_key) {
  (void)keep_ctx;
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  beast::get_lowest_layer(stream).expires_after(timeout);
  co_await http::async_write(stream, req, token);
  // A server may answer early (413 to an oversize body) and stop reading: the write then
  // fails, yet the answer can already be waiting in our receive buffer, so try to read it.
  const error_code write_ec = ec;
  Opened opened;
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_body);
  parser.header_limit(64 * 1024);
  if (!ws_key.empty()) parser.skip(false);
  co_await http::async_read_header(stream, opened.leftover, parser, token);
  if (ec && write_ec) co_return unexpected(error_from(write_ec, "sending the request"));
  if (ec) co_return unexpected(error_from(ec, "reading the response header"));
  const bool switching = parser.get().result_int() == 101;
  if (!switching || ws_key.empty()) {
    if (!parser.is_done()) co_await http::async_read(stream, opened.leftover, parser, token);
    if (ec && ec != http::error::end_of_stream) co_return unexpected(error_from(ec, "reading the response body"));
  }
  beast::get_lowest_layer(stream).expires_never();
  opened.response = to_result(parser.get());
  if (!ws_key.empty()) {
    if (!switching) {
      ClientError refused{ClientError::Kind::refused, "upgrade refused"};
      refused.status = opened.response.status;
      refused.headers = opened.response.headers;
      refused.body = opened.response.body;
      co_return unexpected(std::move(refused));
    }
    const std::string accept = header_value(opened.response.headers, "sec-websocket-accept");
    if (accept != websocket_accept(ws_key)) {
      co_return unexpected(ClientError{ClientError::Kind::protocol,
                                       "Sec-WebSocket-Accept '" + accept + "' does not match the key (RFC 6455 §4.2.2)"});
    }
  }
  opened.conn = std::make_shared<ConnT<Stream>>(std::move(stream));
  co_return opened;
}

// A TCP connection to the URL's host and port (no_delay set).
asio::awaitable<Expected<beast::tcp_stream, ClientError>> connect_tcp(asio::io_context& ioc, const ParsedUrl& url,
                                                                       std::chrono::milliseconds timeout) {
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  beast::tcp_stream tcp_stream(asio::make_strand(ioc));
  // An address needs no resolver: asio resolves on a thread of its own, a hand-off and a
  // getaddrinfo per connection that were 3 % of a fuzz campaign's time on loopback.
  error_code not_an_address;
  const auto address = asio::ip::make_address(url.host, not_an_address);
  unsigned long port = 0;
  const bool literal = !not_an_address && std::from_chars(url.port.data(), url.port.data() + url.port.size(), port).ec == std::errc() && port <= 65535;
  if (literal) {
    tcp_stream.expires_after(timeout);
    co_await tcp_stream.async_connect(tcp::endpoint(address, static_cast<unsigned short>(port)), token);
  } else {
    tcp::resolver resolver(ioc);
    auto endpoints = co_await resolver.async_resolve(url.host, url.port, token);
    if (ec) co_return unexpected(ClientError{ClientError::Kind::unreachable, "cannot resolve " + url.host + ": " + ec.message()});
    tcp_stream.expires_after(timeout);
    co_await tcp_stream.async_connect(endpoints, token);
  }
  if (ec) co_return unexpected(error_from(ec, "connecting to " + url.host + ":" + url.port, true));
  tcp_stream.socket().set_option(tcp::no_delay(true), ec);
  co_return std::move(tcp_stream);
}

asio::awaitable<Result> open(asio::io_context& ioc, ParsedUrl url, http::request<http::string_body> req,
                             std::chrono::milliseconds timeout, std::size_t max_body, TlsClientOptions tls, std::string ws_key) {
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  auto connected = co_await connect_tcp(ioc, url, timeout);
  if (!connected) co_return unexpected(std::move(connected).error());
  beast::tcp_stream tcp_stream = std::move(*connected);
  if (!url.tls) co_return co_await exchange(std::move(tcp_stream), nullptr, std::move(req), timeout, max_body, ws_key);

  auto ctx = make_tls_context(tls, ec);
  if (ec) co_return unexpected(ClientError{ClientError::Kind::tls, "cannot load CA file " + tls.ca_file + ": " + ec.message()});
  TlsStream stream(std::move(tcp_stream), *ctx);
  const std::string name = tls.server_name.empty() ? url.host : tls.server_name;
  if (!SSL_set_tlsext_host_name(stream.native_handle(), name.c_str())) {
    co_return unexpected(ClientError{ClientError::Kind::tls, "cannot set SNI host name"});
  }
  if (!tls.insecure) stream.set_verify_callback(asio::ssl::host_name_verification(name));
  co_await stream.async_handshake(asio::ssl::stream_base::client, token);
  if (ec) co_return unexpected(error_from(ec, "TLS handshake"));
  co_return co_await exchange(std::move(stream), ctx, std::move(req), timeout, max_body, ws_key);
}

// A value one handler hands to the waiting thread (which runs the handlers itself on a
// caller-driven runtime, so a std::future it blocked on would never be set).
template <class T>
class Completion {
 public:
  void set(T value) {
    std::lock_guard lock(mutex_);
    value_ = std::move(value);
    cv_.notify_all();
  }
  std::optional<T> take(Runtime::Impl& runtime, std::chrono::steady_clock::time_point deadline) {
    if (runtime.driven) {
      runtime.drive_until(deadline, [this] {
        std::lock_guard lock(mutex_);
        return value_.has_value();
      });
    }
    std::unique_lock lock(mutex_);
    cv_.wait_until(lock, deadline, [this] { return value_.has_value(); });
    return std::move(value_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<T> value_;
};

// Runs open() on the runtime and waits for it (the coroutine enforces the deadline itself;
// the wait has a margin so a stuck resolver cannot hold the caller forever).
Result run_open(Runtime& runtime, const ParsedUrl& url, http::request<http::string_body> req, std::chrono::milliseconds timeout,
                std::size_t max_body, const TlsClientOptions& tls, const std::string& ws_key) {
  auto done = std::make_shared<Completion<Result>>();
  auto& ioc = runtime.impl().ioc;
  asio::co_spawn(ioc, open(ioc, url, std::move(req), timeout, max_body, tls, ws_key),
                 [done](std::exception_ptr ex, Result r) {
                   if (ex) {
                     done->set(unexpected(ClientError{ClientError::Kind::protocol, "internal error while connecting"}));
                   } else {
                     done->set(std::move(r));
                   }
                 });
  auto r = done->take(runtime.impl(), std::chrono::steady_clock::now() + timeout * 2 + std::chrono::seconds(1));
  if (!r) return unexpected(ClientError{ClientError::Kind::timeout, "no answer within " + std::to_string(timeout.count()) + " ms"});
  return std::move(*r);
}

http::request<http::string_body> make_request(const std::string& method, const ParsedUrl& url, const Headers& headers,
                                              std::string body) {
  http::request<http::string_body> req;
  req.method_string(method);
  req.target(url.target);
  req.version(11);
  req.set(http::field::host, url.host_header);
  req.set(http::field::user_agent, "agentconform/0.1");
  for (const auto& [k, v] : headers) req.set(k, v);
  req.body() = std::move(body);
  if (!req.body().empty() || method == "POST" || method == "PUT") req.prepare_payload();
  return req;
}

}  // namespace

Expected<HttpResult, ClientError> http_request(Runtime& runtime, const HttpCall& call) {
  auto url = parse_url(call.url);
  if (!url) return unexpected(url.error());
  auto req = make_request(call.method, *url, call.headers, call.body);
  req.set(http::field::connection, "close");
  auto opened = run_open(runtime, *url, std::move(req), call.timeout, call.max_response_bytes, call.tls, "");
  if (!opened) return unexpected(opened.error());
  opened->conn->close();
  return std::move(opened->response);
}

// ------------------------------------------------------------------------------------------
// HTTP client, one connection for many requests
// ------------------------------------------------------------------------------------------

struct HttpConnection::Impl {
  std::optional<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  std::string origin;  // host:port the stream is connected to
};

namespace {

// Whether an idle kept-alive connection can take a request: not if the server closed it (a read
// would see the end of the stream), reset it, or sent something nobody asked for since.
bool idle_connection_usable(beast::tcp_stream& stream) {
  char byte = 0;
  const ssize_t n = ::recv(stream.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

using HttpOutcome = Expected<HttpResult, ClientError>;

// One request on the connection `self` holds, opening it first when there is none. Any failure,
// and an answer that does not keep the connection alive, leaves it closed for the next request.
asio::awaitable<HttpOutcome> keep_alive_exchange(std::shared_ptr<HttpConnection::Impl> self, asio::io_context& ioc, ParsedUrl url,
                                                 http::request<http::string_body> req, std::chrono::milliseconds timeout,
                                                 std::size_t max_body) {
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  if (!self->stream) {
    auto connected = co_await connect_tcp(ioc, url, timeout);
    if (!connected) co_return unexpected(std::move(connected).error());
    self->stream.emplace(std::move(*connected));
    self->buffer.clear();
    self->origin = url.host + ":" + url.port;
  }
  auto& stream = *self->stream;
  stream.expires_after(timeout);
  co_await http::async_write(stream, req, token);
  const error_code write_ec = ec;  // the answer may be waiting all the same (see exchange())
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_body);
  parser.header_limit(64 * 1024);
  co_await http::async_read_header(stream, self->buffer, parser, token);
  std::optional<ClientError> failed;
  if (ec && write_ec) failed = error_from(write_ec, "sending the request");
  else if (ec) failed = error_from(ec, "reading the response header");
  bool ended = false;
  if (!failed && !parser.is_done()) {
    co_await http::async_read(stream, self->buffer, parser, token);
    ended = ec == http::error::end_of_stream;
    if (ec && !ended) failed = error_from(ec, "reading the response body");
  }
  if (failed || ended || !parser.get().keep_alive()) {
    self->stream.reset();  // closes the socket
  } else {
    stream.expires_never();
  }
  if (failed) co_return unexpected(std::move(*failed));
  co_return to_result(parser.get());
}

}  // namespace

HttpConnection::HttpConnection(Runtime& runtime) : runtime_(runtime), impl_(std::make_shared<Impl>()) {}
HttpConnection::~HttpConnection() = default;

Expected<HttpResult, ClientError> HttpConnection::request(const HttpCall& call) {
  auto url = parse_url(call.url);
  if (!url) return unexpected(url.error());
  if (url->tls) {
    ++opened_;
    return http_request(runtime_, call);
  }
  // Bytes read past the last answer (a server that sent more than it declared) would be taken
  // for the start of the next answer: a new connection ignores them, as a connection per request
  // did.
  if (impl_->stream && (impl_->origin != url->host + ":" + url->port || impl_->buffer.size() != 0 ||
                        !idle_connection_usable(*impl_->stream))) {
    impl_->stream.reset();
  }
  if (!impl_->stream) ++opened_;
  auto done = std::make_shared<Completion<HttpOutcome>>();
  auto& ioc = runtime_.impl().ioc;
  asio::co_spawn(ioc, keep_alive_exchange(impl_, ioc, *url, make_request(call.method, *url, call.headers, call.body), call.timeout,
                                          call.max_response_bytes),
                 [done](std::exception_ptr ex, HttpOutcome r) {
                   if (ex) done->set(unexpected(ClientError{ClientError::Kind::protocol, "internal error during the request"}));
                   else done->set(std::move(r));
                 });
  auto r = done->take(runtime_.impl(), std::chrono::steady_clock::now() + call.timeout * 2 + std::chrono::seconds(1));
  if (!r) {
    // The exchange is still under way (a stuck resolver): it keeps its state alive until it ends;
    // the next request starts from a state of its own.
    impl_ = std::make_shared<Impl>();
    return unexpected(ClientError{ClientError::Kind::timeout, "no answer within " + std::to_string(call.timeout.count()) + " ms"});
  }
  return std::move(*r);
}

// ------------------------------------------------------------------------------------------
// WebSocket client
// ------------------------------------------------------------------------------------------

struct WsClient::Impl : std::enable_shared_from_this<WsClient::Impl> {
  std::shared_ptr<Conn> conn;
  WsConnectOptions options;
  ws::FrameDecoder decoder{0};
  ws::MessageAssembler assembler{0};
  std::string inbuf;
  std::array<char, 16384> chunk{};
  std::deque<std::shared_ptr<const std::string>> outq;
  std::size_t pending_bytes = 0;  // in outq (strand only)
  bool writing = false;
  bool sent_close = false;
  std::vector<std::function<void()>> drained;  // flush() waiters, fired when outq empties (strand only)

  std::mutex mutex;
  std::condition_variable cv;
  std::deque<WsEvent> events;
  bool transport_closed = false;
  // Unread events are bounded (WsConnectOptions): past the bound reading pauses until the case
  // takes some, so a flooding peer is held back by TCP instead of filling our memory.
  std::size_t queued_bytes = 0;  // under mutex
  bool paused = false;           // under mutex
  std::shared_ptr<std::atomic<std::size_t>> runtime_queued;
  Runtime::Impl* runtime;  // outlives the client (its io_context runs the handlers); waits drive it when caller-driven

  Impl(std::shared_ptr<Conn> c, WsConnectOptions o, Runtime::Impl& rt)
      : conn(std::move(c)),
        options(std::move(o)),
        decoder(options.max_message_bytes),
        assembler(options.max_message_bytes),
        runtime_queued(rt.queued),
        runtime(&rt) {}
  ~Impl() { *runtime_queued -= queued_bytes; }

  static std::size_t cost(const WsEvent& e) { return e.data.size() + e.close_reason.size() + sizeof(WsEvent); }

  void push(WsEvent e) {
    e.at = std::chrono::system_clock::now();
    std::lock_guard lock(mutex);
    // A ping flood the case has not read yet is one event with a count, not one per ping. Only
    // the same payload again: a pong answering one of our pings must stay its own event (a fuzz
    // barrier took its tagged pong merged into an unsolicited one for unanswered, 2026-11-26).
    if ((e.kind == ws::Event::Kind::ping || e.kind == ws::Event::Kind::pong) && !events.empty() && events.back().kind == e.kind &&
        events.back().data == e.data) {
      ++events.back().repeats;
      cv.notify_all();
      return;
    }
    const std::size_t c = cost(e);
    queued_bytes += c;
    *runtime_queued += c;
    events.push_back(std::move(e));
    cv.notify_all();
  }

  // Requires mutex.
  // The runtime's budget only pauses a connection holding more than kRuntimeFloorBytes itself:
  // one whose case reads always makes progress, even while another connection's case does not.
  bool over_budget() const {
    return queued_bytes > options.max_queued_bytes || events.size() > options.max_queued_events ||
           (runtime_queued->load() > kRuntimeQueuedBytes && queued_bytes > kRuntimeFloorBytes);
  }

  // Requires mutex: takes the oldest event and releases its share of the budget.
  WsEvent take_front() {
    WsEvent e = std::move(events.front());
    events.pop_front();
    const std::size_t c = cost(e);
    queued_bytes -= c;
    *runtime_queued -= c;
    return e;
  }

  // After a read: stop reading while the unread events are over budget. A timer looks again
  // (the budget shared with other connections frees up without this one's case doing anything).
  bool pause_if_full() {
    {
      std::lock_guard lock(mutex);
      if (!over_budget()) return false;
      paused = true;
    }
    recheck_later();
    return true;
  }

  void recheck_later() {
    auto timer = std::make_shared<asio::steady_timer>(conn->executor(), std::chrono::milliseconds(20));
    timer->async_wait([self = shared_from_this(), timer](error_code) {
      {
        std::lock_guard lock(self->mutex);
        if (!self->paused || self->transport_closed) return;
        if (self->over_budget()) {
          self->recheck_later();
          return;
        }
        self->paused = false;
      }
      self->do_read();
    });
  }

  void start(std::string leftover) {
    inbuf = std::move(leftover);
    asio::post(conn->executor(), [self = shared_from_this()] {
      self->drain_frames();
      self->do_read();
    });
  }

  void do_read() {
    if (transport_is_closed()) return;
    conn->async_read_some(asio::buffer(chunk), [self = shared_from_this()](error_code ec, std::size_t n) {
      if (ec) return self->on_transport_end();
      self->inbuf.append(self->chunk.data(), n);
      if (!self->drain_frames()) return;
      if (self->pause_if_full()) return;
      self->do_read();
    });
  }

  // Decodes every complete frame in inbuf. Returns false when the connection was failed.
  bool drain_frames() {
    for (;;) {
      ws::Frame frame;
      std::size_t used = 0;
      std::string error;
      const auto r = decoder.parse(inbuf, frame, used, error);
      if (r == ws::FrameDecoder::Result::need_more) return true;
      if (r == ws::FrameDecoder::Result::error) {
        WsEvent v;
        v.kind = ws::Event::Kind::violation;
        v.data = error;
        push(std::move(v));
        fail(close_code::message_too_big, "frame too large");
        return false;
      }
      inbuf.erase(0, used);
      if (inbuf.empty() && inbuf.capacity() > 1024 * 1024) std::string().swap(inbuf);  // a big frame's room
      auto event = assembler.feed(std::move(frame), /*expect_masked=*/false);
      if (!event) continue;
      WsEvent e;
      e.kind = event->kind;
      e.data = std::move(event->data);
      e.close_code = event->close_code;
      e.close_reason = std::move(event->close_reason);
      e.invalid_utf8 = event->invalid_utf8;
      if (e.kind == ws::Event::Kind::ping && options.auto_pong) {
        // Only while few pongs wait: a peer that pings and does not read gets no more
        // (RFC 6455 §5.5.3 lets an endpoint answer only the latest ping).
        if (pending_bytes <= options.max_pending_pong_bytes) write_frame(ws::FrameSpec{ws::opcode::pong, e.data});
      }
      if (e.kind == ws::Event::Kind::close && !sent_close) {
        // Echo the close (RFC 6455 §5.5.1), then wait for the server to end the TCP connection.
        const std::uint16_t echo = ws::is_valid_close_code(e.close_code) ? e.close_code : close_code::normal;
        write_frame(ws::FrameSpec{ws::opcode::close, e.close_code == 1005 ? std::string() : ws::close_payload(echo, "")});
        sent_close = true;
      }
      const bool is_violation = e.kind == ws::Event::Kind::violation;
      push(std::move(e));
      if (is_violation) {
        fail(close_code::protocol_error, "protocol violation");
        return false;
      }
    }
  }

  void fail(std::uint16_t code, const std::string& reason) {
    if (!sent_close) {
      write_frame(ws::FrameSpec{ws::opcode::close, ws::close_payload(code, reason)});
      sent_close = true;
    }
    // Give the close frame a moment to leave, then drop the connection.
    auto timer = std::make_shared<asio::steady_timer>(conn->executor(), std::chrono::milliseconds(200));
    timer->async_wait([self = shared_from_this(), timer](error_code) { self->conn->close(); });
  }

  void on_transport_end() {
    {
      std::lock_guard lock(mutex);
      if (transport_closed) return;
    }
    conn->close();  // the server ended its side (or the connection broke): release ours too
    WsEvent e;
    e.kind = ws::Event::Kind::close;
    e.close_code = close_code::abnormal;
    e.transport_closed = true;
    e.at = std::chrono::system_clock::now();
    std::lock_guard lock(mutex);
    transport_closed = true;
    events.push_back(std::move(e));
    cv.notify_all();
  }

  bool transport_is_closed() {
    std::lock_guard lock(mutex);
    return transport_closed;
  }

  void write_frame(ws::FrameSpec spec) {
    if (spec.masked) {
      const std::uint32_t k = mask_rng()();
      spec.mask_key = {static_cast<std::uint8_t>(k), static_cast<std::uint8_t>(k >> 8), static_cast<std::uint8_t>(k >> 16),
                       static_cast<std::uint8_t>(k >> 24)};
    }
    write_bytes(ws::encode(spec));
  }

  void write_bytes(std::string bytes) {
    if (pending_bytes + bytes.size() > options.max_pending_bytes) {
      // The peer does not read what we send: drop it rather than queue without end.
      WsEvent v;
      v.kind = ws::Event::Kind::violation;
      v.data = "the target left more than " + std::to_string(options.max_pending_bytes) +
               " bytes of the harness's frames unread; connection dropped (limit: pending outbound data)";
      push(std::move(v));
      outq.clear();
      pending_bytes = 0;
      conn->close();
      fire_drained();
      return;
    }
    pending_bytes += bytes.size();
    outq.push_back(std::make_shared<const std::string>(std::move(bytes)));
    if (!writing) do_write();
  }

  void do_write() {
    writing = true;
    conn->async_write(outq.front(), [self = shared_from_this()](error_code ec, std::size_t) {
      self->writing = false;
      if (ec) {
        self->outq.clear();
        self->pending_bytes = 0;
        self->fire_drained();
        return;
      }
      if (self->outq.empty()) return self->fire_drained();  // cleared by an overflow meanwhile
      self->pending_bytes -= self->outq.front()->size();
      self->outq.pop_front();
      if (!self->outq.empty()) return self->do_write();
      self->fire_drained();
    });
  }

  void fire_drained() {
    auto waiters = std::move(drained);
    drained.clear();
    for (auto& w : waiters) w();
  }

  template <class Fn>
  void on_strand(Fn&& fn) {
    asio::post(conn->executor(), [self = shared_from_this(), fn = std::forward<Fn>(fn)]() mutable { fn(*self); });
  }
};

Expected<std::shared_ptr<WsClient>, ClientError> WsClient::connect(Runtime& runtime, const std::string& url_text,
                                                                   const WsConnectOptions& options) {
  auto url = parse_url(url_text);
  if (!url) return unexpected(url.error());
  if (!url->websocket) return unexpected(ClientError{ClientError::Kind::bad_url, url_text + ": scheme must be ws or wss"});
  const std::string key = websocket_key();
  auto req = make_request("GET", *url, {}, "");
  req.set(http::field::upgrade, "websocket");
  req.set(http::field::connection, "Upgrade");
  req.set(http::field::sec_websocket_key, key);
  req.set(http::field::sec_websocket_version, "13");
  if (!options.subprotocol.empty()) req.set(http::field::sec_websocket_protocol, options.subprotocol);
  for (const auto& [k, v] : options.headers) req.set(k, v);
  auto opened = run_open(runtime, *url, std::move(req), options.timeout, 1024 * 1024, options.tls, key);
  if (!opened) return unexpected(opened.error());
  auto client = std::shared_ptr<WsClient>(new WsClient());
  client->handshake_ = opened->response;
  client->impl_ = std::make_shared<Impl>(opened->conn, options, runtime.impl());
  const auto data = opened->leftover.cdata();
  client->impl_->start(std::string(static_cast<const char*>(data.data()), data.size()));
  return client;
}

WsClient::~WsClient() {
  if (impl_) impl_->on_strand([](Impl& i) { i.conn->close(); });
}

void WsClient::send_text(std::string_view text) {
  impl_->on_strand([t = std::string(text)](Impl& i) mutable { i.write_frame(ws::FrameSpec{ws::opcode::text, std::move(t)}); });
}

void WsClient::send_binary(std::string_view bytes) {
  impl_->on_strand([t = std::string(bytes)](Impl& i) mutable { i.write_frame(ws::FrameSpec{ws::opcode::binary, std::move(t)}); });
}

void WsClient::send_frame(const ws::FrameSpec& frame) {
  impl_->on_strand([f = frame](Impl& i) mutable { i.write_bytes(ws::encode(f)); });
}

void WsClient::send_raw(std::string bytes) {
  impl_->on_strand([b = std::move(bytes)](Impl& i) mutable { i.write_bytes(std::move(b)); });
}

bool WsClient::flush(std::chrono::milliseconds timeout) {
  auto done = std::make_shared<Completion<bool>>();
  // Posted behind every send_* before it on this strand, so it sees their bytes in the queue.
  impl_->on_strand([done](Impl& i) mutable {
    if (i.outq.empty() && !i.writing) return done->set(true);
    i.drained.push_back([done] { done->set(true); });
  });
  return done->take(*impl_->runtime, std::chrono::steady_clock::now() + timeout).has_value();
}

void WsClient::ping(std::string payload) {
  impl_->on_strand([p = std::move(payload)](Impl& i) mutable { i.write_frame(ws::FrameSpec{ws::opcode::ping, std::move(p)}); });
}

void WsClient::close(std::uint16_t code, std::string_view reason) {
  impl_->on_strand([code, r = std::string(reason)](Impl& i) {
    if (i.sent_close) return;
    i.sent_close = true;
    i.write_frame(ws::FrameSpec{ws::opcode::close, ws::close_payload(code, r)});
  });
}

void WsClient::abort() {
  impl_->on_strand([](Impl& i) { i.conn->close(); });
}

std::optional<WsEvent> WsClient::next(std::chrono::milliseconds timeout) {
  if (impl_->runtime->driven) {
    impl_->runtime->drive_until(std::chrono::steady_clock::now() + timeout, [&] {
      std::lock_guard lock(impl_->mutex);
      return !impl_->events.empty() || impl_->transport_closed;
    });
  }
  std::unique_lock lock(impl_->mutex);
  if (!impl_->runtime->driven) impl_->cv.wait_for(lock, timeout, [&] { return !impl_->events.empty() || impl_->transport_closed; });
  if (!impl_->events.empty()) {
    WsEvent e = impl_->take_front();
    // Taking events may bring the connection back under its budget: read on at once.
    if (impl_->paused && !impl_->over_budget()) {
      impl_->paused = false;
      lock.unlock();
      impl_->on_strand([](Impl& i) { i.do_read(); });
    }
    return e;
  }
  if (impl_->transport_closed) {
    WsEvent e;
    e.kind = ws::Event::Kind::close;
    e.close_code = close_code::abnormal;
    e.transport_closed = true;
    e.at = std::chrono::system_clock::now();
    return e;
  }
  return std::nullopt;
}

bool WsClient::transport_open() const {
  std::lock_guard lock(impl_->mutex);
  return !impl_->transport_closed;
}

}  // namespace ac::net
