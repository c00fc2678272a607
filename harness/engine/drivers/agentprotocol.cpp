// AgentProtocol 0.1 driver (agentprotocol-0.1.md). The target is a peer agent (role "peer") or a
// relay between agents (role "relay"); each mock agent is an agent with its own Ed25519 key.
//
// Transports (connect step, "transport": "ws" | "http" | "dir"; default: settings.transport,
// else "dir" for dir: targets, "http" for http(s):// targets, otherwise "ws"):
//   ws    WebSocket at paths.ws (default /agentprotocol/ws), one message per text frame
//   http  every send is a POST to paths.http (default /agentprotocol); the response body is the
//         next incoming message (agentprotocol_channels.hpp)
//   dir   the file-exchange directory (dir:PATH targets; the embedded lobby gets a temporary
//         one): files named {from}-{to}-{timestamp}-{id}.json, spelled as
//         harness/protocols/agentprotocol/file_naming.hpp says
//   exec  exec: targets (one JSON message per line), like ws
//
// Keys: each agent gets an Ed25519 key drawn from the case's seeded generator (so a run with
// --seed repeats its keys), plus a second "other" key for `sign: other-key`. Agent properties:
// "name" (from.name), "capabilities" (from.capabilities, default ["agentprotocol:core"]),
// "seed" (64 hex digits: a fixed key), "id" (a fixed from.agentId, which then need not match the key).
//
// Variables:
//   ${a.id}, ${a.public_key}  agent a's agentId: standard base64 of its raw 32-byte public key
//   ${a.file_id}              the same id as spelled in exchange file names (base64url)
//   ${a.other_id}             the agentId of a's other key
//   ${a.name}                 a's display name
//   ${peer.id}                the target's agentId: settings.peer_agent_id (the embedded lobby's
//                             from its key); a case may capture it from a hello answer instead
//   ${action}, ${action_params}            an action the target serves and its params
//                                          (settings.action / action_params; default echo)
//   ${action_capability}                   the capability URI the target's hello lists for
//                                          ${action} (settings.action_capability; default
//                                          agentconform:echo)
//   ${slow.action}, ${slow.params}, ${slow.timeout}  an action that takes longer than
//                                          slow.timeout ms (settings.slow_action / slow_params /
//                                          slow_timeout_ms; default sleep {"ms": 800}, 100)
//   ${oversize_text}                       a string of max_message_bytes + 1 characters 'x'
//                                          (settings.max_message_bytes; the embedded lobby's
//                                          limit; defined only in cases that mention it)
//   ${failing.action}                      an action that fails with INTERNAL_ERROR
//                                          (settings.failing_action; default fail; feature
//                                          agentprotocol.failing-action)
//
// Triggers (checks run by the harness on a message a case captured whole, "capture": {"m": ""}):
//   verify   params {"message": ${m}, "allow_unsigned": bool} -> {"valid", "signed", "reason"}:
//            the Ed25519 signature checked against from.agentId (signature.hpp); with
//            allow_unsigned an unsigned message counts as valid (signing is a SHOULD)
//   validate params {"message": ${m}} -> {"valid", "error"}: the message against schemas/agentprotocol
//   sign     params {"agent": "a", "message": template, "form": "unsorted-keys" | "whitespace",
//            "remove"/"patch" as in a send step} -> the template filled as a send step fills it,
//            signed by a's own key but over another serialization than the canonical one
//            (members in reverse key order / indented JSON), so the signature must not verify;
//            capture it ("capture": {"m": ""}) and send it with "fill": false
//
// Client-under-test mode (agentconform serve): the hub speaks on each accepted connection as that
// agent (its key signs what the case sends there); the client is started with
// AGENTCONFORM_PEER_ID = the agentId of the agent of the case's first accept step (client_env).
//
// Filling a message template (send steps): protocol, id (fresh UUID), timestamp (now), from
// {agentId, name, capabilities}, to {agentId: ${peer.id}, broadcast: false}, payload ({};
// hello: version "0.1" and features; request: a fresh correlationId) are added where the
// template leaves them out. Then `remove` and `patch` apply, then the signature, last, per
// `sign`: valid (default; over the edited message), none (no signature member), bad (a valid
// signature with one bit flipped), other-key (signed by the agent's other key: from.agentId no
// longer matches), tamper-after (signed, then payload.tampered = true is added). Edits whose
// pointer starts with /signature apply after signing, so a case can send any signature text.
// A template that carries its own signature and no `sign` option is sent with it unchanged.
#include <stdlib.h>

#include <filesystem>
#include <functional>

#include "harness/crypto/base64.hpp"
#include "harness/crypto/ed25519.hpp"
#include "harness/engine/drivers/agentprotocol_channels.hpp"
#include "harness/engine/drivers/common.hpp"
#include "harness/protocols/agentprotocol/codec.hpp"
#include "harness/protocols/agentprotocol/file_naming.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"
#include "harness/protocols/typed/stamp.hpp"

namespace ac::engine {
namespace {

namespace ap = proto::agentprotocol;

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::optional<std::string> unhex(const std::string& text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    try {
      out += static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16));
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return out;
}

std::string seed_from(std::mt19937_64& rng) {
  std::string seed;
  for (int i = 0; i < 4; ++i) {
    std::uint64_t v = rng();
    for (int b = 0; b < 8; ++b) seed += static_cast<char>((v >> (8 * b)) & 0xff);
  }
  return seed;
}

Expected<crypto::Ed25519PrivateKey, std::string> key_of(const AgentSession& agent, const char* which) {
  auto seed = unhex(agent.state.value(which, std::string()));
  if (!seed) return unexpected(std::string("agent ") + agent.name + " has no key");
  auto key = crypto::Ed25519PrivateKey::from_seed(*seed);
  if (!key) return unexpected("agent " + agent.name + ": " + key.error().describe());
  return std::move(*key);
}

// A serialization that is not the canonical form: members in reverse key order, compact. A
// signature over it must not verify (the signature base sorts keys).
std::string reverse_order_dump(const Json& j) {
  if (j.is_object()) {
    std::string out = "{";
    bool first = true;
    for (auto it = j.crbegin(); it != j.crend(); ++it) {
      if (!first) out += ",";
      first = false;
      out += Json(it.key()).dump() + ":" + reverse_order_dump(it.value());
    }
    return out + "}";
  }
  if (j.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < j.size(); ++i) out += (i ? "," : "") + reverse_order_dump(j[i]);
    return out + "]";
  }
  return j.dump();
}

// A step's remove/patch split in two: edits of the signature apply after signing.
std::pair<Json, Json> split_edits(const Json& step) {
  Json before = Json::object(), after = Json::object();
  auto is_sig = [](const std::string& ptr) { return ptr == "/signature" || ptr.starts_with("/signature/"); };
  if (auto r = step.find("remove"); r != step.end() && r->is_array()) {
    for (const auto& p : *r) (p.is_string() && is_sig(p.get<std::string>()) ? after : before)["remove"].push_back(p);
  }
  if (auto p = step.find("patch"); p != step.end() && p->is_object()) {
    for (const auto& [ptr, v] : p->items()) (is_sig(ptr) ? after : before)["patch"][ptr] = v;
  }
  return {before, after};
}

// The driver's transport names (ws, http, dir, exec) as the declaration names transports.
std::string declared_transport(const std::string& driver_name) { return driver_name == "dir" ? "file" : driver_name; }

class AgentProtocolDriver final : public Driver {
 public:
  proto::ProtocolId protocol() const override { return proto::ProtocolId::agentprotocol; }
  std::string primary_path() const override { return "ws"; }
  std::string admission_requirement() const override { return "AP-transport-ws"; }

  void defaults(TargetConfig& t) const override {
    const bool http_url = t.url.starts_with("http://") || t.url.starts_with("https://");
    if (http_url && t.kind == "remote" && t.paths.count("http") == 0 && t.paths.count("ws") != 0) {
      // An http(s):// --target names the POST endpoint, not the WebSocket.
      t.paths["http"] = t.paths["ws"];
      t.paths.erase("ws");
    }
    t.paths.emplace("ws", "/agentprotocol/ws");
    t.paths.emplace("http", "/agentprotocol");
    if (!t.settings.contains("transport")) {
      t.settings["transport"] = t.kind == "dir" ? "dir" : t.kind == "exec" ? "exec" : http_url && t.kind == "remote" ? "http" : "ws";
    }
    // A target that offers only some transports (target.json "transports") is spoken to through
    // one it offers.
    if (t.kind == "remote" || t.kind == "embedded") {
      if (const std::string chosen = t.setting("transport"); !t.offers(declared_transport(chosen))) {
        for (const char* candidate : {"ws", "http"}) {
          if (t.offers(candidate)) {
            t.settings["transport"] = candidate;
            break;
          }
        }
      }
    }
  }

  // The transports a case uses: each connect's ("transport", else the target's), named as the
  // declaration names them (the dir: exchange is "file").
  std::set<std::string> case_transports(const Case& kase, const TargetConfig& target) const override {
    std::set<std::string> named;
    std::function<void(const Json&)> walk = [&](const Json& steps) {
      if (!steps.is_array()) return;
      for (const auto& s : steps) {
        if (!s.is_object()) continue;
        if (s.contains("connect")) named.insert(declared_transport(s.value("transport", target.setting("transport", "ws"))));
        if (s.contains("http")) named.insert("http");
        if (s.contains("repeat")) walk(s.value("steps", Json::array()));
        if (auto p = s.find("parallel"); p != s.end() && p->is_array()) {
          for (const auto& b : *p) walk(b);
        }
      }
    };
    walk(kase.steps);
    named.erase("exec");
    return named;
  }

  std::vector<std::string> hub_ws_paths() const override { return {"/agentprotocol/ws"}; }
  std::vector<std::string> hub_http_paths() const override { return {"/agentprotocol"}; }

  // Client-under-test mode: the client must know whom it addresses (to.agentId) and whose
  // signatures to expect before it connects; the spec has no discovery. The hub speaks as the
  // agent of the case's first accept step (the connection the client opens first), so its
  // agentId is AGENTCONFORM_PEER_ID. Cases with a second connection give both agents one "seed".
  std::map<std::string, std::string> client_env(const CaseEnv& env) const override {
    if (!env.kase.steps.is_array()) return {};
    for (const auto& s : env.kase.steps) {
      if (!s.is_object() || !s.contains("accept") || !s["accept"].is_string()) continue;
      auto a = env.agents.find(s["accept"].get<std::string>());
      if (a == env.agents.end()) return {};
      return {{"AGENTCONFORM_PEER_ID", a->second.id}};
    }
    return {};
  }

  void init_agent(AgentSession& agent, CaseEnv& env) const override {
    std::string seed = seed_from(env.rng);
    if (auto fixed = agent.props.find("seed"); fixed != agent.props.end() && fixed->is_string()) {
      if (auto s = unhex(fixed->get<std::string>()); s && s->size() == crypto::kEd25519SeedSize) seed = *s;
    }
    const std::string other = seed_from(env.rng);
    agent.state["seed"] = hex(seed);
    agent.state["other_seed"] = hex(other);
    const std::string name = agent.props.value("name", "agentconform mock " + agent.name);
    agent.state["name"] = name;
    agent.state["capabilities"] = agent.props.value("capabilities", Json::array({"agentprotocol:core"}));
    auto key = crypto::Ed25519PrivateKey::from_seed(seed);
    auto other_key = crypto::Ed25519PrivateKey::from_seed(other);
    if (key && !agent.props.contains("id")) agent.id = ap::agent_id(key->public_key());
    env.vars.set(agent.name + ".id", agent.id);
    env.vars.set(agent.name + ".public_key", key ? ap::agent_id(key->public_key()) : agent.id);
    env.vars.set(agent.name + ".file_id", proto::agentprotocol::file_id(agent.id));
    env.vars.set(agent.name + ".other_id", other_key ? ap::agent_id(other_key->public_key()) : std::string());
    env.vars.set(agent.name + ".name", name);

    const TargetConfig& t = env.target;
    if (!env.vars.has("peer.id") && t.settings.contains("peer_agent_id")) env.vars.set("peer.id", t.settings["peer_agent_id"]);
    env.vars.set("action", t.settings.value("action", Json("echo")));
    env.vars.set("action_params", t.settings.value("action_params", Json{{"text", "agentconform"}}));
    env.vars.set("action_capability", t.settings.value("action_capability", Json("agentconform:echo")));
    env.vars.set("failing.action", t.settings.value("failing_action", Json("fail")));
    if (!env.vars.has("oversize_text") && env.kase.steps.dump().find("${oversize_text}") != std::string::npos) {
      const auto it = t.settings.find("max_message_bytes");
      const std::int64_t limit = it != t.settings.end() && it->is_number_integer() ? it->get<std::int64_t>() : 1024 * 1024;
      env.vars.set("oversize_text", std::string(static_cast<std::size_t>(std::max<std::int64_t>(limit, 0)) + 1, 'x'));
    }
    env.vars.set("slow.action", t.settings.value("slow_action", Json("sleep")));
    env.vars.set("slow.params", t.settings.value("slow_params", Json{{"ms", 800}}));
    env.vars.set("slow.timeout", t.settings.value("slow_timeout_ms", Json(100)));
  }

  ConnectResult connect(AgentSession& agent, const Json& step, CaseEnv& env) const override {
    const std::string transport = step.value("transport", env.target.setting("transport", "ws"));
    if (transport == "ws" || transport == "exec") return connect_ws(agent, step, env, "ws", {});
    if (transport == "http") {
      if (env.target.kind == "dir" || env.target.kind == "exec" || env.target.http_base.empty()) {
        return {ConnectResult::Outcome::harness_error, 0, "", "the target has no HTTP endpoint"};
      }
      const std::string path = step.value("path", env.target.path("http"));
      env.transcript.add(agent.name, "note", "connect", "HTTP transport: every message is a POST to " + path);
      agent.channel = make_ap_http_channel(env, path, agent.name);
      return {};
    }
    if (transport == "dir") {
      if (env.target.directory.empty()) return {ConnectResult::Outcome::harness_error, 0, "", "the target has no exchange directory"};
      std::error_code ec;
      if (!std::filesystem::is_directory(env.target.directory, ec)) {
        return {ConnectResult::Outcome::unreachable, 0, "", "exchange directory " + env.target.directory + " does not exist"};
      }
      auto peer = env.vars.get("peer.id");
      const std::string peer_id = peer && peer->is_string() ? peer->get<std::string>() : std::string("unknown-peer");
      env.transcript.add(agent.name, "note", "connect", "file exchange in " + env.target.directory);
      agent.channel = make_ap_dir_channel(env.target.directory, agent.id, peer_id, env.transcript, agent.name);
      return {};
    }
    return {ConnectResult::Outcome::harness_error, 0, "", "unknown transport " + transport};
  }

  Expected<Json, std::string> fill(Json m, AgentSession& agent, const Json& step, CaseEnv& env) const override {
    if (!m.is_object()) return apply_edits(std::move(m), step, env.vars);
    const bool had_signature = m.contains("signature");
    if (!m.contains("protocol")) m["protocol"] = std::string(ap::kProtocol);
    if (!m.contains("id")) m["id"] = proto::typed::new_uuid_v4();
    if (!m.contains("timestamp")) m["timestamp"] = proto::typed::utc_now();
    if (!m.contains("from")) m["from"] = Json::object();
    if (m["from"].is_object()) {
      Json& from = m["from"];
      if (!from.contains("agentId")) from["agentId"] = agent.id;
      if (!from.contains("name")) from["name"] = agent.state.value("name", agent.name);
      if (!from.contains("capabilities")) from["capabilities"] = agent.state.value("capabilities", Json::array());
    }
    if (!m.contains("to")) m["to"] = Json::object();
    if (m["to"].is_object()) {
      Json& to = m["to"];
      if (!to.contains("agentId")) {
        auto peer = env.vars.get("peer.id");
        if (!peer) {
          return unexpected(std::string("the target's agentId is unknown: set settings.peer_agent_id in target.json, "
                                        "or capture peer.id from its hello, or give to.agentId"));
        }
        to["agentId"] = *peer;
      }
      if (!to.contains("broadcast")) to["broadcast"] = false;
    }
    if (!m.contains("payload")) m["payload"] = Json::object();
    if (m["payload"].is_object() && m.contains("type") && m["type"].is_string()) {
      Json& p = m["payload"];
      const std::string type = m["type"].get<std::string>();
      if (type == "hello") {
        if (!p.contains("version")) p["version"] = "0.1";
        if (!p.contains("features")) p["features"] = Json::array({"signed-messages"});
      } else if (type == "request") {
        if (!p.contains("correlationId")) p["correlationId"] = "corr-" + proto::typed::new_uuid_v4();
      }
    }

    auto [before, after] = split_edits(step);
    auto edited = apply_edits(std::move(m), before, env.vars);
    if (!edited) return edited;
    Json out = std::move(*edited);

    const std::string mode = step.value("sign", had_signature ? std::string("keep") : std::string("valid"));
    if (mode == "none") {
      out.erase("signature");
    } else if (mode != "keep") {
      auto key = key_of(agent, mode == "other-key" ? "other_seed" : "seed");
      if (!key) return unexpected(key.error());
      auto sealed = ap::sign(out, *key);
      if (!sealed) return unexpected("cannot sign: " + sealed.error().describe());
      out = std::move(*sealed);
      if (mode == "bad") {
        auto raw = crypto::base64_decode(out["signature"].get<std::string>());
        if (raw && !raw->empty()) {
          (*raw)[raw->size() / 2] = static_cast<char>((*raw)[raw->size() / 2] ^ 0x01);
          out["signature"] = crypto::base64_encode(*raw);
        }
      } else if (mode == "tamper-after") {
        if (out["payload"].is_object()) {
          out["payload"]["tampered"] = true;
        } else {
          out["id"] = proto::typed::new_uuid_v4();
        }
      } else if (mode != "valid" && mode != "other-key") {
        return unexpected("unknown sign option " + mode);
      }
    }
    return apply_edits(std::move(out), after, env.vars);
  }

  Expected<Json, std::string> trigger(const std::string& action, const Json& params, CaseEnv& env) const override {
    // Params come from a case: read them without value(), which throws on other types.
    const auto message_it = params.find("message");
    const Json message = message_it != params.end() ? *message_it : Json();
    if (action == "verify") {
      const bool is_signed = message.is_object() && message.contains("signature");
      Json out = {{"signed", is_signed}};
      const auto allow = params.find("allow_unsigned");
      if (!is_signed && allow != params.end() && allow->is_boolean() && allow->get<bool>()) {
        out["valid"] = true;
        out["reason"] = "unsigned (allowed)";
      } else {
        auto v = ap::verify(message);
        out["valid"] = v.has_value();
        out["reason"] = v ? std::string("signature verifies under from.agentId") : v.error().describe();
      }
      env.transcript.note("verify: " + out.dump());
      return out;
    }
    if (action == "sign") {
      auto text = [&](const char* k, const char* fallback) {
        const auto it = params.find(k);
        return it != params.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
      };
      const std::string name = text("agent", "");
      auto agent = env.agents.find(name);
      if (agent == env.agents.end()) return unexpected("sign: the case declares no agent named '" + name + "'");
      const std::string form = text("form", "unsorted-keys");
      if (form != "unsorted-keys" && form != "whitespace") return unexpected("sign: unknown form " + form);
      Json edits = {{"sign", "none"}};
      for (const char* k : {"remove", "patch"}) {
        if (params.contains(k)) edits[k] = params[k];
      }
      auto filled = fill(message.is_null() ? Json::object() : message, agent->second, edits, env);
      if (!filled) return filled;
      auto key = key_of(agent->second, "seed");
      if (!key) return unexpected(key.error());
      const std::string base = form == "whitespace" ? filled->dump(2) : reverse_order_dump(*filled);
      auto sig = key->sign(base);
      if (!sig) return unexpected("cannot sign: " + sig.error().describe());
      (*filled)["signature"] = crypto::base64_encode(*sig);
      env.transcript.note("signed over a non-canonical form (" + form + "): " + base.substr(0, 512));
      return filled;
    }
    if (action == "validate") {
      auto m = ap::from_json(message);
      Json out = {{"valid", m.has_value()}, {"error", m ? std::string() : m.error().describe()}};
      env.transcript.note("validate: " + out.dump());
      return out;
    }
    return Driver::trigger(action, params, env);
  }
};

}  // namespace

const Driver& agentprotocol_driver() {
  static const AgentProtocolDriver d;
  return d;
}

}  // namespace ac::engine
