// A protocol hub: the lobby-side behaviour of one protocol (ALP lobby, Agora relay,
// AgentProtocol reference agent, A2ACP broker + auth service, Chopsticks controller). A hub
// publishes its HTTP and WebSocket endpoints into a RouteTable; the Lobby puts them behind
// the network server, and the in-process fuzzers drive them directly with fake peers.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/net/types.hpp"
#include "harness/protocols/protocol_id.hpp"
#include "reference/core/config.hpp"
#include "reference/core/faults.hpp"
#include "reference/core/metrics.hpp"

namespace ac::ref {

using Clock = std::function<std::chrono::system_clock::time_point()>;

struct HubContext {
  const LobbyConfig& config;
  const FaultSet& faults;
  Metrics& metrics;
  net::Scheduler& scheduler;
  Clock clock = [] { return std::chrono::system_clock::now(); };
  std::string base_url;  // "http://127.0.0.1:PORT" once known (for documents that name endpoints)
};

struct RouteTable {
  std::vector<std::pair<std::string, std::shared_ptr<net::HttpHandler>>> http;
  std::vector<std::pair<std::string, std::shared_ptr<net::WsHandler>>> ws;
};

class Hub {
 public:
  virtual ~Hub() = default;
  virtual proto::ProtocolId protocol() const = 0;
  virtual void install(RouteTable& routes) = 0;
  // Called before the server stops (cancel timers, flush files).
  virtual void shutdown() {}
  // A JSON snapshot for GET /healthz (agents online, streams, collaborations, ...).
  virtual nlohmann::json status() const { return nlohmann::json::object(); }
};

// Every hub is created through one of these, listed once in reference/core/hubs.cpp.
using HubFactory = Expected<std::unique_ptr<Hub>, std::string> (*)(HubContext& context);
const std::vector<std::pair<proto::ProtocolId, HubFactory>>& hub_factories();

}  // namespace ac::ref
