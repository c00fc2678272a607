// `agentconform fuzz --serve`: the fuzzer's mirror image, a hostile hub for clients under test
// (agents, SDKs). It serves the protocol's endpoints (and, for ALP and A2ACP, the registration
// or token endpoint the client needs first), and treats every connection the client opens as
// one episode: after the client's first message it sends what the seed draws (mutated hub
// messages, garbage, floods, stalls, closes with odd codes), then checks that the client is
// still there:
//   crash      the client process (--command) died
//   liveness   the client stopped answering the protocol's probe (Chopsticks req status ->
//              resp; ALP PING -> PONG with the nonce) on a connection it kept open
//   reconnect  after the hub closed its connection the client did not come back (Chopsticks'
//              agents and ALP SDKs reconnect: "SDKs SHOULD implement automatic reconnection")
// The client gets the hub's URLs in AGENTCONFORM_URL (WebSocket base) and AGENTCONFORM_HTTP.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/fuzz/profile.hpp"

namespace ac::fuzz {

struct HostileHubOptions {
  Protocol protocol = Protocol::chopsticks;
  std::string listen = "127.0.0.1:0";
  std::string command;  // the client under test; empty: it connects by itself
  std::uint64_t seed = 0;
  double duration_s = 30;
  std::size_t max_episodes = 0;  // 0: until the duration
  std::chrono::milliseconds first_connect_timeout{15000};
  std::chrono::milliseconds reconnect_timeout{5000};
  std::chrono::milliseconds answer_timeout{3000};
  std::function<void(const std::string&)> log;
  std::function<void(std::uint16_t port)> on_listening;  // tests start their client here
  const std::atomic<bool>* stop = nullptr;
};

struct ClientFinding {
  Trip trip;
  std::uint64_t episode = 0;
  std::vector<std::string> actions;  // what the hub did in that episode
};

struct HostileHubReport {
  std::uint64_t episodes = 0;
  std::uint64_t frames_sent = 0;
  double seconds = 0;
  bool client_connected = false;
  std::vector<ClientFinding> findings;
};

HostileHubReport hostile_hub(const HostileHubOptions& options);
// The CLI's front: prints the findings; exit 0 none, 1 findings, 3 the client never connected.
int run_hostile_hub(const HostileHubOptions& options);

}  // namespace ac::fuzz
