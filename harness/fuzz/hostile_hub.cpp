// The hostile hub (hostile_hub.hpp): the networking core's server (harness/net/server.hpp) with
// one handler that queues each connection as an episode, and a loop that plays the episodes.
#include "harness/fuzz/hostile_hub.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "harness/fuzz/generate.hpp"
#include "harness/net/server.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/util/child_process.hpp"

extern char** environ;

namespace ac::fuzz {
namespace {

// The hostile hub's AgentProtocol identity: what its messages name as from.agentId, and what a
// client under test is given as AGENTCONFORM_PEER_ID. (Its signatures are garbage on purpose.)
constexpr const char* kHubAgentId = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// What a client under test can make the hostile hub hold (docs/limits.md): connections not yet
// taken by an episode, unread frames per connection (count and bytes), one frame's size.
constexpr std::size_t kHubConnections = 64;
constexpr std::size_t kConnFrames = 10000;
constexpr std::size_t kConnFrameBytes = 16u << 20;
constexpr std::size_t kHubMessageBytes = 4u << 20;

struct Connection {
  std::shared_ptr<net::Peer> peer;
  std::size_t bytes = 0;  // of frames
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::string> frames;  // text frames from the client
  bool closed = false;
  std::uint16_t close_code = 0;

  // The next frame within `timeout`; nullopt at the deadline or once closed and drained.
  std::optional<std::string> next(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex);
    cv.wait_for(lock, timeout, [&] { return !frames.empty() || closed; });
    if (frames.empty()) return std::nullopt;
    std::string f = std::move(frames.front());
    frames.pop_front();
    bytes -= f.size();
    return f;
  }
  bool is_closed() {
    std::lock_guard lock(mutex);
    return closed;
  }
};

class Hub final : public net::WsHandler, public net::HttpHandler {
 public:
  explicit Hub(Protocol p) : protocol_(p) {}

  void on_open(const std::shared_ptr<net::Peer>& peer) override {
    auto c = std::make_shared<Connection>();
    c->peer = peer;
    std::unique_lock lock(mutex_);
    if (fresh_.size() >= kHubConnections) {
      lock.unlock();
      peer->close(net::close_code::policy_violation, "agentconform: too many connections");
      return;
    }
    by_peer_[peer->id()] = c;
    fresh_.push_back(c);
    cv_.notify_all();
  }
  void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) override {
    auto c = find(peer->id());
    if (!c) return;
    std::lock_guard lock(c->mutex);
    if (c->frames.size() < kConnFrames && c->bytes + frame.size() <= kConnFrameBytes) {
      c->frames.push_back(binary ? std::string() : std::string(frame));
      c->bytes += c->frames.back().size();
    }
    c->cv.notify_all();
  }
  void on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo& info) override {
    auto c = find(peer->id());
    if (!c) return;
    {
      std::lock_guard lock(mutex_);
      by_peer_.erase(peer->id());  // the session owns the hub: no cycle once it is closed
    }
    std::lock_guard lock(c->mutex);
    c->closed = true;
    c->close_code = info.code;
    c->peer.reset();
    c->cv.notify_all();
  }

  // Forgets every connection (their sessions hold this hub).
  void clear() {
    std::lock_guard lock(mutex_);
    by_peer_.clear();
    fresh_.clear();
  }
  std::size_t max_message_bytes() const override { return kHubMessageBytes; }

  // ALP registration and the A2ACP token service: the client needs a credential first.
  net::HttpResponse handle(const net::HttpRequest& request) override {
    const Json body = parse_loose(request.body);
    const std::string id = body.is_object() && body.contains("agent_id") && body["agent_id"].is_string()
                               ? body["agent_id"].get<std::string>()
                               : "agent-" + std::to_string(++tokens_);
    if (protocol_ == Protocol::alp) {
      return net::HttpResponse::json(201, Json{{"auth_token", "hostile-token-" + std::to_string(++tokens_)}, {"lobby_id", "hostile-hub"},
                                               {"agent_id", id}, {"expires_at", "2099-01-01T00:00:00Z"}}.dump());
    }
    return net::HttpResponse::json(200, Json{{"token", "hostile.token." + std::to_string(++tokens_)}, {"expires_at", "2099-01-01T00:00:00Z"}}.dump());
  }

  std::shared_ptr<Connection> wait_fresh(std::chrono::milliseconds timeout, const std::atomic<bool>* stop) {
    std::unique_lock lock(mutex_);
    const auto until = Clock::now() + timeout;
    while (fresh_.empty() && Clock::now() < until && !(stop && stop->load())) cv_.wait_for(lock, 100ms);
    if (fresh_.empty()) return nullptr;
    auto c = fresh_.front();
    fresh_.pop_front();
    return c;
  }

 private:
  std::shared_ptr<Connection> find(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    auto it = by_peer_.find(id);
    return it == by_peer_.end() ? nullptr : it->second;
  }

  Protocol protocol_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::uint64_t, std::shared_ptr<Connection>> by_peer_;
  std::deque<std::shared_ptr<Connection>> fresh_;
  std::atomic<std::uint64_t> tokens_{0};
};

// The client under test: `sh -c COMMAND` in its own session with a private $TMPDIR and its
// output in a bounded buffer (harness/util/child_process.hpp); restarted after a crash.
class Client {
 public:
  Client(std::string command, std::map<std::string, std::string> env) : command_(std::move(command)), env_(std::move(env)) {}
  bool start() {
    ChildOptions o;
    // exec: the shell becomes the client, so the crash oracle sees the client's own status.
    o.command = "exec " + command_;
    o.env = env_;
    o.keep_bytes = 4096;
    auto c = ChildProcess::start(o);
    if (!c) return false;
    child_ = std::move(*c);
    return true;
  }
  // nullopt while it runs; how it ended otherwise.
  std::optional<std::string> ended() { return child_ ? child_->ended() : std::optional<std::string>("not running"); }
  std::string log_tail() const { return child_ ? child_->output() : std::string(); }
  void stop() { child_.reset(); }

 private:
  std::string command_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<ChildProcess> child_;
};

// Valid hub-to-client messages of each protocol: what the hostile hub damages.
std::vector<Json> hub_messages(Protocol p, const std::string& agent) {
  switch (p) {
    case Protocol::chopsticks:
      return {Json{{"type", "req"}, {"id", "r-1"}, {"op", "play"}, {"data", {{"query", "song"}, {"guildId", "g1"}}}, {"agentId", agent}},
              Json{{"type", "req"}, {"id", "r-2"}, {"op", "status"}, {"data", Json::object()}, {"agentId", agent}},
              Json{{"type", "error"}, {"error", "Incompatible protocol version"}}};
    case Protocol::alp: {
      auto env = [&](const char* type, Json payload) {
        return Json{{"message_id", proto::typed::new_uuid_v4()}, {"protocol_version", "0.2.0"}, {"sender_id", "hostile-hub"},
                    {"receiver_id", agent}, {"message_type", type}, {"payload", std::move(payload)}, {"timestamp", proto::typed::utc_now()}};
      };
      return {env("REGISTER_CLIENT_ACK", {{"status", "success"}, {"lobby_id", "hostile-hub"}, {"server_time_utc", proto::typed::utc_now()},
                                          {"session_id", proto::typed::new_uuid_v4()}}),
              env("PING", {{"nonce", "n"}}), env("DIRECT_MESSAGE", {{"content_type", "text/plain"}, {"content", "hi"}}),
              env("INVOKE_CAPABILITY_REQUEST", {{"capability_name", "x.y"}, {"input_data", Json::object()}}),
              env("LOBBY_BROADCAST", {{"event_type", "system_maintenance"}, {"data", Json::object()}}),
              env("PROTOCOL_ERROR", {{"error", {{"code", "MESSAGE_MALFORMED"}, {"message", "bad"}}}, {"offending_message_id", proto::typed::new_uuid_v4()}})};
    }
    case Protocol::agora:
      return {Json{{"type", "message"}, {"from", "hub-agent"}, {"payload", {{"text", "hi"}}}},
              Json{{"type", "message"}, {"from", "hub-agent"}, {"stream", true}, {"stream_id", "s"}},
              Json{{"type", "message_chunk"}, {"from", "hub-agent"}, {"stream_id", "s"}, {"chunk", "part"}},
              Json{{"type", "message_end"}, {"from", "hub-agent"}, {"stream_id", "s"}},
              Json{{"type", "error"}, {"code", "UNKNOWN_RECIPIENT"}, {"message", "no such agent"}}};
    case Protocol::agentprotocol:
      return {Json{{"protocol", "agentprotocol/0.1"}, {"id", proto::typed::new_uuid_v4()}, {"timestamp", proto::typed::utc_now()},
                   {"from", {{"agentId", kHubAgentId}}}, {"to", {{"agentId", agent}, {"broadcast", false}}},
                   {"type", "request"}, {"payload", {{"action", "echo"}, {"correlationId", "c"}, {"params", Json::object()}}}, {"signature", "AAAA"}}};
    case Protocol::a2acp:
      return {Json{{"protocol_version", "1.0"}, {"message_id", proto::typed::new_uuid_v4()}, {"timestamp", proto::typed::utc_now()},
                   {"source_agent", {{"agent_id", "protocol-broker-agent"}, {"domain", "a_domain"}, {"version", "1.0.0"}}},
                   {"target_agent", {{"agent_id", agent}, {"domain", "a_domain"}, {"version", "1.0.0"}}}, {"message_type", "request"},
                   {"intent", "accept_handshake"}, {"payload", {{"requested_intent", "x"}, {"collaboration_id", "c"}}},
                   {"security", {{"auth_token", "a.b.c"}, {"encryption", "none"}}}}};
  }
  return {};
}

// The probe a live client must answer, and how to recognize the answer; empty when the
// protocol obliges a client to answer nothing.
struct Probe {
  std::string frame;
  std::function<bool(const Json&)> answered;
};
std::optional<Probe> probe_for(Protocol p, const std::string& agent, std::uint64_t n) {
  const std::string id = "hub-probe-" + std::to_string(n);
  if (p == Protocol::chopsticks) {
    return Probe{Json{{"type", "req"}, {"id", id}, {"op", "status"}, {"data", Json::object()}, {"agentId", agent}}.dump(),
                 [id](const Json& j) { return string_at(j, {"type"}) == "resp" && string_at(j, {"id"}) == id; }};
  }
  if (p == Protocol::alp) {
    Json ping{{"message_id", proto::typed::new_uuid_v4()}, {"protocol_version", "0.2.0"}, {"sender_id", "hostile-hub"}, {"receiver_id", agent},
              {"message_type", "PING"}, {"payload", {{"nonce", id}}}, {"timestamp", proto::typed::utc_now()}};
    return Probe{ping.dump(), [id](const Json& j) {
                   return string_at(j, {"message_type"}) == "PONG" && string_at(j, {"payload", "nonce"}) == id;
                 }};
  }
  return std::nullopt;
}

std::vector<std::string> ws_paths(Protocol p) {
  switch (p) {
    case Protocol::alp: return {"/ws/connect"};
    case Protocol::agora: return {"/agora/ws"};
    case Protocol::agentprotocol: return {"/agentprotocol/ws"};
    case Protocol::a2acp: return {"/a2acp/ws"};
    case Protocol::chopsticks: return {"/chopsticks/ws"};
  }
  return {};
}

// The agent id a client connection stands for (its hello, or the URL's agent_id).
std::string agent_of(Protocol p, const net::HttpRequest& upgrade, const std::string& first) {
  if (const std::string q = upgrade.query_value("agent_id"); !q.empty()) return q;
  const Json j = parse_loose(first);
  if (!j.is_object()) return "client";
  std::string id;
  if (p == Protocol::chopsticks) id = string_at(j, {"agentId"});
  if (p == Protocol::agentprotocol) id = string_at(j, {"from", "agentId"});
  if (p == Protocol::alp) id = string_at(j, {"sender_id"});
  return id.empty() ? "client" : id;
}

}  // namespace

HostileHubReport hostile_hub(const HostileHubOptions& o) {
  HostileHubReport report;
  const auto start = Clock::now();
  auto log = [&](const std::string& line) {
    if (o.log) o.log(line);
  };
  auto hub = std::make_shared<Hub>(o.protocol);
  net::ServerOptions so;
  so.max_connections = kHubConnections;
  const auto colon = o.listen.rfind(':');
  so.address = o.listen.substr(0, colon);
  try {
    so.port = static_cast<std::uint16_t>(std::stoi(o.listen.substr(colon + 1)));
  } catch (const std::exception&) {
    log("--listen must be HOST:PORT");
    return report;
  }
  net::Server server(so);
  for (const auto& path : ws_paths(o.protocol)) server.route_ws(path, hub);
  server.route("/api/v1/register", hub);
  server.route("/auth/token", hub);
  auto port = server.start();
  if (!port) {
    log("cannot listen on " + o.listen + ": " + port.error());
    return report;
  }
  const std::string ws = "ws://" + so.address + ":" + std::to_string(*port);
  const std::string http = "http://" + so.address + ":" + std::to_string(*port);
  log("hostile " + std::string(protocol_name(o.protocol)) + " hub listening on " + ws + ", seed " + std::to_string(o.seed));
  if (o.on_listening) o.on_listening(*port);
  std::unique_ptr<Client> client;
  if (!o.command.empty()) {
    // As `serve` does: the URLs, and for AgentProtocol the hub's agentId (the spec has no
    // discovery; an AgentProtocol client addresses its hello to AGENTCONFORM_PEER_ID).
    std::map<std::string, std::string> env{{"AGENTCONFORM_URL", ws}, {"AGENTCONFORM_HTTP", http}};
    if (o.protocol == Protocol::agentprotocol) env.emplace("AGENTCONFORM_PEER_ID", kHubAgentId);
    client = std::make_unique<Client>(o.command, std::move(env));
    if (!client->start()) {
      log("cannot start the client: " + o.command);
      return report;
    }
  }
  std::map<std::string, bool> seen;
  auto find = [&](Trip trip, std::uint64_t episode, std::vector<std::string> actions) {
    if (seen[trip.oracle + "|" + trip.signature]) return;
    seen[trip.oracle + "|" + trip.signature] = true;
    log("finding in episode " + std::to_string(episode) + ": [" + trip.oracle + "] " + trip.signature + "\n  " + shorten(trip.detail, 600));
    report.findings.push_back(ClientFinding{std::move(trip), episode, std::move(actions)});
  };
  auto time_left = [&] {
    if (o.stop && o.stop->load()) return false;
    if (o.max_episodes > 0 && report.episodes >= o.max_episodes) return false;
    return std::chrono::duration<double>(Clock::now() - start).count() < o.duration_s;
  };
  bool hub_closed_last = false;
  std::vector<std::string> last_actions;
  while (time_left()) {
    auto c = hub->wait_fresh(report.episodes == 0 ? o.first_connect_timeout : o.reconnect_timeout, o.stop);
    if (client) {
      if (auto ended = client->ended()) {
        find(Trip{"crash", "the client process ended while under test", *ended + "\n" + client->log_tail()}, report.episodes, last_actions);
        client->start();  // go on with a fresh one
        continue;
      }
    }
    if (!c) {
      if (report.episodes == 0) break;
      if (hub_closed_last) {
        find(Trip{"reconnect", "the client did not reconnect after the hub closed its connection",
                  "no new connection within " + std::to_string(o.reconnect_timeout.count()) + " ms"},
             report.episodes, last_actions);
      }
      if (!client) break;
      continue;
    }
    report.client_connected = true;
    std::shared_ptr<net::Peer> peer;  // held for the episode (on_close lets go of the connection's)
    {
      std::lock_guard lock(c->mutex);
      peer = c->peer;
    }
    if (!peer) continue;
    const std::uint64_t episode = ++report.episodes;
    Rng rng(o.seed * 0x9E3779B97F4A7C15ULL + episode);
    std::vector<std::string> actions;
    const std::string first = c->next(o.answer_timeout).value_or("");
    const std::string agent = agent_of(o.protocol, peer->upgrade_request(), first);
    hub_closed_last = false;
    const auto templates = hub_messages(o.protocol, agent);
    const std::size_t n_actions = 1 + pick(rng, 3);
    for (std::size_t a = 0; a < n_actions && !hub_closed_last; ++a) {
      switch (pick(rng, 6)) {
        case 0: case 1: {
          const std::size_t k = 1 + pick(rng, 5);
          for (std::size_t i = 0; i < k && !templates.empty(); ++i) {
            std::string what;
            peer->send_text(mutate_message(rng, o.protocol, templates[pick(rng, templates.size())], what));
            ++report.frames_sent;
            actions.push_back("malformed message (" + what + ")");
          }
          break;
        }
        case 2: {
          static const std::string garbage[] = {"", "not json", "{", "[1,2,3]", "null", "{\"type\":", std::string(300 * 1024, '{'),
                                                "\xEF\xBB\xBF{}", std::string("{\"a\":\"\0\"}", 10)};
          const auto& g = garbage[pick(rng, std::size(garbage))];
          peer->send_text(g);
          ++report.frames_sent;
          actions.push_back("garbage text (" + std::to_string(g.size()) + " bytes)");
          break;
        }
        case 3: {
          const std::size_t k = 100 + pick(rng, 900);
          for (std::size_t i = 0; i < k && !templates.empty(); ++i) peer->send_text(templates[i % templates.size()].dump());
          report.frames_sent += k;
          actions.push_back("flood of " + std::to_string(k) + " messages");
          break;
        }
        case 4: {
          const auto ms = 200 + pick(rng, 1300);
          std::this_thread::sleep_for(std::chrono::milliseconds(ms));
          actions.push_back("stall " + std::to_string(ms) + " ms");
          break;
        }
        default: {
          static const std::uint16_t codes[] = {1001, 1002, 1003, 1007, 1008, 1009, 1011, 1012, 1013, 3000, 4000, 4999};
          const std::uint16_t code = codes[pick(rng, std::size(codes))];
          peer->close(code, chance(rng, 0.5) ? std::string(100, 'r') : "hostile close \xE2\x9C\x95");
          actions.push_back("close " + std::to_string(code));
          hub_closed_last = true;
          break;
        }
      }
    }
    last_actions = actions;
    if (!hub_closed_last && !c->is_closed()) {
      if (auto probe = probe_for(o.protocol, agent, episode)) {
        peer->send_text(probe->frame);
        ++report.frames_sent;
        bool answered = false;
        const auto until = Clock::now() + o.answer_timeout;
        while (!answered && Clock::now() < until) {
          auto f = c->next(std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()));
          if (!f) break;
          const Json j = parse_loose(*f);
          answered = j.is_object() && probe->answered(j);
        }
        if (!answered && !c->is_closed()) {
          std::string did;
          for (const auto& a : actions) did += (did.empty() ? "" : "; ") + a;
          find(Trip{"liveness", "the client stopped answering the probe on a connection it kept open", "after: " + did}, episode, actions);
        }
      }
      peer->close(1001, "episode over");
      hub_closed_last = true;
    }
  }
  if (client) {
    if (auto ended = client->ended()) find(Trip{"crash", "the client process ended while under test", *ended + "\n" + client->log_tail()}, report.episodes, last_actions);
    client->stop();
  }
  server.stop(std::chrono::milliseconds(500));
  hub->clear();
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

int run_hostile_hub(const HostileHubOptions& options) {
  const auto report = hostile_hub(options);
  auto say = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  say(std::to_string(report.episodes) + " episodes, " + std::to_string(report.frames_sent) + " frames sent in " +
      std::to_string(static_cast<long long>(report.seconds)) + " s; " + std::to_string(report.findings.size()) + " finding(s)");
  for (const auto& f : report.findings) {
    std::string did;
    for (const auto& a : f.actions) did += (did.empty() ? "" : "; ") + a;
    say("  [" + f.trip.oracle + "] " + f.trip.signature + " (episode " + std::to_string(f.episode) + ": " + did + ")");
  }
  if (!report.client_connected) {
    say("the client never connected");
    return 3;
  }
  return report.findings.empty() ? 0 : 1;
}

}  // namespace ac::fuzz
