// WebSocket sessions (plain and TLS) of the server: RFC 6455 on top of the session's byte stream,
// with the framing of ws_wire.hpp. Each session is also the Peer its handler talks to.
//
// Sending. send_text() may be called from any thread: it encodes the frame straight into the
// session's pending buffer under a small mutex, and schedules one flush on the session's strand
// unless a write is already in flight or scheduled. Everything queued by the time the flush runs
// (every frame the relay routed to this connection while the last write was in flight, or while
// the current read batch was handled) leaves in ONE write: one system call for many frames, no
// per-frame allocation, no per-frame handler. The pending bytes are capped
// (ServerOptions::max_send_queue_bytes): a consumer that does not read is closed with 1008.
// A close waits until what was queued before it has been written, so "error frame, then close
// 1008" arrives in that order.
//
// Reading. A plain connection waits for readability without a buffer of its own and then reads
// into a buffer of its thread: an idle connection holds no read buffer at all (the Node `ws`
// relay holds none either; docs/performance.md has the figures). Complete messages are handed to
// the handler as views into that buffer; only an incomplete frame at the end of a read is copied
// into the session, and released once completed. A TLS connection reads through OpenSSL, which
// keeps its own record buffers, into a 16 KiB buffer of the session.
//
// Limits and timeouts: the handler's max_message_bytes (larger -> close 1009), invalid UTF-8 in
// a text message (-> 1007), protocol violations (-> 1002), a ping after half of ws_idle_timeout
// of silence and the end of the connection after the whole of it, and handshake_timeout for a
// peer to answer our close frame before the TCP connection is cut.

#include "harness/net/handshake.hpp"
#include "harness/net/server_shared.hpp"
#include "harness/net/ws_wire.hpp"

#include <optional>

namespace ac::net::detail {
namespace {

constexpr std::size_t kThreadReadBytes = 64 * 1024;  // plain connections: the thread's buffer
constexpr std::size_t kTlsReadBytes = 16 * 1024;     // TLS: one record's plaintext at most
constexpr std::size_t kKeepWriteBuffer = 64 * 1024;  // larger write buffers are released once drained
constexpr std::size_t kMaxPendingPongBytes = 64 * 1024;  // pongs owed to a peer that does not read
constexpr int kReadsPerTurn = 8;                     // then let other connections of the thread run

char* thread_read_buffer() {
  thread_local std::unique_ptr<char[]> buffer(new char[kThreadReadBytes]);
  return buffer.get();
}

template <class Stream>
class WsSession final : public Session, public Peer, public std::enable_shared_from_this<WsSession<Stream>> {
  static constexpr bool kPlain = std::is_same_v<Stream, PlainStream>;
  // A plain session owns the bare socket (the tcp_stream's timers are not needed: the session
  // has its own); a TLS session keeps the whole stream.
  using Io = std::conditional_t<kPlain, tcp::socket, Stream>;

 public:
  WsSession(ConnectionToken token, Stream&& stream, HttpRequest request, std::shared_ptr<WsHandler> handler)
      : token_(std::move(token)), io_(take(std::move(stream))), request_(std::move(request)), handler_(std::move(handler)),
        id_(token_.shared().next_id.fetch_add(1)), executor_(io_.get_executor()), idle_timer_(executor_),
        close_timer_(executor_), reader_(handler_->max_message_bytes()) {}

  void start(const std::string& ws_key, const UpgradeDecision& decision, std::string leftover) {
    attachment = decision.attachment;
    inbox_ = std::move(leftover);
    std::string& res = wbuf_;
    res = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\nSec-WebSocket-Accept: ";
    res += websocket_accept(ws_key);
    res += "\r\nServer: agentconform-reference\r\n";
    if (!decision.subprotocol.empty()) res += "Sec-WebSocket-Protocol: " + decision.subprotocol + "\r\n";
    res += "\r\n";
    writing_ = true;
    close_timer_.expires_after(shared().options.handshake_timeout);
    close_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (!ec && !self->opened_) self->force_close();
    });
    asio::async_write(io_, asio::buffer(wbuf_), beast::bind_front_handler(&WsSession::on_accept, this->shared_from_this()));
  }

  // Peer
  std::uint64_t id() const override { return id_; }
  const HttpRequest& upgrade_request() const override { return request_; }

  void send_text(std::string frame) override {
    std::unique_lock lock(out_mutex_);
    if (!accepting_) return;
    if (out_.size() + wbuf_size_ + frame.size() > shared().options.max_send_queue_bytes) {
      accepting_ = false;
      lock.unlock();
      shared().slow_consumer_closes.fetch_add(1, std::memory_order_relaxed);
      asio::post(executor_, [self = this->shared_from_this()] {
        self->begin_close(close_code::policy_violation, "send queue overflow (slow consumer)", /*drain=*/false, /*teardown=*/false);
      });
      return;
    }
    wire::append_frame(out_, wire::opcode::text, frame);
    shared().frames_out.fetch_add(1, std::memory_order_relaxed);
    schedule_flush(lock);
  }

  void close(std::uint16_t code, std::string reason) override {
    asio::post(executor_, [self = this->shared_from_this(), code, r = std::move(reason)]() mutable {
      self->begin_close(code, r, /*drain=*/true, /*teardown=*/false);
    });
  }

  // Session
  void shutdown() override { close(close_code::going_away, "server shutting down"); }
  void terminate() override {
    asio::post(executor_, [self = this->shared_from_this()] {
      self->finish({close_code::going_away, "server stopped"});
      self->force_close();
    });
  }

 private:
  static Io take(Stream&& stream) {
    if constexpr (kPlain) {
      return stream.release_socket();
    } else {
      return std::move(stream);
    }
  }

  Shared& shared() { return token_.shared(); }
  tcp::socket& socket() {
    if constexpr (kPlain) {
      return io_;
    } else {
      return beast::get_lowest_layer(io_).socket();
    }
  }

  void on_accept(error_code ec, std::size_t) {
    std::unique_lock lock(out_mutex_);
    writing_ = false;
    wbuf_.clear();
    lock.unlock();
    close_timer_.cancel();
    if (ec) return force_close();  // nothing was opened
    opened_ = true;
    shared().ws_open.fetch_add(1);
    shared().add_session(id_, this->weak_from_this());
    {
      std::lock_guard guard(out_mutex_);
      accepting_ = true;
    }
    try {
      handler_->on_open(this->shared_from_this());
    } catch (const std::exception&) {
      begin_close(close_code::internal_error, "handler failed", false, false);
    }
    if (shared().stopping) begin_close(close_code::going_away, "server shutting down", true, false);
    arm_idle();
    if constexpr (kPlain) {
      error_code ignored;
      io_.non_blocking(true, ignored);
    } else {
      tls_buffer_.reset(new char[kTlsReadBytes]);
    }
    // Frames the client sent right behind its upgrade request came with it.
    if (!inbox_.empty()) {
      std::string first;
      first.swap(inbox_);
      if (!ingest(first.data(), first.size())) return;
    }
    do_read();
  }

  // ---- reading ----------------------------------------------------------------------------

  void do_read() {
    if (finished_ || reader_.failed()) return;
    if constexpr (kPlain) {
      io_.async_wait(tcp::socket::wait_read, beast::bind_front_handler(&WsSession::on_readable, this->shared_from_this()));
    } else {
      io_.async_read_some(asio::buffer(tls_buffer_.get(), kTlsReadBytes),
                          beast::bind_front_handler(&WsSession::on_tls_read, this->shared_from_this()));
    }
  }

  void on_readable(error_code ec) {
    if (finished_) return;
    if (ec) return lost(ec);
    for (int turn = 0; turn < kReadsPerTurn; ++turn) {
      char* buffer = thread_read_buffer();
      const std::size_t n = io_.read_some(asio::buffer(buffer, kThreadReadBytes), ec);
      if (ec == asio::error::would_block || ec == asio::error::try_again) return do_read();
      if (ec) return lost(ec);
      if (!ingest(buffer, n)) return;
    }
    // Still readable: give the thread's other connections a turn first.
    asio::post(executor_, [self = this->shared_from_this()] { self->on_readable({}); });
  }

  void on_tls_read(error_code ec, std::size_t n) {
    if (finished_) return;
    if (ec) return lost(ec);
    if (!ingest(tls_buffer_.get(), n)) return;
    do_read();
  }

  // Feeds received bytes to the frame reader. Returns false when reading must stop.
  bool ingest(char* data, std::size_t n) {
    received_ = true;
    char* base = data;
    std::size_t size = n;
    if (!inbox_.empty()) {  // the rest of a frame that began in an earlier read
      inbox_.append(data, n);
      base = inbox_.data();
      size = inbox_.size();
    }
    // One reference for the whole batch (the handler takes the Peer by shared_ptr).
    const std::shared_ptr<Peer> self = this->shared_from_this();
    const bool from_inbox = base != data;
    const std::size_t used = reader_.consume(base, size, [this, &self](const wire::Event& e) { on_event(e, self); });
    // An event may have ended the session: finish() released inbox_, which `base` may point
    // into (ASan: a heap-use-after-free when a close frame followed a frame split across reads).
    if (finished_) return false;
    if (from_inbox) {
      inbox_.erase(0, used);
      if (inbox_.empty()) std::string().swap(inbox_);
    } else if (used < size) {
      inbox_.assign(base + used, size - used);
    }
    return !finished_ && !reader_.failed() && !peer_closed_;
  }

  void on_event(const wire::Event& e, const std::shared_ptr<Peer>& self) {
    using Kind = wire::Event::Kind;
    switch (e.kind) {
      case Kind::text:
      case Kind::binary: {
        if (close_queued_ || finished_) return;  // we are closing: what the peer still sends is moot
        shared().frames_in.fetch_add(1, std::memory_order_relaxed);
        try {
          handler_->on_message(self, e.data, e.kind == Kind::binary);
        } catch (const std::exception&) {
          begin_close(close_code::internal_error, "handler failed", false, false);
        }
        return;
      }
      case Kind::ping: {
        std::unique_lock lock(out_mutex_);
        if (close_queued_) return;
        // While more than 64 KiB wait to be sent, only the latest ping is owed a pong (RFC 6455
        // §5.5.3), sent once the queue drains (on_write): a peer that pings and does not read
        // cannot grow our send queue, and one that pings while a large message is on its way
        // still gets its pong (dropping it made a fuzz barrier see a healthy lobby as hung).
        if (out_.size() + wbuf_size_ > kMaxPendingPongBytes) {
          owed_pong_ = e.data;
          return;
        }
        owed_pong_.reset();
        wire::append_frame(out_, wire::opcode::pong, e.data);
        schedule_flush(lock);
        return;
      }
      case Kind::pong:
        return;
      case Kind::close:
        peer_closed_ = true;
        peer_close_ = {e.close_code, std::string(e.data)};
        if (close_queued_) {
          // Our close came first and this is the answer: the closing handshake is complete.
          teardown_after_close_ = true;
          if (close_written_) teardown();
          return;
        }
        // The peer closes: echo its code (or an empty close for none) and end the connection.
        begin_close(e.close_code == close_code::no_status ? 0 : e.close_code, "", /*drain=*/false, /*teardown=*/true);
        return;
      case Kind::violation:
        if (close_queued_) {
          // Our close went first and the peer broke the protocol answering it (a close frame
          // with code 1005 or 999): nothing more can complete the handshake, so the TCP
          // connection ends now, not at the handshake timeout 10 s later (a fuzz session's
          // close step waited out its 5 s probe timeout for it, 2026-11-26).
          teardown_after_close_ = true;
          if (close_written_) force_close();
        } else {
          begin_close(e.close_code, "", /*drain=*/false, /*teardown=*/true);
        }
        finish({e.close_code, e.what});
        return;
    }
  }

  // The transport ended (error, end of stream, or the socket closed under a pending read).
  void lost(error_code ec) {
    force_close();
    if (peer_close_) return finish(*peer_close_);
    finish({close_code::abnormal, ec.message()});
  }

  // ---- writing ----------------------------------------------------------------------------

  // Requires out_mutex_ (released here).
  void schedule_flush(std::unique_lock<std::mutex>& lock) {
    if (writing_ || flush_posted_) return;
    flush_posted_ = true;
    lock.unlock();
    asio::post(executor_, [self = this->shared_from_this()] { self->flush(); });
  }

  void flush() {
    std::unique_lock lock(out_mutex_);
    flush_posted_ = false;
    if (writing_ || out_.empty()) return;
    start_write(lock);
  }

  // Requires out_mutex_ (released here) and a non-empty out_.
  void start_write(std::unique_lock<std::mutex>& lock) {
    wbuf_.swap(out_);
    wbuf_size_ = wbuf_.size();
    writing_ = true;
    writing_close_ = close_queued_ && out_.empty() && !close_written_;
    lock.unlock();
    asio::async_write(io_, asio::buffer(wbuf_), beast::bind_front_handler(&WsSession::on_write, this->shared_from_this()));
  }

  void on_write(error_code ec, std::size_t) {
    std::unique_lock lock(out_mutex_);
    writing_ = false;
    wbuf_size_ = 0;
    if (wbuf_.capacity() > kKeepWriteBuffer) {
      std::string().swap(wbuf_);  // a burst is over: give its memory back
    } else {
      wbuf_.clear();
    }
    if (ec) {
      accepting_ = false;
      out_.clear();
      lock.unlock();
      force_close();
      // Reading may have stopped already (after a close frame or a violation): finish here.
      if (peer_close_) return finish(*peer_close_);
      return finish({close_code::abnormal, ec.message()});
    }
    if (writing_close_) {
      close_written_ = true;
      writing_close_ = false;
    }
    if (owed_pong_ && !close_queued_ && out_.size() <= kMaxPendingPongBytes) {
      wire::append_frame(out_, wire::opcode::pong, *owed_pong_);
      owed_pong_.reset();
    }
    if (!out_.empty()) return start_write(lock);
    if (out_.capacity() > kKeepWriteBuffer) std::string().swap(out_);
    lock.unlock();
    if (close_written_ && teardown_after_close_) teardown();
  }

  // Queues a close frame behind what is queued (drain) or instead of it. code 0: a close frame
  // without a payload. With `teardown`, the TCP connection ends once the frame is written (we
  // answer the peer's close or give up on a violating peer); otherwise we wait for the peer's
  // answer, at most handshake_timeout.
  void begin_close(std::uint16_t code, const std::string& reason, bool drain, bool teardown) {
    std::unique_lock lock(out_mutex_);
    if (close_queued_) return;
    accepting_ = false;
    close_queued_ = true;
    teardown_after_close_ = teardown;
    if (!drain) out_.clear();
    wire::append_frame(out_, wire::opcode::close, code == 0 ? std::string() : wire::close_payload(code, reason));
    // A peer that does not read will never complete the close handshake: cut the TCP
    // connection after the handshake timeout.
    close_timer_.expires_after(shared().options.handshake_timeout);
    close_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (!ec) self->force_close();
    });
    schedule_flush(lock);
  }

  // The closing handshake is complete, or we answered the peer's close, or gave up on a peer that
  // broke the protocol: end the TCP connection. Reading has stopped in each case, so the session
  // finishes here (with the close the peer sent, when it sent one).
  void teardown() {
    force_close();
    if (peer_close_) return finish(*peer_close_);
    finish({close_code::abnormal, "connection closed"});
  }

  void force_close() {
    error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
    // Nothing is left to cut: a close timer still armed would keep this session (and its
    // connection's place under max_connections) alive for the whole handshake timeout. Under a
    // fuzz campaign's churn that filled the 10,000 places in seconds and refused connections.
    close_timer_.cancel();
  }

  // ---- keep-alive ---------------------------------------------------------------------------

  void arm_idle() {
    const auto half = shared().options.ws_idle_timeout / 2;
    if (half.count() <= 0) return;
    idle_timer_.expires_after(half);
    idle_timer_.async_wait([self = this->shared_from_this()](error_code ec) {
      if (ec || self->finished_) return;
      self->on_idle();
    });
  }

  void on_idle() {
    if (received_) {
      received_ = false;
      ping_sent_ = false;
      return arm_idle();
    }
    if (ping_sent_) {  // silent for the whole idle timeout, ping unanswered
      finish({close_code::abnormal, "The socket was closed due to a timeout"});
      return force_close();
    }
    std::unique_lock lock(out_mutex_);
    if (!close_queued_) {
      wire::append_frame(out_, wire::opcode::ping, {});
      ping_sent_ = true;
      schedule_flush(lock);
    }
    arm_idle();
  }

  // ---- the end ------------------------------------------------------------------------------

  void finish(CloseInfo info) {
    if (finished_) return;
    finished_ = true;
    {
      std::lock_guard lock(out_mutex_);
      accepting_ = false;
    }
    idle_timer_.cancel();
    if (opened_) {
      shared().ws_open.fetch_sub(1);
      try {
        handler_->on_close(this->shared_from_this(), info);
      } catch (const std::exception&) {
      }
    }
    shared().remove_session(id_);
    std::string().swap(inbox_);
  }

  ConnectionToken token_;
  Io io_;
  HttpRequest request_;
  std::shared_ptr<WsHandler> handler_;
  std::uint64_t id_;
  const asio::any_io_executor executor_;
  asio::steady_timer idle_timer_;
  asio::steady_timer close_timer_;
  wire::ClientReader reader_;
  std::unique_ptr<char[]> tls_buffer_;
  std::string inbox_;  // an incomplete frame carried over to the next read

  // Guarded by out_mutex_ (send_text runs on any thread); the rest belongs to the strand.
  std::mutex out_mutex_;
  std::string out_;   // encoded frames waiting for the next write
  std::string wbuf_;  // the write in flight
  std::size_t wbuf_size_ = 0;
  bool accepting_ = false;
  bool writing_ = false;
  bool flush_posted_ = false;
  bool close_queued_ = false;
  bool writing_close_ = false;
  bool close_written_ = false;
  bool teardown_after_close_ = false;
  std::optional<std::string> owed_pong_;  // the latest ping's payload, while the queue is too long for its pong

  bool opened_ = false;
  bool finished_ = false;
  bool received_ = false;
  bool ping_sent_ = false;
  bool peer_closed_ = false;
  std::optional<CloseInfo> peer_close_;
};

}  // namespace

template <class Stream>
void run_ws_session(ConnectionToken token, Stream&& stream, const std::string& ws_key, HttpRequest request,
                    std::shared_ptr<WsHandler> handler, UpgradeDecision decision, std::string leftover) {
  auto session = std::make_shared<WsSession<Stream>>(std::move(token), std::move(stream), std::move(request), std::move(handler));
  session->start(ws_key, decision, std::move(leftover));
}

template void run_ws_session<PlainStream>(ConnectionToken, PlainStream&&, const std::string&, HttpRequest,
                                          std::shared_ptr<WsHandler>, UpgradeDecision, std::string);
template void run_ws_session<TlsStream>(ConnectionToken, TlsStream&&, const std::string&, HttpRequest,
                                        std::shared_ptr<WsHandler>, UpgradeDecision, std::string);

}  // namespace ac::net::detail
