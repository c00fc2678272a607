// Agent Lobby Protocol 0.2.0 driver (alp-0.2.0.md). The target is a lobby; each mock agent
// registers over HTTP (§4.1, §6 step 1) and opens the WebSocket with its token (§4.2, §6 step 2).
//
// Endpoints (target.json "paths"): "connect" (default /ws/connect; the path of a ws:// --target),
// "register" (/api/v1/register), and for the reference's extensions "broadcast"
// (/api/v1/admin/broadcast) and "agents" (/api/v1/agents).
//
// Settings (target.json "settings"; the embedded lobby fills them from its configuration):
//   api_key              a valid API key (required for a third-party lobby)
//   api_key_location     where registration sends it: "body" (member api_key, default), "header"
//                        (X-API-Key) or "both" (reading ALP-15)
//   agent_type           agent_type of the mock agents (default "agentconform-mock")
//   lobby_id             the lobby's id; otherwise learned from the first registration answer
//   protocol_version     the envelope's protocol_version (default "0.2.0")
//   token_ttl_ms         the lobby's auth_token lifetime, for `auth: expired` (the driver also
//                        honours a later expires_at of the registration answer, and uses that
//                        alone without the setting; feature alp.token-expiry)
//   admin_token          bearer token of the broadcast endpoint (feature alp.broadcast-admin)
//   roles_member         registration body member that carries an agent's roles (default "roles",
//                        the reference's extension; feature alp.roles)
//   rate_limit_messages  messages per window the lobby allows one agent (feature alp.rate-limit)
//   invoke_timeout_ms    the lobby's invocation timeout (TIMEOUT_ERROR cases)
//   max_message_bytes    the lobby's message size limit (oversize cases; default 1048576)
//   connect_sync         "ping" (default): after the upgrade the driver sends a PING to the lobby and
//                        waits (step timeout) for a PONG, so the agent is known to be routable
//                        before the case goes on (frames arriving meanwhile stay for the case);
//                        "none": no such message
//
// Agent properties: "id" (fixed agent_id), "agent_type", "roles" (array; sent at registration),
// "capabilities" (the default REGISTER_CLIENT capability list), "provisioned": true (register
// without agent_id; the lobby's answer names the id, which then becomes ${a.id}).
//
// Connect overrides ("connect" step):
//   auth: "valid" (default) registers when the agent has no token yet (a later connect reuses
//         the token: a reconnection); "none": no token query parameter; "invalid": a forged token
//         the lobby never issued; "expired": the agent's token once its lifetime has passed (the
//         driver waits for it); "other-agent": the token of another agent of the case ("token_of":
//         its name, default the first other agent holding one) with this agent's agent_id;
//         "bad-api-key": registration with a wrong API key (its refusal is the connect's refusal)
//   register: true forces a new HTTP registration, false never registers (an unregistered agent
//         with "auth": "invalid")
//   agent_id: the agent_id query parameter (registration still uses the agent's own id);
//         omit_agent_id: true leaves the parameter out
//   sync: false skips connect_sync for this connect
//   "query", "headers", "path" as for every driver
// A registration refused during a connect ends the connect as refused with that HTTP status.
//
// Variables: ${a.id}; ${a.token}, ${a.expires_at} after a's registration; ${lobby_id};
// ${protocol_version}; ${api_key}; ${api_key_location} (settings.api_key_location, default
// "body"); ${agent_type}; ${rate_limit.messages}, ${rate_limit.burst} (messages + 5);
// ${invoke_timeout_ms}; ${oversize_text} (a string of max_message_bytes + 1 characters, defined
// only in cases that mention it).
//
// Filling a message template (send steps): message_id (fresh UUIDv4), protocol_version,
// sender_id (the agent's id), receiver_id (the lobby_id for REGISTER_CLIENT, UNREGISTER_CLIENT,
// DISCOVER_CAPABILITIES, PING, and whenever the case leaves it out), timestamp (now, ISO 8601
// UTC), payload ({}). Payload defaults: REGISTER_CLIENT capabilities (the agent's), agent_version
// "1.0.0", sdk_version "agentconform-0.1"; DISCOVER_CAPABILITIES capability_filter {};
// DIRECT_MESSAGE content_type (text/plain for a string content, else application/json);
// INVOKE_CAPABILITY_REQUEST input_data {}. Then the step's remove/patch apply.
//
// Triggers:
//   register   params {agent_id?, agent_type?, roles?, key: "valid"|"none"|"bad" (default valid),
//              location?: body|header|both, extra?: {members added to the body}, raw_body?: text
//              sent instead of the JSON body} -> {status, body} (a body that is not JSON becomes
//              {"text": ...})
//   broadcast  params {receiver_id, event_type, data?} -> {status, body}: POST paths.broadcast with
//              Authorization: Bearer settings.admin_token (feature alp.broadcast-admin: the spec
//              defines LOBBY_BROADCAST, not how a lobby is made to send one)
//   validate   params {message} -> {valid, error}: the message against schemas/alp
#include <time.h>

#include <deque>
#include <mutex>
#include <thread>

#include "harness/engine/drivers/common.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/protocols/typed/stamp.hpp"

namespace ac::engine {
namespace {

using Clock = std::chrono::system_clock;

// A channel that gives back frames the driver read during the connect before reading more.
class PushbackChannel final : public Channel {
 public:
  PushbackChannel(std::shared_ptr<Channel> inner, std::deque<Incoming> pending)
      : inner_(std::move(inner)), pending_(std::move(pending)) {}
  std::string transport() const override { return inner_->transport(); }
  void send_text(std::string_view text) override { inner_->send_text(text); }
  bool send_binary(std::string_view bytes) override { return inner_->send_binary(bytes); }
  bool send_frame(const ws::FrameSpec& frame) override { return inner_->send_frame(frame); }
  std::optional<Incoming> next(std::chrono::milliseconds timeout) override {
    {
      std::lock_guard lock(mutex_);
      if (!pending_.empty()) {
        Incoming in = std::move(pending_.front());
        pending_.pop_front();
        return in;
      }
    }
    return inner_->next(timeout);
  }
  void close(std::uint16_t code, std::string_view reason) override { inner_->close(code, reason); }
  void abort() override { inner_->abort(); }
  bool is_open() const override { return inner_->is_open(); }

 private:
  std::shared_ptr<Channel> inner_;
  std::mutex mutex_;
  std::deque<Incoming> pending_;
};

std::int64_t setting_int(const TargetConfig& t, const char* key, std::int64_t fallback) {
  auto it = t.settings.find(key);
  return it != t.settings.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

// 32 random bytes as base64url, the shape of a real token, that no lobby issued.
std::string forged_token(std::mt19937_64& rng) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  for (int i = 0; i < 43; ++i) out += alphabet[rng() % 64];
  return out;
}

// "2024-01-02T03:04:05(.fff)Z" -> time point; nullopt for anything else.
std::optional<Clock::time_point> parse_utc(const std::string& s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0, used = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &used) != 6) return std::nullopt;
  std::int64_t millis = 0;
  std::size_t i = static_cast<std::size_t>(used);
  if (i < s.size() && s[i] == '.') {
    int digits = 0;
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, ++digits) {
      if (digits < 3) millis = millis * 10 + (s[i] - '0');
    }
    for (; digits < 3; ++digits) millis *= 10;
  }
  if (s.substr(i) != "Z" && s.substr(i) != "+00:00") return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  const time_t t = ::timegm(&tm);
  return Clock::from_time_t(t) + std::chrono::milliseconds(millis);
}

class AlpDriver final : public Driver {
 public:
  proto::ProtocolId protocol() const override { return proto::ProtocolId::alp; }
  std::string primary_path() const override { return "connect"; }

  std::vector<std::string> hub_ws_paths() const override { return {"/ws/connect"}; }
  std::vector<std::string> hub_http_paths() const override { return {"/api/v1/register"}; }

  void init_agent(AgentSession& agent, CaseEnv& env) const override {
    const TargetConfig& t = env.target;
    env.vars.set("protocol_version", t.setting("protocol_version", "0.2.0"));
    env.vars.set("agent_type", t.setting("agent_type", "agentconform-mock"));
    env.vars.set("api_key_location", t.setting("api_key_location", "body"));
    if (t.settings.contains("api_key")) env.vars.set("api_key", t.settings["api_key"]);
    if (!env.vars.has("lobby_id") && t.settings.contains("lobby_id")) env.vars.set("lobby_id", t.settings["lobby_id"]);
    const auto rate = setting_int(t, "rate_limit_messages", 1000);
    env.vars.set("rate_limit.messages", rate);
    env.vars.set("rate_limit.burst", rate + 5);
    env.vars.set("invoke_timeout_ms", setting_int(t, "invoke_timeout_ms", 60000));
    agent.state["agent_type"] = agent.props.value("agent_type", t.setting("agent_type", "agentconform-mock"));
    env.vars.set(agent.name + ".agent_type", agent.state["agent_type"]);
    if (!env.vars.has("oversize_text") && env.kase.steps.dump().find("${oversize_text}") != std::string::npos) {
      const auto limit = std::max<std::int64_t>(setting_int(t, "max_message_bytes", 1024 * 1024), 0);
      env.vars.set("oversize_text", std::string(static_cast<std::size_t>(limit) + 1, 'x'));
    }
  }

  // Preflight: register and connect one agent, and say which setting a refusal points at.
  std::vector<ProbeResult> probe(CaseEnv& env) const override {
    AgentSession& agent = probe_agent(env);
    const ConnectResult c = connect(agent, Json{{"connect", "probe"}}, env);
    ProbeResult r = probe_result(c, "ALP-6-accept-valid-connection");
    if (c.outcome == ConnectResult::Outcome::connected) {
      r.check = "credentials";
      r.detail = "settings.api_key was accepted: a probe agent registered (" + env.target.path("register") +
                 ") and opened its WebSocket (" + env.target.path("connect") + ")";
      // §6 step 7, graceful shutdown: the probe leaves no registered agent behind.
      if (auto bye = fill(Json{{"message_type", "UNREGISTER_CLIENT"}, {"payload", {{"reason", "agentconform preflight probe done"}}}}, agent,
                          Json{{"send", "probe"}}, env);
          bye && agent.channel) {
        agent.channel->send_text(bye->dump());
        agent.channel->close(1000, "probe done");
        r.detail += "; it unregistered (UNREGISTER_CLIENT) and closed";
      }
    } else if (c.outcome == ConnectResult::Outcome::refused && c.request.starts_with("POST")) {
      r.check = c.status == 401 || c.status == 403 ? "credentials" : "registration";
      if (c.status == 401 || c.status == 403) {
        r.detail = "settings.api_key was refused: " + c.request + " answered HTTP " + std::to_string(c.status) +
                   (c.body.empty() ? "" : ": " + c.body.substr(0, 200));
      } else if (c.status >= 200 && c.status <= 299) {
        r.detail = c.request + " answered HTTP " + std::to_string(c.status) + " without an auth_token" + (c.body.empty() ? "" : ": " + c.body.substr(0, 200));
      }
      r.fix = c.status == 401 || c.status == 403
                  ? "set settings.api_key in target.json to an API key the lobby accepts (it is sent as the body member api_key; "
                    "set settings.api_key_location to header or both if the lobby reads the X-API-Key header); if the key is right, "
                    "the lobby breaks ALP-6-validate-api-key"
                  : "the lobby answered a valid registration (alp-0.2.0.md §4.1, §10.1) without an auth_token: it breaks "
                    "ALP-6-register-returns-token; the cases that register an agent are BLOCKED";
      r.requirement = c.status == 401 || c.status == 403 ? std::string() : std::string("ALP-6-register-returns-token");
    } else if (c.outcome == ConnectResult::Outcome::refused) {
      // The token is the one the lobby just issued: refusing it is the lobby's failure, whatever the status.
      r.requirement = "ALP-6-accept-valid-connection";
      r.fix = "the lobby refused the WebSocket of an agent it had just registered, with the auth_token it issued (§4.2, §6): it breaks "
              "ALP-6-accept-valid-connection (if it reads other query parameters than token and agent_id, say so in an issue)";
    }
    return {r};
  }

  ConnectResult connect(AgentSession& agent, const Json& step, CaseEnv& env) const override {
    const std::string auth = step.value("auth", std::string("valid"));
    const bool has_token = agent.state.contains("token");
    const bool by_default = auth == "bad-api-key" || (!has_token && auth != "none" && auth != "invalid");
    const bool must_register = step.value("register", by_default);

    if (must_register) {
      auto r = register_agent(agent, env, auth == "bad-api-key" ? "bad" : "valid", step);
      if (r.outcome != ConnectResult::Outcome::connected) return r;
    }

    std::map<std::string, std::string> query;
    if (auth == "invalid") {
      query["token"] = forged_token(env.rng);
    } else if (auth == "other-agent") {
      auto other = token_of_other(agent, step, env);
      if (!other) return {ConnectResult::Outcome::harness_error, 0, "", "auth other-agent: no other agent of the case holds a token"};
      query["token"] = *other;
    } else if (auth != "none") {
      if (!agent.state.contains("token")) return {ConnectResult::Outcome::harness_error, 0, "", "agent " + agent.name + " has no token"};
      query["token"] = agent.state["token"].get<std::string>();
    }
    if (auth == "expired") {
      if (auto waited = wait_for_expiry(agent, env); !waited.empty()) return {ConnectResult::Outcome::harness_error, 0, "", waited};
    }
    if (!step.value("omit_agent_id", false)) query["agent_id"] = step.value("agent_id", agent.id);

    ConnectResult r = connect_ws(agent, step, env, "connect", std::move(query));
    if (r.outcome != ConnectResult::Outcome::connected) return r;
    if (step.value("sync", true) && env.target.setting("connect_sync", "ping") == "ping") sync(agent, env);
    return r;
  }

  Expected<Json, std::string> fill(Json m, AgentSession& agent, const Json& step, CaseEnv& env) const override {
    if (!m.is_object()) return apply_edits(std::move(m), step, env.vars);
    const std::string type = m.value("message_type", std::string());
    if (!m.contains("message_id")) m["message_id"] = proto::typed::new_uuid_v4();
    if (!m.contains("protocol_version")) m["protocol_version"] = env.target.setting("protocol_version", "0.2.0");
    if (!m.contains("sender_id")) m["sender_id"] = agent.id;
    if (!m.contains("receiver_id")) {
      auto lobby = env.vars.get("lobby_id");
      if (!lobby) return unexpected(std::string("receiver_id: the lobby_id is unknown (set settings.lobby_id or register an agent first)"));
      m["receiver_id"] = *lobby;
    }
    if (!m.contains("timestamp")) m["timestamp"] = proto::typed::utc_now();
    if (!m.contains("payload")) m["payload"] = Json::object();
    Json& p = m["payload"];
    if (p.is_object()) {
      if (type == "REGISTER_CLIENT") {
        if (!p.contains("capabilities")) p["capabilities"] = agent.props.value("capabilities", Json::array());
        if (!p.contains("agent_version")) p["agent_version"] = "1.0.0";
        if (!p.contains("sdk_version")) p["sdk_version"] = "agentconform-0.1";
      } else if (type == "DISCOVER_CAPABILITIES") {
        if (!p.contains("capability_filter")) p["capability_filter"] = Json::object();
      } else if (type == "DIRECT_MESSAGE") {
        if (!p.contains("content_type")) {
          p["content_type"] = p.contains("content") && !p["content"].is_string() ? "application/json" : "text/plain";
        }
      } else if (type == "INVOKE_CAPABILITY_REQUEST") {
        if (!p.contains("input_data")) p["input_data"] = Json::object();
      }
    }
    return apply_edits(std::move(m), step, env.vars);
  }

  Expected<Json, std::string> trigger(const std::string& action, const Json& params, CaseEnv& env) const override {
    if (action == "register") return register_call(env, params, params.value("key", std::string("valid")));
    if (action == "broadcast") {
      net::Headers h;
      if (env.target.settings.contains("admin_token")) h.emplace("Authorization", "Bearer " + env.target.setting("admin_token"));
      Json body = params;
      return http_any(env, "POST", env.target.path("broadcast"), h, body.dump());
    }
    if (action == "validate") {
      const auto& profile = proto::Catalog::builtin().profile(proto::ProtocolId::alp);
      auto r = profile.check(params.value("message", Json()));
      Json out = {{"valid", r.has_value()}, {"error", r ? std::string() : r.error().describe()}};
      env.transcript.note("validate: " + out.dump());
      return out;
    }
    return Driver::trigger(action, params, env);
  }

 private:
  // An HTTP call whose result is {status, body} whatever the status; a non-JSON body is kept as text.
  static Expected<Json, std::string> http_any(CaseEnv& env, const std::string& method, const std::string& path, net::Headers headers,
                                              const std::string& body) {
    if (!body.empty()) headers.emplace("Content-Type", "application/json");
    auto r = env.http(method, path, std::move(headers), body, "http");
    if (!r) return unexpected(r.error().describe());
    Json parsed = Json{{"text", r->body}};
    if (auto j = json::parse_strict(r->body)) parsed = std::move(*j);
    return Json{{"status", r->status}, {"body", parsed}};
  }

  // POST register with the key as `key` says: valid (settings.api_key), none, bad (a wrong one).
  static Expected<Json, std::string> register_call(CaseEnv& env, const Json& params, const std::string& key) {
    Json body = Json::object();
    if (params.contains("agent_id") && !params["agent_id"].is_null()) body["agent_id"] = params["agent_id"];
    // agent_type: the setting by default; null leaves the member out (a malformed registration).
    const Json type = params.value("agent_type", Json(env.target.setting("agent_type", "agentconform-mock")));
    if (!type.is_null()) body["agent_type"] = type;
    if (params.contains("roles")) body[env.target.setting("roles_member", "roles")] = params["roles"];
    const Json extra = params.value("extra", Json::object());
    for (const auto& [k, v] : extra.items()) body[k] = v;
    std::string key_value;
    if (key == "valid") key_value = env.target.setting("api_key");
    else if (key == "bad") key_value = "agentconform-wrong-key-" + std::to_string(env.rng() % 1000000);
    else if (key != "none") return unexpected("register: unknown key option " + key);
    const std::string where = params.value("location", env.target.setting("api_key_location", "body"));
    net::Headers h;
    if (key != "none") {
      if (where == "body" || where == "both") body["api_key"] = key_value;
      if (where == "header" || where == "both") h.emplace("X-API-Key", key_value);
    }
    if (params.contains("raw_body") && params["raw_body"].is_string()) {
      return http_any(env, "POST", env.target.path("register"), h, params["raw_body"].get<std::string>());
    }
    return http_any(env, "POST", env.target.path("register"), h, body.dump());
  }

  ConnectResult register_agent(AgentSession& agent, CaseEnv& env, const std::string& key, const Json& step) const {
    Json params = Json::object();
    if (!agent.props.value("provisioned", false)) params["agent_id"] = agent.id;
    params["agent_type"] = agent.state.value("agent_type", std::string("agentconform-mock"));
    if (step.contains("roles")) params["roles"] = step["roles"];
    else if (agent.props.contains("roles")) params["roles"] = agent.props["roles"];
    const std::string request = "POST " + env.target.path("register");
    auto r = register_call(env, params, key);
    if (!r) {
      // The connection could not be made at all, or the exchange failed after it was made.
      const bool unreachable = r.error().starts_with("target unreachable");
      return {unreachable ? ConnectResult::Outcome::unreachable : ConnectResult::Outcome::refused, 0, "", "registration: " + r.error(),
              request};
    }
    const int status = (*r)["status"].get<int>();
    const Json& body = (*r)["body"];
    if (status < 200 || status > 299) return {ConnectResult::Outcome::refused, status, body.dump(), "the HTTP registration was refused", request};
    if (!body.is_object() || !body.contains("auth_token") || !body["auth_token"].is_string()) {
      return {ConnectResult::Outcome::refused, status, body.dump(), "the registration answer has no auth_token (§4.1)", request};
    }
    agent.state["token"] = body["auth_token"];
    agent.state["registered_at_ms"] =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
    if (body.contains("agent_id") && body["agent_id"].is_string()) agent.id = body["agent_id"].get<std::string>();
    if (body.contains("expires_at")) agent.state["expires_at"] = body["expires_at"];
    env.vars.set(agent.name + ".id", agent.id);
    env.vars.set(agent.name + ".token", body["auth_token"]);
    if (body.contains("expires_at")) env.vars.set(agent.name + ".expires_at", body["expires_at"]);
    if (body.contains("lobby_id") && !env.vars.has("lobby_id")) env.vars.set("lobby_id", body["lobby_id"]);
    return {};
  }

  static std::optional<std::string> token_of_other(const AgentSession& agent, const Json& step, CaseEnv& env) {
    if (auto who = step.find("token_of"); who != step.end() && who->is_string()) {
      auto it = env.agents.find(who->get<std::string>());
      if (it == env.agents.end() || !it->second.state.contains("token")) return std::nullopt;
      return it->second.state["token"].get<std::string>();
    }
    for (const auto& [name, other] : env.agents) {
      if (name != agent.name && other.state.contains("token")) return other.state["token"].get<std::string>();
    }
    return std::nullopt;
  }

  // Sleeps until the agent's token expired (settings.token_ttl_ms from its registration, and
  // the answer's expires_at: the later of the two), plus a margin for the two clocks. The
  // lobby's own expires_at wins when it is later: a lobby that ends its tokens on a whole second
  // keeps one valid up to a second past registration + token_ttl_ms, and accepting it then is
  // no token accepted after its lifetime (tests/peers/TRIAGE.md T-38). Returns an error text, or "".
  static std::string wait_for_expiry(const AgentSession& agent, CaseEnv& env) {
    std::optional<Clock::time_point> expiry;
    const auto ttl = setting_int(env.target, "token_ttl_ms", -1);
    if (ttl > 0 && agent.state.contains("registered_at_ms")) {
      expiry = Clock::time_point(std::chrono::milliseconds(agent.state["registered_at_ms"].get<std::int64_t>() + ttl));
    }
    if (agent.state.contains("expires_at") && agent.state["expires_at"].is_string()) {
      if (const auto stated = parse_utc(agent.state["expires_at"].get<std::string>()); stated && (!expiry || *stated > *expiry)) {
        expiry = stated;
      }
    }
    if (!expiry) return "auth expired: the token's lifetime is unknown (set settings.token_ttl_ms)";
    const auto wait = *expiry - Clock::now() + std::chrono::milliseconds(300);
    if (wait > std::chrono::seconds(60)) return "auth expired: the token lives more than 60 s more (shorten the target's token lifetime)";
    env.transcript.note("waiting " + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()) +
                        " ms for agent " + agent.name + "'s token to expire");
    if (wait.count() > 0) std::this_thread::sleep_for(wait);
    return "";
  }

  // PING the lobby and wait for its PONG: the agent is then routable. Other frames that arrive
  // first are kept for the case; a lobby that does not answer only costs the step timeout.
  static void sync(AgentSession& agent, CaseEnv& env) {
    auto lobby = env.vars.get("lobby_id");
    if (!lobby || !lobby->is_string()) return;
    const Json ping = {{"message_id", proto::typed::new_uuid_v4()},
                       {"protocol_version", env.target.setting("protocol_version", "0.2.0")},
                       {"sender_id", agent.id},
                       {"receiver_id", *lobby},
                       {"message_type", "PING"},
                       {"payload", {{"nonce", "agentconform-connect-sync"}}},
                       {"timestamp", proto::typed::utc_now()}};
    env.transcript.note("connect sync: PING to the lobby, waiting for its PONG");
    agent.channel->send_text(ping.dump());
    std::deque<Incoming> kept;
    const auto until = std::chrono::steady_clock::now() + env.step_timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      auto in = agent.channel->next(left);
      if (!in) break;
      if (in->kind == ws::Event::Kind::text) {
        if (auto j = json::parse_strict(in->data); j && j->is_object() && j->value("message_type", Json()) == "PONG") break;
      }
      const bool closed = in->kind == ws::Event::Kind::close;
      kept.push_back(std::move(*in));
      if (closed) break;
    }
    if (!kept.empty()) agent.channel = std::make_shared<PushbackChannel>(agent.channel, std::move(kept));
  }
};

}  // namespace

const Driver& alp_driver() {
  static const AlpDriver d;
  return d;
}

}  // namespace ac::engine
