// Runs one case against a target: creates its mock agents, executes its steps (docs/scenarios.md),
// and returns the verdict with the failing step, expected vs actual, and the transcript.
// A hostile target cannot hang it: every wait is bounded by the step timeout and the case deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "harness/engine/channel.hpp"
#include "harness/engine/requirements.hpp"
#include "harness/engine/results.hpp"
#include "harness/engine/scenario.hpp"
#include "harness/engine/target.hpp"
#include "harness/engine/transcript.hpp"
#include "harness/engine/vars.hpp"
#include "harness/net/client.hpp"

namespace ac::engine {

class CaseEnv;

struct CaseOptions {
  double timeout_scale = 1.0;                      // multiplies step and case timeouts
  std::chrono::milliseconds step_timeout{2000};    // default wait of an expect step
  std::chrono::milliseconds case_timeout{30000};   // deadline of the whole case
  std::uint64_t seed = 0;                          // agent ids and nonces derive from it
  std::uint64_t id_salt = 0;                       // mixed into generated ids: fresh ids per run under one seed
  bool strict_readings = false;                    // a failed reading of a MUST is FAIL (default: WARN, as a SHOULD)
  const std::atomic<bool>* cancel = nullptr;       // set by an interrupt: the case stops before its next step
  TranscriptBudget* transcript_budget = nullptr;   // the run's, shared by its cases (none: unbounded)
  // Client-under-test mode: called once the case's agents exist (keys, ids, variables), before
  // its first step; serve starts the client under test here, so that the driver can hand it
  // what the case's hub agents are (Driver::client_env). An error ends the case as ERROR.
  std::function<std::optional<std::string>(const CaseEnv&)> before_steps;
};

// Client-under-test mode: the scripted hub the client connects to (implemented in serve.cpp).
struct PendingHttp {
  net::HttpRequest request;
  std::function<void(net::HttpResponse)> respond;
};
// A client's WebSocket connection as the hub accepted it: the channel, and the upgrade request's
// decoded query parameters (what an "accept" step's "query" pattern is matched against).
struct AcceptedClient {
  std::shared_ptr<Channel> channel;
  std::multimap<std::string, std::string> query;
};

class ClientHub {
 public:
  virtual ~ClientHub() = default;
  // The client's next WebSocket connection, its channel recorded under `name`.
  virtual Expected<AcceptedClient, std::string> accept(std::chrono::milliseconds timeout, const std::string& name,
                                                       Transcript& transcript) = 0;
  // The next upgrade is refused with this status and body.
  virtual void refuse_next(int status, std::string body) = 0;
  // The client's next HTTP request (to be answered with respond()).
  virtual Expected<PendingHttp, std::string> next_http(std::chrono::milliseconds timeout, Transcript& transcript) = 0;
};

// `hub` is set in client-under-test mode only (role "agent" cases run only then).
CaseResult run_case(const Case& kase, const RequirementCatalog& requirements, const TargetConfig& target,
                    net::Runtime& runtime, const CaseOptions& options, ClientHub* hub = nullptr);

// Applies a step's "remove" (JSON Pointers) and "patch" (pointer -> value) to a filled message.
Expected<Json, std::string> apply_edits(Json message, const Json& step, const Vars& vars);

}  // namespace ac::engine
