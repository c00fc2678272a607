// agentconform agent --protocol chopsticks [--url URL] [--agent-id ID] [--heartbeat-ms N] ...
// Runs a reference agent (a protocol client) until SIGINT/SIGTERM. With no --url it connects to
// $AGENTCONFORM_URL (set by `agentconform serve --command`) plus the protocol's path.
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "harness/cli/commands.hpp"
#include "harness/cli/validators.hpp"
#include "reference/agents/chopsticks_agent.hpp"

namespace ac::cli {
namespace {

struct AgentCli {
  std::string protocol;
  std::string url;
  std::string agent_id = "reference-agent";
  std::string protocol_version = "1.0.0";
  int heartbeat_ms = 30000;
  int max_connections = -1;
  std::vector<std::string> misbehave;
};

int run_agent(const AgentCli& o) {
  if (o.protocol != "chopsticks") {
    std::cerr << "agent: reference agents exist for: chopsticks\n";
    return 2;
  }
  ref::ChopsticksAgentOptions a;
  a.url = o.url;
  if (a.url.empty()) {
    const char* base = std::getenv("AGENTCONFORM_URL");
    if (base == nullptr) {
      std::cerr << "agent: give --url or set AGENTCONFORM_URL\n";
      return 2;
    }
    a.url = std::string(base) + "/chopsticks/ws";
  }
  a.agent_id = o.agent_id;
  a.protocol_version = o.protocol_version;
  a.heartbeat = std::chrono::milliseconds(o.heartbeat_ms);
  a.max_connections = o.max_connections;
  for (const auto& m : o.misbehave) {
    if (m == "never-respond") a.never_respond = true;
    else if (m == "omit-version") a.omit_version = true;
    else {
      std::cerr << "agent: unknown --misbehave " << m << " (never-respond, omit-version)\n";
      return 2;
    }
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::atomic<bool> stop{false};
  int rc = 0;
  std::thread worker([&] {
    rc = ref::run_chopsticks_agent(a, stop, std::cerr);
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
  cmd->add_option("--protocol,-p", o->protocol, "chopsticks")->required();
  cmd->add_option("--url", o->url, "the hub's WebSocket URL (default: $AGENTCONFORM_URL + the protocol's path)");
  cmd->add_option("--agent-id", o->agent_id, "agent id")->capture_default_str();
  cmd->add_option("--protocol-version", o->protocol_version, "version announced in hello")->capture_default_str();
  cmd->add_option("--heartbeat-ms", o->heartbeat_ms, "hello/guilds heartbeat period")->capture_default_str()->check(CLI::Range(10, 3600000));
  cmd->add_option("--max-connections", o->max_connections, "connections before giving up (-1: reconnect forever)")->check(CLI::Range(-1, 1000000));
  cmd->add_option("--misbehave", o->misbehave, "break the agent on purpose: never-respond, omit-version (repeatable)");
  cmd->callback([o, &ctx] { ctx.exit_code = run_agent(*o); });
}

}  // namespace

AC_REGISTER_COMMAND(110, add_agent);

}  // namespace ac::cli
