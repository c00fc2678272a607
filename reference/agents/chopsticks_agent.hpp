// The reference Chopsticks agent (chopsticks-1.0.0.md, agent side): connects to a controller,
// sends hello with protocolVersion, repeats hello and guilds as heartbeats, answers every `req`
// with one `resp` (play/pause/resume/skip/stop/queue/search/status; other ops: ok false),
// reports voice sessions with event add/released, and reconnects after a close. It is the client
// that client-under-test mode is proven with (agentconform serve --command "agentconform agent").
#pragma once

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

namespace ac::ref {

struct ChopsticksAgentOptions {
  std::string url;                       // ws://host:port/chopsticks/ws
  std::string agent_id = "reference-agent";
  std::string protocol_version = "1.0.0";
  std::vector<std::string> guild_ids = {"1445809891242414226"};
  std::string pool_id = "pool-reference";
  std::chrono::milliseconds heartbeat{30000};
  std::chrono::milliseconds reconnect_delay{1000};
  int max_connections = -1;              // -1: reconnect forever; 1: a single connection
  // Misbehaviours, to prove client-under-test cases fail on a broken agent.
  bool never_respond = false;            // ignore every req
  bool omit_version = false;             // hello without protocolVersion
};

// Runs until `stop` is set (then releases voice sessions and closes with 1000) or until the
// connection budget is spent. Returns 0, or 3 when the controller could never be reached.
int run_chopsticks_agent(const ChopsticksAgentOptions& options, const std::atomic<bool>& stop, std::ostream& log);

}  // namespace ac::ref
