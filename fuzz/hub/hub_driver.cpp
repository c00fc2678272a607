// The in-process session driver of the fuzz_hub_<protocol> targets (hub_driver.hpp; grammar,
// placeholders and oracles: fuzz/hub/README.md).
#include "fuzz/hub/hub_driver.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/crypto/ed25519.hpp"
#include "harness/crypto/jwt.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/net/types.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/util/data_dir.hpp"
#include "reference/a2acp/settings.hpp"
#include "reference/core/hub.hpp"

namespace ac::fuzz::hub {
namespace {

using Json = nlohmann::json;

// Bounds that keep one input fast and its state small (libFuzzer runs thousands per second).
constexpr std::size_t kMaxOps = 96;                  // operations per input
constexpr std::size_t kSlots = 8;                    // connection slots an input names (0-7)
constexpr std::size_t kMaxConnections = 32;          // connections per input, slots reused included
constexpr std::size_t kMaxHeaders = 8;               // headers queued for the next request
constexpr std::int64_t kMaxAdvanceMs = 24LL * 3600 * 1000;  // one `advance`
constexpr std::size_t kMaxTimersPerAdvance = 256;
constexpr std::size_t kMaxTimersDrained = 4096;      // at the end of an input
constexpr std::size_t kMaxRecordedNames = 256, kMaxRecordedPerName = 8, kMaxRecordedValue = 4096;
constexpr std::size_t kMaxExpanded = 256 * 1024;     // bytes a payload may grow to by placeholders
constexpr std::size_t kTestKeys = 4, kJwtSlots = 8;
// The virtual clock starts at 2026-02-01T00:00:00Z: a fixed date, so tokens and timestamps the
// hub derives from it are the same on every run.
constexpr std::int64_t kEpochMs = 1769904000LL * 1000;

std::string shown(std::string_view s, std::size_t max = 300);

// The operation being played, for the report of a violation.
std::string g_operation;

// AC_HUB_FUZZ_TRACE=1: every operation and everything the hub sends, on stderr (to see what a
// seed or a crashing input does; never set while fuzzing).
bool tracing() {
  static const bool on = [] {
    const char* v = std::getenv("AC_HUB_FUZZ_TRACE");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  return on;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "\n==hub fuzz oracle== %s\n==hub fuzz oracle== while playing: %s\n", what.c_str(),
               shown(g_operation).c_str());
  std::fflush(stderr);
  std::abort();
}

std::string shown(std::string_view s, std::size_t max) {
  std::string out;
  for (char c : s.substr(0, max)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  if (s.size() > max) out += "...(" + std::to_string(s.size()) + " bytes)";
  return out;
}

bool valid_utf8(std::string_view s) {
  json::Utf8Problem p{};
  return !json::find_encoding_problem(s, p, /*nul_is_error=*/false);
}

// RFC 6455 §7.4: codes an endpoint may send in a close frame (1004-1006 and 1015 are reserved
// for local use, 1016-2999 unassigned, 3000-4999 registered / private).
bool sendable_close_code(std::uint16_t c) {
  return (c >= 1000 && c <= 1003) || (c >= 1007 && c <= 1014) || (c >= 3000 && c <= 4999);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Path and query as net::Server fills them (Boost.URL origin-form: decoded path, decoded
// params, '+' kept; a target that does not parse keeps its raw path and no params).
void split_target(net::HttpRequest& r) {
  const std::size_t q = r.target.find('?');
  const std::string_view raw_path = std::string_view(r.target).substr(0, q);
  auto path = percent_decode(raw_path);
  std::multimap<std::string, std::string> query;
  bool ok = path.has_value() && !raw_path.empty() && raw_path[0] == '/';
  if (ok && q != std::string::npos) {
    std::string_view rest = std::string_view(r.target).substr(q + 1);
    while (ok && !rest.empty()) {
      const std::size_t amp = rest.find('&');
      const std::string_view pair = rest.substr(0, amp);
      const std::size_t eq = pair.find('=');
      auto key = percent_decode(pair.substr(0, eq));
      auto value = percent_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
      if (!key || !value) ok = false;
      else query.emplace(std::move(*key), std::move(*value));
      rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    }
  }
  if (!ok) {
    r.path = std::string(raw_path);
    r.query.clear();
    return;
  }
  r.path = std::move(*path);
  r.query = std::move(query);
}

std::optional<std::int64_t> number(std::string_view s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Splits off the first space-separated field.
std::string_view take_field(std::string_view& rest) {
  const std::size_t sp = rest.find(' ');
  const std::string_view field = rest.substr(0, sp);
  rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  return field;
}

// ---- process-wide fixtures (built once) -----------------------------------------------------

struct Fixtures {
  std::vector<crypto::Ed25519PrivateKey> keys;  // AgentProtocol test keys, seeds 0x01.., 0x02.., ...
  std::vector<std::string> key_ids;             // their from.agentId values
};

const Fixtures& fixtures() {
  static const Fixtures f = [] {
    Fixtures out;
    for (std::size_t i = 0; i < kTestKeys; ++i) {
      auto k = crypto::Ed25519PrivateKey::from_seed(std::string(32, static_cast<char>(i + 1)));
      if (!k) fail("cannot make test key " + std::to_string(i));
      out.key_ids.push_back(proto::agentprotocol::agent_id(k->public_key()));
      out.keys.push_back(std::move(*k));
    }
    return out;
  }();
  return f;
}

// The config variants of a target, read once (data in files; schema-validated like the lobby's).
const std::vector<ref::LobbyConfig>& variants(const std::string& name) {
  static std::map<std::string, std::vector<ref::LobbyConfig>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  const auto file = data_dir() / "fuzz" / "hub" / "configs" / (name + ".json");
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  auto doc = json::parse_strict(text.str());
  if (!in || !doc || !doc->is_object() || !doc->contains("variants") || !(*doc)["variants"].is_array() || (*doc)["variants"].empty()) {
    fail("cannot read the config variants " + file.string() + " (set AGENTCONFORM_DATA_DIR?)");
  }
  std::vector<ref::LobbyConfig> out;
  for (const auto& v : (*doc)["variants"]) {
    auto c = ref::config_from_json(v);
    if (!c) fail(file.string() + ": " + c.error());
    out.push_back(std::move(*c));
  }
  return cache.emplace(name, std::move(out)).first->second;
}

// ---- the manual scheduler -------------------------------------------------------------------

class ManualScheduler final : public net::Scheduler {
 public:
  TimerId after(std::chrono::milliseconds delay, std::function<void()> fn) override {
    const TimerId id = next_++;
    const std::int64_t due = now_ + std::max<std::int64_t>(0, delay.count());
    queue_.emplace(std::make_pair(due, id), std::move(fn));
    due_.emplace(id, due);
    return id;
  }
  void cancel(TimerId id) override {
    auto it = due_.find(id);
    if (it == due_.end()) return;
    queue_.erase(std::make_pair(it->second, id));
    due_.erase(it);
  }

  std::int64_t now() const { return now_; }
  void set_now(std::int64_t t) { now_ = std::max(now_, t); }
  std::size_t pending() const { return queue_.size(); }
  std::optional<std::int64_t> next_due() const {
    if (queue_.empty()) return std::nullopt;
    return queue_.begin()->first.first;
  }
  // Removes the earliest timer, moves the clock to its due time and returns it.
  std::function<void()> pop() {
    auto it = queue_.begin();
    now_ = std::max(now_, it->first.first);
    auto fn = std::move(it->second);
    due_.erase(it->first.second);
    queue_.erase(it);
    return fn;
  }
  void clear() {
    // Destroying the callbacks may drop the last references to hub objects: do it while the
    // hub's context is still alive.
    auto q = std::move(queue_);
    queue_.clear();
    due_.clear();
  }

 private:
  std::int64_t now_ = 0;
  TimerId next_ = 1;
  std::map<std::pair<std::int64_t, TimerId>, std::function<void()>> queue_;
  std::map<TimerId, std::int64_t> due_;
};

class Session;

// ---- fake peers -----------------------------------------------------------------------------

class FakePeer final : public net::Peer {
 public:
  enum class State { upgraded, open, closed };

  FakePeer(Session& session, std::uint64_t id, net::HttpRequest request, std::shared_ptr<net::WsHandler> handler)
      : session_(&session), id_(id), request_(std::move(request)), handler_(std::move(handler)) {}

  std::uint64_t id() const override { return id_; }
  const net::HttpRequest& upgrade_request() const override { return request_; }
  void send_text(std::string frame) override;
  void close(std::uint16_t code, std::string reason) override;

  net::WsHandler& handler() { return *handler_; }
  State state = State::upgraded;
  bool closing = false;  // the hub called close(); on_close follows at the end of the operation
  net::CloseInfo close_info;
  std::size_t max_message_bytes = 0;

 private:
  Session* session_;
  std::uint64_t id_;
  net::HttpRequest request_;
  std::shared_ptr<net::WsHandler> handler_;
};

// ---- one input ------------------------------------------------------------------------------

class Session {
 public:
  Session(const Target& target, const ref::LobbyConfig& config) : target_(target), config_(config) {
    context_ = std::make_unique<ref::HubContext>(ref::HubContext{config_, faults_, metrics_, scheduler_});
    context_->clock = [this] {
      return std::chrono::system_clock::time_point(std::chrono::milliseconds(kEpochMs + scheduler_.now()));
    };
    context_->base_url = "http://127.0.0.1:8080";
    const auto& a2acp = config_.section("a2acp");
    jwt_secret_ = a2acp.is_object() && a2acp.contains("jwt_secret") && a2acp["jwt_secret"].is_string()
                      ? a2acp["jwt_secret"].get<std::string>()
                      : std::string(ref::a2acp::kDefaultJwtSecret);
    for (const auto& [id, factory] : ref::hub_factories()) {
      if (id != target_.protocol) continue;
      auto hub = factory(*context_);
      if (!hub) fail(std::string("the hub does not start: ") + hub.error());
      hub_ = std::move(*hub);
    }
    if (!hub_) fail("no hub factory for this protocol");
    hub_->install(routes_);
    initial_status_ = hub_->status();
    record(initial_status_);
  }

  void play(std::string_view input) {
    std::size_t ops = 0;
    while (!input.empty() && ops < kMaxOps) {
      const std::size_t nl = input.find('\n');
      std::string_view line = input.substr(0, nl);
      input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty() || line[0] == '#') continue;
      ++ops;
      g_operation = std::string(line.substr(0, 300));
      if (tracing()) std::fprintf(stderr, "> %s\n", shown(line, 400).c_str());
      step(line);
      deliver_closes();
      check_status(false);
    }
    g_operation = "(the end of the session: every connection closes, every timer runs)";
    finish();
  }

  // ---- called by FakePeer
  void sent(FakePeer& peer, std::string frame) {
    const std::string to = "a frame was sent to connection " + std::to_string(peer.id());
    if (peer.state == FakePeer::State::closed) fail(to + " after its on_close: " + shown(frame));
    if (peer.state != FakePeer::State::open) fail(to + " before its on_open");
    if (peer.closing) {
      fail(to + " after the hub closed it (close " + std::to_string(peer.close_info.code) +
           "), so the client never gets it: " + shown(frame));
    }
    if (tracing()) std::fprintf(stderr, "  < [%llu] %s\n", static_cast<unsigned long long>(peer.id()), shown(frame, 400).c_str());
    check_json_text(frame, "a frame sent to connection " + std::to_string(peer.id()));
  }

  void closed_by_hub(FakePeer& peer, std::uint16_t code, std::string reason) {
    const std::string what = "the hub closed connection " + std::to_string(peer.id());
    if (peer.state == FakePeer::State::closed) fail(what + " after its on_close");
    if (peer.state != FakePeer::State::open) fail(what + " before its on_open");
    if (!sendable_close_code(code)) fail(what + " with code " + std::to_string(code) + ", which RFC 6455 forbids in a close frame");
    if (reason.size() > 123 || !valid_utf8(reason)) fail(what + " with a reason that is not <= 123 bytes of UTF-8: " + shown(reason));
    if (tracing()) std::fprintf(stderr, "  < [%llu] close %u %s\n", static_cast<unsigned long long>(peer.id()), code, shown(reason).c_str());
    if (peer.closing) return;  // the server ignores a second close
    peer.closing = true;
    peer.close_info = net::CloseInfo{code, std::move(reason)};
    pending_closes_.push_back(&peer);
  }

 private:
  // ---- operations
  void step(std::string_view line) {
    std::string_view rest = line;
    const std::string_view op = take_field(rest);
    if (op == "connect" || op == "upgrade") return connect(rest, op == "connect");
    if (op == "open") return open(slot_of(take_field(rest)));
    if (op == "text" || op == "binary") {
      const std::size_t slot = slot_of(take_field(rest));
      std::string payload = expand(rest);
      if (op == "text") payload = maybe_sign(std::move(payload));
      return message(slot, std::move(payload), op == "binary");
    }
    if (op == "close") {
      const std::size_t slot = slot_of(take_field(rest));
      const auto code = number(take_field(rest));
      return client_close(slot, code ? static_cast<std::uint16_t>(std::min<std::int64_t>(*code, 65535)) : net::close_code::no_status,
                          std::string(rest));
    }
    if (op == "drop") return drop(slot_of(take_field(rest)));
    if (op == "advance") {
      const auto ms = number(take_field(rest));
      return advance(ms ? std::min(*ms, kMaxAdvanceMs) : 0);
    }
    if (op == "http") return http(rest);
    if (op == "header") {
      const std::size_t colon = rest.find(':');
      if (colon == std::string_view::npos || headers_.size() >= kMaxHeaders) return;
      std::string name(rest.substr(0, colon));
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string_view value = rest.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      headers_.emplace(std::move(name), expand(value));
      return;
    }
    if (op == "jwt") {
      const std::size_t n = slot_of(take_field(rest)) % kJwtSlots;
      jwt_[n] = make_jwt(expand(rest));
      return;
    }
    if (op == "sign") {
      const auto k = number(take_field(rest));
      sign_with_ = k ? static_cast<int>(*k % kTestKeys) : 0;
      return;
    }
    // Anything else (including a misplaced `variant`) is ignored: mutated inputs stay playable.
  }

  static std::size_t slot_of(std::string_view field) {
    const auto n = number(field);
    return n ? static_cast<std::size_t>(*n % kSlots) : 0;
  }

  net::HttpRequest request(std::string method, std::string target, std::string body) {
    net::HttpRequest r;
    r.method = std::move(method);
    r.target = std::move(target);
    split_target(r);
    r.headers = std::move(headers_);
    headers_.clear();
    r.headers.emplace("host", "127.0.0.1:8080");
    if (!body.empty() && r.headers.count("content-type") == 0) r.headers.emplace("content-type", "application/json");
    r.body = std::move(body);
    r.remote = "127.0.0.1:" + std::to_string(40000 + next_peer_id_);
    return r;
  }

  void connect(std::string_view rest, bool open_now) {
    const std::size_t slot = slot_of(take_field(rest));
    net::HttpRequest req = request("GET", expand(rest), "");
    req.headers.emplace("upgrade", "websocket");
    req.headers.emplace("connection", "Upgrade");
    req.headers.emplace("sec-websocket-version", "13");
    if (connections_ >= kMaxConnections) return;
    std::shared_ptr<net::WsHandler> handler;
    for (const auto& [path, h] : routes_.ws) {
      if (path == req.path) handler = h;
    }
    if (!handler) return;  // 404 from the server; the hub never sees it
    ++connections_;
    net::UpgradeDecision decision;
    guarded("on_upgrade", [&] { decision = handler->on_upgrade(req); });
    if (!decision.accept) {
      if (tracing()) std::fprintf(stderr, "  < refused %d %s\n", decision.refusal.status, shown(decision.refusal.body).c_str());
      if (decision.refusal.status < 400 || decision.refusal.status > 599) {
        fail("an upgrade was refused with HTTP status " + std::to_string(decision.refusal.status));
      }
      check_response(decision.refusal, "the refusal of an upgrade");
      return;
    }
    auto peer = std::make_shared<FakePeer>(*this, next_peer_id_++, std::move(req), handler);
    peer->attachment = std::move(decision.attachment);
    peer->max_message_bytes = handler->max_message_bytes();
    all_peers_.push_back(peer);
    ++pending_;
    if (slots_[slot] && slots_[slot]->state == FakePeer::State::upgraded) {
      abandon(slots_[slot]);
    } else if (slots_[slot]) {
      detached_.push_back(std::move(slots_[slot]));  // still open, no longer named by the input
    }
    slots_[slot] = peer;
    if (open_now) open(slot);
  }

  void open(std::size_t slot) {
    auto peer = slots_[slot];
    if (!peer || peer->state != FakePeer::State::upgraded) return;
    peer->state = FakePeer::State::open;
    --pending_;
    ++open_;
    guarded("on_open", [&] { peer->handler().on_open(peer); });
  }

  void message(std::size_t slot, std::string payload, bool binary) {
    auto peer = slots_[slot];
    // Beast delivers nothing once a close is under way, and nothing before the open.
    if (!peer || peer->state != FakePeer::State::open || peer->closing) return;
    if (payload.size() > peer->max_message_bytes) {
      return finish_connection(peer, {net::close_code::message_too_big, "message too big"});
    }
    if (!binary && !valid_utf8(payload)) {
      return finish_connection(peer, {net::close_code::invalid_payload, "invalid UTF-8 in a text message"});
    }
    guarded("on_message", [&] { peer->handler().on_message(peer, payload, binary); });
  }

  void client_close(std::size_t slot, std::uint16_t code, std::string reason) {
    auto peer = slots_[slot];
    if (!peer) return;
    if (peer->state == FakePeer::State::upgraded) return abandon(peer);
    // A close frame with a code no endpoint may send fails the read as a protocol violation.
    net::CloseInfo info{code, std::move(reason)};
    if (code != net::close_code::no_status && !sendable_close_code(code)) info = {net::close_code::protocol_error, "bad close code"};
    if (info.reason.size() > 123 || !valid_utf8(info.reason)) info = {net::close_code::protocol_error, "bad close reason"};
    finish_connection(peer, std::move(info));
  }

  void drop(std::size_t slot) {
    auto peer = slots_[slot];
    if (!peer) return;
    if (peer->state == FakePeer::State::upgraded) return abandon(peer);
    finish_connection(peer, {net::close_code::abnormal, "connection dropped"});
  }

  // The handshake of an accepted upgrade never completes (the client went away before the 101):
  // the server drops the session, so no on_open, no on_close, and its attachment is released.
  void abandon(std::shared_ptr<FakePeer> peer) {
    for (auto& s : slots_) {
      if (s == peer) s.reset();
    }
    std::erase(all_peers_, peer);
    --pending_;
  }

  void finish_connection(const std::shared_ptr<FakePeer>& peer, net::CloseInfo info) {
    if (peer->state != FakePeer::State::open) return;
    peer->state = FakePeer::State::closed;
    --open_;
    guarded("on_close", [&] { peer->handler().on_close(peer, info); });
  }

  void deliver_closes() {
    // What the client answers to the hub's close: the same code back, then on_close.
    while (!pending_closes_.empty()) {
      FakePeer* p = pending_closes_.front();
      pending_closes_.pop_front();
      for (const auto& peer : all_peers_) {
        if (peer.get() == p) finish_connection(peer, p->close_info);
      }
    }
  }

  void advance(std::int64_t ms) {
    const std::int64_t until = scheduler_.now() + ms;
    for (std::size_t fired = 0; fired < kMaxTimersPerAdvance; ++fired) {
      const auto due = scheduler_.next_due();
      if (!due || *due > until) break;
      fire();
    }
    scheduler_.set_now(until);
  }

  void fire() {
    auto fn = scheduler_.pop();
    guarded("a timer", [&] { fn(); });
    deliver_closes();
  }

  struct HttpCall {
    std::string what;
    int answers = 0;
  };

  void http(std::string_view rest) {
    std::string method(take_field(rest));
    std::string target = expand(take_field(rest));
    std::string body = maybe_sign(expand(rest));
    net::HttpRequest req = request(std::move(method), std::move(target), std::move(body));
    std::shared_ptr<net::HttpHandler> handler;
    for (const auto& [path, h] : routes_.http) {
      if (path == req.path) handler = h;
    }
    if (!handler) return;  // 404 from the server
    auto call = std::make_shared<HttpCall>(HttpCall{req.method + " " + shown(req.target, 80), 0});
    calls_.push_back(call);
    // The callback may run later (an RPC answered, a timeout): it holds the call, not the session's stack.
    auto respond = [this, call](net::HttpResponse r) {
      if (tracing()) std::fprintf(stderr, "  < HTTP %d %s\n", r.status, shown(r.body, 400).c_str());
      if (++call->answers > 1) fail("HTTP " + call->what + " was answered twice");
      if (r.status < 100 || r.status > 599) fail("HTTP " + call->what + " answered status " + std::to_string(r.status));
      check_response(r, "the answer to HTTP " + call->what);
    };
    guarded("an HTTP handler", [&] { handler->handle_async(req, respond); });
  }

  // ---- oracles
  template <typename F>
  void guarded(const char* where, F&& fn) {
    try {
      fn();
    } catch (const std::exception& e) {
      // net::Server would turn this into a 500 or a close 1011: a message made the hub fail.
      fail(std::string("an exception escaped ") + where + ": " + e.what());
    } catch (...) {
      fail(std::string("an exception escaped ") + where);
    }
  }

  void check_json_text(const std::string& text, const std::string& what) {
    if (!valid_utf8(text)) fail(what + " is not valid UTF-8: " + shown(text));
    auto parsed = json::parse_strict(text);
    if (!parsed) fail(what + " is not strict JSON (" + parsed.error().describe() + "): " + shown(text));
    record(*parsed);
  }

  void check_response(const net::HttpResponse& r, const std::string& what) {
    for (const auto& [name, value] : r.headers) {
      if (name.empty() || name.find_first_of("\r\n\0: ", 0, 5) != std::string::npos) {
        fail(what + " has a bad header name: " + shown(name));
      }
      if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
        fail(what + " has a header value with CR, LF or NUL: " + shown(value));
      }
    }
    const std::string type = net::header_value(r.headers, "content-type");
    if (!r.body.empty() && type.find("json") != std::string::npos) check_json_text(r.body, what + " (" + type + ")");
  }

  void check_status(bool final) {
    Json status;
    guarded("status()", [&] { status = hub_->status(); });
    if (!status.is_object()) fail("status() is not an object: " + shown(status.dump()));
    if (!target_.check_status) return;
    const std::string problem = target_.check_status(status, StatusView{open_, pending_, final});
    if (!problem.empty()) fail("status() " + problem + ": " + status.dump() + " with " + std::to_string(open_) + " connections open");
  }

  void finish() {
    // Every connection ends (the clients go away), then every timer runs out.
    for (const auto& peer : std::vector<std::shared_ptr<FakePeer>>(all_peers_)) {
      if (peer->state == FakePeer::State::upgraded) abandon(peer);
    }
    for (const auto& peer : all_peers_) {
      if (peer->state == FakePeer::State::open) finish_connection(peer, {net::close_code::abnormal, "end of session"});
      deliver_closes();
    }
    for (std::size_t fired = 0; fired < kMaxTimersDrained && scheduler_.next_due(); ++fired) fire();
    check_status(true);
    for (const auto& call : calls_) {
      if (call->answers != 1) fail("HTTP " + call->what + " was never answered");
    }
    guarded("shutdown()", [&] { hub_->shutdown(); });
    std::vector<std::weak_ptr<FakePeer>> weak(all_peers_.begin(), all_peers_.end());
    all_peers_.clear();
    detached_.clear();
    for (auto& s : slots_) s.reset();
    routes_ = {};
    hub_.reset();
    scheduler_.clear();
    for (const auto& w : weak) {
      if (!w.expired()) fail("a connection is still referenced after the hub was destroyed (a reference cycle)");
    }
  }

  // ---- placeholders, tokens, signatures
  void record(const Json& j, int depth = 0) {
    if (depth > 16) return;
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) {
        if (v.is_string()) remember(k, v.get_ref<const std::string&>());
        else if (v.is_structured()) record(v, depth + 1);
      }
    } else if (j.is_array()) {
      for (const auto& v : j) record(v, depth + 1);
    }
  }

  void remember(const std::string& name, const std::string& value) {
    if (name.empty() || name.size() > 64 || value.empty() || value.size() > kMaxRecordedValue) return;
    auto it = recorded_.find(name);
    if (it == recorded_.end()) {
      if (recorded_.size() >= kMaxRecordedNames) return;
      it = recorded_.emplace(name, std::deque<std::string>()).first;
    }
    if (!it->second.empty() && it->second.front() == value) return;
    it->second.push_front(value);
    if (it->second.size() > kMaxRecordedPerName) it->second.pop_back();
  }

  std::string placeholder(std::string_view name) {
    if (name.starts_with("jwt:")) return jwt_[slot_of(name.substr(4)) % kJwtSlots];
    if (name.starts_with("hub:")) {  // a string of the hub's status() at start (the AgentProtocol agent's own id)
      auto it = initial_status_.find(std::string(name.substr(4)));
      return it != initial_status_.end() && it->is_string() ? it->get<std::string>() : std::string();
    }
    if (name.starts_with("key:")) {
      const auto k = number(name.substr(4));
      return fixtures().key_ids[k ? static_cast<std::size_t>(*k % kTestKeys) : 0];
    }
    const std::int64_t now_ms = kEpochMs + scheduler_.now();
    if (name == "now") return proto::typed::utc_timestamp(std::chrono::system_clock::time_point(std::chrono::milliseconds(now_ms)));
    if (name == "now_s") return std::to_string(now_ms / 1000);
    if (name == "now_ms") return std::to_string(now_ms);
    if (name == "uuid") {
      char buf[40];
      std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012llx", static_cast<unsigned long long>(++uuids_));
      return buf;
    }
    std::size_t index = 0;
    if (const std::size_t tilde = name.find('~'); tilde != std::string_view::npos) {
      const auto n = number(name.substr(tilde + 1));
      index = n ? static_cast<std::size_t>(*n) : 0;
      name = name.substr(0, tilde);
    }
    auto it = recorded_.find(std::string(name));
    if (it == recorded_.end() || index >= it->second.size()) return "";
    return it->second[index];
  }

  std::string expand(std::string_view in) {
    std::string out;
    std::size_t expansions = 0;
    while (!in.empty()) {
      const std::size_t open = in.find("${");
      const std::size_t close = open == std::string_view::npos ? open : in.find('}', open + 2);
      if (close == std::string_view::npos || close - open > 80 || ++expansions > 64) {
        out += in;
        break;
      }
      out += in.substr(0, open);
      const std::string value = placeholder(in.substr(open + 2, close - open - 2));
      if (out.size() + value.size() <= kMaxExpanded) out += value;
      in.remove_prefix(close + 1);
    }
    return out;
  }

  // A token over fuzzer-chosen claims, signed with the lobby's A2ACP secret: numeric iat, nbf and
  // exp are seconds relative to the virtual clock (so a token made "now" stays valid as long as
  // the input says). Claims that are not a JSON object give no token.
  std::string make_jwt(const std::string& text) {
    auto claims = json::parse_strict(text);
    if (!claims || !claims->is_object()) return "";
    const std::int64_t now_s = (kEpochMs + scheduler_.now()) / 1000;
    for (const char* k : {"iat", "nbf", "exp"}) {
      auto it = claims->find(k);
      if (it != claims->end() && it->is_number_integer()) {
        const auto v = it->get<std::int64_t>();
        if (v > -(1LL << 40) && v < (1LL << 40)) *it = now_s + v;
      }
    }
    auto key = crypto::jwt::Key::hmac(jwt_secret_);
    if (!key) return "";
    auto token = crypto::jwt::issue(*claims, *key);
    return token ? *token : "";
  }

  // `sign K` before a text frame or HTTP body: from.agentId of test key K, then its signature.
  std::string maybe_sign(std::string payload) {
    if (sign_with_ < 0) return payload;
    const auto& key = fixtures().keys[static_cast<std::size_t>(sign_with_)];
    sign_with_ = -1;
    auto msg = json::parse_strict(payload);
    if (!msg || !msg->is_object()) return payload;
    auto signed_msg = proto::agentprotocol::sign(proto::agentprotocol::with_agent_id(std::move(*msg), key.public_key()), key);
    return signed_msg ? signed_msg->dump() : payload;
  }

  const Target& target_;
  const ref::LobbyConfig& config_;
  ref::FaultSet faults_;
  ref::Metrics metrics_;
  ManualScheduler scheduler_;
  std::unique_ptr<ref::HubContext> context_;
  std::unique_ptr<ref::Hub> hub_;
  ref::RouteTable routes_;
  std::string jwt_secret_;
  Json initial_status_;

  std::array<std::shared_ptr<FakePeer>, kSlots> slots_;
  std::vector<std::shared_ptr<FakePeer>> detached_;
  std::vector<std::shared_ptr<FakePeer>> all_peers_;
  std::deque<FakePeer*> pending_closes_;
  std::vector<std::shared_ptr<HttpCall>> calls_;
  std::size_t open_ = 0, pending_ = 0, connections_ = 0;
  std::uint64_t next_peer_id_ = 1, uuids_ = 0;
  net::Headers headers_;
  std::array<std::string, kJwtSlots> jwt_;
  int sign_with_ = -1;
  std::map<std::string, std::deque<std::string>> recorded_;
};

void FakePeer::send_text(std::string frame) { session_->sent(*this, std::move(frame)); }
void FakePeer::close(std::uint16_t code, std::string reason) { session_->closed_by_hub(*this, code, std::move(reason)); }

}  // namespace

int run_one(const Target& target, const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto& configs = variants(target.name);
  fixtures();
  // An optional first line `variant N` picks the lobby configuration.
  std::size_t variant = 0;
  if (input.starts_with("variant ")) {
    const std::size_t nl = input.find('\n');
    std::string_view rest = input.substr(8, nl == std::string_view::npos ? std::string_view::npos : nl - 8);
    const auto n = number(take_field(rest));
    variant = n ? static_cast<std::size_t>(*n) % configs.size() : 0;
    input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  }
  g_operation = "(starting the hub)";
  Session session(target, configs[variant]);
  session.play(input);
  return 0;
}

}  // namespace ac::fuzz::hub
