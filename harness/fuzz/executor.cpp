// Runs one session against the target over harness/net's WsClient and judges it:
//   protocol  - Chopsticks: a hello with a missing or unsupported protocolVersion must draw an
//               error frame and close 1008 (never acceptance or silence). Agora: every frame to
//               a recipient that was never connected must draw an error frame.
//   isolation - Agora: an agent receives forwarded frames only if some other connection of the
//               session named it, and `from` is always an agent that sent something.
//   liveness  - after the session, on fresh connections: GET /healthz answers 200, and a known-
//               good exchange works (Chopsticks: a bad-version hello is still rejected with 1008;
//               Agora: a send reaches its addressee).
// Expectations are only drawn from "clean" traffic: a connection stops counting once it sent
// anything at the framing level that the server may close it for (invalid UTF-8, oversized or
// raw frames, a close), so the oracles never blame a target for a legitimate close.
#include <map>
#include <set>
#include <thread>

#include "harness/fuzz/fuzz.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/net/client.hpp"

namespace ac::fuzz {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::size_t kCleanLimit = 512 * 1024;  // well under the reference's 1 MiB message limit

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

std::string shorten(const std::string& s, std::size_t n = 200) { return s.size() <= n ? s : s.substr(0, n) + "..."; }

std::optional<Json> strict_object(const std::string& text) {
  json::ReadLimits limits;
  limits.max_bytes = 1024 * 1024;
  auto parsed = json::parse_strict(text, limits);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  return std::move(*parsed);
}

std::string type_of(const Json& j) {
  auto it = j.find("type");
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<Json> lax_object(const net::WsEvent& e) {
  if (e.kind != ws::Event::Kind::text || e.invalid_utf8) return std::nullopt;
  Json j = Json::parse(e.data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

const std::set<std::string> kAgoraSenderTypes = {"send", "send_chunk", "send_end", "reply", "reply_chunk", "reply_end"};
const std::set<std::string> kAgoraDeliveredTypes = {"message", "message_chunk", "message_end", "reply", "reply_chunk", "reply_end"};

struct Conn {
  std::shared_ptr<net::WsClient> ws;
  std::string id;
  bool clean = true;
  bool closed = false;             // a close event was seen
  std::uint16_t close_code = 0;
  bool expect_reject = false;      // chopsticks: a bad-version hello went out on a clean connection
  std::string reject_frame;
  int expected_errors = 0;         // agora: frames to never-connected recipients
  std::string unknown_frame;
  std::vector<net::WsEvent> events;
  std::vector<std::string> sent;   // text sent (for isolation: who named whom)

  int error_frames() const {
    int n = 0;
    for (const auto& e : events) {
      if (auto j = lax_object(e); j && type_of(*j) == "error") ++n;
    }
    return n;
  }
  bool satisfied() const {
    if (expect_reject && !closed) return false;
    return expected_errors == 0 || error_frames() >= expected_errors;
  }
};

// Waits for the next event of one type on a probe connection.
bool wait_for(net::WsClient& ws, const std::function<bool(const net::WsEvent&)>& want, milliseconds budget) {
  const auto until = Clock::now() + budget;
  while (Clock::now() < until) {
    auto e = ws.next(std::chrono::duration_cast<milliseconds>(until - Clock::now()));
    if (!e) return false;
    if (want(*e)) return true;
    if (e->kind == ws::Event::Kind::close) return false;
  }
  return false;
}

}  // namespace

Executor::Executor(net::Runtime& runtime, Target target, Protocol protocol, ExecOptions options)
    : runtime_(runtime), target_(std::move(target)), protocol_(protocol), options_(options) {
  // A per-process salt keeps ids apart when several fuzzers share one target; it never
  // influences what is generated.
  salt_ = std::to_string(std::random_device{}() % 100000);
}

std::optional<Trip> Executor::run(const std::vector<Step>& steps) {
  const std::string prefix = "fz" + salt_ + "-" + std::to_string(++run_counter_) + "-";
  auto subst = [&](std::string s) {
    for (const char* label : {"a", "b", "c"}) s = replace_all(std::move(s), std::string("${") + label + "}", prefix + label);
    return s;
  };
  std::map<std::string, Conn> conns;
  std::set<std::string> connected_ids;  // every id that got a connection in this session

  for (const auto& step : steps) {
    if (step.kind == Step::Kind::connect) {
      if (conns.count(step.conn) && conns[step.conn].ws) continue;
      Conn& c = conns[step.conn];
      c.id = prefix + step.conn;
      net::WsConnectOptions opts;
      opts.timeout = milliseconds(3000);
      auto ws = net::WsClient::connect(runtime_, target_.ws_base + subst(step.data), opts);
      if (!ws) {
        if (ws.error().kind == net::ClientError::Kind::refused) continue;  // e.g. an id the target refuses
        return Trip{"liveness", "session connection failed", ws.error().describe()};
      }
      c.ws = std::move(*ws);
      connected_ids.insert(c.id);
      continue;
    }
    auto it = conns.find(step.conn);
    if (it == conns.end() || !it->second.ws) continue;
    Conn& c = it->second;
    switch (step.kind) {
      case Step::Kind::text: {
        const std::string payload = subst(step.data);
        c.ws->send_text(payload);
        ++frames_sent_;
        c.sent.push_back(payload);
        if (!ws::is_valid_utf8(payload) || payload.size() > kCleanLimit) c.clean = false;
        if (!c.clean) break;
        auto j = strict_object(payload);
        if (!j) break;
        const std::string type = type_of(*j);
        if (protocol_ == Protocol::chopsticks && type == "hello" && !c.expect_reject) {
          auto v = j->find("protocolVersion");
          if (v == j->end() || !v->is_string() || v->get<std::string>() != "1.0.0") {
            c.expect_reject = true;
            c.reject_frame = payload;
          }
        }
        if (protocol_ == Protocol::agora && kAgoraSenderTypes.count(type)) {
          auto to = j->find("to");
          if (to != j->end() && to->is_string() && !connected_ids.count(to->get<std::string>())) {
            ++c.expected_errors;
            c.unknown_frame = payload;
          }
        }
        break;
      }
      case Step::Kind::binary:
        c.ws->send_binary(subst(step.data));
        ++frames_sent_;
        if (step.data.size() > kCleanLimit) c.clean = false;
        break;
      case Step::Kind::frames: {
        std::string joined;
        for (const auto& f : step.frames) {
          ws::FrameSpec spec;
          spec.opcode = f.opcode;
          spec.fin = f.fin;
          spec.rsv = f.rsv;
          spec.payload = subst(f.payload);
          if (f.opcode <= 0x2) joined += spec.payload;
          c.ws->send_frame(spec);
          ++frames_sent_;
        }
        c.sent.push_back(joined);
        c.clean = false;
        break;
      }
      case Step::Kind::close:
        c.ws->close(1000, "fuzz");
        c.clean = false;
        break;
      case Step::Kind::connect: break;
    }
  }

  // Collect what the target answered: until every expectation is met and the line is quiet,
  // or the deadline.
  const auto start = Clock::now();
  auto last_event = start;
  for (;;) {
    bool got = false;
    for (auto& [label, c] : conns) {
      if (!c.ws || c.closed) continue;
      while (auto e = c.ws->next(milliseconds(0))) {
        got = true;
        c.events.push_back(*e);
        if (e->kind == ws::Event::Kind::close) {
          c.closed = true;
          c.close_code = e->close_code;
          break;
        }
      }
    }
    const auto now = Clock::now();
    if (got) last_event = now;
    bool all = true;
    for (const auto& [label, c] : conns) all = all && c.satisfied();
    if (all && now - last_event >= milliseconds(options_.quiet_ms)) break;
    if (now - start >= milliseconds(options_.deadline_ms)) break;
    if (!got) std::this_thread::sleep_for(milliseconds(2));
  }
  for (auto& [label, c] : conns) {
    if (c.ws && !c.closed) c.ws->close(1000, "fuzz session over");
  }

  std::optional<Trip> trip;
  for (const auto& [label, c] : conns) {
    if (trip) break;
    if (c.expect_reject) {
      bool error_seen = false;
      for (const auto& e : c.events) {
        if (auto j = lax_object(e); j && type_of(*j) == "error") error_seen = true;
      }
      if (!c.closed) {
        trip = Trip{"protocol", "bad-version hello neither rejected nor closed", "hello: " + shorten(c.reject_frame)};
      } else if (c.close_code != 1008) {
        trip = Trip{"protocol", "bad-version hello closed with a code other than 1008",
                    "close " + std::to_string(c.close_code) + " after hello: " + shorten(c.reject_frame)};
      } else if (!error_seen) {
        trip = Trip{"protocol", "bad-version hello closed without an error frame", "hello: " + shorten(c.reject_frame)};
      }
    }
    if (!trip && c.error_frames() < c.expected_errors) {
      trip = Trip{"protocol", "frame to an unknown recipient drew no error frame",
                  std::to_string(c.expected_errors) + " such frame(s), " + std::to_string(c.error_frames()) +
                      " error frame(s); last: " + shorten(c.unknown_frame)};
    }
  }
  if (!trip && protocol_ == Protocol::agora) {
    for (const auto& [label, c] : conns) {
      if (trip) break;
      bool named = false;   // did any other connection mention this agent?
      std::set<std::string> senders_to_me;
      for (const auto& [other_label, o] : conns) {
        if (other_label == label) continue;
        for (const auto& t : o.sent) {
          if (t.find(c.id) != std::string::npos) {
            named = true;
            senders_to_me.insert(o.id);
          }
        }
      }
      for (const auto& e : c.events) {
        auto j = lax_object(e);
        if (!j || !kAgoraDeliveredTypes.count(type_of(*j))) continue;
        if (!named) {
          trip = Trip{"isolation", type_of(*j) + " delivered to an agent no frame addressed",
                      "agent " + label + " got: " + shorten(e.data)};
          break;
        }
        auto from = j->find("from");
        if (from != j->end() && from->is_string() && !senders_to_me.count(from->get<std::string>())) {
          trip = Trip{"isolation", "forwarded frame names a from that never addressed the recipient",
                      "agent " + label + " got: " + shorten(e.data)};
          break;
        }
      }
    }
  }
  conns.clear();
  if (trip) return trip;
  return options_.probe ? probe() : std::nullopt;
}

std::optional<Trip> Executor::probe() {
  net::HttpCall call;
  call.url = target_.http_base + "/healthz";
  call.timeout = milliseconds(3000);
  auto health = net::http_request(runtime_, call);
  if (!health) return Trip{"liveness", "GET /healthz failed", health.error().describe()};
  if (health->status != 200) return Trip{"liveness", "GET /healthz did not answer 200", "status " + std::to_string(health->status)};

  const std::string id = "probe" + salt_ + "-" + std::to_string(run_counter_);
  net::WsConnectOptions opts;
  opts.timeout = milliseconds(3000);
  if (protocol_ == Protocol::chopsticks) {
    auto ws = net::WsClient::connect(runtime_, target_.ws_base + "/chopsticks/ws", opts);
    if (!ws) return Trip{"liveness", "probe connection failed", ws.error().describe()};
    (*ws)->send_text(Json{{"type", "hello"}, {"protocolVersion", "0.0.1"}, {"agentId", id}, {"botUserId", nullptr},
                          {"tag", nullptr}, {"ready", true}, {"guildIds", Json::array()}, {"poolId", "probe"}}.dump());
    std::uint16_t code = 0;
    const bool closed = wait_for(**ws, [&](const net::WsEvent& e) {
      if (e.kind != ws::Event::Kind::close) return false;
      code = e.close_code;
      return true;
    }, milliseconds(3000));
    if (!closed || code != 1008) {
      return Trip{"liveness", "probe: a bad-version hello on a fresh connection is no longer rejected with 1008",
                  closed ? "close " + std::to_string(code) : "no close within 3 s"};
    }
    return std::nullopt;
  }
  auto p1 = net::WsClient::connect(runtime_, target_.ws_base + "/agora/ws?agent_id=" + id + "-1", opts);
  if (!p1) return Trip{"liveness", "probe connection failed", p1.error().describe()};
  auto p2 = net::WsClient::connect(runtime_, target_.ws_base + "/agora/ws?agent_id=" + id + "-2", opts);
  if (!p2) return Trip{"liveness", "probe connection failed", p2.error().describe()};
  (*p1)->send_text(Json{{"type", "send"}, {"to", id + "-2"}, {"payload", {{"text", "probe"}}}}.dump());
  const bool delivered = wait_for(**p2, [](const net::WsEvent& e) {
    auto j = lax_object(e);
    return j && type_of(*j) == "message";
  }, milliseconds(3000));
  (*p1)->close(1000);
  (*p2)->close(1000);
  if (!delivered) return Trip{"liveness", "probe: a valid send on fresh connections was not delivered", "no message within 3 s"};
  return std::nullopt;
}

}  // namespace ac::fuzz
