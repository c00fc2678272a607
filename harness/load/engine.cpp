// The load engine on Asio: connection set-up (TCP, TLS, the WebSocket upgrade, keep-alive HTTP),
// the open- and closed-loop senders, the frame reader and the accounting of deliveries. See
// engine.hpp for what it does; this file is about how.
#include "harness/load/engine.hpp"

#include <openssl/rand.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <thread>

#include "harness/load/marker.hpp"
#include "harness/net/handshake.hpp"

namespace ac::load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using Clock = std::chrono::steady_clock;
using TlsStream = asio::ssl::stream<beast::tcp_stream>;

// ---- problems ------------------------------------------------------------------------------

void Problems::error(const std::string& code) {
  std::lock_guard lock(mutex);
  if (errors.size() < 256 || errors.count(code)) ++errors[code];
  else ++errors["(other codes)"];
}
void Problems::unexpected_frame(const std::string& what) {
  std::lock_guard lock(mutex);
  ++unexpected;
  if (unexpected_examples.size() < kExamples) unexpected_examples.push_back(what);
}
void Problems::connection_failure(const std::string& what) {
  std::lock_guard lock(mutex);
  ++connection_failures;
  if (failure_examples.size() < kExamples) failure_examples.push_back(what);
}
void Problems::invalid(const std::string& what) {
  std::lock_guard lock(mutex);
  if (invalid_examples.size() < kExamples) invalid_examples.push_back(what);
}

Snapshot Counters::latency_snapshot() const {
  Snapshot s;
  for (const auto& h : latency) h->add_to(s);
  return s;
}

namespace {

using ParsedUrl = net::EndpointUrl;

Expected<ParsedUrl, std::string> parse_url(const std::string& url) { return net::parse_endpoint_url(url); }

// xorshift64*: masking keys (RFC 6455 §5.3 asks for unpredictable keys; the relay under test
// must not be able to guess them, which a per-thread generator seeded from the OS ensures).
struct Rng {
  std::uint64_t s;
  Rng() {
    if (RAND_bytes(reinterpret_cast<unsigned char*>(&s), sizeof s) != 1 || s == 0) s = 0x9E3779B97F4A7C15ULL;
  }
  std::uint32_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return static_cast<std::uint32_t>((s * 0x2545F4914F6CDD1DULL) >> 32);
  }
};

// Appends a masked client frame (FIN set) carrying `payload`.
void append_masked(std::string& out, std::uint8_t opcode, std::string_view payload, std::uint32_t key) {
  const std::size_t n = payload.size();
  char h[14];
  h[0] = static_cast<char>(0x80 | opcode);
  std::size_t hn = 2;
  if (n < 126) {
    h[1] = static_cast<char>(0x80 | n);
  } else if (n <= 0xFFFF) {
    h[1] = static_cast<char>(0x80 | 126);
    h[2] = static_cast<char>(n >> 8);
    h[3] = static_cast<char>(n & 0xFF);
    hn = 4;
  } else {
    h[1] = static_cast<char>(0x80 | 127);
    for (int i = 0; i < 8; ++i) h[2 + i] = static_cast<char>((static_cast<std::uint64_t>(n) >> (8 * (7 - i))) & 0xFF);
    hn = 10;
  }
  std::memcpy(h + hn, &key, 4);
  const std::uint8_t* k = reinterpret_cast<const std::uint8_t*>(h + hn);
  hn += 4;
  const std::size_t at = out.size();
  out.append(h, hn);
  out.append(payload);
  char* p = out.data() + at + hn;
  std::size_t i = 0;
  std::uint64_t wk;
  const std::uint8_t kk[8] = {k[0], k[1], k[2], k[3], k[0], k[1], k[2], k[3]};
  std::memcpy(&wk, kk, 8);
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    w ^= wk;
    std::memcpy(p + i, &w, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<char>(p[i] ^ k[i & 3]);
}

std::string close_payload(std::uint16_t code) {
  std::string s;
  s += static_cast<char>(code >> 8);
  s += static_cast<char>(code & 0xFF);
  return s;
}

}  // namespace

// ---- the engine's state ----------------------------------------------------------------------

struct Shard {
  asio::io_context ioc{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  asio::steady_timer timer{ioc};
  std::thread thread;
  Histogram* latency = nullptr;
  Rng rng;
  std::vector<std::shared_ptr<struct Conn>> senders;
  std::uint64_t deliveries = 0;  // for the 1-in-N sample of full checks
  bool ticking = false;
  std::vector<std::shared_ptr<struct Conn>> to_pump;  // closed loop: senders to pump after this read batch
};

// A lane as its sender sees it.
struct SendLane {
  const Lane* lane = nullptr;
  LaneState* state = nullptr;
  Clock::time_point start;       // intended time of message 0
  double interval_ns = 0;        // open loop
  std::uint64_t sent = 0;        // what state->sent says (this thread is its only writer)
  std::uint64_t written_off = 0; // closed loop: in-flight messages given up on (lost)
  std::uint64_t last_delivered = 0;
  Clock::time_point last_progress;
  std::string marker;            // kMarkerBytes + padding, rewritten per message
};

struct Conn : std::enable_shared_from_this<Conn> {
  virtual ~Conn() = default;
  virtual void start_reading() = 0;
  virtual void send_text(std::string text) = 0;  // on the shard's thread
  virtual void pump() = 0;                       // write what is due
  virtual void close() = 0;
  virtual std::uint64_t outstanding() const { return 0; }
  // Whether a tick should wake it: closed, or waiting for its own write or answer to finish
  // (whose completion pumps it), it needs no timer.
  virtual bool wants_tick() const = 0;
  std::atomic<bool> pump_wanted{false};
  Shard* shard = nullptr;
  std::size_t agent = 0;
  std::vector<SendLane> lanes;
};

struct Engine::Impl : Sink {
  Impl(EngineOptions o, Profile& p, const Topology& t, Counters& c) : options(std::move(o)), profile(p), topology(t), counters(c) {}

  EngineOptions options;
  Profile& profile;
  const Topology& topology;
  Counters& counters;
  std::vector<std::unique_ptr<Shard>> shards;
  std::vector<std::shared_ptr<Conn>> agents;  // by agent index
  std::vector<std::shared_ptr<Conn>> http;    // HTTP lanes
  std::shared_ptr<asio::ssl::context> tls;
  Clock::time_point epoch_ = Clock::now();
  std::atomic<bool> sending{false};
  std::atomic<bool> finishing{false};
  std::atomic<std::uint64_t> unsent_{0};
  // Intended send times after this (ns since the epoch) are past the run's end: never sent.
  std::atomic<std::int64_t> stop_at{std::numeric_limits<std::int64_t>::max()};
  bool latency_at_response = false;

  Shard& shard_of(std::size_t i) { return *shards[i % shards.size()]; }

  // Sink: a frame for an agent's connection, from any thread.
  void send(std::size_t agent, std::string text) override {
    if (agent >= agents.size() || !agents[agent]) return;
    auto conn = agents[agent];
    if (conn->shard->ioc.get_executor().running_in_this_thread()) return conn->send_text(std::move(text));
    asio::post(conn->shard->ioc, [conn, t = std::move(text)]() mutable { conn->send_text(std::move(t)); });
  }

  std::uint64_t now_ns() const {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - epoch_).count());
  }

  // A frame carrying a data marker reached `agent` (on its shard's thread).
  void deliver(Shard& shard, std::size_t agent, const Marker& m, std::string_view frame) {
    if (m.lane >= topology.lanes.size()) {
      counters.problems.unexpected_frame("a marker for lane " + std::to_string(m.lane) + ", which this run does not have");
      return;
    }
    const Lane& lane = topology.lanes[m.lane];
    LaneState& st = counters.lanes[m.lane];
    if (lane.to != agent) {
      st.misdelivered.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    const std::uint64_t before = st.ledger.delivered();
    if (st.ledger.arrive(m.seq) == Ledger::Arrival::duplicate) return;
    if (!latency_at_response) {
      const std::uint64_t now = now_ns();
      shard.latency->record(now > m.t_ns ? now - m.t_ns : 0);
    }
    if (options.closed_loop) wake_sender(shard, lane.from);
    if (before < 4 || ++shard.deliveries % options.check_every == 0) {
      // The whole marker text, padding included, is what the sender wrote.
      const std::size_t end = frame.find('"', m.at);
      const std::string_view full = frame.substr(m.at, end == std::string_view::npos ? std::string_view::npos : end - m.at);
      std::string problem = profile.check(agent, lane, frame, full);
      if (!problem.empty()) {
        st.invalid.fetch_add(1, std::memory_order_relaxed);
        counters.problems.invalid("lane " + std::to_string(m.lane) + " message " + std::to_string(m.seq) + ": " + problem);
      }
    }
    profile.answer(agent, lane, m.seq, frame, *this);
  }

  // Closed loop: a delivery frees a place in the window of the lane's sender. The sender is
  // pumped once the current read batch is handled (pump_soon), on its own thread.
  void wake_sender(Shard& shard, std::size_t from) {
    if (from >= agents.size() || !agents[from]) return;
    Conn* c = agents[from].get();
    if (!c->pump_wanted.exchange(true)) shard.to_pump.push_back(agents[from]);
  }

  void pump_soon(Shard& shard) {
    for (auto& c : shard.to_pump) {
      if (c->shard == &shard) {
        c->pump_wanted = false;
        c->pump();
      } else {
        asio::post(c->shard->ioc, [c] {
          c->pump_wanted = false;
          c->pump();
        });
      }
    }
    shard.to_pump.clear();
  }

  void record_seen(const Seen& s, std::size_t agent) {
    if (s.kind == Seen::Kind::error) counters.problems.error(s.code);
    else if (s.kind == Seen::Kind::unexpected) counters.problems.unexpected_frame("agent " + std::to_string(agent) + ": " + s.code);
    else if (s.kind == Seen::Kind::reply) counters.replies.fetch_add(1, std::memory_order_relaxed);
  }

  void failure(const std::string& what) {
    if (!finishing) counters.problems.connection_failure(what);
  }

  // Open loop: the shard's timer wakes at the next intended send time of its lanes.
  void tick(Shard& shard) {
    if (!sending) {
      shard.ticking = false;
      return;
    }
    for (auto& c : shard.senders) c->pump();
    Clock::time_point next = Clock::now() + std::chrono::milliseconds(20);
    for (auto& c : shard.senders) {
      if (!c->wants_tick()) continue;
      for (auto& l : c->lanes) {
        if (options.closed_loop) {
          next = std::min(next, Clock::now() + std::chrono::milliseconds(20));  // written-off check
        } else {
          next = std::min(next, l.start + std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(l.sent) * l.interval_ns)));
        }
      }
    }
    const auto soonest = Clock::now() + std::chrono::microseconds(10);
    if (next < soonest) next = soonest;
    shard.timer.expires_at(next);
    shard.timer.async_wait([this, &shard](error_code ec) {
      if (!ec) tick(shard);
    });
  }

  // Writes the messages of `l` that are due (open loop) or fit the window (closed loop),
  // framing each with `frame` (WebSocket) until `room` bytes were added; returns how many.
  template <class Frame>
  std::size_t generate(SendLane& l, std::size_t room, Frame&& frame) {
    if (!sending) return 0;
    std::uint64_t target = l.sent;
    const auto now = Clock::now();
    const std::int64_t stop = stop_at.load(std::memory_order_relaxed);
    if (options.closed_loop && std::chrono::duration_cast<std::chrono::nanoseconds>(now - epoch_).count() > stop) return 0;
    if (options.closed_loop) {
      const std::uint64_t delivered = latency_at_response ? l.state->answered.load(std::memory_order_relaxed) : l.state->ledger.delivered();
      if (delivered != l.last_delivered) {
        l.last_delivered = delivered;
        l.last_progress = now;
      } else if (l.sent > delivered + l.written_off && now - l.last_progress > std::chrono::seconds(1)) {
        // Nothing came back for a second: what is in flight is lost for flow control (the ledger
        // still counts each loss); the window opens again.
        l.written_off = l.sent - delivered;
        l.last_progress = now;
      }
      const std::uint64_t in_flight = l.sent - std::min(l.sent, delivered + l.written_off);
      if (in_flight < options.window) target = l.sent + (options.window - in_flight);
    } else if (now >= l.start) {
      // Due: every message whose intended time has come, up to the end of the run.
      const auto until = stop == std::numeric_limits<std::int64_t>::max() ? now : std::min(now, epoch_ + std::chrono::nanoseconds(stop));
      target = until < l.start ? l.sent
                               : static_cast<std::uint64_t>(std::floor(std::chrono::duration<double, std::nano>(until - l.start).count() / l.interval_ns)) + 1;
      target = std::max(target, l.sent);
    }
    std::size_t n = 0, bytes = 0;
    std::string& scratch = scratch_text();
    while (l.sent < target && bytes < room) {
      const std::uint64_t seq = l.sent;
      const std::uint64_t t = options.closed_loop
                                  ? now_ns()
                                  : static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(l.start - epoch_).count() +
                                                               static_cast<std::int64_t>(static_cast<double>(seq) * l.interval_ns));
      write_marker(l.marker.data(), kMarkerTag, options.run_id, l.lane->index, seq, t);
      scratch.clear();
      profile.encode(*l.lane, seq, l.marker, scratch);
      bytes += frame(scratch, seq, t);
      ++l.sent;
      ++n;
    }
    l.state->sent.store(l.sent, std::memory_order_relaxed);
    return n;
  }

  static std::string& scratch_text() {
    thread_local std::string s;
    return s;
  }
};

namespace {

// Ends a connection (plain or TLS) for good, both ways at the TCP socket, once: `closed` records
// it and makes a second call do nothing. Whatever the connection was doing, errors no longer
// matter (a WebSocket connection or an HTTP lane, once failed or closed).
template <class Stream>
void end_connection(Stream& stream, bool& closed) {
  if (closed) return;
  closed = true;
  error_code ignored;
  tcp::socket* socket = nullptr;
  if constexpr (std::is_same_v<Stream, tcp::socket>) {
    socket = &stream;
  } else {
    socket = &beast::get_lowest_layer(stream).socket();
  }
  socket->shutdown(tcp::socket::shutdown_both, ignored);
  socket->close(ignored);
}

// ---- WebSocket connection ---------------------------------------------------------------------

template <class Stream>
class WsConn final : public Conn {
 public:
  WsConn(Engine::Impl& engine, Stream&& stream, std::string leftover) : e_(engine), stream_(std::move(stream)) {
    in_ = std::move(leftover);
    end_ = in_.size();
  }

  void start_reading() override {
    parse();
    do_read();
  }

  void send_text(std::string text) override {
    if (closed_) return;
    append_masked(out_, 0x1, text, shard->rng.next());
    flush();
  }

  void pump() override {
    if (closed_) return;
    for (auto& l : lanes) {
      const std::size_t room = out_.size() < e_.options.max_pending_bytes ? e_.options.max_pending_bytes - out_.size() : 0;
      e_.generate(l, room, [this](const std::string& text, std::uint64_t, std::uint64_t) {
        append_masked(out_, 0x1, text, shard->rng.next());
        return text.size();
      });
    }
    flush();
  }

  bool wants_tick() const override { return !closed_ && !closing_ && out_.size() < e_.options.max_pending_bytes; }

  void close() override {
    if (closed_) return;
    closing_ = true;
    append_masked(out_, 0x8, close_payload(1000), shard->rng.next());
    flush();
    // The target answers with its own close and ends the connection; if it does not, the
    // engine's shutdown closes the socket.
  }

 private:
  auto self() { return std::static_pointer_cast<WsConn>(shared_from_this()); }

  void flush() {
    if (writing_ || out_.empty() || closed_) return;
    wbuf_.swap(out_);
    writing_ = true;
    asio::async_write(stream_, asio::buffer(wbuf_), [s = self()](error_code ec, std::size_t) { s->on_write(ec); });
  }

  void on_write(error_code ec) {
    writing_ = false;
    wbuf_.clear();
    if (ec) return fail("write: " + ec.message());
    pump();
  }

  void do_read() {
    if (closed_) return;
    if (in_.size() - end_ < 16384) {
      if (begin_ > 0) {  // move the unread rest to the front
        std::memmove(in_.data(), in_.data() + begin_, end_ - begin_);
        end_ -= begin_;
        begin_ = 0;
      }
      if (in_.size() - end_ < 16384) in_.resize(std::max<std::size_t>(in_.size() * 2, 65536));
    }
    stream_.async_read_some(asio::buffer(in_.data() + end_, in_.size() - end_),
                            [s = self()](error_code ec, std::size_t n) { s->on_read(ec, n); });
  }

  void on_read(error_code ec, std::size_t n) {
    if (ec) {
      if (closing_ || e_.finishing) return shutdown();
      return fail(ec == asio::error::eof ? std::string("the target ended the connection") : "read: " + ec.message());
    }
    end_ += n;
    parse();
    e_.pump_soon(*shard);
    if (!closed_) do_read();
    // A buffer grown for one large frame is given back once it is consumed.
    if (begin_ == end_ && in_.size() > (1u << 20)) {
      in_.clear();
      in_.shrink_to_fit();
      begin_ = end_ = 0;
    }
  }

  void parse() {
    while (!closed_) {
      const std::size_t avail = end_ - begin_;
      if (avail < 2) break;
      const auto* p = reinterpret_cast<const unsigned char*>(in_.data() + begin_);
      const bool fin = (p[0] & 0x80) != 0;
      const std::uint8_t op = p[0] & 0x0F;
      if (p[1] & 0x80) return fail("the target sent a masked frame (RFC 6455 §5.1: a server must not mask)");
      std::uint64_t len = p[1] & 0x7F;
      std::size_t h = 2;
      if (len == 126) {
        if (avail < 4) break;
        len = (std::uint64_t{p[2]} << 8) | p[3];
        h = 4;
      } else if (len == 127) {
        if (avail < 10) break;
        len = 0;
        for (int i = 0; i < 8; ++i) len = (len << 8) | p[2 + i];
        h = 10;
      }
      if (len > e_.options.max_message_bytes) return fail("the target sent a frame of " + std::to_string(len) + " bytes (limit " +
                                                          std::to_string(e_.options.max_message_bytes) + ")");
      if (avail < h + len) {
        // Make room for the whole frame before reading on.
        if (begin_ + h + len > in_.size()) {
          std::memmove(in_.data(), in_.data() + begin_, avail);
          end_ = avail;
          begin_ = 0;
          if (h + len > in_.size()) in_.resize(h + len + 16384);
        }
        break;
      }
      const std::string_view payload(in_.data() + begin_ + h, static_cast<std::size_t>(len));
      begin_ += h + static_cast<std::size_t>(len);
      on_frame(fin, op, payload);
    }
    if (begin_ == end_) begin_ = end_ = 0;
  }

  void on_frame(bool fin, std::uint8_t op, std::string_view payload) {
    switch (op) {
      case 0x1:
      case 0x2:
        if (!fin) {
          frag_.assign(payload);
          frag_op_ = op;
          return;
        }
        if (op == 0x2) return e_.counters.problems.unexpected_frame("agent " + std::to_string(agent) + ": a binary frame");
        return on_text(payload);
      case 0x0:
        if (frag_.size() + payload.size() > e_.options.max_message_bytes) return fail("a fragmented message over the limit");
        frag_.append(payload);
        if (fin) {
          std::string whole;
          whole.swap(frag_);
          if (frag_op_ == 0x1) on_text(whole);
        }
        return;
      case 0x9:
        append_masked(out_, 0xA, payload, shard->rng.next());
        return flush();
      case 0xA:
        return;
      case 0x8: {
        const std::uint16_t code =
            payload.size() >= 2 ? static_cast<std::uint16_t>((static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]))
                                : 1005;
        if (!closing_ && !e_.finishing) {
          std::string reason(payload.size() > 2 ? payload.substr(2, 120) : std::string_view());
          for (char& c : reason) c = (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
          e_.failure("agent " + e_.profile.agent_name(agent) + ": the target closed the connection (" + std::to_string(code) +
                     (reason.empty() ? "" : " \"" + reason + "\"") + ")");
        }
        if (!closing_) {
          closing_ = true;
          append_masked(out_, 0x8, code == 1005 ? std::string() : close_payload(code), shard->rng.next());
          flush();
        }
        return;
      }
      default:
        return fail("a frame with the reserved opcode " + std::to_string(op));
    }
  }

  void on_text(std::string_view frame) {
    if (auto m = find_marker(frame, kMarkerTag, e_.options.run_id)) return e_.deliver(*shard, agent, *m, frame);
    if (frame.find(kReplyTag) != std::string_view::npos && find_marker(frame, kReplyTag, e_.options.run_id)) {
      e_.counters.replies.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    e_.record_seen(e_.profile.on_frame(agent, frame, e_), agent);
  }

  void fail(const std::string& why) {
    if (closed_) return;
    if (!closing_) e_.failure("agent " + e_.profile.agent_name(agent) + ": " + why);
    shutdown();
  }

  void shutdown() { end_connection(stream_, closed_); }

  Engine::Impl& e_;
  Stream stream_;
  std::string in_;
  std::size_t begin_ = 0, end_ = 0;
  std::string frag_;
  std::uint8_t frag_op_ = 0;
  std::string out_, wbuf_;
  bool writing_ = false, closing_ = false, closed_ = false;
};

// ---- HTTP lane (keep-alive, one request at a time) ---------------------------------------------

template <class Stream>
class HttpConn final : public Conn {
 public:
  HttpConn(Engine::Impl& engine, Stream&& stream, std::string head, std::string leftover)
      : e_(engine), stream_(std::move(stream)), head_(std::move(head)) {
    if (!leftover.empty()) {
      auto b = buffer_.prepare(leftover.size());
      std::memcpy(b.data(), leftover.data(), leftover.size());
      buffer_.commit(leftover.size());
    }
  }

  void start_reading() override {}
  void send_text(std::string) override {}

  void pump() override {
    if (busy_ || closed_ || lanes.empty()) return;
    SendLane& l = lanes.front();
    std::uint64_t t_sent = 0;
    request_.clear();
    const std::size_t n = e_.generate(l, 1, [this, &t_sent](const std::string& body, std::uint64_t, std::uint64_t t) {
      request_ = head_;
      request_ += std::to_string(body.size());
      request_ += "\r\n\r\n";
      request_ += body;
      t_sent = t;
      return std::size_t{1};
    });
    if (n == 0) return;
    busy_ = true;
    intended_ = t_sent;
    asio::async_write(stream_, asio::buffer(request_), [s = self()](error_code ec, std::size_t) { s->on_write(ec); });
  }

  void close() override { shutdown(); }
  std::uint64_t outstanding() const override { return busy_ ? 1 : 0; }
  bool wants_tick() const override { return !closed_ && !busy_; }

 private:
  auto self() { return std::static_pointer_cast<HttpConn>(shared_from_this()); }

  void on_write(error_code ec) {
    if (ec) return fail("write: " + ec.message());
    parser_.emplace();
    parser_->body_limit(1 << 20);
    http::async_read(stream_, buffer_, *parser_, [s = self()](error_code ec2, std::size_t) { s->on_read(ec2); });
  }

  void on_read(error_code ec) {
    if (ec) return fail(ec == http::error::end_of_stream ? std::string("the target closed the keep-alive connection") : "read: " + ec.message());
    const auto& res = parser_->get();
    const std::uint64_t now = e_.now_ns();
    shard->latency->record(now > intended_ ? now - intended_ : 0);
    LaneState& st = *lanes.front().state;
    st.answered.fetch_add(1, std::memory_order_relaxed);
    e_.record_seen(e_.profile.on_response(*lanes.front().lane, static_cast<int>(res.result_int()), res.body()), agent);
    const bool keep = res.keep_alive();
    busy_ = false;
    if (!keep) return fail("the target answered with Connection: close (keep-alive connections are needed)");
    pump();
  }

  void fail(const std::string& why) {
    if (closed_) return;
    e_.failure("HTTP lane " + std::to_string(lanes.empty() ? 0 : lanes.front().lane->index) + ": " + why);
    shutdown();
  }

  void shutdown() { end_connection(stream_, closed_); }

  Engine::Impl& e_;
  Stream stream_;
  std::string head_;
  std::string request_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  std::uint64_t intended_ = 0;
  bool busy_ = false, closed_ = false;
};

// ---- opening connections ------------------------------------------------------------------------

struct Opened {
  std::optional<tcp::socket> plain;
  std::unique_ptr<TlsStream> secure;
  std::string leftover;
};
using OpenResult = Expected<Opened, std::string>;

std::string what(const error_code& ec) { return ec.message(); }

asio::awaitable<OpenResult> open_connection(asio::any_io_executor ex, ParsedUrl url, std::shared_ptr<asio::ssl::context> tls_ctx,
                                            bool insecure, std::string request, std::string ws_key, std::chrono::milliseconds timeout) {
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  tcp::resolver resolver(ex);
  auto endpoints = co_await resolver.async_resolve(url.host, url.port, token);
  if (ec) co_return unexpected("cannot resolve " + url.host + ": " + what(ec));
  beast::tcp_stream tcp_stream(ex);
  tcp_stream.expires_after(timeout);
  co_await tcp_stream.async_connect(endpoints, token);
  if (ec) co_return unexpected("cannot connect to " + url.host + ":" + url.port + ": " + what(ec));
  tcp_stream.socket().set_option(tcp::no_delay(true), ec);
  ec = {};
  std::unique_ptr<TlsStream> secure;
  if (url.tls) {
    secure = std::make_unique<TlsStream>(std::move(tcp_stream), *tls_ctx);
    if (!SSL_set_tlsext_host_name(secure->native_handle(), url.host.c_str())) co_return unexpected(std::string("cannot set the TLS SNI name"));
    if (!insecure) secure->set_verify_callback(asio::ssl::host_name_verification(url.host));
    co_await secure->async_handshake(asio::ssl::stream_base::client, token);
    if (ec) co_return unexpected("TLS handshake with " + url.host + ":" + url.port + ": " + what(ec));
  }
  Opened out;
  if (!ws_key.empty()) {
    // The WebSocket opening handshake.
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024);
    if (secure) {
      co_await asio::async_write(*secure, asio::buffer(request), token);
      if (!ec) co_await http::async_read_header(*secure, buffer, parser, token);
    } else {
      co_await asio::async_write(tcp_stream, asio::buffer(request), token);
      if (!ec) co_await http::async_read_header(tcp_stream, buffer, parser, token);
    }
    if (ec) co_return unexpected("the WebSocket handshake with " + url.host + ":" + url.port + url.target.substr(0, url.target.find('?')) +
                                 " failed: " + what(ec));
    const int status = static_cast<int>(parser.get().result_int());
    if (status != 101) {
      if (!parser.is_done()) {
        if (secure) co_await http::async_read(*secure, buffer, parser, token);
        else co_await http::async_read(tcp_stream, buffer, parser, token);
      }
      co_return unexpected("the upgrade of " + url.target.substr(0, url.target.find('?')) + " was refused with HTTP " +
                           std::to_string(status) + (parser.get().body().empty() ? "" : ": " + parser.get().body().substr(0, 300)));
    }
    if (std::string(parser.get()[http::field::sec_websocket_accept]) != net::websocket_accept(ws_key)) {
      co_return unexpected(std::string("the 101 answer's Sec-WebSocket-Accept does not match the key (RFC 6455 §4.2.2)"));
    }
    const auto rest = buffer.cdata();
    out.leftover.assign(static_cast<const char*>(rest.data()), rest.size());
  }
  if (secure) {
    beast::get_lowest_layer(*secure).expires_never();
    out.secure = std::move(secure);
  } else {
    tcp_stream.expires_never();
    out.plain.emplace(tcp_stream.release_socket());
  }
  co_return out;
}

std::string upgrade_request(const ParsedUrl& url, const net::Headers& headers, const std::string& key) {
  std::string r = "GET " + url.target + " HTTP/1.1\r\nHost: " + url.host_header +
                  "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key +
                  "\r\nUser-Agent: agentconform-load/0.1\r\n";
  for (const auto& [k, v] : headers) r += k + ": " + v + "\r\n";
  return r + "\r\n";
}

}  // namespace

// ---- Engine ------------------------------------------------------------------------------------

Engine::Engine(EngineOptions options, Profile& profile, const Topology& topology, Counters& counters)
    : impl_(std::make_unique<Impl>(std::move(options), profile, topology, counters)) {
  auto& e = *impl_;
  e.latency_at_response = topology.http_lanes;
  const std::size_t threads = std::max<std::size_t>(1, e.options.threads);
  for (std::size_t i = 0; i < threads; ++i) {
    auto s = std::make_unique<Shard>();
    counters.latency.push_back(std::make_unique<Histogram>());
    s->latency = counters.latency.back().get();
    Shard* raw = s.get();
    s->thread = std::thread([raw] { raw->ioc.run(); });
    e.shards.push_back(std::move(s));
  }
  e.tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  e.tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 | asio::ssl::context::no_sslv3 |
                     asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
  error_code ec;
  if (e.options.tls.insecure) {
    e.tls->set_verify_mode(asio::ssl::verify_none);
  } else {
    e.tls->set_verify_mode(asio::ssl::verify_peer);
    if (!e.options.tls.ca_file.empty()) e.tls->load_verify_file(e.options.tls.ca_file, ec);
    else e.tls->set_default_verify_paths(ec);
  }
}

Engine::~Engine() { finish(std::chrono::milliseconds(0)); }

std::chrono::steady_clock::time_point Engine::epoch() const { return impl_->epoch_; }

Expected<bool, std::string> Engine::connect() {
  auto& e = *impl_;
  const auto deadline = Clock::now() + e.options.connect_timeout + std::chrono::seconds(2);
  // Every agent's WebSocket, opened concurrently.
  std::vector<std::future<OpenResult>> pending;
  std::vector<std::string> keys;
  for (std::size_t a = 0; a < e.topology.agents; ++a) {
    const Endpoint ep = e.profile.endpoint(a);
    auto url = parse_url(ep.url);
    if (!url) return unexpected("agent " + e.profile.agent_name(a) + ": " + url.error());
    const std::string key = net::websocket_key();
    keys.push_back(key);
    auto promise = std::make_shared<std::promise<OpenResult>>();
    pending.push_back(promise->get_future());
    Shard& shard = e.shard_of(a);
    asio::co_spawn(shard.ioc, open_connection(shard.ioc.get_executor(), *url, e.tls, e.options.tls.insecure, upgrade_request(*url, ep.headers, key), key,
                                              e.options.connect_timeout),
                   [promise](std::exception_ptr ex, OpenResult r) {
                     if (ex) promise->set_value(unexpected(std::string("internal error while connecting")));
                     else promise->set_value(std::move(r));
                   });
  }
  e.agents.resize(e.topology.agents);
  std::string first_error;
  for (std::size_t a = 0; a < pending.size(); ++a) {
    if (pending[a].wait_until(deadline) != std::future_status::ready) {
      if (first_error.empty()) first_error = "agent " + e.profile.agent_name(a) + ": no answer to the connection within the timeout";
      continue;
    }
    auto r = pending[a].get();
    if (!r) {
      if (first_error.empty()) first_error = "agent " + e.profile.agent_name(a) + ": " + r.error();
      continue;
    }
    Shard& shard = e.shard_of(a);
    std::shared_ptr<Conn> conn;
    if (r->secure) {
      conn = std::make_shared<WsConn<TlsStream>>(e, std::move(*r->secure), std::move(r->leftover));
    } else {
      conn = std::make_shared<WsConn<tcp::socket>>(e, std::move(*r->plain), std::move(r->leftover));
    }
    conn->shard = &shard;
    conn->agent = a;
    e.agents[a] = conn;
  }
  if (!first_error.empty()) return unexpected(first_error);
  // Reading starts on every connection, then each agent says its first words (all are connected
  // by now, so a sender never addresses a receiver that is not there yet).
  for (auto& c : e.agents) asio::post(c->shard->ioc, [c] { c->start_reading(); });
  for (std::size_t a = 0; a < e.agents.size(); ++a) {
    auto c = e.agents[a];
    asio::post(c->shard->ioc, [&e, a] { e.profile.on_open(a, e); });
  }
  return true;
}

Expected<bool, std::string> Engine::await_ready(std::chrono::milliseconds timeout) {
  auto& e = *impl_;
  const auto until = Clock::now() + timeout;
  for (;;) {
    {
      std::lock_guard lock(e.counters.problems.mutex);
      if (e.counters.problems.connection_failures > 0) {
        return unexpected("a connection failed while the agents were set up: " + e.counters.problems.failure_examples.front());
      }
    }
    auto waiting = e.profile.waiting();
    if (!waiting) break;
    if (Clock::now() > until) {
      std::string detail;
      {
        std::lock_guard lock(e.counters.problems.mutex);
        for (const auto& [code, n] : e.counters.problems.errors) detail += (detail.empty() ? "" : ", ") + code + " x" + std::to_string(n);
        if (!e.counters.problems.unexpected_examples.empty()) {
          detail += (detail.empty() ? "" : "; ") + std::string("unexpected: ") + e.counters.problems.unexpected_examples.front();
        }
      }
      return unexpected("the agents were not ready within " + std::to_string(timeout.count()) + " ms: " + *waiting +
                        (detail.empty() ? "" : " (the target answered: " + detail + ")"));
    }
    // Retries the profile wants (e.g. a handshake the target was not ready for) run on the first shard.
    asio::post(e.shards.front()->ioc, [&e] { e.profile.tick(e); });
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

void Engine::start(std::size_t message_size) {
  auto& e = *impl_;
  e.options.message_size = message_size;
  // HTTP lanes: their keep-alive connections are opened now (the profile's set-up is done).
  if (e.topology.http_lanes) {
    const Endpoint ep = e.profile.http_endpoint();
    auto url = parse_url(ep.url);
    for (const auto& lane : e.topology.lanes) {
      if (!url) {
        e.failure("HTTP lane: " + url.error());
        break;
      }
      Shard& shard = e.shard_of(lane.to);
      auto promise = std::make_shared<std::promise<OpenResult>>();
      auto fut = promise->get_future();
      asio::co_spawn(shard.ioc, open_connection(shard.ioc.get_executor(), *url, e.tls, e.options.tls.insecure, "", "", e.options.connect_timeout),
                     [promise](std::exception_ptr ex, OpenResult r) {
                       if (ex) promise->set_value(unexpected(std::string("internal error while connecting")));
                       else promise->set_value(std::move(r));
                     });
      if (fut.wait_for(e.options.connect_timeout + std::chrono::seconds(2)) != std::future_status::ready) {
        e.failure("HTTP lane " + std::to_string(lane.index) + ": no connection within the timeout");
        continue;
      }
      auto r = fut.get();
      if (!r) {
        e.failure("HTTP lane " + std::to_string(lane.index) + ": " + r.error());
        continue;
      }
      std::string head = "POST " + url->target + " HTTP/1.1\r\nHost: " + url->host_header + "\r\nUser-Agent: agentconform-load/0.1\r\n";
      for (const auto& [k, v] : ep.headers) head += k + ": " + v + "\r\n";
      head += "Content-Length: ";
      std::shared_ptr<Conn> conn;
      if (r->secure) conn = std::make_shared<HttpConn<TlsStream>>(e, std::move(*r->secure), head, std::move(r->leftover));
      else conn = std::make_shared<HttpConn<tcp::socket>>(e, std::move(*r->plain), head, std::move(r->leftover));
      conn->shard = &shard;
      conn->agent = lane.to;
      e.http.push_back(conn);
    }
  }
  // Padding: every message of a lane is message_size bytes (or as small as the lane allows).
  const std::size_t lanes = e.topology.lanes.size();
  const auto start = Clock::now() + std::chrono::milliseconds(5);
  e.epoch_ = Clock::now();
  auto add_lane = [&](Conn& c, const Lane& lane) {
    SendLane l;
    l.lane = &lane;
    l.state = &e.counters.lanes[lane.index];
    const std::size_t overhead = e.profile.overhead(lane) + kMarkerBytes;
    l.marker.assign(kMarkerBytes + (e.options.message_size > overhead ? e.options.message_size - overhead : 0), 'x');
    if (!e.options.closed_loop) {
      l.interval_ns = 1e9 / e.options.rate_per_lane;
      // Lanes start out of phase, so their messages do not leave in bursts.
      l.start = start + std::chrono::nanoseconds(static_cast<std::int64_t>(l.interval_ns * static_cast<double>(lane.index) / static_cast<double>(lanes)));
    } else {
      l.start = start;
    }
    l.last_progress = start;
    c.lanes.push_back(std::move(l));
  };
  if (e.topology.http_lanes) {
    std::size_t i = 0;
    for (auto& c : e.http) {
      while (i < lanes && e.topology.lanes[i].to != c->agent) ++i;
      if (i < lanes) add_lane(*c, e.topology.lanes[i++]);
    }
    for (auto& c : e.http) c->shard->senders.push_back(c);
  } else {
    for (const auto& lane : e.topology.lanes) add_lane(*e.agents[lane.from], lane);
    for (auto& c : e.agents) {
      if (!c->lanes.empty()) c->shard->senders.push_back(c);
    }
  }
  e.sending = true;
  for (auto& s : e.shards) {
    Shard* raw = s.get();
    asio::post(s->ioc, [&e, raw] {
      raw->ticking = true;
      e.tick(*raw);
    });
  }
}

void Engine::stop_sending() {
  auto& e = *impl_;
  if (!e.sending) return;
  const auto end = Clock::now();
  e.stop_at = std::chrono::duration_cast<std::chrono::nanoseconds>(end - e.epoch_).count();
  // Each thread sends what was due by the end, then counts what it could not send (the target
  // held the sender back: a full socket, or an HTTP lane still waiting for its answer).
  auto promise = std::make_shared<std::promise<void>>();
  auto fut = promise->get_future();
  auto left = std::make_shared<std::atomic<std::size_t>>(e.shards.size());
  for (auto& s : e.shards) {
    Shard* raw = s.get();
    asio::post(s->ioc, [&e, raw, end, promise, left] {
      raw->timer.cancel();
      for (auto& c : raw->senders) c->pump();
      if (!e.options.closed_loop) {
        for (auto& c : raw->senders) {
          for (auto& l : c->lanes) {
            if (end < l.start) continue;
            const auto due = static_cast<std::uint64_t>(std::floor(std::chrono::duration<double, std::nano>(end - l.start).count() / l.interval_ns)) + 1;
            if (due > l.sent) e.unsent_.fetch_add(due - l.sent);
          }
        }
      }
      if (--*left == 0) promise->set_value();
    });
  }
  fut.wait_for(std::chrono::seconds(5));
  e.sending = false;
}

std::uint64_t Engine::in_flight() const {
  auto& e = *impl_;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < e.counters.lanes.size(); ++i) {
    const auto& st = e.counters.lanes[i];
    const std::uint64_t sent = st.sent.load(std::memory_order_relaxed);
    const std::uint64_t done = e.latency_at_response ? st.answered.load(std::memory_order_relaxed) : st.ledger.delivered();
    if (sent > done) n += sent - done;
  }
  return n;
}

std::uint64_t Engine::unsent() const { return impl_->unsent_.load(); }

void Engine::finish(std::chrono::milliseconds grace) {
  auto& e = *impl_;
  if (e.shards.empty()) return;
  e.sending = false;
  e.finishing = true;
  if (grace.count() > 0) {
    for (std::size_t a = 0; a < e.agents.size(); ++a) {
      if (!e.agents[a]) continue;
      asio::post(e.agents[a]->shard->ioc, [&e, a] { e.profile.on_finish(a, e); });
    }
    std::this_thread::sleep_for(grace / 2);
    for (auto& c : e.agents) {
      if (c) asio::post(c->shard->ioc, [c] { c->close(); });
    }
    for (auto& c : e.http) asio::post(c->shard->ioc, [c] { c->close(); });
    std::this_thread::sleep_for(grace / 2);
  }
  for (auto& s : e.shards) {
    Shard* raw = s.get();
    asio::post(s->ioc, [raw] {
      raw->timer.cancel();
      raw->senders.clear();
    });
  }
  // Drop the connections on their threads (closing their sockets ends every pending operation).
  for (auto& c : e.agents) {
    if (c) asio::post(c->shard->ioc, [c] { c->close(); });
  }
  for (auto& s : e.shards) {
    s->work.reset();
    Shard* raw = s.get();
    asio::post(s->ioc, [raw] { raw->ioc.stop(); });
  }
  for (auto& s : e.shards) {
    if (s->thread.joinable()) s->thread.join();
  }
  e.agents.clear();
  e.http.clear();
  e.shards.clear();
}

}  // namespace ac::load
