#include "harness/protocols/a2acp/builders.hpp"

#include "harness/protocols/typed/stamp.hpp"

namespace ac::proto::a2acp {
namespace {

// The correlation_id a message carries in its payload (generic payloads or error.correlation_id).
std::optional<std::string> correlation_of(const Message& m) {
  const Json* payload = nullptr;
  if (const auto* r = m.get<Request>(); r && r->payload) payload = &*r->payload;
  if (const auto* r = m.get<Response>(); r && r->payload) payload = &*r->payload;
  if (const auto* r = m.get<Event>(); r && r->payload) payload = &*r->payload;
  if (const auto* e = m.get<Error>()) return e->error.correlation_id;
  if (payload != nullptr && payload->is_object()) {
    if (auto it = payload->find("correlation_id"); it != payload->end() && it->is_string()) return it->get<std::string>();
  }
  return std::nullopt;
}

Envelope reply_envelope(const Message& to, std::string auth_token) {
  return make_envelope(to.envelope.target_agent, to.envelope.source_agent, std::move(auth_token), to.envelope.intent);
}

}  // namespace

Envelope make_envelope(Agent source, Agent target, std::string auth_token, std::optional<std::string> intent) {
  Envelope e;
  e.protocol_version = std::string(kProtocolVersion);
  e.message_id = typed::new_uuid_v4();
  e.timestamp = typed::utc_now();
  e.source_agent = std::move(source);
  e.target_agent = std::move(target);
  e.intent = std::move(intent);
  e.security.auth_token = std::move(auth_token);
  e.security.encryption = "none";
  return e;
}

Message make_request(Agent source, Agent target, std::string auth_token, std::string intent, Json payload) {
  return Message{make_envelope(std::move(source), std::move(target), std::move(auth_token), std::move(intent)),
                 Request{std::move(payload)}};
}

Message make_event(Agent source, Agent target, std::string auth_token, std::optional<std::string> intent, Json payload) {
  return Message{make_envelope(std::move(source), std::move(target), std::move(auth_token), std::move(intent)),
                 Event{std::move(payload)}};
}

Message make_response(const Message& request, std::string auth_token, Json payload) {
  if (auto correlation = correlation_of(request); correlation && payload.is_object() && !payload.contains("correlation_id")) {
    payload["correlation_id"] = *correlation;
  }
  return Message{reply_envelope(request, std::move(auth_token)), Response{std::move(payload)}};
}

Message make_error(Agent source, Agent target, std::string auth_token, std::string code, std::string message,
                   std::uint64_t retry_after, std::optional<std::string> correlation_id, std::optional<Json> details) {
  Error p;
  p.error.code = std::move(code);
  p.error.message = std::move(message);
  p.error.retry_after = retry_after;
  p.error.correlation_id = std::move(correlation_id);
  p.error.details = std::move(details);
  return Message{make_envelope(std::move(source), std::move(target), std::move(auth_token)), std::move(p)};
}

Message make_error_reply(const Message& offending, std::string auth_token, std::string code, std::string message,
                         std::uint64_t retry_after, std::optional<Json> details) {
  Message m = make_error(offending.envelope.target_agent, offending.envelope.source_agent, std::move(auth_token),
                         std::move(code), std::move(message), retry_after, correlation_of(offending), std::move(details));
  m.envelope.intent = offending.envelope.intent;
  return m;
}

Message make_initiate_handshake(Agent source, Agent broker, std::string auth_token, std::string target_agent_id,
                                std::string requested_intent) {
  InitiateHandshake p;
  p.target_agent_id = std::move(target_agent_id);
  p.requested_intent = std::move(requested_intent);
  return Message{make_envelope(std::move(source), std::move(broker), std::move(auth_token), "initiate_handshake"),
                 std::move(p)};
}

Message make_accept_handshake(Agent broker, Agent target, std::string auth_token, std::optional<HandshakeOffer> offer) {
  return Message{make_envelope(std::move(broker), std::move(target), std::move(auth_token), "accept_handshake"),
                 AcceptHandshake{std::move(offer)}};
}

Message make_handshake_decision(const Message& accept_handshake, std::string auth_token, bool accepted,
                                std::optional<std::string> reason) {
  HandshakeDecision p;
  p.accepted = accepted;
  p.reason = std::move(reason);
  Message m{reply_envelope(accept_handshake, std::move(auth_token)), std::move(p)};
  m.envelope.intent = "accept_handshake";
  return m;
}

Message make_handshake_result(const Message& initiate_handshake, std::string auth_token, std::string collaboration_id,
                              Contract contract) {
  HandshakeResult p;
  p.collaboration_id = std::move(collaboration_id);
  p.contract = std::move(contract);
  Message m{reply_envelope(initiate_handshake, std::move(auth_token)), std::move(p)};
  m.envelope.intent = "initiate_handshake";
  return m;
}

}  // namespace ac::proto::a2acp
