// Agent-to-agent delivery (§5 receiver_id, §7.3.1 DIRECT_MESSAGE, §10.1 steps 5-6) and the
// lobby's PROTOCOL_ERROR (§7.5.1).
//
// Receiver resolution, for every routed message:
//   BROADCAST_ALL                  -> ACCESS_DENIED (only the lobby addresses it, §5)
//   the lobby_id                   -> INVALID_MESSAGE_TYPE (the lobby takes no DIRECT_MESSAGE / invocation)
//   an agent_id never registered   -> RECEIVER_NOT_FOUND
//   a registered agent not online  -> RECEIVER_UNAVAILABLE (retryable; after a disconnect or UNREGISTER_CLIENT)
//   otherwise                      -> delivered on that agent's live session
// What is delivered is the sender's frame byte for byte (message_id, conversation_id and
// payload unchanged, §11 "routed ... not inspected beyond what's necessary"), except that a
// deprecated auth_token member (§5) is removed: one agent's credential never reaches another.
#include "harness/protocols/typed/stamp.hpp"
#include "reference/alp/core.hpp"

namespace ac::ref::alp {
namespace {
constexpr auto kAlp = proto::ProtocolId::alp;
}  // namespace

std::shared_ptr<net::Peer> Core::live_peer(const AgentRecord& agent) {
  if (agent.session_peer == 0) return nullptr;
  Session* s = session_of(agent.session_peer);
  return s == nullptr || s->ended ? nullptr : s->peer;
}

Core::Resolution Core::resolve_receiver(const std::string& receiver_id, std::string_view message_type) {
  Resolution r;
  auto fail = [&](std::string code, std::string message, bool retryable) {
    r.error = ErrorReport{std::move(code), std::move(message), Json{{"receiver_id", receiver_id}}, retryable, std::nullopt,
                          std::nullopt};
    return r;
  };
  if (receiver_id == "BROADCAST_ALL") return fail("ACCESS_DENIED", "only the lobby may address BROADCAST_ALL", false);
  if (receiver_id == settings_.lobby_id) {
    return fail("INVALID_MESSAGE_TYPE",
                "the lobby does not take " + std::string(message_type) + " messages itself; address an agent_id", false);
  }
  AgentRecord* agent = registry_.find(receiver_id);
  if (agent == nullptr) {
    return fail(settings_.faults.receiver_not_found_as_unavailable ? "RECEIVER_UNAVAILABLE" : "RECEIVER_NOT_FOUND",
                "no agent " + receiver_id + " is registered with this lobby", false);
  }
  r.peer = agent->online ? live_peer(*agent) : nullptr;
  if (r.peer) return r;
  if (auto slot = recycled_slot_.find(receiver_id); settings_.faults.planted_stale_route && !agent->online && slot != recycled_slot_.end()) {
    // Planted bug (fuzzer proof): a departed agent's "slot" went to another live session.
    if (Session* s = session_of(slot->second); s != nullptr && !s->ended) {
      r.peer = s->peer;
      return r;
    }
  }
  if (agent->online && settings_.faults.offline_stale_status) {
    context_.metrics.error(kAlp, "DROPPED_STALE_RECEIVER");  // fault: delivered to nobody, reported to nobody
    return r;
  }
  return fail("RECEIVER_UNAVAILABLE",
              "agent " + receiver_id + " is offline (last seen " + proto::typed::utc_timestamp(agent->last_seen) + ")", true);
}

std::string Core::forward_text(const wire::Message& m, std::string_view frame) const {
  if (!m.envelope.auth_token) return std::string(frame);
  wire::Message copy = m;
  copy.envelope.auth_token.reset();
  return wire::encode(copy);
}

void Core::route(Session& from, const wire::Message& m, std::string_view frame, Outbox& out) {
  Resolution r = resolve_receiver(m.envelope.receiver_id, m.type_name());
  if (r.error) {
    r.error->offending_message_id = m.envelope.message_id;
    r.error->conversation_id = m.envelope.conversation_id;
    return report(out, from.peer, from.agent_id, std::move(*r.error));
  }
  if (!r.peer) return;
  out.send(r.peer, forward_text(m, frame));
  context_.metrics.routed(kAlp);
}

void Core::handle_custom(const std::shared_ptr<net::Peer>& peer, const Json& message, std::string_view frame, Outbox& out) {
  // The envelope is valid (the profile checks it before calling a type unknown); the payload's
  // structure is the business of the two agents (§12 "provided senders and receivers agree").
  Session* s = session_of(peer->id());
  if (s == nullptr || s->ended) return;
  const std::string& sender = message["sender_id"].get_ref<const std::string&>();
  const std::string& id = message["message_id"].get_ref<const std::string&>();
  std::optional<std::string> conversation;
  if (auto c = message.find("conversation_id"); c != message.end()) conversation = c->get<std::string>();
  if (sender != s->agent_id && !settings_.faults.sender_trust_client) {
    return report(out, peer, s->agent_id,
                  ErrorReport{"ACCESS_DENIED",
                              "sender_id \"" + sender + "\" is not this connection's authenticated agent_id \"" +
                                  s->agent_id + "\"; the message was not processed",
                              Json{{"pointer", "/sender_id"}}, false, id, conversation});
  }
  if (AgentRecord* me = registry_.find(s->agent_id)) me->last_seen = context_.clock();
  const std::string& type = message["message_type"].get_ref<const std::string&>();
  Resolution r = resolve_receiver(message["receiver_id"].get<std::string>(), type);
  if (r.error) {
    r.error->offending_message_id = id;
    r.error->conversation_id = conversation;
    return report(out, peer, s->agent_id, std::move(*r.error));
  }
  if (!r.peer) return;
  if (message.contains("auth_token")) {
    Json copy = message;
    copy.erase("auth_token");
    out.send(r.peer, copy.dump(-1, ' ', false, Json::error_handler_t::replace));
  } else {
    out.send(r.peer, std::string(frame));
  }
  context_.metrics.routed(kAlp);
}

void Core::report(Outbox& out, const std::shared_ptr<net::Peer>& peer, const std::string& receiver, ErrorReport e) {
  if (settings_.faults.error_wrong_offending_id && e.offending_message_id) e.offending_message_id = proto::typed::new_uuid_v4();
  wire::Message m = wire::make_protocol_error(settings_.lobby_id, receiver, e.code, e.message, e.offending_message_id);
  auto* p = m.get<wire::ProtocolError>();
  p->error.details = std::move(e.details);
  p->error.retryable = e.retryable;
  m.envelope.conversation_id = std::move(e.conversation_id);
  context_.metrics.error(kAlp, e.code);
  out.send(peer, encode(m));
}

std::string Core::encode(const wire::Message& m) const { return encode_json(wire::to_json(m)); }

std::string Core::encode_json(Json m) const {
  if (settings_.faults.version_wrong_outgoing) m["protocol_version"] = "0.1.0";
  return m.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ac::ref::alp
