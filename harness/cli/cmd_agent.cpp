// agentconform agent --protocol P [--url URL] [--agent-id ID] [--misbehave NAME] [--set K=V] ...
// Runs a reference agent (a protocol client, reference/agents/agents.hpp) until SIGINT/SIGTERM.
// With no --url it connects to $AGENTCONFORM_URL (set by `agentconform serve --command`) plus the
// protocol's path. `--list-misbehaviours` prints the faulty variants, one name a line.
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "harness/cli/commands.hpp"
#include "harness/cli/validators.hpp"
#include "reference/agents/agents.hpp"

namespace ac::cli {
namespace {

struct AgentCli {
  std::string protocol;
  std::string url;
  std::string agent_id;
  std::string protocol_version;
  int heartbeat_ms = 30000;
  int max_connections = -1;
  std::vector<std::string> misbehave;
  std::vector<std::string> settings;
  bool list_misbehaviours = false;
};

std::string protocols_with_agents() {
  std::string names;
  for (const auto& a : ref::reference_agents()) names += (names.empty() ? "" : ", ") + a.protocol;
  return names;
}

std::string misbehaviour_names(const ref::ReferenceAgent& agent) {
  std::string names;
  for (const auto& m : agent.misbehaviours) names += (names.empty() ? "" : ", ") + m.name;
  return names.empty() ? "none" : names;
}

int run_agent(const AgentCli& o) {
  const ref::ReferenceAgent* agent = ref::find_reference_agent(o.protocol);
  if (agent == nullptr) {
    std::cerr << "agent: no reference agent for '" << o.protocol << "'; they exist for: " << protocols_with_agents() << "\n";
    return 2;
  }
  if (o.list_misbehaviours) {
    for (const auto& m : agent->misbehaviours) std::cout << m.name << "\n";
    return 0;
  }
  ref::AgentRun r;
  for (const auto& m : o.misbehave) {
    bool known = false;
    for (const auto& k : agent->misbehaviours) known = known || k.name == m;
    if (!known) {
      std::cerr << "agent: unknown --misbehave " << m << " for " << o.protocol << " (" << misbehaviour_names(*agent)
                << "; --list-misbehaviours prints them)\n";
      return 2;
    }
    r.misbehave.push_back(m);
  }
  r.url = o.url;
  if (r.url.empty()) {
    const char* base = std::getenv("AGENTCONFORM_URL");
    if (base == nullptr) {
      std::cerr << "agent: give --url or set AGENTCONFORM_URL\n";
      return 2;
    }
    r.url = std::string(base) + agent->path;
  }
  r.agent_id = o.agent_id;
  r.protocol_version = o.protocol_version;
  r.heartbeat_ms = o.heartbeat_ms;
  r.max_connections = o.max_connections;
  for (const auto& kv : o.settings) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "agent: --set takes KEY=VALUE, got '" << kv << "'\n";
      return 2;
    }
    r.settings[kv.substr(0, eq)] = kv.substr(eq + 1);
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::atomic<bool> stop{false};
  int rc = 0;
  std::thread worker([&] {
    rc = agent->run(r, stop, std::cerr);
    ::kill(::getpid(), SIGTERM);  // wake the signal wait below
  });
  int sig = 0;
  sigwait(&signals, &sig);
  stop = true;
  worker.join();
  return rc;
}

void add_agent(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<AgentCli>();
  auto* cmd = app.add_subcommand("agent", "Run a reference agent (protocol client) against a hub, until SIGINT/SIGTERM");
  cmd->add_option("--protocol,-p", o->protocol, "protocol whose reference agent to run")->required();
  cmd->add_option("--url", o->url, "the hub's URL (default: $AGENTCONFORM_URL + the protocol's path)");
  cmd->add_option("--agent-id", o->agent_id, "agent id (default: the agent's own)");
  cmd->add_option("--protocol-version", o->protocol_version, "version announced in hello (default: the one the agent speaks)");
  cmd->add_option("--heartbeat-ms", o->heartbeat_ms, "heartbeat period, where the protocol has one")->capture_default_str()->check(CLI::Range(10, 3600000));
  cmd->add_option("--max-connections", o->max_connections, "connections before giving up (-1: reconnect forever)")->check(CLI::Range(-1, 1000000));
  cmd->add_option("--misbehave", o->misbehave, "break the agent on purpose (repeatable; --list-misbehaviours prints the names)");
  cmd->add_option("--set", o->settings, "an agent-specific setting KEY=VALUE (repeatable)");
  cmd->add_flag("--list-misbehaviours", o->list_misbehaviours, "print the agent's faulty variants, one name a line, and exit");
  cmd->callback([o, &ctx] { ctx.exit_code = run_agent(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(110, add_agent);

}  // namespace ac::cli
