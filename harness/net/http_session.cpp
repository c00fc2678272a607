// HTTP/1.1 sessions (plain and TLS): read a request within the limits, answer it through the
// routed HttpHandler, or hand the connection to a WebSocket session on upgrade.
#include <array>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "harness/net/server_shared.hpp"

namespace ac::net::detail {

HttpRequest to_request(const http::request<http::string_body>& req, const std::string& remote, bool tls) {
  HttpRequest out;
  out.method = std::string(req.method_string());
  out.target = std::string(req.target());
  out.remote = remote;
  out.tls = tls;
  out.body = req.body();
  for (const auto& field : req) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers.emplace(std::move(name), std::string(field.value()));
  }
  auto parsed = boost::urls::parse_origin_form(out.target);
  if (parsed) {
    out.path = std::string(parsed->path());
    for (auto param : parsed->params()) out.query.emplace(std::string(param.key), std::string(param.value));
  } else {
    out.path = out.target.substr(0, out.target.find('?'));
  }
  return out;
}

http::response<http::string_body> to_beast_response(const HttpResponse& res, unsigned version, bool keep_alive) {
  http::response<http::string_body> out{static_cast<http::status>(res.status), version};
  out.set(http::field::server, "agentconform-reference");
  for (const auto& [name, value] : res.headers) out.set(name, value);
  out.body() = res.body;
  out.keep_alive(keep_alive);
  out.prepare_payload();
  return out;
}

std::optional<Refusal> websocket_refusal(const http::request<http::string_body>& req) {
  // The checks Beast's websocket accept made (boost/beast/websocket/impl/accept.hpp), with its
  // answers; is_upgrade() already checked the method, Connection and Upgrade.
  if (req.version() != 11) return Refusal{400, "Bad HTTP version", false};
  if (req.find(http::field::host) == req.end()) return Refusal{400, "Missing Host", false};
  const auto key = req.find(http::field::sec_websocket_key);
  if (key == req.end()) return Refusal{400, "Missing Sec-WebSocket-Key", false};
  if (key->value().empty() || key->value().size() > 24) return Refusal{400, "Invalid Sec-WebSocket-Key", false};
  const auto version = req.find(http::field::sec_websocket_version);
  if (version == req.end()) return Refusal{400, "Missing Sec-WebSocket-Version", false};
  if (version->value() != "13") return Refusal{426, "Unsupported Sec-WebSocket-Version", true};
  return std::nullopt;
}

namespace {

HttpResponse error_response(int status, const std::string& code, const std::string& message) {
  std::string body = "{\"error\":{\"code\":\"" + code + "\",\"message\":\"" + message + "\"}}";
  return HttpResponse::json(status, std::move(body));
}

template <class Stream>
class HttpSession final : public Session, public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  HttpSession(ConnectionToken token, Stream&& stream, beast::flat_buffer&& buffer, std::string remote)
      : token_(std::move(token)), stream_(std::move(stream)), buffer_(std::move(buffer)), remote_(std::move(remote)),
        id_(token_.shared().next_id.fetch_add(1)) {}

  void start() {
    token_.shared().add_session(id_, this->weak_from_this());
    do_read();
  }

  void shutdown() override {
    asio::post(stream_.get_executor(), [self = this->shared_from_this()] { self->close_now(); });
  }
  void terminate() override { shutdown(); }

 private:
  static constexpr bool kTls = !std::is_same_v<Stream, PlainStream>;

  Shared& shared() { return token_.shared(); }

  void do_read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(shared().options.max_header_bytes));
    parser_->body_limit(shared().options.max_body_bytes);
    beast::get_lowest_layer(stream_).expires_after(first_request_ ? shared().options.handshake_timeout
                                                                  : shared().options.http_idle_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&HttpSession::on_read, this->shared_from_this()));
  }

  void on_read(error_code ec, std::size_t) {
    first_request_ = false;
    if (ec == http::error::end_of_stream || ec == asio::error::operation_aborted || ec == beast::error::timeout) {
      return close_now();
    }
    if (ec) {
      // Answer what we can about a request we refuse to read further, then close.
      if (ec == http::error::header_limit) return reply_and_close(error_response(431, "HEADER_TOO_LARGE", "request header exceeds the limit"));
      if (ec == http::error::body_limit) {
        // The client is most likely still sending the body: closing now would reset the
        // connection and destroy the 413 before the client reads it (RFC 9112 §9.6).
        linger_ = true;
        return reply_and_close(error_response(413, "BODY_TOO_LARGE", "request body exceeds the limit"));
      }
      if (ec == asio::error::eof || ec == asio::error::connection_reset) return close_now();
      return reply_and_close(error_response(400, "BAD_REQUEST", "malformed HTTP request"));
    }
    auto req = parser_->release();
    HttpRequest request = to_request(req, remote_, kTls);

    if (websocket::is_upgrade(req)) {
      auto route = shared().ws_routes.find(request.path);
      if (route == shared().ws_routes.end()) route = shared().ws_routes.find("*");
      if (route == shared().ws_routes.end()) return reply_and_close(error_response(404, "NOT_FOUND", "no WebSocket endpoint at this path"));
      if (auto refusal = websocket_refusal(req)) {
        HttpResponse r = HttpResponse::text(refusal->status, refusal->text);
        if (refusal->version_header) r.headers.emplace("sec-websocket-version", "13");
        return reply_and_close(r);
      }
      UpgradeDecision decision;
      try {
        decision = route->second->on_upgrade(request);
      } catch (const std::exception&) {
        return reply_and_close(error_response(500, "INTERNAL_ERROR", "upgrade handler failed"));
      }
      if (!decision.accept) return reply_and_close(decision.refusal);
      beast::get_lowest_layer(stream_).expires_never();
      shared().remove_session(id_);
      const auto rest = buffer_.cdata();
      std::string leftover(static_cast<const char*>(rest.data()), rest.size());
      const std::string key(req[http::field::sec_websocket_key]);
      run_ws_session<Stream>(std::move(token_), std::move(stream_), key, std::move(request), route->second,
                             std::move(decision), std::move(leftover));
      return;
    }

    auto route = shared().http_routes.find(request.path);
    const unsigned version = req.version();
    const bool keep_alive = req.keep_alive() && !shared().stopping;
    if (route == shared().http_routes.end()) {
      return write(error_response(404, "NOT_FOUND", "no endpoint at this path"), version, keep_alive);
    }
    // The handler may answer later from another thread: hop back onto this session's strand.
    auto respond = [self = this->shared_from_this(), version, keep_alive](HttpResponse response) {
      asio::post(self->stream_.get_executor(), [self, version, keep_alive, r = std::move(response)]() {
        self->write(r, version, keep_alive);
      });
    };
    try {
      route->second->handle_async(request, std::move(respond));
    } catch (const std::exception&) {
      write(error_response(500, "INTERNAL_ERROR", "handler failed"), version, keep_alive);
    }
  }

  void write(const HttpResponse& response, unsigned version, bool keep_alive) {
    res_ = std::make_shared<http::response<http::string_body>>(to_beast_response(response, version, keep_alive));
    beast::get_lowest_layer(stream_).expires_after(shared().options.http_idle_timeout);
    http::async_write(stream_, *res_, [self = this->shared_from_this(), keep_alive](error_code ec, std::size_t) {
      self->res_.reset();
      if (!ec && self->linger_) return self->linger();
      if (ec || !keep_alive) return self->close_now();
      self->do_read();
    });
  }

  // Lingering close: stop sending, then read and discard what the client still sends, for
  // a bounded time and amount, so the answer already written reaches it before we close.
  void linger() {
    error_code ignored;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_send, ignored);
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(2));
    drain();
  }

  void drain() {
    constexpr std::size_t kMaxDrainBytes = 64u << 20;
    auto buffer = std::make_shared<std::array<char, 16384>>();
    beast::get_lowest_layer(stream_).async_read_some(
        asio::buffer(*buffer), [self = this->shared_from_this(), buffer](error_code ec, std::size_t n) {
          self->drained_ += n;
          if (ec || self->drained_ > kMaxDrainBytes) return self->close_now();
          self->drain();
        });
  }

  void reply_and_close(const HttpResponse& response) { write(response, 11, false); }

  void close_now() {
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    if constexpr (kTls) {
      // A TLS close_notify would need another round trip with a possibly hostile peer; the
      // request/response exchange is complete, so closing TCP is enough.
      beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    } else {
      stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    }
    beast::get_lowest_layer(stream_).close();
    shared().remove_session(id_);
  }

  ConnectionToken token_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::string remote_;
  std::uint64_t id_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<http::response<http::string_body>> res_;
  bool first_request_ = true;
  bool closed_ = false;
  bool linger_ = false;
  std::size_t drained_ = 0;
};

}  // namespace

template <class Stream>
void run_http_session(ConnectionToken token, Stream&& stream, beast::flat_buffer&& buffer, std::string remote) {
  std::make_shared<HttpSession<Stream>>(std::move(token), std::move(stream), std::move(buffer), std::move(remote))->start();
}

template void run_http_session<PlainStream>(ConnectionToken, PlainStream&&, beast::flat_buffer&&, std::string);
template void run_http_session<TlsStream>(ConnectionToken, TlsStream&&, beast::flat_buffer&&, std::string);

}  // namespace ac::net::detail
