// WebSocket sessions (plain and TLS). Each session is also the Peer its handler talks to:
// sends are queued on the session's strand with a byte cap; a close waits until what was
// queued before it has been written, so "error frame, then close 1008" arrives in that order.
#include <deque>

#include "harness/net/server_shared.hpp"

namespace ac::net::detail {
namespace {

CloseInfo close_info_from(error_code ec, const websocket::close_reason& reason) {
  if (ec == websocket::error::closed) return {static_cast<std::uint16_t>(reason.code), std::string(reason.reason.data(), reason.reason.size())};
  if (ec == websocket::error::message_too_big || ec == websocket::error::buffer_overflow) {
    return {close_code::message_too_big, "message too big"};
  }
  if (ec == websocket::error::bad_frame_payload) return {close_code::invalid_payload, "invalid UTF-8 in a text message"};
  if (ec == websocket::condition::protocol_violation) {
    return {close_code::protocol_error, ec.message()};
  }
  return {close_code::abnormal, ec.message()};
}

constexpr std::size_t kReadChunk = 64 * 1024;

template <class Stream>
class WsSession final : public Session, public Peer, public std::enable_shared_from_this<WsSession<Stream>> {
 public:
  WsSession(ConnectionToken token, Stream&& stream, HttpRequest request, std::shared_ptr<WsHandler> handler)
      : token_(std::move(token)), ws_(std::move(stream)), request_(std::move(request)), handler_(std::move(handler)),
        id_(token_.shared().next_id.fetch_add(1)), executor_(ws_.get_executor()), force_close_timer_(executor_) {}

  void start(http::request<http::string_body>&& req, const UpgradeDecision& decision) {
    const auto& o = shared().options;
    websocket::stream_base::timeout timeout{};
    timeout.handshake_timeout = o.handshake_timeout;
    timeout.idle_timeout = o.ws_idle_timeout;
    timeout.keep_alive_pings = true;
    ws_.set_option(timeout);
    ws_.set_option(websocket::stream_base::decorator([sub = decision.subprotocol](websocket::response_type& res) {
      res.set(http::field::server, "agentconform-reference");
      if (!sub.empty()) res.set(http::field::sec_websocket_protocol, sub);
    }));
    ws_.read_message_max(handler_->max_message_bytes());
    ws_.auto_fragment(false);
    attachment = decision.attachment;
    req_ = std::move(req);
    ws_.async_accept(req_, beast::bind_front_handler(&WsSession::on_accept, this->shared_from_this()));
  }

  // Peer
  std::uint64_t id() const override { return id_; }
  const HttpRequest& upgrade_request() const override { return request_; }

  void send_text(std::string frame) override {
    if (in_strand()) {
      enqueue(std::move(frame));
    } else {
      asio::post(executor_, [self = this->shared_from_this(), f = std::move(frame)]() mutable {
        self->enqueue(std::move(f));
      });
    }
  }

  void close(std::uint16_t code, std::string reason) override {
    asio::post(executor_, [self = this->shared_from_this(), code, r = std::move(reason)]() mutable {
      self->begin_close(code, std::move(r), /*drain=*/true);
    });
  }

  // Session
  void shutdown() override { close(close_code::going_away, "server shutting down"); }
  void terminate() override {
    asio::post(executor_, [self = this->shared_from_this()] {
      self->finish({close_code::going_away, "server stopped"});
    });
  }

 private:
  Shared& shared() { return token_.shared(); }

  // Sessions run on a strand; a send from the session's own handler can skip the post.
  bool in_strand() {
    using StrandType = asio::strand<asio::io_context::executor_type>;
    // The session's executor, copied once: get_executor() returns a new any_io_executor (two
    // atomic reference-count updates) on every call, and this runs for every frame sent.
    const auto* strand = executor_.template target<StrandType>();
    return strand != nullptr && strand->running_in_this_thread();
  }

  void on_accept(error_code ec) {
    if (ec) return;  // Beast answered the failed handshake; nothing was opened
    opened_ = true;
    shared().ws_open.fetch_add(1);
    shared().add_session(id_, this->weak_from_this());
    if (shared().stopping) {
      begin_close(close_code::going_away, "server shutting down", false);
    }
    try {
      handler_->on_open(this->shared_from_this());
    } catch (const std::exception&) {
      begin_close(close_code::internal_error, "handler failed", false);
    }
    do_read();
  }

  // Messages are read piece by piece with async_read_some on a plain buffer, not with
  // async_read(DynamicBuffer): Beast 1.81's async_read asks read_size_hint() between the frames
  // of a fragmented message without holding the read lock, so a close started by the handler
  // (error frame + close 1008) that drains the peer's next frames meanwhile leaves it a state
  // that fails `rd_remain > 0` and aborts the process (found by `agentconform fuzz`,
  // tests/fuzz/findings/chopsticks-beast-rd_remain-assert.json). read_some takes the lock
  // first and, once a close is under way, completes with operation_aborted instead. The
  // message size limit is still Beast's (read_message_max, checked per frame header).
  void do_read() {
    ws_.async_read_some(buffer_.prepare(kReadChunk), beast::bind_front_handler(&WsSession::on_read, this->shared_from_this()));
  }

  void on_read(error_code ec, std::size_t bytes) {
    if (ec) return finish(close_info_from(ec, ws_.reason()));
    buffer_.commit(bytes);
    if (!ws_.is_message_done()) return do_read();
    shared().frames_in.fetch_add(1, std::memory_order_relaxed);
    const auto data = buffer_.cdata();
    const std::string_view frame(static_cast<const char*>(data.data()), data.size());
    try {
      handler_->on_message(this->shared_from_this(), frame, !ws_.got_text());
    } catch (const std::exception&) {
      begin_close(close_code::internal_error, "handler failed", false);
    }
    buffer_.consume(buffer_.size());
    do_read();
  }

  void enqueue(std::string frame) {
    if (closing_ || !opened_) return;
    if (queued_bytes_ + frame.size() > shared().options.max_send_queue_bytes) {
      shared().slow_consumer_closes.fetch_add(1, std::memory_order_relaxed);
      return begin_close(close_code::policy_violation, "send queue overflow (slow consumer)", /*drain=*/false);
    }
    queued_bytes_ += frame.size();
    queue_.push_back(std::move(frame));
    if (!writing_) do_write();
  }

  void do_write() {
    writing_ = true;
    ws_.text(true);
    ws_.async_write(asio::buffer(queue_.front()), beast::bind_front_handler(&WsSession::on_write, this->shared_from_this()));
  }

  void on_write(error_code ec, std::size_t) {
    writing_ = false;
    if (ec) {
      queue_.clear();
      queued_bytes_ = 0;
      return force_close();
    }
    shared().frames_out.fetch_add(1, std::memory_order_relaxed);
    queued_bytes_ -= queue_.front().size();
    queue_.pop_front();
    if (!queue_.empty()) return do_write();
    if (close_pending_) send_close();
  }

  void begin_close(std::uint16_t code, std::string reason, bool drain) {
    if (closing_) return;
    closing_ = true;
    close_reason_ = websocket::close_reason(static_cast<websocket::close_code>(code), reason);
    if (!drain) {
      // Keep only the frame being written (it cannot be taken back).
      while (queue_.size() > (writing_ ? 1u : 0u)) {
        queued_bytes_ -= queue_.back().size();
        queue_.pop_back();
      }
    }
    // A peer that does not read will never complete the close handshake: cut the TCP
    // connection after the handshake timeout.
    force_close_timer_.expires_after(shared().options.handshake_timeout);
    force_close_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (!ec) self->force_close();
    });
    if (writing_ || !queue_.empty()) {
      close_pending_ = true;
      return;
    }
    send_close();
  }

  void send_close() {
    close_pending_ = false;
    ws_.async_close(close_reason_, [self = this->shared_from_this()](error_code ec) {
      if (ec) self->force_close();
      // Otherwise the pending read completes with error::closed and calls finish().
    });
  }

  void force_close() {
    error_code ignored;
    beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(ws_).close();
  }

  void finish(CloseInfo info) {
    if (finished_) return;
    finished_ = true;
    force_close_timer_.cancel();
    if (opened_) {
      shared().ws_open.fetch_sub(1);
      try {
        handler_->on_close(this->shared_from_this(), info);
      } catch (const std::exception&) {
      }
    }
    shared().remove_session(id_);
    force_close();
  }

  ConnectionToken token_;
  websocket::stream<Stream> ws_;
  HttpRequest request_;
  std::shared_ptr<WsHandler> handler_;
  std::uint64_t id_;
  const asio::any_io_executor executor_;
  asio::steady_timer force_close_timer_;
  http::request<http::string_body> req_;
  beast::flat_buffer buffer_;
  std::deque<std::string> queue_;
  std::size_t queued_bytes_ = 0;
  websocket::close_reason close_reason_;
  bool writing_ = false;
  bool opened_ = false;
  bool closing_ = false;
  bool close_pending_ = false;
  bool finished_ = false;
};

}  // namespace

template <class Stream>
void run_ws_session(ConnectionToken token, Stream&& stream, http::request<http::string_body>&& req, HttpRequest request,
                    std::shared_ptr<WsHandler> handler, UpgradeDecision decision) {
  auto session = std::make_shared<WsSession<Stream>>(std::move(token), std::move(stream), std::move(request), std::move(handler));
  session->start(std::move(req), decision);
}

template void run_ws_session<PlainStream>(ConnectionToken, PlainStream&&, http::request<http::string_body>&&, HttpRequest,
                                          std::shared_ptr<WsHandler>, UpgradeDecision);
template void run_ws_session<TlsStream>(ConnectionToken, TlsStream&&, http::request<http::string_body>&&, HttpRequest,
                                        std::shared_ptr<WsHandler>, UpgradeDecision);

}  // namespace ac::net::detail
