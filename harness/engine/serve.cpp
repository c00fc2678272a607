#include "harness/engine/serve.hpp"

#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>

#include "harness/engine/driver.hpp"
#include "harness/engine/runner.hpp"
#include "harness/net/server.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "harness/util/child_process.hpp"

extern char** environ;

namespace ac::engine {
namespace {

using Clock = std::chrono::steady_clock;

// What a client under test can make `serve` hold (docs/limits.md): its connections, its unread
// messages per connection, its unanswered HTTP requests and its output.
constexpr std::size_t kHubConnections = 64;
constexpr std::size_t kHubMessageBytes = 4u << 20;
constexpr std::size_t kInboxEvents = 4096;
constexpr std::size_t kInboxBytes = 16u << 20;
constexpr std::size_t kPendingHttp = 256;
constexpr std::size_t kClientOutputKeep = 4096;  // the first and the last bytes of its output

// Events of one accepted connection, fed by the server threads, read by the case thread.
struct PeerInbox {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Incoming> events;
  std::size_t bytes = 0;
  bool closed = false;
};

class ServerChannel final : public Channel {
 public:
  ServerChannel(std::shared_ptr<net::Peer> peer, std::shared_ptr<PeerInbox> inbox, Transcript& t, std::string name)
      : peer_(std::move(peer)), inbox_(std::move(inbox)), t_(t), name_(std::move(name)) {}
  std::string transport() const override { return "ws"; }
  void send_text(std::string_view text) override {
    t_.add(name_, "out", "text", std::string(text));
    peer_->send_text(std::string(text));
  }
  std::optional<Incoming> next(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(inbox_->mutex);
    if (!inbox_->cv.wait_for(lock, timeout, [&] { return !inbox_->events.empty(); })) return std::nullopt;
    Incoming in = inbox_->events.front();
    // A closed connection keeps reporting its close.
    if (in.kind != ws::Event::Kind::close) {
      inbox_->bytes -= in.data.size();
      inbox_->events.pop_front();
    }
    lock.unlock();
    if (in.kind == ws::Event::Kind::close) {
      if (!close_reported_) t_.add(name_, "in", "close", in.close_reason, in.close_code);
      close_reported_ = true;
    } else {
      t_.add(name_, "in", in.kind == ws::Event::Kind::binary ? "binary" : "text", in.data);
    }
    return in;
  }
  void close(std::uint16_t code, std::string_view reason) override {
    t_.add(name_, "out", "close", std::string(reason), code);
    peer_->close(code, std::string(reason));
  }
  void abort() override { peer_->close(net::close_code::going_away, "case over"); }
  bool is_open() const override {
    std::lock_guard lock(inbox_->mutex);
    return !inbox_->closed;
  }

 private:
  std::shared_ptr<net::Peer> peer_;
  std::shared_ptr<PeerInbox> inbox_;
  Transcript& t_;
  std::string name_;
  bool close_reported_ = false;
};

class ServeHub final : public ClientHub, public net::WsHandler, public net::HttpHandler {
 public:
  // ClientHub
  Expected<AcceptedClient, std::string> accept(std::chrono::milliseconds timeout, const std::string& name,
                                               Transcript& transcript) override {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, timeout, [&] { return !accepted_.empty() || refused_; })) return unexpected(std::string("timeout"));
    if (refused_) {
      refused_ = false;
      transcript.add(name, "out", "refused", refuse_body_used_, refuse_status_used_);
      return unexpected(std::string("refused"));
    }
    auto [peer, inbox] = accepted_.front();
    accepted_.pop_front();
    transcript.add(name, "in", "connected", peer->upgrade_request().target, 101);
    return AcceptedClient{std::make_shared<ServerChannel>(peer, inbox, transcript, name), peer->upgrade_request().query};
  }

  void refuse_next(int status, std::string body) override {
    std::lock_guard lock(mutex_);
    refuse_status_ = status;
    refuse_body_ = std::move(body);
  }

  Expected<PendingHttp, std::string> next_http(std::chrono::milliseconds timeout, Transcript& transcript) override {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, timeout, [&] { return !http_.empty(); })) return unexpected(std::string("timeout"));
    PendingHttp p = std::move(http_.front());
    http_.pop_front();
    transcript.add("hub", "in", "http-request", p.request.method + " " + p.request.target + (p.request.body.empty() ? "" : "\n\n" + p.request.body));
    return p;
  }

  // Between cases: forget connections and requests of the previous client.
  void reset() {
    std::vector<std::shared_ptr<net::Peer>> peers;
    {
      std::lock_guard lock(mutex_);
      for (auto& [id, p] : peers_) peers.push_back(p.first);
      accepted_.clear();
      for (auto& h : http_) h.respond(net::HttpResponse::json(503, R"({"error":"case over"})"));
      http_.clear();
      refused_ = false;
      refuse_status_ = 0;
    }
    for (auto& p : peers) p->close(net::close_code::going_away, "case over");
  }

  // WsHandler
  net::UpgradeDecision on_upgrade(const net::HttpRequest&) override {
    std::lock_guard lock(mutex_);
    if (refuse_status_ != 0) {
      refuse_status_used_ = refuse_status_;
      refuse_body_used_ = refuse_body_;
      refuse_status_ = 0;
      refused_ = true;
      cv_.notify_all();
      return net::UpgradeDecision::refuse(refuse_status_used_, refuse_body_used_);
    }
    return net::UpgradeDecision::allow();
  }
  void on_open(const std::shared_ptr<net::Peer>& peer) override {
    auto inbox = std::make_shared<PeerInbox>();
    std::unique_lock lock(mutex_);
    if (accepted_.size() >= kHubConnections) {  // connections the case never accepts
      lock.unlock();
      peer->close(net::close_code::policy_violation, "agentconform: too many connections");
      return;
    }
    peers_[peer->id()] = {peer, inbox};
    accepted_.emplace_back(peer, inbox);
    cv_.notify_all();
  }
  void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) override {
    push(peer->id(), Incoming{binary ? ws::Event::Kind::binary : ws::Event::Kind::text, std::string(frame)});
  }
  void on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo& info) override {
    Incoming in{ws::Event::Kind::close, "", info.code, info.reason, false, true};
    push(peer->id(), std::move(in), /*close=*/true);
  }
  std::size_t max_message_bytes() const override { return kHubMessageBytes; }

  // HttpHandler
  net::HttpResponse handle(const net::HttpRequest&) override { return net::HttpResponse::json(500, "{}"); }
  void handle_async(const net::HttpRequest& request, std::function<void(net::HttpResponse)> respond) override {
    std::unique_lock lock(mutex_);
    if (http_.size() >= kPendingHttp) {
      lock.unlock();
      respond(net::HttpResponse::json(503, R"({"error":"agentconform: too many unanswered requests"})"));
      return;
    }
    http_.push_back(PendingHttp{request, std::move(respond)});
    cv_.notify_all();
  }

 private:
  void push(std::uint64_t peer_id, Incoming in, bool close = false) {
    std::shared_ptr<PeerInbox> inbox;
    {
      std::lock_guard lock(mutex_);
      auto it = peers_.find(peer_id);
      if (it == peers_.end()) return;
      inbox = it->second.second;
      if (close) peers_.erase(it);
    }
    {
      std::lock_guard lock(inbox->mutex);
      if (inbox->closed) return;
      // A client that floods faster than the case reads: end it rather than hold it all.
      const bool full = !close && (inbox->events.size() >= kInboxEvents || inbox->bytes + in.data.size() > kInboxBytes);
      if (!full) {
        inbox->closed = close;
        inbox->bytes += in.data.size();
        inbox->events.push_back(std::move(in));
        inbox->cv.notify_all();
        return;
      }
    }
    std::shared_ptr<net::Peer> flooding;
    {
      std::lock_guard lock(mutex_);
      if (auto it = peers_.find(peer_id); it != peers_.end()) flooding = it->second.first;
    }
    if (flooding) flooding->close(net::close_code::policy_violation, "agentconform: too many unread messages");
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::uint64_t, std::pair<std::shared_ptr<net::Peer>, std::shared_ptr<PeerInbox>>> peers_;
  std::deque<std::pair<std::shared_ptr<net::Peer>, std::shared_ptr<PeerInbox>>> accepted_;
  std::deque<PendingHttp> http_;
  int refuse_status_ = 0, refuse_status_used_ = 0;
  std::string refuse_body_, refuse_body_used_;
  bool refused_ = false;
};

}  // namespace

Expected<RunResult, std::string> serve(const Loaded& loaded, const ServeOptions& o, std::ostream& progress) {
  const auto id = proto::parse_protocol(o.protocol);
  if (!id) return unexpected("unknown protocol '" + o.protocol + "'");
  const Driver& driver = driver_for(*id);
  std::vector<const Case*> cases;
  for (const auto& suite : loaded.suites) {
    for (const auto& c : suite.cases) {
      if (c.protocol != o.protocol || c.role != "agent") continue;
      if (!o.suites.empty() && std::find(o.suites.begin(), o.suites.end(), c.suite) == o.suites.end()) continue;
      if (!o.case_globs.empty()) {
        bool any = false;
        for (const auto& g : o.case_globs) any |= fnmatch(g.c_str(), c.id.c_str(), 0) == 0;
        if (!any) continue;
      }
      cases.push_back(&c);
    }
  }
  if (cases.empty()) return unexpected("no client-under-test case matches for " + o.protocol);

  const auto colon = o.listen.rfind(':');
  if (colon == std::string::npos) return unexpected(std::string("--listen must be HOST:PORT"));
  net::ServerOptions so;
  so.max_connections = kHubConnections;
  so.address = o.listen.substr(0, colon);
  try {
    so.port = static_cast<std::uint16_t>(std::stoi(o.listen.substr(colon + 1)));
  } catch (const std::exception&) {
    return unexpected("invalid port in --listen " + o.listen);
  }
  net::Server server(so);
  auto hub = std::make_shared<ServeHub>();
  for (const auto& p : driver.hub_ws_paths()) server.route_ws(p, hub);
  for (const auto& p : driver.hub_http_paths()) server.route(p, hub);
  auto port = server.start();
  if (!port) return unexpected(port.error());
  const std::string host = so.address + ":" + std::to_string(*port);
  progress << "agentconform serve: scripted " << o.protocol << " hub on ws://" << host << " (" << cases.size()
           << " client cases)\n";
  progress.flush();

  // The hub's side of the protocol, with the declared defaults a server target would get.
  const TargetDeclaration* declaration = loaded.declarations.find(o.protocol);
  if (declaration == nullptr) return unexpected("no target declaration for " + o.protocol);
  auto described = target_from_document(*declaration, Json::object(), "http://" + host, "the scripted hub");
  if (!described) return unexpected(described.error());
  TargetConfig target = std::move(*described);
  target.kind = "client";
  target.features.insert("*");

  RunResult result;
  result.seed = o.seed != 0 ? o.seed : std::random_device{}();
  result.started_at = proto::typed::utc_now();
  result.target = {{"kind", "client"}, {"listen", host}, {"command", o.command}};
  const auto started = Clock::now();
  net::Runtime runtime(1);
  TranscriptBudget transcript_budget;
  for (const Case* c : cases) {
    hub->reset();
    // The client under test for this case: its own process group, private $TMPDIR and bounded
    // output (harness/util/child_process.hpp), all ended and removed when the case ends.
    // It starts once the case's agents exist, so that the driver can tell it who the hub is
    // (Driver::client_env, e.g. AgentProtocol's AGENTCONFORM_PEER_ID).
    std::unique_ptr<ChildProcess> client;
    std::optional<std::string> start_error;
    CaseOptions co;
    co.timeout_scale = o.timeout_scale;
    co.seed = result.seed;
    co.step_timeout = std::chrono::milliseconds(5000);
    co.transcript_budget = &transcript_budget;
    if (!o.command.empty()) {
      co.before_steps = [&](const CaseEnv& env) -> std::optional<std::string> {
        ChildOptions child;
        child.command = o.command;
        child.env = {{"AGENTCONFORM_URL", "ws://" + host}, {"AGENTCONFORM_HTTP", "http://" + host}, {"AGENTCONFORM_CASE", c->id}};
        for (auto& [k, v] : driver.client_env(env)) child.env[k] = v;
        child.keep_bytes = kClientOutputKeep;
        auto started_client = ChildProcess::start(child);
        if (!started_client) {
          start_error = started_client.error();
          return start_error;
        }
        client = std::move(*started_client);
        return std::nullopt;
      };
    }
    result.cases.push_back(run_case(*c, loaded.requirements, target, runtime, co, hub.get()));
    if (start_error) return unexpected(*start_error);
    auto& r = result.cases.back();
    if (client) {
      client->stop();
      const std::string log = client->output();
      if (r.verdict != Verdict::pass && !log.empty()) {
        r.transcript.push_back({{"t_ms", r.duration_ms}, {"channel", "client"}, {"direction", "note"}, {"kind", "client-log"}, {"data", log}});
      }
      client.reset();
    }
    if (!o.quiet) {
      progress << verdict_name(r.verdict) << "  " << r.id << "  " << r.title << "\n";
      if (r.verdict != Verdict::pass) progress << "      " << r.reason << "\n";
    }
  }
  hub->reset();
  server.stop();
  result.finished_at = proto::typed::utc_now();
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  return result;
}

}  // namespace ac::engine
