// The executor: steps onto the wire, answers collected behind a ping barrier, oracles applied.
//
// The barrier: a WebSocket ping on every open connection, twice; a pong comes back only after
// the target handled every frame sent before the ping (round one), and whatever that handling
// queued for another connection arrives there before that connection's pong (round two). So
// "nothing came" is decided without sleeping, and a ping not answered within the probe timeout
// is itself a hang.
#include "harness/fuzz/executor.hpp"

#include "harness/util/redact.hpp"

#include <algorithm>
#include <random>
#include <thread>

#include "harness/protocols/typed/stamp.hpp"
#include "harness/websocket/frame.hpp"

namespace ac::fuzz {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::size_t kCleanLimit = 512 * 1024;  // well under the usual 1 MiB message limit

Trip unreachable(const net::ClientError& e, const std::string& what) {
  if (e.kind == net::ClientError::Kind::timeout) return Trip{"hang", what + " not answered in time", e.describe()};
  return Trip{"liveness", "target unreachable", what + ": " + e.describe()};
}

// Only 500 says the target failed: 501 (not implemented), 502-504 (gateway, unavailable,
// timeout) and the rest are answers a target may give on purpose, e.g. AgentProtocol's
// CAPABILITY_NOT_SUPPORTED as 501 and TIMEOUT as 504 over HTTP (the spec fixes no statuses). A
// fuzz run at 8 jobs against the fault-free lobby reported a 501 as a finding (2026-11-26).
bool internal_error(int status) { return status == 500; }

}  // namespace

Executor::Executor(const TargetView& target, Protocol protocol, ExecOptions options)
    : runtime_(net::Runtime::CallerDriven{}, target.runtime), target_(target), profile_(profile_for(protocol)), options_(options) {
  target_.runtime = &runtime_;
  // A per-executor salt keeps ids apart when several fuzzers share one target; it never
  // influences what is generated.
  salt_ = std::to_string(std::random_device{}() % 1000000);
}

void Executor::note(const std::string& channel, const char* direction, const char* kind, const std::string& data,
                    std::optional<long long> code) {
  if (!options_.record_transcript || transcript_.size() >= options_.transcript_entries) return;
  Json e{{"t_ms", std::chrono::duration<double, std::milli>(Clock::now() - t0_).count()},
         {"channel", channel},
         {"direction", direction},
         {"kind", kind}};
  if (const std::string redacted = redact(data); redacted.size() > options_.transcript_entry_bytes) {  // before a cut could split a secret
    e["data"] = redacted.substr(0, options_.transcript_entry_bytes);
    e["truncated"] = true;
  } else {
    e["data"] = redacted;
  }
  if (!ws::is_valid_utf8(e["data"].get_ref<const std::string&>())) {
    e["data"] = Json(e["data"]).dump(-1, ' ', true, Json::error_handler_t::replace);
    e["invalid_utf8"] = true;
  }
  if (code) e["code"] = *code;
  transcript_.push_back(std::move(e));
}

std::string Executor::substitute(Exec& exec, const std::string& text) {
  if (text.find("${") == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + 64);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find("${", at);
    const std::size_t close = open == std::string::npos ? std::string::npos : text.find('}', open + 2);
    if (open == std::string::npos || close == std::string::npos || close - open > 128) {
      out.append(text, at, std::string::npos);
      break;
    }
    out.append(text, at, open - at);
    const std::string name = text.substr(open + 2, close - open - 2);
    std::optional<std::string> value;
    if (auto it = exec.vars.find(name); it != exec.vars.end()) {
      value = it->second;
    } else if (name == "now") {
      value = proto::typed::utc_now();
    } else if (name.starts_with("id:")) {
      // An id the protocol leaves to the agents (a stream_id, a correlationId): unique to the
      // execution, so parallel sessions never share one by accident (within a session they may,
      // on purpose: the collision mutations).
      value = exec.vars[name] = exec.prefix + name.substr(3);
    } else if (name.starts_with("uuid:")) {
      value = exec.vars[name] = proto::typed::new_uuid_v4();  // fresh per execution, never from the PRNG
    } else if (auto v = profile_.resolve(exec, target_, name)) {
      value = exec.vars[name] = *v;
    }
    out += value ? *value : text.substr(open, close - open + 1);
    at = close + 1;
  }
  return out;
}

void Executor::do_connect(Exec& exec, const Step& step, std::optional<Trip>& trip) {
  if (auto* c = exec.conn(step.conn); c != nullptr && (c->open() || c->http)) return;  // already open
  ConnRecord c;
  c.label = step.conn;
  c.id = exec.id_of(step.conn);
  if (step.data.starts_with("http:")) {
    // An HTTP binding (AgentProtocol over POST): each text step is a request, all of them on one
    // kept-alive connection (opened by the first request), as an HTTP client library would: a
    // TCP connection per POST was a third of the CPU of such a session on both sides.
    c.http = true;
    c.http_path = substitute(exec, step.data.substr(5));
    c.http_connection = std::make_shared<net::HttpConnection>(*target_.runtime);
    note(step.conn, "out", "connect", "HTTP POST " + c.http_path);
    exec.conns.push_back(std::move(c));
    exec.current[step.conn] = exec.conns.size() - 1;
    profile_.connected(exec, exec.conns.back(), step);
    return;
  }
  net::WsConnectOptions opts;
  opts.timeout = target_.probe_timeout;
  opts.tls = target_.config.tls;
  for (const auto& [k, v] : step.headers) opts.headers.emplace(k, substitute(exec, v));
  const std::string path = substitute(exec, step.data);
  note(step.conn, "out", "connect", path);
  auto ws = net::WsClient::connect(*target_.runtime, target_.config.ws_base + path, opts);
  if (ws) {
    c.ws = std::move(*ws);
  } else if (ws.error().kind == net::ClientError::Kind::refused || ws.error().kind == net::ClientError::Kind::bad_url) {
    // bad_url: a placeholder the session never filled (its registration was mutated away).
    c.refused = true;
    c.refused_status = ws.error().status;
    note(step.conn, "in", "refused", ws.error().body, ws.error().status);
  } else {
    trip = unreachable(ws.error(), "the WebSocket handshake of a session connection");
    return;
  }
  exec.conns.push_back(std::move(c));
  exec.current[step.conn] = exec.conns.size() - 1;
  profile_.connected(exec, exec.conns.back(), step);
}

void Executor::do_http(Exec& exec, const Step& step, std::optional<Trip>& trip) {
  net::HttpCall call;
  call.method = step.method.empty() ? "POST" : step.method;
  call.url = target_.config.http_base + substitute(exec, step.path);
  call.body = substitute(exec, step.data);
  call.timeout = target_.probe_timeout;
  call.tls = target_.config.tls;
  for (const auto& [k, v] : step.headers) call.headers.emplace(k, substitute(exec, v));
  if (!call.body.empty() && call.headers.find("content-type") == call.headers.end()) call.headers.emplace("content-type", "application/json");
  note(step.conn, "out", "http", call.method + " " + call.url.substr(target_.config.http_base.size()) + "\n" + call.body);
  ++frames_sent_;  // (an HTTP request is a message sent, as a frame is: an auth service alone sends nothing else)
  auto r = net::http_request(*target_.runtime, call);
  if (!r) {
    trip = unreachable(r.error(), "an HTTP request of the session");
    return;
  }
  note(step.conn, "in", "http", r->body, r->status);
  if (internal_error(r->status)) {
    trip = Trip{"protocol", "HTTP request answered with an internal error (500)",
                call.method + " " + call.url + " -> " + std::to_string(r->status) + " " + shorten(r->body)};
  }
  if (!step.capture.empty()) {
    const Json body = parse_loose(r->body);
    for (const auto& [var, pointer] : step.capture) {
      if (body.is_discarded()) break;
      try {
        const Json::json_pointer p(pointer);
        if (body.contains(p) && body[p].is_string()) exec.vars[var] = body[p].get<std::string>();
      } catch (const Json::exception&) {
      }
    }
  }
}

void Executor::do_post(Exec& exec, ConnRecord& c, const Step& step, std::optional<Trip>& trip) {
  if (step.kind != Step::Kind::text && step.kind != Step::Kind::binary) return;  // (frames, closes: no HTTP meaning)
  const std::string payload =
      step.kind == Step::Kind::text ? profile_.finish_text(exec, step, substitute(exec, step.data)) : substitute(exec, step.data);
  if (step.kind == Step::Kind::binary || !ws::is_valid_utf8(payload) || payload.size() > kCleanLimit) c.clean = false;
  for (int i = 0; i < std::max(1, step.repeat) && !trip; ++i) {
    net::HttpCall call;
    call.method = "POST";
    call.url = target_.config.http_base + c.http_path;
    call.body = payload;
    call.timeout = target_.probe_timeout;
    call.tls = target_.config.tls;
    call.headers.emplace("content-type", step.kind == Step::Kind::text ? "application/json" : "application/octet-stream");
    c.sent.push_back(payload);
    ++frames_sent_;
    if (c.clean) profile_.sent(exec, c, payload);
    note(c.label, "out", "http", "POST " + c.http_path + "\n" + payload);
    auto r = c.http_connection ? c.http_connection->request(call) : net::http_request(*target_.runtime, call);
    if (!r) {
      trip = unreachable(r.error(), "an HTTP request of the session");
      return;
    }
    note(c.label, "in", "http", r->body, r->status);
    if (internal_error(r->status)) {
      trip = Trip{"protocol", "HTTP request answered with an internal error (500)",
                  "POST " + c.http_path + " -> " + std::to_string(r->status) + " " + shorten(r->body) + "; the request: " + shorten(payload)};
      return;
    }
    // The answer is the next message on this binding (an empty body: none).
    if (!r->body.empty()) {
      net::WsEvent e;
      e.kind = ws::Event::Kind::text;
      e.data = r->body;
      e.invalid_utf8 = !ws::is_valid_utf8(r->body);
      c.events.push_back(std::move(e));
    }
  }
}

void Executor::do_send(Exec& exec, ConnRecord& c, const Step& step) {
  switch (step.kind) {
    case Step::Kind::text: {
      const std::string payload = profile_.finish_text(exec, step, substitute(exec, step.data));
      if (!ws::is_valid_utf8(payload) || payload.size() > kCleanLimit) c.clean = false;
      c.sent.push_back(payload);
      for (int i = 0; i < std::max(1, step.repeat); ++i) {
        c.ws->send_text(payload);
        ++frames_sent_;
        if (c.clean) profile_.sent(exec, c, payload);
      }
      note(c.label, "out", "text", step.repeat > 1 ? payload + "  (x" + std::to_string(step.repeat) + ")" : payload);
      break;
    }
    case Step::Kind::binary: {
      // Kept with the text it sent: a relay may forward a binary frame that names an agent, and
      // that agent was addressed.
      const std::string payload = substitute(exec, step.data);
      c.sent.push_back(payload);
      c.ws->send_binary(payload);
      ++frames_sent_;
      c.clean = false;
      note(c.label, "out", "binary", step.data);
      break;
    }
    case Step::Kind::frames: {
      std::string joined;
      for (const auto& f : step.frames) {
        if (f.delay_ms > 0) std::this_thread::sleep_for(milliseconds(f.delay_ms));
        ws::FrameSpec spec;
        spec.opcode = f.opcode;
        spec.fin = f.fin;
        spec.rsv = f.rsv;
        spec.payload = substitute(exec, f.payload);
        if (f.opcode <= 0x2) joined += spec.payload;
        c.ws->send_frame(spec);
        ++frames_sent_;
        note(c.label, "out", "frame", "opcode " + std::to_string(f.opcode) + (f.fin ? " fin" : "") +
                                          (f.rsv ? " rsv " + std::to_string(f.rsv) : "") + ": " + spec.payload);
      }
      c.sent.push_back(joined);
      c.clean = false;
      break;
    }
    case Step::Kind::close:
    case Step::Kind::drop: {
      // A connection going is the one event whose order against the other connections decides
      // routing (messages to an agent that left). So the session's order is made the order the
      // target sees: every frame sent before on any connection is handled first (one ping round
      // trip each), and the session goes on only when the target has seen this one go. (A ping
      // not answered here is found again, and reported, by the barrier after the steps.)
      (void)barrier(exec, 1, nullptr, &c);
      if (step.kind == Step::Kind::close) {
        c.ws->close(step.code, "fuzz");
        note(c.label, "out", "close", "", step.code);
      } else {
        c.ws->abort();
        note(c.label, "out", "drop", "TCP connection cut without a close frame");
      }
      c.clean = false;
      c.sent_close = true;
      await_transport_end(c);
      (void)barrier(exec, 1, nullptr, &c);  // the target's close handler runs after the TCP end
      break;
    }
    default: break;
  }
}

void Executor::record(ConnRecord& c, net::WsEvent e) {
  if (e.kind == ws::Event::Kind::close) {
    // The transport ended with no close frame before it, and not by the session's doing: the
    // target cut the connection (or died under it).
    if (e.transport_closed && !c.closed && !c.sent_close) c.reset = true;
    c.closed = true;
    c.close_code = e.close_code;
  }
  note(c.label, "in", ws::kind_name(e.kind), e.data, e.kind == ws::Event::Kind::close ? std::optional<long long>(e.close_code) : std::nullopt);
  if (e.kind != ws::Event::Kind::close && (c.events.size() >= kMaxConnEvents || c.events_bytes + e.data.size() > kMaxConnEventBytes)) {
    ++c.events_dropped;
    return;
  }
  c.events_bytes += e.data.size();
  c.events.push_back(std::move(e));
}

std::optional<Trip> Executor::barrier(Exec& exec, int rounds, const std::function<bool()>& done, const ConnRecord* except,
                                      const ConnRecord* first) {
  const auto until = Clock::now() + target_.probe_timeout;
  // The connection an await reads first: what it waits for is most often on it.
  std::vector<ConnRecord*> order;
  for (auto& c : exec.conns) order.push_back(&c);
  if (first != nullptr) std::stable_partition(order.begin(), order.end(), [&](const ConnRecord* c) { return c == first; });
  for (int round = 0; round < rounds; ++round) {
    for (ConnRecord* cp : order) {
      if (cp == except || !cp->open()) continue;
      bool finished = false;
      if (auto trip = ping_round_trip(*cp, until, done, finished)) return trip;
      if (finished) return std::nullopt;
    }
    if (done && done()) break;
  }
  return std::nullopt;
}

std::optional<Trip> Executor::ping_round_trip(ConnRecord& c, Clock::time_point until, const std::function<bool()>& done, bool& finished) {
  // Each ping has its own payload: a barrier that ended early leaves its pongs on the way, and a
  // later one must not take one of them for its own.
  const std::string tag = "barrier " + std::to_string(++pings_);
  c.ws->ping(tag);
  while (!c.closed) {
    const auto left = std::chrono::duration_cast<milliseconds>(until - Clock::now());
    if (left.count() <= 0) break;
    auto e = c.ws->next(left);
    if (!e) break;
    if (e->kind == ws::Event::Kind::pong) {
      if (e->data == tag) return std::nullopt;
      continue;
    }
    if (e->kind == ws::Event::Kind::ping) continue;
    record(c, std::move(*e));
    // What an await waits for came: no need to prove that nothing else is coming.
    if (done && done()) {
      finished = true;
      return std::nullopt;
    }
  }
  if (c.closed) return std::nullopt;
  return Trip{"hang", "a ping on a session connection was not answered",
              "connection " + c.label + ": no pong within " + std::to_string(target_.probe_timeout.count()) + " ms"};
}

// Like a client, wait for the close handshake and then the end of the TCP connection: a
// WebSocket server ends its side during the teardown right before it runs its close handler.
void Executor::await_transport_end(ConnRecord& c) {
  const auto until = Clock::now() + target_.probe_timeout;
  while (c.ws->transport_open()) {
    const auto left = std::chrono::duration_cast<milliseconds>(until - Clock::now());
    if (left.count() <= 0) break;
    auto e = c.ws->next(left);
    if (!e) break;
    if (e->transport_closed && c.closed) break;  // the stand-in close after the real one
    if (e->kind != ws::Event::Kind::ping && e->kind != ws::Event::Kind::pong) record(c, std::move(*e));
  }
}

// A session's connections end with their close handshake before the next session starts
// (ExecOptions::settle). Without it the target may still hold the last session's agents as live
// while the next one runs: a planted "chunk goes to some other live agent" bug then tripped only
// after another session, and its minimized reproducer (no third agent of its own) did not replay
// alone (CI, fuzz_planted agora, 2026-11-26). Bounded: a target that does not answer a close
// costs the session at most the wait below.
void Executor::end_connections(Exec& exec) {
  const auto until = Clock::now() + std::min(target_.probe_timeout, milliseconds(500));
  for (auto& c : exec.conns) {
    if (!c.ws) continue;  // (the close frames went out from run(), or the target's were echoed)
    while (c.ws->transport_open()) {
      const auto left = std::chrono::duration_cast<milliseconds>(until - Clock::now());
      if (left.count() <= 0) return;
      auto e = c.ws->next(left);
      if (!e || e->transport_closed) break;
    }
  }
}

void Executor::drain(Exec& exec) {
  for (auto& c : exec.conns) {
    if (!c.ws || c.closed) continue;
    while (auto e = c.ws->next(milliseconds(0))) {
      if (e->kind == ws::Event::Kind::pong || e->kind == ws::Event::Kind::ping) continue;
      record(c, std::move(*e));
      if (c.closed) break;
    }
  }
}

std::optional<Trip> Executor::do_await(Exec& exec, const Step& step) {
  ConnRecord* c = exec.conn(step.conn);
  if (c == nullptr || !c->ws) return std::nullopt;
  const std::string needle = substitute(exec, step.data);
  std::size_t scanned = 0;
  auto found = [&] {
    for (; scanned < c->events.size(); ++scanned) {
      const auto& e = c->events[scanned];
      if (e.kind != ws::Event::Kind::text || e.data.find(needle) == std::string::npos) continue;
      const Json* body = step.capture.empty() ? nullptr : event_object(e);  // read once, for the oracles too
      for (const auto& [var, pointer] : step.capture) {
        try {
          const Json::json_pointer p(pointer);
          if (body != nullptr && body->contains(p) && body->at(p).is_string()) exec.vars[var] = body->at(p).get<std::string>();
        } catch (const Json::exception&) {
        }
      }
      return true;
    }
    return false;
  };
  drain(exec);
  if (found()) return std::nullopt;
  // Whatever the target does in answer to what it has received arrives before the second
  // round's pongs; a frame that has not come by then is not coming (for this flow). The barrier
  // ends as soon as it has come.
  return barrier(exec, 2, found, nullptr, c);
}

std::optional<Trip> Executor::collect(Exec& exec) {
  if (auto trip = barrier(exec, 2, nullptr)) return trip;
  const auto start = Clock::now();
  for (;;) {
    const std::size_t before = [&] {
      std::size_t n = 0;
      for (const auto& c : exec.conns) n += c.events.size();
      return n;
    }();
    drain(exec);
    if (profile_.satisfied(exec)) break;
    if (Clock::now() - start >= options_.answer_deadline) break;
    std::size_t after = 0;
    for (const auto& c : exec.conns) after += c.events.size();
    if (after == before) std::this_thread::sleep_for(std::chrono::microseconds(250));
  }
  return std::nullopt;
}

std::optional<Trip> Executor::run(const std::vector<Step>& steps) {
  t0_ = Clock::now();
  transcript_ = Json::array();
  Exec exec;
  exec.prefix = "fz" + salt_ + "-" + std::to_string(++run_counter_) + "-";
  profile_.begin(exec, target_);

  std::optional<Trip> trip;
  // The connection of the last send: before a step sends on another connection, the target has
  // handled what was sent on this one (a ping's pong comes back after it), so the target sees
  // the session's order. Bytes on the wire are not enough: a target that finds two sockets
  // readable at once may read either first, and a finding that depends on the order (two agents
  // sharing a stream id) would then trip in one run and not in its replay.
  std::size_t last_sent = exec.conns.size() + 1;
  auto in_order = [&](ConnRecord& c) {
    const auto index = static_cast<std::size_t>(&c - exec.conns.data());
    if (last_sent < exec.conns.size() && last_sent != index) {
      auto& before = exec.conns[last_sent];
      bool finished = false;
      if (before.open()) trip = ping_round_trip(before, Clock::now() + target_.probe_timeout, nullptr, finished);
      else if (before.ws && !before.closed) before.ws->flush(options_.answer_deadline);
    }
    last_sent = index;
    return !trip;
  };
  for (const auto& step : steps) {
    if (trip) break;
    switch (step.kind) {
      case Step::Kind::connect: do_connect(exec, step, trip); break;
      case Step::Kind::http: do_http(exec, step, trip); break;
      case Step::Kind::await: trip = do_await(exec, step); break;
      case Step::Kind::sleep:
        note(step.conn, "note", "sleep", std::to_string(step.ms) + " ms");
        std::this_thread::sleep_for(milliseconds(std::min(step.ms, 60000)));
        break;
      default:
        if (auto* c = exec.conn(step.conn); c != nullptr && c->http) {
          if (in_order(*c)) do_post(exec, *c, step, trip);
        } else if (c != nullptr && c->ws) {
          if (in_order(*c)) do_send(exec, *c, step);
        }
        break;
    }
  }
  if (!trip) trip = collect(exec);
  for (auto& c : exec.conns) {
    if (c.open()) c.ws->close(1000, "fuzz session over");
  }
  bool alone = false;
  std::optional<Trip> down = trip ? std::nullopt : went_down(exec, alone);
  // The probe on fresh connections every few sessions, not after each: it cost a registration,
  // a connection and a round trip per session (issue 16's fuzz throughput). A session that saw a
  // connection cut probes at once; one that did not has had every connection it held answer the
  // barrier's pings (and an upgrade refused with a status was answered too).
  bool troubled = trip.has_value() || down.has_value();
  for (const auto& c : exec.conns) troubled = troubled || c.reset;
  // A single connection cut is a crash only if the target does not answer the probe either.
  if (!trip && (!down || alone)) trip = profile_.judge(exec);
  if (options_.settle) end_connections(exec);  // what arrives now is not judged: the session is over
  exec.conns.clear();
  runtime_.run_ready();  // the close frames and socket closes leave now, not at the next run's first wait
  const bool probe_due = troubled || trip.has_value() || options_.probe_every <= 1 ||
                         run_counter_ % static_cast<std::uint64_t>(options_.probe_every) == 0;
  // The probe runs after a protocol or isolation trip too: a target that stopped answering
  // (or died) explains more than the oracle that noticed first.
  if (((options_.probe && probe_due) || down) && (!trip || trip->oracle == "protocol" || trip->oracle == "isolation")) {
    if (auto dead = probe()) return dead;
  }
  if (down && !alone) return down;
  return trip;
}

// A target that died under a session cuts every connection it had at once, without a close
// frame; one that merely fails a connection it dislikes cuts that one. So: every WebSocket the
// session still held was cut (`alone`: only one was held, which the probe must confirm).
std::optional<Trip> Executor::went_down(const Exec& exec, bool& alone) const {
  std::size_t held = 0, cut = 0;
  std::string which;
  for (const auto& c : exec.conns) {
    // A connection that sent something the target may fail it for (invalid UTF-8, raw frames)
    // may be cut for that; only the others tell about the target.
    if (!c.ws || c.sent_close || c.refused || !c.clean) continue;
    if (c.closed && !c.reset) continue;  // closed by the target with a close frame: it was alive then
    ++held;
    if (c.reset) {
      ++cut;
      which += (which.empty() ? "" : ", ") + c.label;
    }
  }
  if (cut == 0 || cut < held) return std::nullopt;
  alone = cut == 1;
  return Trip{"crash", "the target went down", "reset: connection(s) " + which + " cut without a close frame", "reset"};
}

std::optional<Trip> Executor::probe() {
  // A health endpoint only where the target has one (settings.health_path; the embedded
  // reference lobby: /healthz), every few sessions: the protocol's probe on fresh connections
  // is the stronger check and runs every time.
  const bool health_due = options_.health_every <= 1 || run_counter_ % static_cast<std::uint64_t>(options_.health_every) == 1;
  if (const std::string path = target_.config.setting("health_path"); !path.empty() && health_due) {
    auto health = probe_http(target_, "GET", path, "");
    if (!health) return health.error();
    if (health->status != 200) return Trip{"liveness", "the health endpoint did not answer 200", "status " + std::to_string(health->status)};
  }
  return profile_.probe(target_, salt_ + "-" + std::to_string(run_counter_) + "-" + std::to_string(++probe_counter_));
}

}  // namespace ac::fuzz
