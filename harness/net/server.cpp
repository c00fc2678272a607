// The listener: accepts TCP connections (TCP_NODELAY, connection cap), detects TLS, and starts
// an HTTP session per connection. Also the Asio-backed Scheduler and graceful shutdown.
#include <thread>
#include <vector>

#include "harness/net/server_shared.hpp"

namespace ac::net {
namespace detail {
namespace {

class AsioScheduler final : public Scheduler {
 public:
  explicit AsioScheduler(asio::io_context& ioc) : ioc_(ioc) {}

  TimerId after(std::chrono::milliseconds delay, std::function<void()> fn) override {
    auto timer = std::make_shared<asio::steady_timer>(ioc_, delay);
    TimerId id;
    {
      std::lock_guard lock(mutex_);
      id = next_++;
      timers_.emplace(id, timer);
    }
    timer->async_wait([this, id, timer, fn = std::move(fn)](error_code ec) {
      {
        std::lock_guard lock(mutex_);
        timers_.erase(id);
      }
      if (ec) return;
      try {
        fn();
      } catch (const std::exception&) {
      }
    });
    return id;
  }

  void cancel(TimerId id) override {
    std::shared_ptr<asio::steady_timer> timer;
    {
      std::lock_guard lock(mutex_);
      auto it = timers_.find(id);
      if (it == timers_.end()) return;
      timer = it->second;
      timers_.erase(it);
    }
    timer->cancel();
  }

  void cancel_all() {
    std::unordered_map<TimerId, std::shared_ptr<asio::steady_timer>> timers;
    {
      std::lock_guard lock(mutex_);
      timers.swap(timers_);
    }
    for (auto& [id, t] : timers) t->cancel();
  }

 private:
  asio::io_context& ioc_;
  std::mutex mutex_;
  TimerId next_ = 1;
  std::unordered_map<TimerId, std::shared_ptr<asio::steady_timer>> timers_;
};

// Peeks at the first bytes of a connection: a TLS ClientHello goes to the TLS handshake,
// anything else is plain HTTP.
class DetectSession : public std::enable_shared_from_this<DetectSession> {
 public:
  DetectSession(ConnectionToken token, tcp::socket&& socket) : token_(std::move(token)), stream_(std::move(socket)) {}

  void start() {
    error_code ec;
    auto endpoint = stream_.socket().remote_endpoint(ec);
    remote_ = ec ? std::string("unknown") : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
    stream_.expires_after(token_.shared().options.handshake_timeout);
    if (!token_.shared().tls) {
      return run_http_session<PlainStream>(std::move(token_), std::move(stream_), std::move(buffer_), std::move(remote_));
    }
    beast::async_detect_ssl(stream_, buffer_, beast::bind_front_handler(&DetectSession::on_detect, shared_from_this()));
  }

 private:
  void on_detect(error_code ec, bool is_tls) {
    if (ec) return;
    if (!is_tls && token_.shared().options.tls_only) {
      // A TLS-only port: plain text is not served (no answer, so no byte of the protocol travels
      // in clear), the connection is closed.
      error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
      stream_.socket().close(ignored);
      return;
    }
    if (!is_tls) {
      return run_http_session<PlainStream>(std::move(token_), std::move(stream_), std::move(buffer_), std::move(remote_));
    }
    tls_stream_.emplace(std::move(stream_), *token_.shared().tls);
    tls_stream_->async_handshake(asio::ssl::stream_base::server, buffer_.data(),
                                 beast::bind_front_handler(&DetectSession::on_handshake, shared_from_this()));
  }

  void on_handshake(error_code ec, std::size_t used) {
    if (ec) return;
    buffer_.consume(used);
    run_http_session<TlsStream>(std::move(token_), std::move(*tls_stream_), std::move(buffer_), std::move(remote_));
  }

  ConnectionToken token_;
  beast::tcp_stream stream_;
  std::optional<TlsStream> tls_stream_;
  beast::flat_buffer buffer_;
  std::string remote_;
};

}  // namespace
}  // namespace detail

struct Server::Impl : std::enable_shared_from_this<Server::Impl> {
  explicit Impl(ServerOptions o)
      : shared(std::make_shared<detail::Shared>(std::move(o))), acceptor(ioc), scheduler(ioc), work(ioc.get_executor()) {}

  void do_accept() {
    // A weak reference: a strong one would make a cycle (Impl owns the io_context, which owns
    // this pending handler) that leaks everything when stop() halts the context first.
    acceptor.async_accept(detail::asio::make_strand(ioc), [weak = weak_from_this()](detail::error_code ec,
                                                                                     detail::tcp::socket socket) {
      auto self = weak.lock();
      if (!self || ec == detail::asio::error::operation_aborted || self->shared->stopping) return;
      if (!ec) self->on_accept(std::move(socket));
      self->do_accept();
    });
  }

  void on_accept(detail::tcp::socket socket) {
    detail::error_code ignored;
    socket.set_option(detail::tcp::no_delay(true), ignored);
    auto& s = *shared;
    if (s.connections_open.load() >= s.options.max_connections) {
      s.connections_refused.fetch_add(1);
      socket.close(ignored);
      return;
    }
    s.connections_open.fetch_add(1);
    s.connections_total.fetch_add(1);
    std::make_shared<detail::DetectSession>(detail::ConnectionToken(shared), std::move(socket))->start();
  }

  std::shared_ptr<detail::Shared> shared;
  detail::asio::io_context ioc;
  detail::tcp::acceptor acceptor;
  detail::AsioScheduler scheduler;
  detail::asio::executor_work_guard<detail::asio::io_context::executor_type> work;
  std::vector<std::thread> threads;
  std::uint16_t port = 0;
  std::mutex stop_mutex;
  std::condition_variable stopped_cv;
  bool started = false;
  bool stopped = false;
};

Server::Server(ServerOptions options) : impl_(std::make_shared<Impl>(std::move(options))) {}

Server::~Server() { stop(std::chrono::milliseconds(500)); }

void Server::route(const std::string& path, std::shared_ptr<HttpHandler> handler) {
  impl_->shared->http_routes[path] = std::move(handler);
}

void Server::route_ws(const std::string& path, std::shared_ptr<WsHandler> handler) {
  impl_->shared->ws_routes[path] = std::move(handler);
}

Expected<std::uint16_t, std::string> Server::start() {
  namespace asio = detail::asio;
  auto& o = impl_->shared->options;
  detail::error_code ec;
  if (!o.tls_cert_file.empty() || !o.tls_key_file.empty()) {
    auto& ctx = impl_->shared->tls.emplace(asio::ssl::context::tls_server);
    ctx.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 | asio::ssl::context::no_sslv3 |
                    asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
    if (o.tls_min_version != "1.2" && o.tls_min_version != "1.3") {
      return unexpected("invalid TLS minimum version '" + o.tls_min_version + "' (use 1.2 or 1.3)");
    }
    SSL_CTX_set_min_proto_version(ctx.native_handle(), o.tls_min_version == "1.3" ? TLS1_3_VERSION : TLS1_2_VERSION);
    ctx.use_certificate_chain_file(o.tls_cert_file, ec);
    if (ec) return unexpected("cannot load TLS certificate " + o.tls_cert_file + ": " + ec.message());
    ctx.use_private_key_file(o.tls_key_file, asio::ssl::context::pem, ec);
    if (ec) return unexpected("cannot load TLS key " + o.tls_key_file + ": " + ec.message());
  }
  const auto address = asio::ip::make_address(o.address, ec);
  if (ec) return unexpected("invalid listen address '" + o.address + "': " + ec.message());
  const detail::tcp::endpoint endpoint(address, o.port);
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return unexpected("cannot listen on " + o.address + ":" + std::to_string(o.port) + ": " + ec.message());
  impl_->port = acceptor.local_endpoint().port();
  impl_->do_accept();
  const std::size_t n = o.threads == 0 ? 1 : o.threads;
  for (std::size_t i = 0; i < n; ++i) impl_->threads.emplace_back([impl = impl_] { impl->ioc.run(); });
  impl_->started = true;
  return impl_->port;
}

void Server::stop(std::chrono::milliseconds grace) {
  auto& impl = *impl_;
  {
    std::lock_guard lock(impl.stop_mutex);
    if (impl.stopped || !impl.started) {
      impl.stopped = true;
      impl.stopped_cv.notify_all();
      return;
    }
  }
  auto& shared = *impl.shared;
  shared.stopping = true;
  detail::asio::post(impl.ioc, [&impl] {
    detail::error_code ignored;
    impl.acceptor.close(ignored);
  });
  std::vector<std::shared_ptr<detail::Session>> sessions;
  {
    std::lock_guard lock(shared.sessions_mutex);
    for (auto& [id, weak] : shared.sessions) {
      if (auto s = weak.lock()) sessions.push_back(std::move(s));
    }
  }
  for (auto& s : sessions) s->shutdown();
  sessions.clear();
  {
    std::unique_lock lock(shared.sessions_mutex);
    shared.sessions_cv.wait_for(lock, grace, [&] { return shared.sessions.empty(); });
    // Peers that did not finish the close in time are dropped, so that no session is left
    // with pending operations when the threads stop (it would keep its handler, and through
    // it the hubs, alive forever).
    for (auto& [id, weak] : shared.sessions) {
      if (auto s = weak.lock()) sessions.push_back(std::move(s));
    }
  }
  for (auto& s : sessions) s->terminate();
  sessions.clear();
  {
    std::unique_lock lock(shared.sessions_mutex);
    shared.sessions_cv.wait_for(lock, std::chrono::seconds(2), [&] { return shared.sessions.empty(); });
  }
  impl.scheduler.cancel_all();
  impl.work.reset();
  impl.ioc.stop();
  for (auto& t : impl.threads) {
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  }
  std::lock_guard lock(impl.stop_mutex);
  impl.stopped = true;
  impl.stopped_cv.notify_all();
}

void Server::wait() {
  std::unique_lock lock(impl_->stop_mutex);
  impl_->stopped_cv.wait(lock, [&] { return impl_->stopped; });
}

std::uint16_t Server::port() const { return impl_->port; }
bool Server::tls_enabled() const { return impl_->shared->tls.has_value(); }
Scheduler& Server::scheduler() { return impl_->scheduler; }

ServerStats Server::stats() const {
  const auto& s = *impl_->shared;
  ServerStats out;
  out.connections_open = s.connections_open.load();
  out.connections_total = s.connections_total.load();
  out.connections_refused = s.connections_refused.load();
  out.ws_open = s.ws_open.load();
  out.frames_in = s.frames_in.load();
  out.frames_out = s.frames_out.load();
  out.slow_consumer_closes = s.slow_consumer_closes.load();
  return out;
}

}  // namespace ac::net
