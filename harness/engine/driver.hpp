// A protocol driver: everything protocol-specific the engine needs to run a case — how a mock
// agent connects (register + token, hello, query binding, ...), how a message template gets its
// envelope (ids, timestamps, versions, signature, JWT), and target actions (admin triggers).
// One per protocol in harness/engine/drivers/; the runner knows no protocol.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/engine/channel.hpp"
#include "harness/engine/scenario.hpp"
#include "harness/engine/target.hpp"
#include "harness/engine/transcript.hpp"
#include "harness/engine/vars.hpp"
#include "harness/net/client.hpp"
#include "harness/protocols/protocol_id.hpp"

namespace ac::engine {

struct AgentSession {
  std::string name;  // as in the case ("a")
  std::string id;    // unique per case and run unless the case fixes it
  Json props = Json::object();
  std::shared_ptr<Channel> channel;
  Json state = Json::object();  // the driver's own per-agent state (token, key, lobby_id, ...)
  std::shared_ptr<void> held;   // what the driver leased for this agent; released with the case
};

class ClientHub;  // runner.hpp: the scripted hub of client-under-test mode

// What a driver may use while running one case.
class CaseEnv {
 public:
  CaseEnv(net::Runtime& runtime, const TargetConfig& target, const Case& kase, Vars& vars, Transcript& transcript,
          std::chrono::milliseconds step_timeout, std::uint64_t seed);

  net::Runtime& runtime;
  const TargetConfig& target;
  const Case& kase;
  Vars& vars;
  Transcript& transcript;
  std::chrono::milliseconds step_timeout;
  std::uint64_t seed;
  std::mt19937_64 rng;
  std::map<std::string, AgentSession> agents;
  // Client-under-test mode only (agentconform serve): the scripted hub, for driver actions that
  // answer the client's HTTP requests themselves (A2ACP's issue-token mints a JWT for the request).
  ClientHub* hub = nullptr;

  // HTTP to the target (path relative to target.http_base, or an absolute URL), recorded in the
  // transcript under `channel`.
  Expected<net::HttpResult, net::ClientError> http(const std::string& method, const std::string& path, net::Headers headers,
                                                   const std::string& body, const std::string& channel);
  // Opens a WebSocket to target.ws_base + path_and_query, recorded in the transcript. The
  // returned channel records every frame it sends and receives.
  Expected<std::shared_ptr<Channel>, net::ClientError> ws_connect(const std::string& path_and_query, net::Headers headers,
                                                                  const std::string& channel);
  // A channel for the exec:/dir: targets (see channels.hpp).
  Expected<std::shared_ptr<Channel>, std::string> open_exec(const std::string& channel);

  // A deterministic id for generated things in this case (agent ids, nonces).
  std::string unique(const std::string& prefix);
};

// One preflight check (preflight.hpp prints them as a checklist).
struct ProbeResult {
  std::string check;   // "credentials", "paths.register", ...
  bool ok = false;
  std::string detail;  // what was seen (status, error)
  std::string fix;     // what to change (setting, path, scheme), empty when ok
  // Failed because the target broke this requirement, not because of its setup: only a refused
  // credential (401/403), an unreachable target and target.json itself are setup mistakes.
  std::string requirement;
};

struct ConnectResult {
  enum class Outcome { connected, refused, unreachable, harness_error };
  Outcome outcome = Outcome::connected;
  int status = 0;        // HTTP status of a refusal
  std::string body;      // body of a refusal
  std::string message;   // explanation
  std::string request;   // the request that was refused ("POST /api/v1/register"), for diagnosis
};

class Driver {
 public:
  virtual ~Driver() = default;
  virtual proto::ProtocolId protocol() const = 0;
  // Endpoint name that the path of a ws:// --target designates (e.g. "connect", "ws").
  virtual std::string primary_path() const = 0;
  // Adapts a target after its declared defaults and target.json applied, where the adaptation
  // is logic rather than data (e.g. AgentProtocol: an http:// target speaks HTTP POST). Paths and
  // settings defaults are data: suites/<protocol>/target-settings.json.
  virtual void defaults(TargetConfig& target) const { (void)target; }

  // The transports a case needs against this target: the transport of each connect step (the
  // step's "transport", else the driver's choice for the target) and "http" for http steps.
  virtual std::set<std::string> case_transports(const Case& kase, const TargetConfig& target) const;

  // Preflight: what proves the target is set up for this protocol before any case runs. The
  // default connects one probe agent as every case does (registration, token, binding) and
  // closes it; a refusal or an error is a setup problem, reported with the setting to fix.
  virtual std::vector<ProbeResult> probe(CaseEnv& env) const;
  // The requirement a valid agent's refusal at the protocol's entry point breaks (the default
  // probe's FAIL when the entry point exists and refuses anyway); empty: a setup error.
  virtual std::string admission_requirement() const { return ""; }

 protected:
  // The probe's agent ("probe"), created and initialised as a case's agent would be.
  AgentSession& probe_agent(CaseEnv& env) const;

 public:

  // Prepares an agent (keys, ids, variables such as ${a.id}) before its first step.
  virtual void init_agent(AgentSession& agent, CaseEnv& env) const;
  // Connects an agent as the step says (auth overrides, paths, query, headers).
  virtual ConnectResult connect(AgentSession& agent, const Json& step, CaseEnv& env) const = 0;
  // Completes a message template (already variable-substituted) for sending: envelope fields the
  // case left out, signature or token per the step's "sign"/"token" options.
  virtual Expected<Json, std::string> fill(Json message, AgentSession& agent, const Json& step, CaseEnv& env) const = 0;
  // Client-under-test mode: the endpoints the scripted hub serves (WebSocket and HTTP paths).
  virtual std::vector<std::string> hub_ws_paths() const { return {}; }
  virtual std::vector<std::string> hub_http_paths() const { return {}; }
  // Client-under-test mode: environment variables the client under test is started with for
  // this case, beside AGENTCONFORM_URL/HTTP/CASE (e.g. the identity of the hub it talks to, when
  // the protocol needs the client to know it before it connects). Called once the case's agents
  // exist. Default: none.
  virtual std::map<std::string, std::string> client_env(const CaseEnv& env) const {
    (void)env;
    return {};
  }

  // A target action named by a `trigger` step (e.g. "broadcast"). Default: unknown.
  virtual Expected<Json, std::string> trigger(const std::string& action, const Json& params, CaseEnv& env) const;
};

const Driver& driver_for(proto::ProtocolId id);

// The default reading of a probe connect: connected, or refused/unreachable with what was seen.
// A refusal other than 401/403 at an entry point that exists breaks `requirement` (the
// protocol's "a valid agent is admitted"); with no requirement it is a setup error.
ProbeResult probe_result(const ConnectResult& r, const std::string& requirement = "");

}  // namespace ac::engine
