#include "harness/protocols/a2acp/codec.hpp"

#include "harness/protocols/typed/convert.hpp"
#include "harness/protocols/typed/fields.hpp"

namespace ac::proto::a2acp {
namespace {

using typed::Fields;
using typed::merge_extra;
using typed::put;

Agent read_agent(Fields& f) {
  Agent a;
  a.agent_id = f.string("agent_id");
  a.domain = f.string("domain");
  a.version = f.string("version");
  f.rest_into(a.extra);
  return a;
}

Security read_security(Fields& f) {
  Security s;
  s.auth_token = f.string("auth_token");
  s.encryption = f.optional_string("encryption");
  f.rest_into(s.extra);
  return s;
}

ErrorInfo read_error_info(Fields& f) {
  ErrorInfo e;
  e.code = f.string("code");
  e.message = f.string("message");
  e.details = f.optional_object("details");
  e.retry_after = f.unsigned_integer("retry_after");
  e.correlation_id = f.optional_string("correlation_id");
  f.rest_into(e.extra);
  return e;
}

Contract read_contract(Fields& f) {
  Contract c;
  c.contract_id = f.string("contract_id");
  c.input_schema = f.optional_object("input_schema");
  c.output_schema = f.optional_object("output_schema");
  c.security_policy = f.optional_object("security_policy");
  f.rest_into(c.extra);
  return c;
}

HandshakeOffer read_offer(Fields& f) {
  HandshakeOffer o;
  o.requested_intent = f.optional_string("requested_intent");
  o.collaboration_id = f.optional_string("collaboration_id");
  o.source_agent_id = f.optional_string("source_agent_id");
  f.rest_into(o.extra);
  return o;
}

Payload read_payload(MessageType type, Fields& top) {
  switch (type) {
    case MessageType::request: return Request{top.optional_object("payload")};
    case MessageType::response: return Response{top.optional_object("payload")};
    case MessageType::event: return Event{top.optional_object("payload")};
    case MessageType::error:
      return top.nested("payload", [](Fields& f) {
        Error e;
        e.error = f.nested("error", read_error_info);
        f.rest_into(e.extra);
        return e;
      });
    case MessageType::initiate_handshake:
      return top.nested("payload", [](Fields& f) {
        InitiateHandshake p;
        p.target_agent_id = f.string("target_agent_id");
        p.requested_intent = f.string("requested_intent");
        f.rest_into(p.extra);
        return p;
      });
    case MessageType::accept_handshake: return AcceptHandshake{top.optional_nested("payload", read_offer)};
    case MessageType::handshake_decision:
      return top.nested("payload", [](Fields& f) {
        HandshakeDecision p;
        p.accepted = f.boolean("accepted");
        p.reason = f.optional_string("reason");
        f.rest_into(p.extra);
        return p;
      });
    case MessageType::handshake_result:
      return top.nested("payload", [](Fields& f) {
        HandshakeResult p;
        p.collaboration_id = f.string("collaboration_id");
        p.contract = f.nested("contract", read_contract);
        f.rest_into(p.extra);
        return p;
      });
  }
  return Request{};
}

Message read_message(MessageType type, Fields& top) {
  Message m;
  Envelope& e = m.envelope;
  e.protocol_version = top.string("protocol_version");
  e.message_id = top.string("message_id");
  e.timestamp = top.string("timestamp");
  e.source_agent = top.nested("source_agent", read_agent);
  e.target_agent = top.nested("target_agent", read_agent);
  top.string("message_type");  // given by the alternative
  e.intent = top.optional_string("intent");
  m.payload = read_payload(type, top);
  e.security = top.nested("security", read_security);
  top.rest_into(e.extra);
  return m;
}

Json agent_json(const Agent& a) {
  Json out = Json::object();
  put(out, "agent_id", a.agent_id);
  put(out, "domain", a.domain);
  put(out, "version", a.version);
  merge_extra(out, a.extra);
  return out;
}

// The payload member of each alternative; nullopt when the message has none.
std::optional<Json> payload_json(const Request& p) { return p.payload; }
std::optional<Json> payload_json(const Response& p) { return p.payload; }
std::optional<Json> payload_json(const Event& p) { return p.payload; }

std::optional<Json> payload_json(const Error& p) {
  Json error = Json::object();
  put(error, "code", p.error.code);
  put(error, "message", p.error.message);
  put(error, "details", p.error.details);
  put(error, "retry_after", p.error.retry_after);
  put(error, "correlation_id", p.error.correlation_id);
  merge_extra(error, p.error.extra);
  Json out = Json::object();
  out["error"] = std::move(error);
  merge_extra(out, p.extra);
  return out;
}

std::optional<Json> payload_json(const InitiateHandshake& p) {
  Json out = Json::object();
  put(out, "target_agent_id", p.target_agent_id);
  put(out, "requested_intent", p.requested_intent);
  merge_extra(out, p.extra);
  return out;
}

std::optional<Json> payload_json(const AcceptHandshake& p) {
  if (!p.payload) return std::nullopt;
  Json out = Json::object();
  put(out, "requested_intent", p.payload->requested_intent);
  put(out, "collaboration_id", p.payload->collaboration_id);
  put(out, "source_agent_id", p.payload->source_agent_id);
  merge_extra(out, p.payload->extra);
  return out;
}

std::optional<Json> payload_json(const HandshakeDecision& p) {
  Json out = Json::object();
  put(out, "accepted", p.accepted);
  put(out, "reason", p.reason);
  merge_extra(out, p.extra);
  return out;
}

std::optional<Json> payload_json(const HandshakeResult& p) {
  Json contract = Json::object();
  put(contract, "contract_id", p.contract.contract_id);
  put(contract, "input_schema", p.contract.input_schema);
  put(contract, "output_schema", p.contract.output_schema);
  put(contract, "security_policy", p.contract.security_policy);
  merge_extra(contract, p.contract.extra);
  Json out = Json::object();
  put(out, "collaboration_id", p.collaboration_id);
  out["contract"] = std::move(contract);
  merge_extra(out, p.extra);
  return out;
}

}  // namespace

Json to_json(const Message& m) {
  const Envelope& e = m.envelope;
  Json security = Json::object();
  put(security, "auth_token", e.security.auth_token);
  put(security, "encryption", e.security.encryption);
  merge_extra(security, e.security.extra);

  Json out = Json::object();
  put(out, "protocol_version", e.protocol_version);
  put(out, "message_id", e.message_id);
  put(out, "timestamp", e.timestamp);
  out["source_agent"] = agent_json(e.source_agent);
  out["target_agent"] = agent_json(e.target_agent);
  out["message_type"] = std::string(message_type_name(m.type()));
  if (auto intent = implied_intent(m.type())) {
    out["intent"] = std::string(*intent);
  } else {
    put(out, "intent", e.intent);
  }
  if (auto payload = std::visit([](const auto& p) { return payload_json(p); }, m.payload)) out["payload"] = std::move(*payload);
  out["security"] = std::move(security);
  merge_extra(out, e.extra);
  return out;
}

std::string encode(const Message& message) { return typed::wire_text(to_json(message)); }

Expected<Message, CodecError> from_decoded(Decoded decoded) {
  return typed::read_decoded<Message>(ProtocolId::a2acp, {"/message_type", "message key", "message_id"}, std::move(decoded), parse_key, read_message);
}

Expected<Message, CodecError> from_json(Json value) {
  return typed::check_with<Message>(ProtocolId::a2acp, std::move(value), from_decoded);
}

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits) {
  return typed::decode_with<Message>(ProtocolId::a2acp, bytes, limits, from_decoded);
}

Json to_json(const TokenRequest& r) {
  Json out = Json::object();
  put(out, "agent_id", r.agent_id);
  put(out, "target_agent_id", r.target_agent_id);
  put(out, "requested_capabilities", r.requested_capabilities);
  put(out, "ttl", r.ttl);
  merge_extra(out, r.extra);
  return out;
}

Json to_json(const TokenResponse& r) {
  Json out = Json::object();
  put(out, "token", r.token);
  put(out, "expires_at", r.expires_at);
  merge_extra(out, r.extra);
  return out;
}

Expected<TokenRequest, CodecError> token_request_from_json(Json value) {
  return typed::document_with<TokenRequest>(ProtocolId::a2acp, "token_request", std::move(value), [](Fields& f) {
    TokenRequest r;
    r.agent_id = f.string("agent_id");
    r.target_agent_id = f.string("target_agent_id");
    r.requested_capabilities = f.strings("requested_capabilities");
    r.ttl = f.optional_unsigned("ttl");
    f.rest_into(r.extra);
    return r;
  });
}

Expected<TokenResponse, CodecError> token_response_from_json(Json value) {
  return typed::document_with<TokenResponse>(ProtocolId::a2acp, "token_response", std::move(value), [](Fields& f) {
    TokenResponse r;
    r.token = f.string("token");
    r.expires_at = f.string("expires_at");
    f.rest_into(r.extra);
    return r;
  });
}

}  // namespace ac::proto::a2acp
