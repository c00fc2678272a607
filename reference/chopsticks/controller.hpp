// The Chopsticks 1.0.0 controller (chopsticks-1.0.0.md): validates the agent's protocolVersion
// in `hello` (missing or unsupported: an `error` frame, then close 1008), keeps the live agents
// with lastSeen, guilds and voice sessions, and sends `req` RPCs whose `resp` must come back
// from the agent the request went to, within a timeout (30 s by default).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/net/types.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref::chopsticks {

using Json = nlohmann::json;

struct ControllerSettings {
  std::set<std::string> supported_versions = {"1.0.0"};
  std::chrono::milliseconds request_timeout{30000};
  // Bounded state: voice sessions one agent may hold (one per guild), RPCs waiting in all.
  std::size_t max_sessions_per_agent = 256;
  std::size_t max_pending = 4096;
  // Faults (see reference/chopsticks/faults.json).
  bool accept_any_version = false;
  bool accept_missing_version = false;
  bool no_error_frame = false;
  bool wrong_close_code = false;
  bool allow_takeover = false;
  bool answer_missing_agent_id = false;
  bool accept_resp_from_anyone = false;
  bool coerce_wrong_types = false;  // chopsticks.schema.coerce-wrong-types (reference/core/lenient_types.hpp)
  bool planted_accept_version_prefix = false;  // planted bug for the fuzzer (kind "planted-bug")
};

// The outcome of an RPC, delivered to the caller of request().
struct RpcOutcome {
  enum class Kind { response, timeout, agent_gone, unknown_agent, busy };
  Kind kind = Kind::timeout;
  Json resp;  // the agent's resp message (Kind::response)
};

class Controller final : public net::WsHandler {
 public:
  Controller(HubContext& context, ControllerSettings settings);

  void on_open(const std::shared_ptr<net::Peer>& peer) override;
  void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) override;
  void on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo& info) override;

  // Sends `req` {id, op, data, agentId} to a live agent; `done` runs exactly once.
  void request(const std::string& agent_id, const std::string& op, Json data, std::function<void(RpcOutcome)> done);

  Json agents_snapshot() const;
  // Lobby shutdown: answers every pending RPC (agent gone) and forgets every agent, so no
  // callback or peer is left holding a session (and, through it, this controller) alive.
  void shutdown();  // live agents with lastSeen, guilds, sessions
  Json status() const;

 private:
  struct Agent {
    std::shared_ptr<net::Peer> peer;
    std::string protocol_version;
    Json hello;  // the last hello
    std::set<std::string> guilds;
    std::map<std::string, Json> sessions;  // guildId -> event add
    std::chrono::system_clock::time_point last_seen;
  };
  struct Pending {
    std::string agent_id;
    std::uint64_t peer_id = 0;
    std::function<void(RpcOutcome)> done;
    net::Scheduler::TimerId timer = 0;
  };

  void handle_hello(const std::shared_ptr<net::Peer>& peer, const Json& msg);
  void handle_resp(const std::shared_ptr<net::Peer>& peer, const Json& msg);
  void register_agent(const std::shared_ptr<net::Peer>& peer, const std::string& agent_id, const Json& msg);  // requires mutex_
  void reject(const std::shared_ptr<net::Peer>& peer, const std::string& text);
  void finish(const std::string& id, RpcOutcome outcome);
  std::string agent_of(std::uint64_t peer_id) const;  // requires mutex_

  HubContext& context_;
  ControllerSettings settings_;
  mutable std::mutex mutex_;
  std::map<std::string, Agent> agents_;                 // agentId -> live agent
  std::map<std::uint64_t, std::string> by_connection_;  // peer id -> agentId
  std::map<std::string, Pending> pending_;              // req id -> pending RPC
};

}  // namespace ac::ref::chopsticks
