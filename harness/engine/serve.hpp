// Client-under-test mode (`agentconform serve`): the harness plays the scripted hub and judges an
// agent or SDK that connects to it. Cases with role "agent" use three more steps:
//   {"accept": "c"}                       wait for the client's WebSocket connection (or, with
//                                         "refuse": 401, refuse the next upgrade with that status)
//   {"expect_http": "c", "method": "POST", "path": "/api/v1/register", "body": pattern,
//    "respond": {"status": 200, "body": {...}}, "capture": {...}}
//                                         wait for an HTTP request from the client and answer it
//   {"hangup": "c", "code": 1008, "reason": "..."}   the hub closes the client's connection
// and the usual send/expect steps on the accepted connection. With --command, the client is
// started for each case with AGENTCONFORM_URL (WebSocket base), AGENTCONFORM_HTTP (HTTP base) and
// AGENTCONFORM_CASE in its environment, plus what the protocol's driver adds (Driver::client_env;
// AgentProtocol: AGENTCONFORM_PEER_ID, the hub's agentId), and killed at the end of the case. It
// is started once the case's agents exist, just before the first step.
#pragma once

#include <iosfwd>
#include <string>

#include "harness/engine/results.hpp"
#include "harness/engine/run.hpp"

namespace ac::engine {

struct ServeOptions {
  std::string protocol;
  std::string listen = "127.0.0.1:0";
  std::string command;           // the client under test; empty: it connects by itself
  std::vector<std::string> suites;
  std::vector<std::string> case_globs;
  double timeout_scale = 1.0;
  std::uint64_t seed = 0;
  bool quiet = false;
};

Expected<RunResult, std::string> serve(const Loaded& loaded, const ServeOptions& options, std::ostream& progress);

}  // namespace ac::engine
