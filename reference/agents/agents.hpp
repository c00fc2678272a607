// The reference agents: one client of each protocol that `agentconform agent --protocol P` runs and
// that client-under-test mode (`agentconform serve --command "agentconform agent ..."`) is proven
// with. Each agent has misbehaviours (`--misbehave NAME`): faulty variants that at least one
// client case must catch (the client kill matrix). A protocol's agent lives in
// reference/agents/<protocol>_agent.cpp and is listed once in agents.cpp.
#pragma once

#include <atomic>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace ac::ref {

// What the command line gives every agent. `settings` holds the agent-specific `--set KEY=VALUE`
// pairs (each agent documents the keys it reads and rejects the others).
struct AgentRun {
  std::string url;                       // the hub's entry point (WebSocket or HTTP base)
  std::string agent_id;                  // empty: the agent's own default
  std::string protocol_version;          // empty: the version the agent speaks
  int heartbeat_ms = 30000;
  int max_connections = -1;              // -1: reconnect forever
  std::vector<std::string> misbehave;    // names from the agent's misbehaviours
  std::map<std::string, std::string> settings;
};

struct Misbehaviour {
  std::string name;
  std::string breaks;                  // one line: what the faulty variant does wrong
  std::vector<std::string> caught_by;  // client cases that must fail against it (the kill matrix checks)
};

struct ReferenceAgent {
  std::string protocol;
  std::string path;  // appended to $AGENTCONFORM_URL when no --url is given
  std::vector<Misbehaviour> misbehaviours;
  // Runs until `stop` is set or the connection budget is spent. Returns 0, 2 for a bad option
  // (after saying which on `log`), 3 when the hub could never be reached.
  std::function<int(const AgentRun&, const std::atomic<bool>& stop, std::ostream& log)> run;
};

const std::vector<ReferenceAgent>& reference_agents();
const ReferenceAgent* find_reference_agent(const std::string& protocol);

}  // namespace ac::ref
