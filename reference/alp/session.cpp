// The WebSocket side of the ALP lobby: the handshake of §6 step 3 (token and agent_id in the
// query), the session lifecycle (§6 steps 4-8), the pipeline every frame goes through, and the
// messages addressed to the lobby itself (REGISTER_CLIENT, UNREGISTER_CLIENT,
// DISCOVER_CAPABILITIES, PING).
//
// The pipeline, in order (each step answers PROTOCOL_ERROR and stops; the connection stays open):
//   1. the session's token expired      -> AUTH_TOKEN_EXPIRED, then close 1008
//   2. the agent's rate limit           -> RATE_LIMIT_EXCEEDED (retryable, details.retry_after_ms)
//   3. a binary frame / not JSON        -> MESSAGE_MALFORMED (offending id read best-effort)
//   4. protocol_version not supported   -> UNSUPPORTED_PROTOCOL_VERSION (before any 0.2.0 rule)
//   5. the §5/§7 schemas                -> MISSING_REQUIRED_FIELD / INVALID_MESSAGE_TYPE / MESSAGE_MALFORMED
//   6. sender_id != the session's agent -> ACCESS_DENIED, not processed
//   7. dispatch by message_type
#include <algorithm>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/protocols/typed/stamp.hpp"
#include "reference/alp/capability_check.hpp"
#include "reference/alp/core.hpp"
#include "reference/alp/discovery.hpp"
#include "reference/alp/wire.hpp"
#include "reference/core/lenient_types.hpp"

namespace ac::ref::alp {
namespace {

constexpr auto kAlp = proto::ProtocolId::alp;

const proto::Profile& profile() { return proto::Catalog::builtin().profile(kAlp); }

std::string error_body(const std::string& code, const std::string& message) {
  return Json{{"error", {{"code", code}, {"message", message}}}}.dump();
}

}  // namespace

// ---- Outbox -------------------------------------------------------------------------------------

void Outbox::send(const std::shared_ptr<net::Peer>& peer, std::string text) {
  if (peer) frames_.emplace_back(peer, std::move(text));
}

void Outbox::close(const std::shared_ptr<net::Peer>& peer, std::uint16_t code, std::string reason) {
  if (peer) closes_.push_back(Close{peer, code, std::move(reason)});
}

void Outbox::flush() {
  // Frames before closes: a close waits for what was queued before it (net::Peer), so an error
  // frame followed by its close arrives in that order.
  for (auto& [peer, text] : frames_) peer->send_text(std::move(text));
  frames_.clear();
  for (auto& c : closes_) c.peer->close(c.code, std::move(c.reason));
  closes_.clear();
}

// ---- Core: construction and bookkeeping ---------------------------------------------------------

Core::Core(HubContext& context, Settings settings)
    : context_(context), settings_(std::move(settings)), registry_(settings_.max_agents) {}

Session* Core::session_of(std::uint64_t peer_id) {
  auto it = sessions_.find(peer_id);
  return it == sessions_.end() ? nullptr : &it->second;
}

void Core::ensure_bucket(AgentRecord& agent, TimePoint now) const {
  if (agent.bucket.capacity() != settings_.rate_limit_messages || agent.bucket.window() != settings_.rate_limit_window) {
    agent.bucket = TokenBucket(settings_.rate_limit_messages, settings_.rate_limit_window, now);
  }
}

std::string Core::http_error_metric(const std::string& code) {
  context_.metrics.error(kAlp, code);
  return code;
}

// ---- §6 step 3: the handshake -------------------------------------------------------------------

net::UpgradeDecision Core::on_upgrade(const net::HttpRequest& request) {
  auto refuse = [this](int status, const std::string& code, const std::string& message) {
    context_.metrics.error(kAlp, code);
    return net::UpgradeDecision::refuse(status, error_body(code, message));
  };
  if (settings_.require_tls && !request.tls) return refuse(403, "TLS_REQUIRED", "this lobby accepts WSS only (alp-0.2.0.md §4.2)");
  const std::string token = request.query_value("token");
  const std::string agent_id = request.query_value("agent_id");
  const Faults& f = settings_.faults;

  std::lock_guard lock(mutex_);
  if (stopping_) return refuse(503, "INTERNAL_LOBBY_ERROR", "the lobby is shutting down");
  const TimePoint now = context_.clock();
  TokenCheck check = registry_.check_token(token, agent_id, now);
  Ticket ticket;
  switch (check.status) {
    case TokenStatus::missing:
      return refuse(401, "AUTH_TOKEN_INVALID", "the token query parameter is missing (/ws/connect?token=<auth_token>&agent_id=<agent_id>)");
    case TokenStatus::invalid: {
      if (!f.accept_invalid_token || agent_id.empty()) {
        return refuse(401, "AUTH_TOKEN_INVALID", "this auth_token was not issued by this lobby or was replaced; register again");
      }
      AgentRecord* adopted = registry_.adopt(agent_id, now);  // fault alp.handshake.accept-invalid-token
      if (adopted == nullptr) return refuse(503, "INTERNAL_LOBBY_ERROR", "the lobby holds its maximum number of agents");
      ticket = Ticket{agent_id, {}, false};
      break;
    }
    case TokenStatus::expired:
      if (!f.accept_expired_token) {
        return refuse(401, "AUTH_TOKEN_EXPIRED",
                      "this auth_token expired at " + proto::typed::utc_timestamp(check.agent->token_expires) +
                          "; register again over HTTP");
      }
      if (agent_id != check.agent->agent_id && !f.ignore_agent_id_mismatch) {
        return refuse(403, "ACCESS_DENIED", "the auth_token was not issued for this agent_id");
      }
      ticket = Ticket{check.agent->agent_id, check.agent->token_expires, false};  // fault alp.handshake.accept-expired-token
      break;
    case TokenStatus::agent_mismatch:
      if (!f.ignore_agent_id_mismatch) {
        return refuse(403, "ACCESS_DENIED",
                      agent_id.empty() ? "the agent_id query parameter is missing" : "the auth_token was not issued for this agent_id");
      }
      ticket = Ticket{check.agent->agent_id, check.agent->token_expires, true};  // fault alp.handshake.ignore-agent-id-mismatch
      break;
    case TokenStatus::ok:
      ticket = Ticket{check.agent->agent_id, check.agent->token_expires, true};
      break;
  }
  const AgentRecord* agent = registry_.find(ticket.agent_id);
  if (settings_.duplicate_session == DuplicateSession::refuse && agent != nullptr && agent->session_peer != 0) {
    return refuse(409, "AGENT_ALREADY_CONNECTED", "agent " + ticket.agent_id + " already has a live session");
  }
  return net::UpgradeDecision::allow(std::make_shared<Ticket>(std::move(ticket)));
}

// ---- session lifecycle --------------------------------------------------------------------------

void Core::on_open(const std::shared_ptr<net::Peer>& peer) {
  context_.metrics.connection_opened(kAlp);
  auto ticket = std::static_pointer_cast<Ticket>(peer->attachment);
  Outbox out;
  std::lock_guard lock(mutex_);
  AgentRecord* agent = ticket ? registry_.find(ticket->agent_id) : nullptr;
  if (agent == nullptr || stopping_) {  // evicted between the upgrade and now, or shutting down
    out.close(peer, net::close_code::policy_violation, "agent not registered");
    return;
  }
  const TimePoint now = context_.clock();
  Session s;
  s.peer = peer;
  s.agent_id = agent->agent_id;
  s.token_expires = ticket->token_expires;
  s.check_expiry = ticket->check_expiry;
  if (settings_.faults.ack_reuse_session_id) {
    if (agent->sticky_session_id.empty()) agent->sticky_session_id = proto::typed::new_uuid_v4();
    s.session_id = agent->sticky_session_id;
  } else {
    s.session_id = proto::typed::new_uuid_v4();
  }
  // One live session per agent: a new one supersedes the old (a reconnect after a half-open drop).
  if (agent->session_peer != 0 && agent->session_peer != peer->id()) {
    if (Session* old = session_of(agent->session_peer)) {
      old->ended = true;
      context_.scheduler.cancel(old->expiry_timer);
      context_.scheduler.cancel(old->unregister_timer);
      out.close(old->peer, net::close_code::policy_violation, "superseded by a new session of agent " + agent->agent_id);
    }
  }
  agent->session_peer = peer->id();
  agent->online = true;
  agent->last_seen = now;
  ensure_bucket(*agent, now);
  if (s.check_expiry) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(s.token_expires - now);
    std::weak_ptr<Core> weak = weak_from_this();
    const std::uint64_t id = peer->id();
    s.expiry_timer = context_.scheduler.after(std::max(left, std::chrono::milliseconds(0)), [weak, id] {
      if (auto self = weak.lock()) self->expire_session(id);
    });
  }
  sessions_[peer->id()] = std::move(s);
  if (settings_.faults.planted_stale_route) {
    opened_order_.push_back(peer->id());
    if (opened_order_.size() > 64) opened_order_.erase(opened_order_.begin());
  }
}

void Core::on_close(const std::shared_ptr<net::Peer>& peer, const net::CloseInfo&) {
  context_.metrics.connection_closed(kAlp);
  Outbox out;
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(peer->id());
  if (it == sessions_.end()) return;
  Session s = std::move(it->second);
  sessions_.erase(it);
  context_.scheduler.cancel(s.expiry_timer);
  context_.scheduler.cancel(s.unregister_timer);
  AgentRecord* agent = registry_.find(s.agent_id);
  if (agent == nullptr || agent->session_peer != peer->id()) return;  // a superseded session
  agent->session_peer = 0;
  if (settings_.faults.offline_stale_status) return;  // fault: the agent keeps looking online
  // §6 step 8: "The Lobby updates the agent's status (e.g., to 'offline') upon disconnection."
  agent->online = false;
  agent->last_seen = context_.clock();
  if (settings_.faults.planted_stale_route) {
    // The live session opened last hands its "slot" to the departed agent's messages.
    for (auto opened = opened_order_.rbegin(); opened != opened_order_.rend(); ++opened) {
      if (Session* other = session_of(*opened); other != nullptr && !other->ended && other->agent_id != s.agent_id) {
        recycled_slot_[s.agent_id] = *opened;
        break;
      }
    }
    if (recycled_slot_.size() > 64) recycled_slot_.erase(recycled_slot_.begin());
  }
  responder_gone(s.agent_id, out);
}

void Core::end_expired(Session& s, Outbox& out) {
  s.ended = true;
  context_.scheduler.cancel(s.unregister_timer);
  report(out, s.peer, s.agent_id,
         ErrorReport{"AUTH_TOKEN_EXPIRED",
                     "the auth_token of this session expired; register again over HTTP and reconnect",
                     Json{{"expired_at", proto::typed::utc_timestamp(s.token_expires)}}, false, std::nullopt, std::nullopt});
  out.close(s.peer, net::close_code::policy_violation, "auth token expired");
}

void Core::expire_session(std::uint64_t peer_id) {
  Outbox out;
  std::lock_guard lock(mutex_);
  Session* s = session_of(peer_id);
  if (s == nullptr || s->ended) return;
  end_expired(*s, out);
}

void Core::close_unregistered(std::uint64_t peer_id) {
  Outbox out;
  std::lock_guard lock(mutex_);
  Session* s = session_of(peer_id);
  if (s == nullptr || s->ended || !s->unregistered) return;
  s->ended = true;
  out.close(s->peer, net::close_code::normal, "unregistered");
}

// ---- the frame pipeline -------------------------------------------------------------------------

void Core::on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool binary) {
  Outbox out;
  const Faults& f = settings_.faults;
  {
    std::lock_guard lock(mutex_);
    Session* s = session_of(peer->id());
    if (s == nullptr || s->ended) return;
    const TimePoint now = context_.clock();
    if (s->check_expiry && now >= s->token_expires) return end_expired(*s, out);
    AgentRecord* agent = registry_.find(s->agent_id);
    if (agent != nullptr && !f.ratelimit_disabled && !agent->bucket.take(now)) {
      const auto wait = agent->bucket.retry_after(now);
      std::optional<std::string> id;
      if (!binary) id = scan_message_id(frame);
      return report(out, peer, s->agent_id,
                    ErrorReport{"RATE_LIMIT_EXCEEDED",
                                "more than " + std::to_string(settings_.rate_limit_messages) + " messages in " +
                                    std::to_string(settings_.rate_limit_window.count()) + " ms; retry after " +
                                    std::to_string(wait.count()) + " ms",
                                Json{{"retry_after_ms", wait.count()},
                                     {"limit", settings_.rate_limit_messages},
                                     {"window_ms", settings_.rate_limit_window.count()}},
                                true, id, std::nullopt});
    }
  }

  auto fail = [&](const proto::CodecError& e) {
    std::lock_guard lock(mutex_);
    if (Session* s = session_of(peer->id()); s != nullptr && !s->ended) decode_failed(*s, e, out);
  };
  if (binary) {
    proto::CodecError e;
    e.code = "MESSAGE_MALFORMED";
    e.rule = "websocket.binary";
    e.section = "alp-0.2.0.md §5";
    e.message = "a binary frame is not an ALP message: messages are JSON text (§5)";
    return fail(e);
  }
  json::ReadLimits limits;
  limits.max_bytes = settings_.max_message_bytes;
  auto parsed = json::parse_strict(frame, limits);
  if (!parsed) {
    proto::CodecError e;
    e.code = "MESSAGE_MALFORMED";
    e.pointer = parsed.error().pointer;
    e.rule = "json." + std::string(json::rule_name(parsed.error().rule));
    e.section = "RFC 8259 (JSON), strict reading";
    e.message = parsed.error().message;
    e.offset = parsed.error().offset;
    e.message_id = scan_message_id(frame).value_or("");
    return fail(e);
  }

  // §12: a message of another protocol line is refused before any 0.2.0 rule is applied to it.
  if (parsed->is_object() && !f.version_accept_any) {
    const auto pv = parsed->find("protocol_version");
    if (pv != parsed->end() && pv->is_string()) {
      auto version = semver::parse(pv->get_ref<const std::string&>());
      if (version && !version_supported(*version, settings_.supported_versions)) {
        std::optional<std::string> id;
        if (auto mid = parsed->find("message_id"); mid != parsed->end() && mid->is_string()) id = mid->get<std::string>();
        Json supported = Json::array();
        for (const auto& v : settings_.supported_versions) supported.push_back(v.to_string());
        std::lock_guard lock(mutex_);
        Session* s = session_of(peer->id());
        if (s == nullptr || s->ended) return;
        return report(out, peer, s->agent_id,
                      ErrorReport{"UNSUPPORTED_PROTOCOL_VERSION",
                                  "protocol_version " + pv->get<std::string>() + " is not supported by this lobby (it speaks " +
                                      supported.front().get<std::string>() + "); the message was not processed",
                                  Json{{"received", *pv}, {"supported", supported}, {"pointer", "/protocol_version"}},
                                  false, id, std::nullopt});
      }
    }
  }

  // §12 custom message types (X_...), routed between agents when the lobby is configured to.
  std::optional<Json> custom;
  if (settings_.route_custom_message_types && parsed->is_object()) {
    const auto t = parsed->find("message_type");
    if (t != parsed->end() && t->is_string() && t->get_ref<const std::string&>().starts_with("X_") &&
        profile().message(t->get_ref<const std::string&>()) == nullptr) {
      custom = *parsed;
    }
  }
  if (f.schema_coerce_wrong_types) {  // fault: a wrongly typed member is read as the type expected
    if (auto lax = coerce_wrong_types(profile(), *parsed)) *parsed = std::move(*lax);
  }
  auto checked = profile().check(std::move(*parsed));
  if (!checked) {
    if (custom && checked.error().code == "INVALID_MESSAGE_TYPE") {
      std::lock_guard lock(mutex_);
      return handle_custom(peer, *custom, frame, out);
    }
    return fail(checked.error());
  }
  auto message = wire::from_decoded(std::move(*checked));
  if (!message) return fail(message.error());

  // The capabilities of a REGISTER_CLIENT are compiled before taking the lock (schemas can be big).
  std::optional<Prepared> prepared;
  if (const auto* rc = message->get<wire::RegisterClient>()) {
    prepared = prepare_capabilities(rc->capabilities, settings_.max_capabilities, settings_.validate_input_schema);
  }
  std::lock_guard lock(mutex_);
  handle(peer, frame, *message, prepared, out);
}

void Core::decode_failed(Session& s, const proto::CodecError& e, Outbox& out) {
  ErrorReport r;
  r.code = e.code;
  if (settings_.faults.error_wrong_code && r.code == "INVALID_MESSAGE_TYPE") r.code = "MESSAGE_MALFORMED";
  r.message = e.message;
  Json details = {{"pointer", e.pointer}, {"rule", e.rule}, {"section", e.section}};
  if (e.offset) details["offset"] = *e.offset;
  r.details = std::move(details);
  if (!e.message_id.empty()) r.offending_message_id = e.message_id;
  report(out, s.peer, s.agent_id, std::move(r));
  if (settings_.faults.error_close_connection) {
    s.ended = true;
    out.close(s.peer, net::close_code::policy_violation, "protocol error");
  }
}

void Core::handle(const std::shared_ptr<net::Peer>& peer, std::string_view frame, const wire::Message& m,
                  std::optional<Prepared>& prepared, Outbox& out) {
  Session* s = session_of(peer->id());
  if (s == nullptr || s->ended) return;
  const wire::Envelope& env = m.envelope;
  // §6 step 3: the connection is the identity. A message claiming another sender is not processed.
  if (env.sender_id != s->agent_id && !settings_.faults.sender_trust_client) {
    return report(out, peer, s->agent_id,
                  ErrorReport{"ACCESS_DENIED",
                              "sender_id \"" + env.sender_id + "\" is not this connection's authenticated agent_id \"" +
                                  s->agent_id + "\"; the message was not processed",
                              Json{{"pointer", "/sender_id"}, {"authenticated_agent_id", s->agent_id}}, false,
                              env.message_id, env.conversation_id});
  }
  if (AgentRecord* me = registry_.find(s->agent_id)) me->last_seen = context_.clock();

  using T = wire::MessageType;
  switch (m.type()) {
    case T::register_client: return handle_register_client(*s, m, std::move(*prepared), out);
    case T::unregister_client: return handle_unregister_client(*s, out);
    case T::discover_capabilities: return handle_discover(*s, m, out);
    case T::direct_message: return route(*s, m, frame, out);
    case T::invoke_capability_request: return invoke_request(*s, m, frame, out);
    case T::invoke_capability_response: return invoke_response(*s, m, frame, out);
    case T::ping:
      if (env.receiver_id != settings_.lobby_id) return route(*s, m, frame, out);  // agent to agent
      {
        wire::Message pong = wire::make_pong(m, settings_.lobby_id);
        if (settings_.faults.ping_wrong_nonce) {
          auto* p = pong.get<wire::Pong>();
          if (p->nonce) p->nonce = *p->nonce + "-pong";
        }
        out.send(peer, encode(pong));
      }
      return;
    case T::pong:
    case T::protocol_error:
      // Addressed to the lobby: noted, never answered (an error about an error could loop).
      if (env.receiver_id != settings_.lobby_id) return route(*s, m, frame, out);
      if (m.type() == T::protocol_error) context_.metrics.error(kAlp, "RECEIVED_PROTOCOL_ERROR");
      return;
    case T::register_client_ack:
    case T::capabilities_found:
    case T::lobby_broadcast:
      return report(out, peer, s->agent_id,
                    ErrorReport{"INVALID_MESSAGE_TYPE",
                                std::string(m.type_name()) + " is sent by the lobby to agents, never by an agent",
                                Json{{"pointer", "/message_type"}}, false, env.message_id, env.conversation_id});
  }
}

// ---- §7.1.1 / §7.1.2 REGISTER_CLIENT ------------------------------------------------------------

void Core::handle_register_client(Session& s, const wire::Message& m, Prepared prepared, Outbox& out) {
  AgentRecord* agent = registry_.find(s.agent_id);
  if (agent == nullptr) return;
  std::string status = "success";
  std::string text;
  if (!prepared) {
    // Schema-valid but unusable capabilities: the list is refused as a whole and the previous
    // one stays (ACK status failure, the reason in message).
    status = "failure";
    text = "capabilities refused: " + prepared.error();
    context_.metrics.error(kAlp, "REGISTER_CLIENT_FAILURE");
  } else {
    const auto& payload = *m.get<wire::RegisterClient>();
    if (settings_.faults.capabilities_append) {
      for (auto& c : *prepared) {
        if (agent->capabilities.size() >= settings_.max_capabilities) break;
        agent->capabilities.push_back(std::move(c));
      }
    } else {
      // §6 step 4: "the most up-to-date capability list for this active session" replaces the old one.
      agent->capabilities = std::move(*prepared);
    }
    agent->agent_version = payload.agent_version;
    agent->sdk_version = payload.sdk_version;
    if (s.unregistered) {  // registering again after UNREGISTER_CLIENT cancels the goodbye
      s.unregistered = false;
      context_.scheduler.cancel(s.unregister_timer);
      s.unregister_timer = 0;
    }
    if (agent->session_peer == s.peer->id()) agent->online = true;
    text = std::to_string(agent->capabilities.size()) + " capabilities registered for this session";
  }
  wire::Message ack = wire::make_register_client_ack(m, settings_.lobby_id, status, text, s.session_id);
  ack.envelope.receiver_id = s.agent_id;
  Json j = wire::to_json(ack);
  if (settings_.faults.ack_missing_session_id) j["payload"].erase("session_id");
  out.send(s.peer, encode_json(std::move(j)));
}

// ---- §7.1.3 UNREGISTER_CLIENT -------------------------------------------------------------------

void Core::handle_unregister_client(Session& s, Outbox&) {
  // No ACK (§7.1.3): the agent is offline from now on, and the lobby waits for the agent to close
  // the WebSocket; if it has not after unregister_grace_ms, the lobby closes it (1000).
  s.unregistered = true;
  AgentRecord* agent = registry_.find(s.agent_id);
  if (agent != nullptr && agent->session_peer == s.peer->id()) {
    agent->online = false;
    agent->last_seen = context_.clock();
  }
  if (s.unregister_timer == 0) {
    std::weak_ptr<Core> weak = weak_from_this();
    const std::uint64_t id = s.peer->id();
    s.unregister_timer = context_.scheduler.after(settings_.unregister_grace, [weak, id] {
      if (auto self = weak.lock()) self->close_unregistered(id);
    });
  }
}

// ---- §7.2 DISCOVER_CAPABILITIES -----------------------------------------------------------------

void Core::handle_discover(Session& s, const wire::Message& m, Outbox& out) {
  const auto& payload = *m.get<wire::DiscoverCapabilities>();
  const auto& filter = payload.capability_filter;
  DiscoveryQuery q;
  q.name = filter.name;
  if (filter.version_match && !settings_.faults.discover_ignore_version_match) {
    auto range = semver::parse_range(*filter.version_match);
    if (!range) {
      return report(out, s.peer, s.agent_id,
                    ErrorReport{"MESSAGE_MALFORMED",
                                "capability_filter.version_match is not a version range: " + range.error().describe(),
                                Json{{"pointer", "/payload/capability_filter/version_match"}, {"rule", "version-range"}},
                                false, m.envelope.message_id, m.envelope.conversation_id});
    }
    q.version_range = std::move(*range);
  }
  q.keywords = filter.keywords.value_or(std::vector<std::string>{});
  q.keywords_all = settings_.keywords_all;
  q.max_results = static_cast<std::size_t>(std::min<std::uint64_t>(payload.max_results.value_or(10), settings_.max_results_limit));
  q.include_offline = settings_.discovery_include_offline;
  q.now = context_.clock();
  wire::Message found = wire::make_capabilities_found(m, settings_.lobby_id, discover(registry_, q));
  found.envelope.receiver_id = s.agent_id;
  if (settings_.faults.discover_no_query_ref) found.get<wire::CapabilitiesFound>()->query_ref.reset();
  out.send(s.peer, encode(found));
}

// ---- HTTP-side views ----------------------------------------------------------------------------

namespace {
Json agent_view(const AgentRecord& a, const std::map<std::uint64_t, Session>& sessions, TimePoint now) {
  Json caps = Json::array();
  for (const auto& c : a.capabilities) caps.push_back({{"name", c.capability.name}, {"capability_version", c.capability.capability_version}});
  Json out = {{"agent_id", a.agent_id},
              {"agent_type", a.agent_type},
              {"status", a.online ? "online" : "offline"},
              {"last_seen_utc", proto::typed::utc_timestamp(a.online ? now : a.last_seen)},
              {"registered_at", proto::typed::utc_timestamp(a.registered_at)},
              {"token_expires_at", proto::typed::utc_timestamp(a.token_expires)},
              {"roles", a.roles},
              {"capabilities", caps},
              {"agent_version", a.agent_version},
              {"sdk_version", a.sdk_version}};
  if (auto it = sessions.find(a.session_peer); a.session_peer != 0 && it != sessions.end()) out["session_id"] = it->second.session_id;
  return out;
}
}  // namespace

Json Core::agents_json() const {
  std::lock_guard lock(mutex_);
  const TimePoint now = context_.clock();
  Json list = Json::array();
  for (const auto& [id, a] : registry_.agents()) list.push_back(agent_view(a, sessions_, now));
  return list;
}

std::optional<Json> Core::agent_json(const std::string& agent_id) const {
  std::lock_guard lock(mutex_);
  const AgentRecord* a = registry_.find(agent_id);
  if (a == nullptr) return std::nullopt;
  return agent_view(*a, sessions_, context_.clock());
}

Json Core::status() const {
  std::lock_guard lock(mutex_);
  std::size_t online = 0;
  for (const auto& [id, a] : registry_.agents()) online += a.online ? 1 : 0;
  return {{"agents", registry_.size()}, {"online", online}, {"sessions", sessions_.size()}, {"pending_invocations", pending_.size()}};
}

void Core::shutdown() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  for (auto& [id, s] : sessions_) {
    context_.scheduler.cancel(s.expiry_timer);
    context_.scheduler.cancel(s.unregister_timer);
  }
  for (auto& [key, p] : pending_) context_.scheduler.cancel(p.timer);
}

}  // namespace ac::ref::alp
