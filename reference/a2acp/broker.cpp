// The broker's connection handling and frame pipeline (see broker.hpp). For every text frame,
// in this order:
//   1. per-agent and global rate limits         -> RATE_LIMIT_EXCEEDED (retry_after > 0)
//   2. binary frame, message over 1 MB          -> SCHEMA_MISMATCH (reading A2-17)
//   3. the typed codec (strict JSON, schemas)   -> SCHEMA_MISMATCH, or AUTH_FAILED at /security (A2-12)
//   4. protocol_version compatibility           -> SCHEMA_MISMATCH for another major than 1 or 0 (A2-16)
//   5. payload over 900 KB                      -> SCHEMA_MISMATCH
//   6. identity: a connection speaks for its attached agent only -> AUTH_FAILED
//   7. the five token rules (aud = target_agent.agent_id, the intent's capabilities), and
//      sub == source_agent.agent_id            -> AUTH_FAILED
//   8. dispatch: handshake and terminate_collaboration (handshake.cpp), routing (routing.cpp).
// Errors go back on the connection the offending frame came from, addressed to its sender.
#include "reference/a2acp/broker.hpp"

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/a2acp/builders.hpp"
#include "harness/protocols/a2acp/codec.hpp"
#include "harness/semver/protocol_versions.hpp"
#include "harness/json/strict_reader.hpp"
#include "reference/core/lenient_types.hpp"

namespace ac::ref::a2acp {
namespace {

constexpr std::size_t kMaxAgentIdLength = 256;
const wire::Agent kUnknownAgent{"unknown-agent", "unknown", "0.0.0", Json::object()};

bool retryable(const std::string& code) {
  return code == "TIMEOUT" || code == "INTERNAL_ERROR" || code == "RATE_LIMIT_EXCEEDED";
}

std::optional<wire::Agent> agent_from(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  auto id = j.find("agent_id");
  auto domain = j.find("domain");
  auto version = j.find("version");
  if (id == j.end() || domain == j.end() || version == j.end() || !id->is_string() || !domain->is_string() ||
      !version->is_string() || !is_agent_version(version->get<std::string>())) {
    return std::nullopt;
  }
  return wire::Agent{id->get<std::string>(), domain->get<std::string>(), version->get<std::string>(), Json::object()};
}

// What can be read from a frame that failed to decode: its sender, intent and correlation id.
struct Offending {
  wire::Agent agent;
  std::optional<std::string> intent, correlation_id, message_id;
};

Offending peek_offending(std::string_view frame, const wire::Agent& fallback, std::size_t max_bytes) {
  Offending o{fallback, std::nullopt, std::nullopt, std::nullopt};
  json::ReadLimits limits;
  limits.max_bytes = max_bytes;
  auto parsed = json::parse_strict(frame, limits);
  if (!parsed || !parsed->is_object()) return o;
  if (auto it = parsed->find("source_agent"); it != parsed->end()) {
    if (auto a = agent_from(*it)) o.agent = std::move(*a);
  }
  o.intent = string_member(&*parsed, "intent");
  o.message_id = string_member(&*parsed, "message_id");
  if (auto p = parsed->find("payload"); p != parsed->end()) o.correlation_id = string_member(&*p, "correlation_id");
  return o;
}

std::optional<std::string> intent_of(const wire::Message& m) {
  if (m.envelope.intent) return m.envelope.intent;
  if (auto implied = wire::implied_intent(m.type())) return std::string(*implied);
  return std::nullopt;
}

std::size_t payload_bytes(const wire::Message& m) {
  if (const Json* p = generic_payload(m)) return p->dump().size();
  const Json j = wire::to_json(m);
  auto it = j.find("payload");
  return it == j.end() ? 0 : it->dump().size();
}

Failure token_failure(const proto::a2acp::TokenError& e) {
  Json details = {{"reason", std::string(proto::a2acp::errc_name(e.code))}, {"section", e.section()}};
  if (e.rule() != 0) details["rule"] = e.rule();
  return {"AUTH_FAILED", "token rejected: " + e.describe(), std::move(details)};
}

}  // namespace

// ---- helpers shared by the broker's files ----------------------------------------------------

const Json* generic_payload(const wire::Message& m) {
  if (const auto* r = m.get<wire::Request>(); r && r->payload) return &*r->payload;
  if (const auto* r = m.get<wire::Response>(); r && r->payload) return &*r->payload;
  if (const auto* r = m.get<wire::Event>(); r && r->payload) return &*r->payload;
  return nullptr;
}

std::optional<std::string> string_member(const Json* object, const char* key) {
  if (object == nullptr || !object->is_object()) return std::nullopt;
  auto it = object->find(key);
  if (it == object->end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<std::string> correlation_of(const wire::Message& m) {
  if (const Json* p = generic_payload(m)) return string_member(p, "correlation_id");
  if (const auto* e = m.get<wire::Error>()) return e->error.correlation_id;
  if (const auto* h = m.get<wire::InitiateHandshake>()) return string_member(&h->extra, "correlation_id");
  if (const auto* d = m.get<wire::HandshakeDecision>()) return string_member(&d->extra, "correlation_id");
  return std::nullopt;
}

// ---- Broker -------------------------------------------------------------------------------------

Broker::Broker(HubContext& context, std::shared_ptr<const Settings> settings, std::shared_ptr<Authenticator> auth)
    : context_(context), settings_(std::move(settings)), auth_(std::move(auth)),
      rates_(settings_->rate_per_agent, settings_->rate_per_collaboration, settings_->rate_global, settings_->rate_window,
             settings_->max_collaborations + 16384) {}

net::UpgradeDecision Broker::on_upgrade(const net::HttpRequest& req) {
  auto refuse = [](int status, const std::string& code, const std::string& message) {
    return net::UpgradeDecision::refuse(status, Json{{"error", {{"code", code}, {"message", message}, {"retry_after", 0}}}}.dump());
  };
  const Settings& s = *settings_;
  const std::string agent_id = req.query_value("agent_id");
  std::string token = req.query_value("token");
  if (const std::string h = req.header("authorization"); token.empty() && h.starts_with("Bearer ")) token = h.substr(7);
  if (agent_id.empty()) {
    if (s.require_attach_token) {
      return refuse(401, "AUTH_FAILED", "attach with /a2acp/ws?agent_id=<your agent id>&token=<JWT with sub = agent id, aud = " +
                                            s.broker.agent_id + ">");
    }
    if (!token.empty()) return refuse(400, "SCHEMA_MISMATCH", "a token was given without agent_id");
    return net::UpgradeDecision::allow();  // the first authenticated message attaches the agent
  }
  if (agent_id.size() > kMaxAgentIdLength) return refuse(400, "SCHEMA_MISMATCH", "agent_id longer than 256 characters");
  // Not text, it could not appear in any message (nor in this refusal): found by fuzz_hub_a2acp.
  if (json::Utf8Problem bad{}; json::find_encoding_problem(agent_id, bad)) {
    return refuse(400, "SCHEMA_MISMATCH", "agent_id is not valid UTF-8 text (or contains NUL)");
  }
  if (agent_id == s.broker.agent_id) return refuse(403, "AUTH_FAILED", "agent_id " + agent_id + " is the broker's own");
  if (!s.allow_unlisted_agents && s.directory.find(agent_id) == nullptr) {
    return refuse(403, "AUTH_FAILED", "agent " + agent_id + " is not in the broker's directory");
  }
  if (!token.empty() || s.require_attach_token) {
    if (token.empty()) return refuse(401, "AUTH_FAILED", "a token is required to attach (?token=<JWT>)");
    auto claims = auth_->verify(token, s.broker.agent_id, {});
    if (!claims) return refuse(401, "AUTH_FAILED", "attach token rejected: " + claims.error().describe());
    if (claims->sub != agent_id) return refuse(401, "AUTH_FAILED", "the token's sub \"" + claims->sub + "\" is not agent_id " + agent_id);
  }
  {
    std::lock_guard lock(mutex_);
    if (online_.count(agent_id) != 0) {
      return refuse(409, "AUTH_FAILED", "agent " + agent_id + " is already attached on another connection");
    }
  }
  return net::UpgradeDecision::allow(std::make_shared<std::string>(agent_id));
}

void Broker::on_open(const std::shared_ptr<net::Peer>& peer) {
  context_.metrics.connection_opened(proto::ProtocolId::a2acp);
  std::string agent_id;
  if (peer->attachment) agent_id = *std::static_pointer_cast<std::string>(peer->attachment);
  bool refuse = false;
  {
    std::lock_guard lock(mutex_);
    Connection& c = connections_[peer->id()];
    c.peer = peer;
    c.identity = kUnknownAgent;
    if (stopping_) {
      connections_.erase(peer->id());  // keep no peer once shutdown() dropped them all
      refuse = true;
    } else if (!agent_id.empty()) {
      if (online_.count(agent_id) != 0) {
        refuse = true;  // two upgrades for one id raced; the first to open wins
      } else {
        bind(c, agent_id);
      }
    }
  }
  if (refuse) peer->close(net::close_code::policy_violation, "agent_id already attached");
}

void Broker::bind(Connection& c, const std::string& agent_id) {
  c.agent_id = agent_id;
  online_[agent_id] = c.peer->id();
  if (const AgentSpec* spec = settings_->directory.find(agent_id)) {
    c.identity = spec->identity();
  } else if (c.identity.agent_id != agent_id) {
    c.identity = wire::Agent{agent_id, "unknown", "0.0.0", Json::object()};
  }
}

Broker::Connection* Broker::connection(std::uint64_t peer_id) {
  auto it = connections_.find(peer_id);
  return it == connections_.end() ? nullptr : &it->second;
}

std::shared_ptr<net::Peer> Broker::online_peer(const std::string& agent_id) const {
  auto it = online_.find(agent_id);
  if (it == online_.end()) return nullptr;
  auto c = connections_.find(it->second);
  return c == connections_.end() ? nullptr : c->second.peer;
}

void Broker::send_error(Outbox& out, const std::shared_ptr<net::Peer>& peer, const wire::Agent& to, const Failure& f,
                        const std::optional<std::string>& intent, const std::optional<std::string>& correlation_id,
                        std::uint64_t retry_after) {
  std::uint64_t retry = 0;
  if (retryable(f.code) && !settings_->faults.error_no_retry_after) {
    retry = retry_after > 0 ? retry_after : (f.code == "TIMEOUT" ? settings_->timeout_retry_after_s : settings_->internal_retry_after_s);
  }
  std::optional<Json> details;
  if (!f.details.empty()) details = f.details;
  wire::Message m = wire::make_error(settings_->broker, to, auth_->broker_token(to.agent_id), f.code, f.message, retry,
                                     correlation_id, std::move(details));
  m.envelope.intent = intent;
  out.send(peer, encode(m));
  context_.metrics.error(proto::ProtocolId::a2acp, f.code);
}

void Broker::on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) {
  const Settings& s = *settings_;
  Outbox out;
  const TimePoint now = context_.clock();
  wire::Agent reply_to = kUnknownAgent;

  // 1. Rate limits, per agent (per connection until the agent is known) and global.
  {
    std::lock_guard lock(mutex_);
    Connection* c = connection(peer->id());
    if (c == nullptr || stopping_) return;
    reply_to = c->identity;
    if (!s.faults.ratelimit_disabled) {
      const std::string key = c->agent_id.empty() ? "#" + std::to_string(peer->id()) : c->agent_id;
      if (auto refused = rates_.message(key, now)) {
        const std::size_t limit = std::string(refused->limit) == "global" ? s.rate_global : s.rate_per_agent;
        send_error(out, peer, reply_to,
                   {"RATE_LIMIT_EXCEEDED",
                    std::string("message rate limit exceeded (") + refused->limit + ": " + std::to_string(limit) + " messages per " +
                        std::to_string(s.rate_window.count()) + " ms)",
                    Json{{"limit", refused->limit}, {"messages", limit}, {"window_ms", s.rate_window.count()}}},
                   std::nullopt, std::nullopt, retry_seconds(refused->wait));
        return;
      }
    }
  }

  // 2. Frames that cannot be A2ACP messages.
  if (binary) {
    send_error(out, peer, reply_to,
               {"SCHEMA_MISMATCH", "binary frame: A2ACP messages are JSON text frames (reading A2-6)", Json{{"rule", "frame.binary"}}},
               std::nullopt, std::nullopt);
    return;
  }
  if (!s.faults.size_no_limit && frame.size() > s.max_message_bytes) {
    const Offending o = peek_offending(frame, reply_to, s.transport_max_bytes);
    send_error(out, peer, o.agent,
               {"SCHEMA_MISMATCH",
                "message of " + std::to_string(frame.size()) + " bytes exceeds the maximum message size of " +
                    std::to_string(s.max_message_bytes) + " bytes (§Message Size Limits)",
                Json{{"rule", "max-message-size"}, {"limit_bytes", s.max_message_bytes}, {"size_bytes", frame.size()}}},
               o.intent, o.correlation_id);
    return;
  }

  // 3. The codec: strict JSON and schemas/a2acp.
  json::ReadLimits limits;
  limits.max_bytes = s.transport_max_bytes;
  std::string lax_frame;
  if (s.faults.coerce_wrong_types) {  // fault: a wrongly typed member is read as the type expected
    frame = coerce_wrong_types_in_text(proto::Catalog::builtin().profile(proto::ProtocolId::a2acp), frame, limits, lax_frame);
  }
  auto decoded = wire::decode(frame, limits);
  if (!decoded) {
    const auto& e = decoded.error();
    const Offending o = peek_offending(frame, reply_to, s.transport_max_bytes);
    Json details = {{"pointer", e.pointer}, {"rule", e.rule}, {"section", e.section}};
    if (!e.message_id.empty()) details["offending_message_id"] = e.message_id;
    send_error(out, peer, o.agent, {e.code, e.describe(), std::move(details)}, o.intent, o.correlation_id);
    return;
  }
  const wire::Message& m = *decoded;
  const wire::Agent& sender = m.envelope.source_agent;
  const auto intent = intent_of(m);
  const auto correlation = correlation_of(m);

  // 4. Protocol version: same major, or N-1 (accepted as is), else SCHEMA_MISMATCH.
  auto compat = semver::a2acp_compatibility(semver::kA2acpCurrentVersion, m.envelope.protocol_version);
  const bool incompatible = !compat || *compat == semver::Compatibility::incompatible;
  const bool previous = compat && *compat == semver::Compatibility::previous_major;
  if ((incompatible && !s.faults.version_accept_incompatible_major) || (previous && s.faults.version_reject_previous_major)) {
    send_error(out, peer, sender,
               {"SCHEMA_MISMATCH",
                "protocol_version " + m.envelope.protocol_version + " is incompatible with this broker (1.0; accepted: 1.x and 0.x)",
                Json{{"pointer", "/protocol_version"},
                     {"rule", "version-compatibility"},
                     {"received", m.envelope.protocol_version},
                     {"supported_majors", Json::array({1, 0})},
                     {"section", "a2acp-1.0.md §Compatibility Rules 3"}}},
               intent, correlation);
    return;
  }

  // 5. Payload size.
  if (!s.faults.size_no_limit) {
    if (const std::size_t size = payload_bytes(m); size > s.max_payload_bytes) {
      send_error(out, peer, sender,
                 {"SCHEMA_MISMATCH",
                  "payload of " + std::to_string(size) + " bytes exceeds the maximum payload size of " +
                      std::to_string(s.max_payload_bytes) + " bytes (§Message Size Limits)",
                  Json{{"pointer", "/payload"}, {"rule", "max-payload-size"}, {"limit_bytes", s.max_payload_bytes}, {"size_bytes", size}}},
                 intent, correlation);
      return;
    }
  }

  std::lock_guard lock(mutex_);
  Connection* c = connection(peer->id());
  if (c == nullptr || stopping_) return;
  handle(*c, m, frame, now, out);
  // `out` is flushed by its destructor after `lock` is released (declared before it).
}

std::vector<std::string> Broker::required_capabilities(const wire::Message& m, TimePoint now) const {
  if (const auto* h = m.get<wire::InitiateHandshake>()) {
    if (const AgentSpec* target = settings_->directory.find(h->target_agent_id)) {
      if (auto it = target->intents.find(h->requested_intent); it != target->intents.end()) return it->second.required_capabilities;
    }
    return {};
  }
  if (m.type() != wire::MessageType::request || m.envelope.target_agent.agent_id == settings_->broker.agent_id) return {};
  const auto contract_id = string_member(generic_payload(m), "contract_id");
  if (!contract_id) return {};
  auto it = collaborations_.find(*contract_id);
  if (it == collaborations_.end() || it->second.contract.expired(now)) return {};
  const Contract& k = it->second.contract;
  if (k.source.agent_id != m.envelope.source_agent.agent_id) return {};
  return k.required_capabilities;
}

void Broker::handle(Connection& c, const wire::Message& m, std::string_view frame, TimePoint now, Outbox& out) {
  const Settings& s = *settings_;
  const auto& env = m.envelope;
  const std::string& src = env.source_agent.agent_id;
  const std::string& dst = env.target_agent.agent_id;
  const auto intent = intent_of(m);
  const auto correlation = correlation_of(m);
  const bool to_broker = dst == s.broker.agent_id;
  const wire::MessageType type = m.type();
  auto fail = [&](Failure f) { send_error(out, c.peer, env.source_agent, f, intent, correlation); };

  // 6. A connection speaks for the agent attached to it.
  if (!c.agent_id.empty() && src != c.agent_id) {
    return fail({"AUTH_FAILED", "source_agent.agent_id \"" + src + "\" is not the agent attached to this connection (\"" + c.agent_id + "\")",
                 Json{{"pointer", "/source_agent/agent_id"}, {"rule", "attached-agent"}, {"attached_agent_id", c.agent_id}}});
  }
  if (c.agent_id.empty()) {
    if (src.empty() || src.size() > kMaxAgentIdLength || src == s.broker.agent_id) {
      return fail({"AUTH_FAILED", "source_agent.agent_id \"" + src + "\" cannot attach to the broker",
                   Json{{"pointer", "/source_agent/agent_id"}, {"rule", "attach"}}});
    }
    if (!s.allow_unlisted_agents && s.directory.find(src) == nullptr) {
      return fail({"AUTH_FAILED", "agent " + src + " is not in the broker's directory",
                   Json{{"pointer", "/source_agent/agent_id"}, {"rule", "directory"}}});
    }
  }

  // 7. The five token rules, before anything is routed (§Token Validation Rules).
  std::string token_domain = env.source_agent.domain;
  const bool routed = !to_broker && type != wire::MessageType::initiate_handshake;
  if (!(routed && s.faults.routing_skip_auth)) {
    auto claims = auth_->verify(env.security.auth_token, dst, required_capabilities(m, now));
    if (!claims) {
      Failure f = token_failure(claims.error());
      if (s.faults.error_wrong_code) f.code = "SCHEMA_MISMATCH";
      return fail(std::move(f));
    }
    if (s.require_sub_match && claims->sub != src) {
      Failure f{"AUTH_FAILED", "the token's sub \"" + claims->sub + "\" is not source_agent.agent_id \"" + src + "\"",
                Json{{"reason", "subject"}, {"pointer", "/security/auth_token"}, {"section", "a2acp-1.0.md §JWT Token Structure (sub)"}}};
      if (s.faults.error_wrong_code) f.code = "SCHEMA_MISMATCH";
      return fail(std::move(f));
    }
    token_domain = claims->domain;
  }

  // The first authenticated message attaches an anonymous connection to its agent.
  if (c.agent_id.empty()) {
    if (online_.count(src) != 0) {
      return fail({"AUTH_FAILED", "agent " + src + " is already attached on another connection",
                   Json{{"pointer", "/source_agent/agent_id"}, {"rule", "attach"}}});
    }
    bind(c, src);
  }
  c.identity = env.source_agent;

  // 8. Dispatch.
  if (type == wire::MessageType::initiate_handshake) return initiate(c, m, token_domain, now, out);
  if (to_broker) {
    if (type == wire::MessageType::handshake_decision) return decide(c, m, now, out);
    if (type == wire::MessageType::request && intent == "terminate_collaboration") return terminate(c, m, out);
    if (type == wire::MessageType::request || type == wire::MessageType::accept_handshake) {
      return fail({"CAPABILITY_NOT_FOUND",
                   "the broker serves the intents initiate_handshake and terminate_collaboration, not \"" + intent.value_or("") + "\"",
                   Json{{"available_intents", Json::array({"initiate_handshake", "terminate_collaboration"})}}});
    }
    return;  // events, responses and errors addressed to the broker need no answer
  }
  route(c, m, frame, now, out);
}

void Broker::on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo&) {
  context_.metrics.connection_closed(proto::ProtocolId::a2acp);
  Outbox out;
  std::lock_guard lock(mutex_);
  auto it = connections_.find(peer->id());
  if (it == connections_.end()) return;
  const std::string agent_id = it->second.agent_id;
  connections_.erase(it);
  if (!agent_id.empty()) {
    auto o = online_.find(agent_id);
    if (o != online_.end() && o->second == peer->id()) online_.erase(o);
    agent_gone(agent_id, peer->id(), out);
  }
}

Json Broker::agents_json() const {
  std::lock_guard lock(mutex_);
  Json out = settings_->directory.to_json();
  for (auto& a : out) {
    a["listed"] = true;
    a["online"] = online_.count(a["agent_id"].get<std::string>()) != 0;
  }
  for (const auto& [id, peer_id] : online_) {
    if (settings_->directory.find(id) != nullptr) continue;
    Json entry = {{"agent_id", id}, {"listed", false}, {"online", true}};
    if (auto c = connections_.find(peer_id); c != connections_.end()) {
      entry["domain"] = c->second.identity.domain;
      entry["version"] = c->second.identity.version;
    }
    out.push_back(std::move(entry));
  }
  return Json{{"broker", {{"agent_id", settings_->broker.agent_id}, {"domain", settings_->broker.domain}, {"version", settings_->broker.version}}},
              {"agents", out}};
}

Json Broker::status() const {
  std::lock_guard lock(mutex_);
  std::size_t pending = 0;
  for (const auto& [id, k] : collaborations_) pending += k.pending.size();
  return {{"connections", connections_.size()},
          {"agents_online", online_.size()},
          {"pending_handshakes", handshakes_.size()},
          {"collaborations", collaborations_.size()},
          {"pending_requests", pending}};
}

void Broker::shutdown() {
  // The connections hold their peers, whose sessions hold this broker: a connection the server
  // never reports closed (the lobby stops first) would keep both alive. Drop them here; on_close
  // and on_message ignore peers they no longer know. Released after the lock.
  std::map<std::uint64_t, Connection> dropped;
  std::lock_guard lock(mutex_);
  stopping_ = true;
  dropped.swap(connections_);
  online_.clear();
  for (auto& [id, h] : handshakes_) context_.scheduler.cancel(h.timer);
  handshakes_.clear();
  for (auto& [id, k] : collaborations_) {
    for (auto& [seq, p] : k.pending) context_.scheduler.cancel(p.timer);
    k.pending.clear();
  }
  awaiting_.clear();
}

}  // namespace ac::ref::a2acp
