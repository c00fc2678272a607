// A2ACP 1.0 driver (a2acp-1.0.md). The target is a ProtocolBrokerAgent plus the a_domain auth
// service (role "broker" / "auth-service"). Every mock agent gets its JWTs from the auth service
// (POST /auth/token, reading A2-11/A2-20) and talks to the broker over the WebSocket binding of
// readings A2-6/A2-14: one A2ACP message per JSON text frame at /a2acp/ws?agent_id=<id>.
// A2ACP has no "streaming" behaviour; the driver needs nothing for it.
//
// Endpoints (target.json "paths"): "ws" (default /a2acp/ws; the path of a ws:// --target),
// "token" (default /auth/token), "agents" (default /a2acp/agents: the reference's presence view,
// used only when settings.presence_check is true).
//
// Settings (target.json "settings"):
//   api_key            the auth service's API key, sent as body member `api_key_member`
//                      (default "api_key"; reading A2-20). Embedded: the lobby's first key.
//   jwt_secret         the HS256 key of the auth service. Needed only to forge tokens the service
//                      would never issue (expired, wrong-issuer, not-yet-valid, "claims");
//                      without it those cases are ERROR. Embedded: the lobby's.
//   issuer             iss of forged tokens (default "a_domain-auth-service")
//   broker_agent_id / broker_domain / broker_version   the broker's identity (default
//                      protocol-broker-agent / a_domain / 1.0.0); handshakes are addressed to it
//   protocol_version   filled into messages (default "1.0")
//   agent_domain / agent_version   the mock agents' domain and version (default a_domain / 1.0.0)
//   attach             "token" (default): ?agent_id=<id>&token=<JWT, sub id, aud broker>;
//                      "agent-id": ?agent_id=<id> only; "anonymous": no query (the first
//                      authenticated message attaches the connection)
//   presence_check     after attaching a directory agent (or one with property "presence": true),
//                      poll paths.agents until the broker lists it online (the reference binds
//                      after it answered the upgrade, so a handshake sent at once could find the
//                      target absent; a source needs no wait: it is bound before its first
//                      message is read). Embedded: true.
//   connect_settle_ms  pause after each connect otherwise (default 0)
//   target_agents      {"dataset": [ids], "remote": [ids], "denied": [ids]}: agents in the
//                      broker's directory the cases attach as handshake targets (agent property
//                      "directory": "dataset" leases an id of that pool for the case, so
//                      parallel cases never share one; with all in use a case waits for one). dataset: serves ${intent}, ${pii.intent}, ${open.intent},
//                      ${quick.intent}; remote: serves ${open.intent} in an allowed other domain;
//                      denied: serves ${open.intent} in a domain the policy denies.
//                      Embedded: pools of generated agents added to the lobby's directory,
//                      which also gets handshake and routing timeouts of 1500 ms (scaled) so the
//                      TIMEOUT cases take seconds, not the spec's 5 s and 30 s.
//   pool_domains       the pools' domains (default a_domain / medtronic_poc / secret_domain)
//   capabilities       {intent: [capabilities the token needs]} (default: ${intent} ->
//                      ${intent.caps}, ${pii.intent} -> ${pii.caps})
//   and one setting per case variable below (same name with '.' as '_', e.g. input_valid).
//
// Agent properties: "directory" (a pool above), "domain", "version", "id", "presence".
//
// Connect overrides: "auth" valid (default), none (no attach token, agent_id only), expired,
// invalid (attach token signed with another key), other-agent (attach token whose sub is another
// agent); "token" (any send kind below) chooses the attach token otherwise (alg-none,
// wrong-audience, ...); "agent_id" attaches under that id (the attach token then has sub = that
// id; "" attaches anonymously: no query at all, the first authenticated message attaches the
// connection); "query", "headers", "path" as for every driver.
//
// Filling a send template: protocol_version, message_id (fresh UUID), timestamp (now, UTC),
// source_agent (the agent), target_agent (the agent named by the step's "to", or the broker),
// message_type ("request") and security {auth_token, encryption "none"} are added where the
// template leaves them out; "contract_id": X puts X into payload.contract_id. The token (added
// unless the template has one) has sub = the agent (or step "subject"), aud = target_agent.agent_id
// (or step "audience"), capabilities = step "capabilities" or the `capabilities` map's entry for
// the intent (for initiate_handshake: for payload.requested_intent). Step "token" chooses it:
//   valid (default): from the auth service (cached); with step "claims" (claim -> value, null
//     removes the claim) it is signed here with jwt_secret instead: a correctly signed token
//     with exactly those changes (a missing claim, say)
//   none: no auth_token member          missing-capability: service token without capabilities
//   wrong-audience: service token for another audience
//   bad-signature: service token whose claims were altered after signing; with step "key":
//     "other", a token signed with another HS256 key
//   alg-none: unsigned, {"alg":"none"}  garbage: not a JWT
//   wrong-subject: service token whose sub is another agent (connect's "other-agent")
//   expired / wrong-issuer / not-yet-valid: signed with jwt_secret, exp an hour ago / iss
//     "agentconform-rogue-issuer" / iat an hour ahead (step "claims" applies too)
// Then `remove` and `patch` apply (after the token, so a patched target_agent keeps the token's
// audience).
//
// Variables: ${a.id}, ${a.agent} ({agent_id, domain, version}), ${a.domain};
// ${broker.id}, ${broker.agent}; ${api_key}; ${path.token}; ${protocol_version}; ${intent}, ${intent.caps},
// ${input.valid}, ${input.invalid}, ${input.incompatible_schema}, ${output.valid},
// ${output.invalid}, ${pii.intent}, ${pii.caps}, ${pii.input}, ${open.intent}, ${quick.intent}
// (an intent whose routing timeout is short: embedded 500 ms); size strings, defined only in
// cases that mention them: ${size.near_limit} (890,000 'x': a payload under 900 KB in both
// readings), ${size.payload_over} (930,000: a payload over 921,600 bytes in a message under
// 1,000,000), ${size.message_over} (1,100,000: a message over 1,048,576 bytes).
//
// Client-under-test mode (agentconform serve --protocol a2acp, role "agent" cases): the hub serves
// the broker's WebSocket (/a2acp/ws) and the auth service (/auth/token); the tokens of the hub's
// messages are minted with a key of the hub's own (random per process: no client can know it), and
// the client's token requests are answered by the trigger issue-token below. The hub accepts any
// API key (or none): how a caller authenticates to the auth service is reading A2-20, not the spec.
//
// Triggers:
//   agents  GET paths.agents (the reference's directory and presence)
//   token   params: a token request body (the api key is added) -> {status, body}
//   jwt     params {token, expires_at?} -> {header, claims, signature_valid (with jwt_secret;
//           null without it), lifetime_s (exp - iat), expires_at_matches (expires_at == exp)}
//   issue-token  serve only: waits for the client's next HTTP request, which must be POST
//           paths.token with a token request (reading A2-11: agent_id, target_agent_id strings,
//           requested_capabilities an array of strings) matching params.body (a pattern, when
//           given); answers it with {token, expires_at}: a JWT signed with the hub's key, sub =
//           agent_id, aud = target_agent_id, capabilities = requested_capabilities, exp = now +
//           params.ttl_s (default: the request's ttl, else 3600) -> {request, token, expires_at, claims}.
//           A request that is not one is answered 400/404 and the step FAILs.
#include <condition_variable>
#include <deque>
#include <map>
#include <set>
#include <ctime>
#include <mutex>
#include <thread>

#include "harness/crypto/base64.hpp"
#include "harness/crypto/jwt.hpp"
#include "harness/crypto/random.hpp"
#include "harness/engine/drivers/common.hpp"
#include "harness/engine/matcher.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/protocols/typed/stamp.hpp"

namespace ac::engine {
namespace {

namespace jwt = crypto::jwt;

constexpr const char* kWrongKey = "agentconform-not-the-auth-service-key-0123456789abcdef";

std::int64_t now_s() { return static_cast<std::int64_t>(std::time(nullptr)); }

// Case variables taken from the settings of the same name with '_' for '.' (their defaults are
// declared in suites/a2acp/target-settings.json).
const std::vector<std::string>& setting_variables() {
  static const std::vector<std::string> v = {"intent", "intent.caps", "input.valid", "input.invalid", "input.incompatible_schema",
                                             "output.valid", "output.invalid", "pii.intent", "pii.caps", "pii.input",
                                             "open.intent", "quick.intent"};
  return v;
}

std::string setting_key(std::string name) {
  for (auto& c : name) c = c == '.' ? '_' : c;
  return name;
}

Json variable(const TargetConfig& t, const std::string& name) {
  const std::string key = setting_key(name);
  if (auto it = t.settings.find(key); it != t.settings.end()) return *it;
  return nullptr;
}

Json default_pool_domains() { return {{"dataset", "a_domain"}, {"remote", "medtronic_poc"}, {"denied", "secret_domain"}}; }
// The ids of the pools, leased to one case at a time: two cases attaching the same directory agent
// would find it "already attached" (a false FAIL) whatever --jobs is and however few ids the user
// lists. A released id goes to the back of the queue, so the next case gets the one idle longest
// (the target may still be closing the previous case's connection). When every id is in use the
// case waits for one, then gives up with a harness error that names the setting and --jobs.
class PoolLeases {
 public:
  struct Lease {
    std::string id;
    std::string error;
    std::shared_ptr<void> held;
  };
  Lease acquire(const std::string& pool, const Json& ids, std::chrono::milliseconds wait) {
    std::unique_lock lock(mutex_);
    auto& free = free_[pool];
    auto& known = known_[pool];
    for (const auto& id : ids)
      if (id.is_string() && known.insert(id.get<std::string>()).second) free.push_back(id.get<std::string>());
    if (!cv_.wait_for(lock, wait, [&] { return !free.empty(); }))
      return {"", "all " + std::to_string(known.size()) + " " + pool + " agents of settings.target_agents." + pool +
                      " are in use by other cases; list more ids there or lower --jobs",
              nullptr};
    std::string id = free.front();
    free.pop_front();
    auto held = std::shared_ptr<void>(nullptr, [this, pool, id](void*) {
      {
        std::lock_guard g(mutex_);
        free_[pool].push_back(id);
      }
      cv_.notify_all();
    });
    return {id, "", held};
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, std::deque<std::string>> free_;
  std::map<std::string, std::set<std::string>> known_;
};

PoolLeases& pool_leases() {
  static PoolLeases leases;  // process-wide: parallel cases share the target's directory
  return leases;
}

std::string segment(const Json& j) { return crypto::base64url_encode(j.dump()); }

// The HS256 key the harness signs with: settings.jwt_secret, or in client-under-test mode a key of
// the scripted hub's own, random per process.
std::string jwt_secret(const TargetConfig& t) {
  if (t.kind != "client") return t.setting("jwt_secret");
  static const std::string hub_key = [] {
    auto bytes = crypto::random_bytes(32);
    return "agentconform-hub-" + crypto::base64url_encode(bytes ? *bytes : proto::typed::new_uuid_v4());
  }();
  return hub_key;
}

std::optional<Json> decode_segment(std::string_view s) {
  auto bytes = crypto::base64url_decode(s);
  if (!bytes) return std::nullopt;
  auto j = json::parse_strict(*bytes);
  if (!j) return std::nullopt;
  return std::move(*j);
}

class A2acpDriver final : public Driver {
 public:
  proto::ProtocolId protocol() const override { return proto::ProtocolId::a2acp; }
  std::string primary_path() const override { return "ws"; }
  std::vector<std::string> hub_ws_paths() const override { return {"/a2acp/ws"}; }
  std::vector<std::string> hub_http_paths() const override { return {"/auth/token"}; }

  void init_agent(AgentSession& agent, CaseEnv& env) const override {
    const TargetConfig& t = env.target;
    std::string domain = t.setting("agent_domain", "a_domain");
    if (auto pool = agent.props.find("directory"); pool != agent.props.end() && pool->is_string()) {
      const std::string p = pool->get<std::string>();
      const Json ids = t.settings.value("target_agents", Json::object()).value(p, Json::array());
      if (!agent.props.contains("id") && ids.is_array() && !ids.empty()) {
        auto lease = pool_leases().acquire(p, ids, std::max(env.step_timeout * 4, std::chrono::milliseconds(30000)));
        if (lease.error.empty()) agent.id = lease.id, agent.held = lease.held;
        else agent.state["pool_error"] = lease.error;
      }
      const Json domains = t.settings.value("pool_domains", default_pool_domains());
      if (domains.contains(p) && domains[p].is_string()) domain = domains[p].get<std::string>();
      if (ids.empty() && !agent.props.contains("id")) agent.state["pool_error"] = "settings.target_agents has no " + p + " agents";
    }
    domain = agent.props.value("domain", domain);
    agent.state["identity"] = {{"agent_id", agent.id}, {"domain", domain}, {"version", agent.props.value("version", t.setting("agent_version", "1.0.0"))}};
    env.vars.set(agent.name + ".id", agent.id);
    env.vars.set(agent.name + ".agent", agent.state["identity"]);
    env.vars.set(agent.name + ".domain", domain);

    if (env.vars.has("broker.id")) return;  // the shared variables are set once per case
    env.vars.set("broker.id", broker(t)["agent_id"]);
    env.vars.set("broker.agent", broker(t));
    env.vars.set("api_key", t.setting("api_key"));
    env.vars.set("protocol_version", t.setting("protocol_version", "1.0"));
    for (const auto& name : setting_variables()) env.vars.set(name, variable(t, name));
    if (!t.setting("api_key").empty()) env.transcript.redact(t.setting("api_key"), "api-key");
    const std::string steps = env.kase.steps.dump();
    for (const auto& [name, size] : {std::pair<const char*, std::size_t>{"size.near_limit", 890000},
                                     {"size.payload_over", 930000},
                                     {"size.message_over", 1100000}}) {
      if (steps.find(std::string("${") + name + "}") != std::string::npos) env.vars.set(name, std::string(size, 'x'));
    }
  }

  // Preflight: the token service issues a token for the API key (when the target plays the
  // auth service), and a probe agent attaches to the broker (when it plays the broker).
  std::vector<ProbeResult> probe(CaseEnv& env) const override {
    std::vector<ProbeResult> out;
    const TargetConfig& t = env.target;
    AgentSession& agent = probe_agent(env);
    if (t.plays("auth-service") && t.kind == "remote") {
      Json body = {{"agent_id", agent.id}, {"target_agent_id", broker(t)["agent_id"]}, {"requested_capabilities", Json::array()}};
      if (!t.setting("api_key").empty()) body[api_key_member(t)] = t.setting("api_key");
      auto r = http_json(env, "POST", t.path("token"), {}, body.dump(), /*any_status=*/true);
      ProbeResult p{"credentials", false, "", ""};
      if (!r) {
        p.detail = "POST " + t.path("token") + " failed: " + r.error();
        p.fix = "check paths.token (the auth service's token endpoint, reading A2-11)";
      } else if (const int status = (*r)["status"].get<int>(); status == 401 || status == 403) {
        p.detail = "settings.api_key was refused: POST " + t.path("token") + " answered HTTP " + std::to_string(status) + " " +
                   (*r)["body"].dump().substr(0, 200);
        p.fix = "set settings.api_key to a key the auth service accepts (sent as the body member settings.api_key_member, "
                "default api_key; reading A2-20)";
      } else if (status < 200 || status > 299 || !(*r)["body"].is_object() || !(*r)["body"].contains("token")) {
        p.detail = "POST " + t.path("token") + " answered HTTP " + std::to_string(status) + " without a token: " +
                   (*r)["body"].dump().substr(0, 200);
        p.fix = "the token request's body follows reading A2-11 (agent_id, target_agent_id, requested_capabilities); check "
                "that the auth service accepts it, and settings.api_key_member";
        // A success without a token, or a server error, is the auth service's failure, not a setting's.
        if ((status >= 200 && status <= 299) || status >= 500) {
          p.requirement = "A2ACP-acquisition-response";
          p.fix = "the auth service accepted the key but issued no token: it breaks A2ACP-acquisition-response; the cases that need a token are BLOCKED";
        }
      } else {
        p.ok = true;
        p.detail = "the auth service issued a token for settings.api_key";
      }
      out.push_back(std::move(p));
      if (!out.back().ok) return out;
    } else if (t.setting("jwt_secret").empty()) {
      out.push_back({"credentials", false, "the target has no token service, and settings.jwt_secret is not set",
                     "set settings.jwt_secret to the HS256 key the broker verifies tokens with, so the harness can mint them"});
      return out;
    }
    if (t.plays("broker")) {
      ProbeResult p = probe_result(connect(agent, Json{{"connect", "probe"}}, env), "A2ACP-token-required");
      if (p.ok) p.detail = "a probe agent attached to the broker at " + t.path("ws");
      out.push_back(std::move(p));
      if (out.back().ok && t.kind == "remote") out.push_back(dataset_pool_check(env));
    }
    return out;
  }

  ConnectResult connect(AgentSession& agent, const Json& step, CaseEnv& env) const override {
    if (agent.state.contains("pool_error")) return {ConnectResult::Outcome::harness_error, 0, "", agent.state["pool_error"].get<std::string>()};
    const TargetConfig& t = env.target;
    const std::string auth = step.value("auth", std::string("valid"));
    const std::string attach = t.setting("attach", "token");
    const std::string id = step.contains("agent_id") && step["agent_id"].is_string() ? step["agent_id"].get<std::string>() : agent.id;
    const bool anonymous = id.empty() || attach == "anonymous";
    // The attach token's kind: "auth" names the schema's connect overrides, "token" any send kind.
    std::string kind = step.value("token", std::string("valid"));
    if (auth == "expired") kind = "expired";
    if (auth == "invalid") kind = "wrong-key";
    if (auth == "other-agent") kind = "wrong-subject";
    std::map<std::string, std::string> query;
    if (!anonymous) {
      query["agent_id"] = id;
      if (auth != "none" && kind != "none" && attach == "token") {
        auto token = make_token(kind, id, broker(t)["agent_id"].get<std::string>(), Json::array(), step, agent, env);
        if (!token) {
          // A token service whose TLS certificate does not verify is the target's failure (the TLS
          // cases), not the harness's.
          const bool tls = token.error().find("TLS failure") != std::string::npos;
          return {tls ? ConnectResult::Outcome::refused : ConnectResult::Outcome::harness_error, 0, "", token.error(),
                  tls ? "POST " + t.path("token") : ""};
        }
        query["token"] = *token;
      }
    }
    ConnectResult r = connect_ws(agent, step, env, "ws", std::move(query));
    if (r.outcome != ConnectResult::Outcome::connected) return r;
    // Only agents others address first need it: a source is bound before its first message.
    const bool addressed = agent.props.contains("directory") || agent.props.value("presence", false);
    if (!anonymous && addressed && t.settings.value("presence_check", false)) {
      wait_online(id, env);
    } else if (const auto settle = t.settings.value("connect_settle_ms", 0); settle > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(settle));
    }
    return r;
  }

  Expected<Json, std::string> fill(Json m, AgentSession& agent, const Json& step, CaseEnv& env) const override {
    if (!m.is_object()) return apply_edits(std::move(m), step, env.vars);
    const TargetConfig& t = env.target;
    if (!m.contains("protocol_version")) m["protocol_version"] = t.setting("protocol_version", "1.0");
    if (!m.contains("message_id")) m["message_id"] = proto::typed::new_uuid_v4();
    if (!m.contains("timestamp")) m["timestamp"] = proto::typed::utc_now();
    if (!m.contains("source_agent")) m["source_agent"] = agent.state.value("identity", Json::object());
    if (!m.contains("target_agent")) {
      const std::string to = step.value("to", std::string("broker"));
      if (to == "broker") {
        m["target_agent"] = broker(t);
      } else {
        auto it = env.agents.find(to);
        if (it == env.agents.end()) return unexpected("\"to\": the case declares no agent named " + to);
        m["target_agent"] = it->second.state.value("identity", Json::object());
      }
    }
    if (!m.contains("message_type")) m["message_type"] = "request";
    if (step.contains("contract_id")) {
      if (!m.contains("payload") || !m["payload"].is_object()) m["payload"] = Json::object();
      m["payload"]["contract_id"] = step["contract_id"];
    }
    const std::string kind = step.value("token", std::string("valid"));
    if (!m.contains("security")) m["security"] = {{"encryption", "none"}};
    if (m["security"].is_object() && !m["security"].contains("auth_token") && kind != "none") {
      std::string aud = step.value("audience", std::string());
      if (aud.empty()) {
        const Json* id = m["target_agent"].is_object() && m["target_agent"].contains("agent_id") ? &m["target_agent"]["agent_id"] : nullptr;
        aud = id != nullptr && id->is_string() ? id->get<std::string>() : std::string("unknown-agent");
      }
      const std::string sub = step.value("subject", agent.id);
      const Json caps = step.contains("capabilities") ? step["capabilities"] : capabilities_for(m, t);
      auto token = make_token(kind, sub, aud, caps, step, agent, env);
      if (!token) return unexpected(token.error());
      // The token goes first in the security object, as in the spec's examples.
      Json security = {{"auth_token", *token}};
      for (const auto& [k, v] : m["security"].items()) security[k] = v;
      m["security"] = std::move(security);
    }
    return apply_edits(std::move(m), step, env.vars);
  }

  Expected<Json, std::string> trigger(const std::string& action, const Json& params, CaseEnv& env) const override {
    if (action == "agents") return http_json(env, "GET", env.target.path("agents"), {}, "");
    if (action == "token") {
      Json body = params;
      if (!env.target.setting("api_key").empty() && !body.contains(api_key_member(env.target))) {
        body[api_key_member(env.target)] = env.target.setting("api_key");
      }
      return http_json(env, "POST", env.target.path("token"), {}, body.dump(), /*any_status=*/true);
    }
    if (action == "jwt") return inspect_jwt(params, env);
    if (action == "issue-token") return issue_token(params, env);
    return Driver::trigger(action, params, env);
  }

 private:
  // Every agent of settings.target_agents.dataset must be one the broker routes ${intent} to: a
  // handshake to an agent its directory does not list is answered CAPABILITY_NOT_FOUND, and every
  // case that leased that agent would FAIL, blamed on the spec (38 of 131 for a target.json whose
  // pool named agents of another broker). So each one, attached, gets a probe handshake that must
  // reach it as accept_handshake. (Checked on remote targets; the embedded lobby's pools are
  // generated into its directory.)
  ProbeResult dataset_pool_check(CaseEnv& env) const {
    const TargetConfig& t = env.target;
    ProbeResult result{"dataset-pool", true, "", ""};
    const Json ids = t.settings.value("target_agents", Json::object()).value("dataset", Json::array());
    const Json intent = variable(t, "intent");
    if (!ids.is_array() || ids.empty() || !intent.is_string()) {
      result.detail = "no dataset pool, or no intent setting: nothing to check";
      return result;
    }
    std::vector<std::string> problems;
    std::size_t checked = 0, unanswered = 0;
    for (const auto& id_json : ids) {
      // A long pool: the first 16 stand for it. A broker that answers nothing costs a step
      // timeout per agent: three problems say enough.
      if (checked == 16 || problems.size() == 3) break;
      if (!id_json.is_string()) continue;
      ++checked;
      const std::string id = id_json.get<std::string>();
      if (auto problem = pool_agent_problem(id, intent.get<std::string>(), env)) {
        unanswered += problem->starts_with("no accept_handshake");
        problems.push_back(id + ": " + *problem);
      }
    }
    std::size_t listed = 0;
    for (const auto& id_json : ids) listed += id_json.is_string();
    const std::string of_listed = checked == listed ? std::to_string(checked) : std::to_string(checked) + " checked of the " + std::to_string(listed) + " listed";
    if (problems.empty()) {
      result.detail = "a probe handshake for " + intent.get<std::string>() + " reached each of the " + of_listed +
                      " dataset agent(s) as accept_handshake";
      return result;
    }
    result.ok = false;
    result.detail = std::to_string(problems.size()) + " of " + of_listed + " dataset agent(s) do not get a handshake for " +
                    intent.get<std::string>() + (problems.size() == 3 && checked < listed ? " (the check stops after 3)" : "") + " (" +
                    problems.front() + (problems.size() > 1 ? "; ..." : "") + ")";
    result.fix = "list in settings.target_agents.dataset agents the broker's directory has, serving settings.intent (" +
                 intent.get<std::string>() + ") in settings.pool_domains.dataset's domain (docs/targets.md)";
    // Attached, asked, and never forwarded: no target.json passes that; the broker breaks the handshake's forwarding.
    if (unanswered == problems.size()) {
      result.requirement = "A2ACP-handshake-forward";
      result.fix = "the dataset agents attached and the broker accepted the handshake but never forwarded it as accept_handshake: it breaks "
                   "A2ACP-handshake-forward (if the agents are not the broker's, correct settings.target_agents.dataset)";
    }
    return result;
  }

  // Why `id` does not get a handshake, or nullopt when it does. Each probe has a source of its
  // own: what the broker tells a source about an earlier probe's handshake (a TIMEOUT once its
  // target left) must not be read as the answer to this one.
  std::optional<std::string> pool_agent_problem(const std::string& id, const std::string& intent, CaseEnv& env) const {
    AgentSession& dst = env.agents["pool-probe"];
    dst = AgentSession{};
    dst.name = "pool-probe";
    dst.id = id;
    dst.props = {{"id", id}, {"directory", "dataset"}};
    init_agent(dst, env);
    AgentSession& source = env.agents["pool-source"];
    source = AgentSession{};
    source.name = "pool-source";
    source.id = env.unique("probe");
    init_agent(source, env);
    std::optional<std::string> problem = probe_handshake(source, dst, intent, env);
    for (AgentSession* a : {&dst, &source}) {
      if (a->channel) a->channel->close(1000, "preflight done");
    }
    env.agents.erase("pool-probe");
    env.agents.erase("pool-source");
    return problem;
  }

  std::optional<std::string> probe_handshake(AgentSession& source, AgentSession& dst, const std::string& intent, CaseEnv& env) const {
    const std::string& id = dst.id;
    const ConnectResult attached = connect(dst, Json{{"connect", "pool-probe"}}, env);
    if (attached.outcome != ConnectResult::Outcome::connected) return "it could not attach: " + probe_result(attached).detail;
    const ConnectResult source_attached = connect(source, Json{{"connect", "pool-source"}}, env);
    if (source_attached.outcome != ConnectResult::Outcome::connected) return "a probe source could not attach: " + probe_result(source_attached).detail;
    auto message = fill(Json{{"intent", "initiate_handshake"}, {"payload", {{"target_agent_id", id}, {"requested_intent", intent}}}}, source,
                        Json{{"send", "probe"}}, env);
    if (!message) return "the probe handshake could not be made: " + message.error();
    source.channel->send_text(message->dump());
    std::optional<std::string> problem = "no accept_handshake reached it within " + std::to_string(env.step_timeout.count()) + " ms";
    const auto until = std::chrono::steady_clock::now() + env.step_timeout;
    while (std::chrono::steady_clock::now() < until) {
      if (auto e = dst.channel->next(std::chrono::milliseconds(10)); e && e->kind == ws::Event::Kind::text) {
        const Json j = Json::parse(e->data, nullptr, false);
        if (j.is_object() && j.value("intent", Json()) == "accept_handshake") {
          problem.reset();
          break;
        }
      }
      if (auto e = source.channel->next(std::chrono::milliseconds(10)); e && e->kind == ws::Event::Kind::text) {
        const Json j = Json::parse(e->data, nullptr, false);
        if (j.is_object() && j.value("message_type", Json()) == "error") {
          // (Whatever shape the target gave its error: nothing here may throw.)
          const Json* payload = j.contains("payload") && j["payload"].is_object() ? &j["payload"] : nullptr;
          const Json* error = payload != nullptr && payload->contains("error") && (*payload)["error"].is_object() ? &(*payload)["error"] : nullptr;
          problem = "the handshake was answered with an error";
          if (error != nullptr && error->contains("code")) *problem += " " + (*error)["code"].dump().substr(0, 80);
          if (error != nullptr && error->contains("message")) *problem += " " + (*error)["message"].dump().substr(0, 200);
          break;
        }
      }
    }
    return problem;
  }

  static Json broker(const TargetConfig& t) {
    return {{"agent_id", t.setting("broker_agent_id", "protocol-broker-agent")},
            {"domain", t.setting("broker_domain", "a_domain")},
            {"version", t.setting("broker_version", "1.0.0")}};
  }

  static std::string api_key_member(const TargetConfig& t) { return t.setting("api_key_member", "api_key"); }

  static Json capabilities_for(const Json& m, const TargetConfig& t) {
    std::string intent = m.value("intent", Json()).is_string() ? m["intent"].get<std::string>() : std::string();
    if (intent == "initiate_handshake" && m.contains("payload") && m["payload"].is_object()) {
      const Json& p = m["payload"];
      intent = p.value("requested_intent", Json()).is_string() ? p["requested_intent"].get<std::string>() : std::string();
    }
    Json map = t.settings.value("capabilities", Json::object());
    if (map.empty()) {
      map[variable(t, "intent").get<std::string>()] = variable(t, "intent.caps");
      map[variable(t, "pii.intent").get<std::string>()] = variable(t, "pii.caps");
    }
    return map.value(intent, Json::array());
  }

  // A token from the auth service, cached per agent, subject, audience and capabilities.
  static Expected<std::string, std::string> service_token(const std::string& sub, const std::string& aud, const Json& caps,
                                                          AgentSession& agent, CaseEnv& env) {
    const std::string key = sub + "\n" + aud + "\n" + caps.dump();
    if (auto it = agent.state["tokens"].find(key); it != agent.state["tokens"].end()) return it->get<std::string>();
    Json body = {{"agent_id", sub}, {"target_agent_id", aud}, {"requested_capabilities", caps}};
    if (!env.target.setting("api_key").empty()) body[api_key_member(env.target)] = env.target.setting("api_key");
    if (sub == agent.id && agent.props.contains("domain")) body["domain"] = agent.props["domain"];
    // A token is the harness's set-up, not the behaviour under test: a slow auth service (a
    // loaded CI machine) gets five step timeouts before the case becomes an ERROR.
    const auto step_timeout = env.step_timeout;
    env.step_timeout = step_timeout * 5;
    auto r = http_json(env, "POST", env.target.path("token"), {}, body.dump());
    env.step_timeout = step_timeout;
    if (!r) return unexpected("the auth service gave no token for sub " + sub + ", aud " + aud + ": " + r.error());
    if (!r->is_object() || !r->contains("token") || !(*r)["token"].is_string()) {
      return unexpected("the auth service answered without a token: " + r->dump());
    }
    const std::string token = (*r)["token"].get<std::string>();
    agent.state["tokens"][key] = token;
    return token;
  }

  static Expected<std::string, std::string> forge(Json claims, const TargetConfig& t) {
    const std::string secret = jwt_secret(t);
    if (secret.empty()) return unexpected("forging a token needs settings.jwt_secret (the auth service's HS256 key)");
    auto key = jwt::Key::hmac(secret);
    if (!key) return unexpected("settings.jwt_secret: " + key.error().describe());
    auto token = jwt::issue(claims, *key);
    if (!token) return unexpected(token.error().describe());
    return *token;
  }

  Expected<std::string, std::string> make_token(const std::string& kind, const std::string& sub, const std::string& aud, const Json& caps,
                                                const Json& step, AgentSession& agent, CaseEnv& env) const {
    const TargetConfig& t = env.target;
    const std::int64_t now = now_s();
    Json claims = {{"sub", sub},
                   {"iss", t.setting("issuer", "a_domain-auth-service")},
                   {"aud", aud},
                   {"exp", now + 3600},
                   {"iat", now},
                   {"capabilities", caps},
                   {"domain", agent.state.value("/identity/domain"_json_pointer, t.setting("agent_domain", "a_domain"))}};
    auto with_overrides = [&](Json c) {
      if (auto o = step.find("claims"); o != step.end() && o->is_object()) {
        for (const auto& [k, v] : o->items()) {
          if (v.is_null()) c.erase(k);  // null removes a claim
          else c[k] = v;
        }
      }
      return c;
    };
    Expected<std::string, std::string> out = unexpected(std::string("unknown token kind \"") + kind + "\"");
    const bool claims_given = step.contains("claims") && step["claims"].is_object();
    // A target without a token service (a broker alone, an exec: or dir: target) gets tokens
    // minted here with settings.jwt_secret, as its auth service would issue them.
    // So does the scripted hub of client-under-test mode (its own key).
    const bool minted = !t.plays("auth-service") || t.kind == "exec" || t.kind == "dir" || t.kind == "client";
    auto issued = [&](const std::string& s, const std::string& a, const Json& c) -> Expected<std::string, std::string> {
      if (!minted) return service_token(s, a, c, agent, env);
      Json mine = claims;
      mine["sub"] = s;
      mine["aud"] = a;
      mine["capabilities"] = c;
      auto token = forge(mine, t);
      if (!token) return unexpected("the target has no token service (it does not play auth-service): " + token.error());
      return token;
    };
    if (kind == "valid" && !claims_given) out = issued(sub, aud, caps);
    else if (kind == "valid") out = forge(with_overrides(claims), t);
    else if (kind == "missing-capability") out = issued(sub, aud, Json::array());
    else if (kind == "wrong-audience") out = issued(sub, "elsewhere-" + aud, caps);
    else if (kind == "wrong-subject") out = issued("impostor-" + sub, aud, caps);
    else if (kind == "bad-signature" && step.value("key", std::string()) != "other") {
      auto good = issued(sub, aud, caps);
      if (!good) return good;
      const auto d1 = good->find('.'), d2 = good->rfind('.');
      auto c = d1 == std::string::npos || d2 == d1 ? std::nullopt : decode_segment(std::string_view(*good).substr(d1 + 1, d2 - d1 - 1));
      if (!c || !c->is_object()) return unexpected("the auth service's token is not a JWT: cannot tamper with it");
      Json tampered = *c;
      Json granted = tampered.value("capabilities", Json::array());
      if (!granted.is_array()) granted = Json::array();
      granted.push_back("admin:everything");
      tampered["capabilities"] = granted;
      out = good->substr(0, d1) + "." + segment(tampered) + good->substr(d2);
    } else if (kind == "wrong-key" || kind == "bad-signature") {
      auto key = jwt::Key::hmac(kWrongKey);
      if (!key) return unexpected(key.error().describe());
      auto token = jwt::issue(with_overrides(claims), *key);
      if (!token) return unexpected(token.error().describe());
      out = *token;
    } else if (kind == "alg-none") {
      out = segment(Json{{"alg", "none"}, {"typ", "JWT"}}) + "." + segment(with_overrides(claims)) + ".";
    } else if (kind == "garbage") {
      out = std::string("agentconform-this-is-not-a-jwt");
    } else if (kind == "expired") {
      claims["iat"] = now - 7200;
      claims["exp"] = now - 3600;
      out = forge(with_overrides(claims), t);
    } else if (kind == "wrong-issuer") {
      claims["iss"] = "agentconform-rogue-issuer";
      out = forge(with_overrides(claims), t);
    } else if (kind == "not-yet-valid") {
      claims["iat"] = now + 3600;
      claims["exp"] = now + 7200;
      out = forge(with_overrides(claims), t);
    }
    if (out) env.transcript.redact(*out, "jwt");
    return out;
  }

  // Polls the presence view until the broker lists `id` online (bounded by the step timeout).
  static void wait_online(const std::string& id, CaseEnv& env) {
    const auto until = std::chrono::steady_clock::now() + env.step_timeout;
    while (std::chrono::steady_clock::now() < until) {
      auto r = env.http("GET", env.target.path("agents"), {}, "", "presence");
      if (r && r->status == 200) {
        if (auto j = json::parse_strict(r->body); j && j->is_object()) {
          for (const auto& a : j->value("agents", Json::array())) {
            if (a.is_object() && a.value("agent_id", Json()) == id && a.value("online", false)) return;
          }
        }
      } else {
        return;  // no presence view: nothing to wait for
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // Client-under-test mode: answers the client's next token request with a JWT of the hub's key.
  static Expected<Json, std::string> issue_token(const Json& params, CaseEnv& env) {
    if (env.hub == nullptr) return unexpected(std::string("issue-token answers a client's token request: it runs only in agentconform serve"));
    if (!params.is_object()) return unexpected(std::string("issue-token: params must be an object"));
    auto pending = env.hub->next_http(env.step_timeout, env.transcript);
    if (!pending) return unexpected("the client sent no token request (POST " + env.target.path("token") + "): " + pending.error());
    const auto& req = pending->request;
    auto refuse = [&](int status, const std::string& code, const std::string& why) -> Expected<Json, std::string> {
      const Json body = {{"error", {{"code", code}, {"message", why}, {"retry_after", 0}}}};
      pending->respond(net::HttpResponse::json(status, body.dump()));
      env.transcript.add("hub", "out", "http-response", body.dump(), status);
      return unexpected(why);
    };
    if (req.method != "POST" || req.path != env.target.path("token")) {
      return refuse(404, "CAPABILITY_NOT_FOUND", "expected a token request POST " + env.target.path("token") + ", got " + req.method + " " + req.target);
    }
    auto body = json::parse_strict(req.body);
    if (!body || !body->is_object()) return refuse(400, "SCHEMA_MISMATCH", "the token request's body is not a JSON object: " + req.body.substr(0, 200));
    const Json& b = *body;
    auto string_member = [&](const char* k) { return b.contains(k) && b[k].is_string() && !b[k].get<std::string>().empty(); };
    bool caps_ok = b.contains("requested_capabilities") && b["requested_capabilities"].is_array();
    if (caps_ok)
      for (const auto& c : b["requested_capabilities"]) caps_ok = caps_ok && c.is_string();
    if (!string_member("agent_id") || !string_member("target_agent_id") || !caps_ok) {
      return refuse(400, "SCHEMA_MISMATCH",
                    "the token request lacks agent_id, target_agent_id (non-empty strings) or requested_capabilities (an array of strings): " +
                        b.dump().substr(0, 300));
    }
    if (params.contains("body")) {
      if (auto m = match(params["body"], b)) return refuse(400, "SCHEMA_MISMATCH", "the token request does not match: " + m->describe() + ": " + b.dump().substr(0, 300));
    }
    std::int64_t ttl = 3600;
    if (b.contains("ttl") && b["ttl"].is_number_integer() && b["ttl"].get<std::int64_t>() > 0) ttl = std::min<std::int64_t>(b["ttl"].get<std::int64_t>(), 86400);
    if (params.contains("ttl_s") && params["ttl_s"].is_number_integer()) ttl = params["ttl_s"].get<std::int64_t>();
    const std::int64_t now = now_s();
    const Json claims = {{"sub", b["agent_id"]},
                         {"iss", env.target.setting("issuer", "a_domain-auth-service")},
                         {"aud", b["target_agent_id"]},
                         {"exp", now + ttl},
                         {"iat", now},
                         {"capabilities", b["requested_capabilities"]},
                         {"domain", b.contains("domain") && b["domain"].is_string() ? b["domain"] : Json(env.target.setting("agent_domain", "a_domain"))}};
    auto token = forge(claims, env.target);
    if (!token) return refuse(500, "INTERNAL_ERROR", "issue-token: " + token.error());
    const std::time_t exp = static_cast<std::time_t>(now + ttl);
    std::tm tm{};
    gmtime_r(&exp, &tm);
    char at[32];
    std::strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const Json answer = {{"token", *token}, {"expires_at", at}};
    pending->respond(net::HttpResponse::json(200, answer.dump()));
    env.transcript.add("hub", "out", "http-response", answer.dump(), 200);
    return Json{{"request", b}, {"token", *token}, {"expires_at", at}, {"claims", claims}};
  }

  static Expected<Json, std::string> inspect_jwt(const Json& params, CaseEnv& env) {
    if (!params.contains("token") || !params["token"].is_string()) return unexpected("jwt: params.token must be a string");
    const std::string token = params["token"].get<std::string>();
    const auto d1 = token.find('.'), d2 = token.rfind('.');
    if (d1 == std::string::npos || d2 == d1) return unexpected("not a JWT (fewer than three segments)");
    auto header = decode_segment(std::string_view(token).substr(0, d1));
    auto claims = decode_segment(std::string_view(token).substr(d1 + 1, d2 - d1 - 1));
    if (!header || !claims || !header->is_object() || !claims->is_object()) return unexpected("the JWT's header or claims are not JSON objects");
    Json out = {{"header", *header}, {"claims", *claims}, {"signature_valid", nullptr}, {"lifetime_s", nullptr}, {"expires_at_matches", nullptr}};
    if (const std::string secret = jwt_secret(env.target); !secret.empty()) {
      if (auto key = jwt::Key::hmac(secret)) {
        auto v = jwt::verify(token, *key, {});
        out["signature_valid"] = v.has_value() || (v.error().code != jwt::Errc::bad_signature && v.error().code != jwt::Errc::alg_none &&
                                                  v.error().code != jwt::Errc::alg_not_allowed && v.error().code != jwt::Errc::malformed &&
                                                  v.error().code != jwt::Errc::bad_base64 && v.error().code != jwt::Errc::bad_header &&
                                                  v.error().code != jwt::Errc::alg_unsupported);
      }
    }
    const Json& c = *claims;
    if (c.contains("exp") && c.contains("iat") && c["exp"].is_number_integer() && c["iat"].is_number_integer()) {
      out["lifetime_s"] = c["exp"].get<std::int64_t>() - c["iat"].get<std::int64_t>();
      if (params.contains("expires_at") && params["expires_at"].is_string()) {
        const std::time_t exp = static_cast<std::time_t>(c["exp"].get<std::int64_t>());
        std::tm tm{};
        gmtime_r(&exp, &tm);
        char buf[32];
        std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
        // expires_at may carry fractional seconds or an explicit +00:00 offset.
        const std::string at = params["expires_at"].get<std::string>();
        out["expires_at_matches"] = at.rfind(buf, 0) == 0 && (at.size() == 19 || at[19] == 'Z' || at[19] == '.' || at.substr(19) == "+00:00");
      }
    }
    return out;
  }
};

}  // namespace

const Driver& a2acp_driver() {
  static const A2acpDriver d;
  return d;
}

}  // namespace ac::engine
