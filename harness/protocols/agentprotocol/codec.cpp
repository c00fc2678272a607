#include "harness/protocols/agentprotocol/codec.hpp"

#include "harness/protocols/typed/convert.hpp"
#include "harness/protocols/typed/fields.hpp"

namespace ac::proto::agentprotocol {
namespace {

using typed::Fields;
using typed::merge_extra;
using typed::put;

Payload read_payload(MessageType type, Fields& f) {
  switch (type) {
    case MessageType::hello: {
      Hello p;
      p.version = f.string("version");
      p.features = f.optional_strings("features");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::request: {
      Request p;
      p.action = f.string("action");
      p.correlation_id = f.string("correlationId");
      p.params = f.optional_object("params");
      p.timeout = f.optional_unsigned("timeout");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::response: {
      Response p;
      p.correlation_id = f.string("correlationId");
      p.status = f.string("status");
      p.result = f.optional_any("result");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::notify: {
      Notify p;
      p.body = f.rest();
      return p;
    }
    case MessageType::error: {
      Error p;
      p.correlation_id = f.optional_string("correlationId");
      p.code = f.string("code");
      p.message = f.string("message");
      p.details = f.optional_object("details");
      f.rest_into(p.extra);
      return p;
    }
  }
  return Notify{};
}

Message read_message(MessageType type, Fields& top) {
  Message m;
  Envelope& e = m.envelope;
  e.protocol = top.string("protocol");
  e.id = top.string("id");
  e.timestamp = top.string("timestamp");
  e.from = top.nested("from", [](Fields& f) {
    From from;
    from.agent_id = f.string("agentId");
    from.name = f.optional_string("name");
    from.capabilities = f.strings("capabilities");
    f.rest_into(from.extra);
    return from;
  });
  e.to = top.nested("to", [](Fields& f) {
    To to;
    to.agent_id = f.string("agentId");
    to.broadcast = f.boolean("broadcast");
    f.rest_into(to.extra);
    return to;
  });
  top.string("type");  // given by the payload alternative
  m.payload = top.nested("payload", [type](Fields& f) { return read_payload(type, f); });
  e.signature = top.optional_string("signature");
  e.metadata = top.optional_object("metadata");
  top.rest_into(e.extra);
  return m;
}

Json payload_json(const Hello& p) {
  Json out = Json::object();
  put(out, "version", p.version);
  put(out, "features", p.features);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const Request& p) {
  Json out = Json::object();
  put(out, "action", p.action);
  put(out, "correlationId", p.correlation_id);
  put(out, "params", p.params);
  put(out, "timeout", p.timeout);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const Response& p) {
  Json out = Json::object();
  put(out, "correlationId", p.correlation_id);
  put(out, "status", p.status);
  put(out, "result", p.result);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const Notify& p) { return p.body.is_object() ? p.body : Json::object(); }

Json payload_json(const Error& p) {
  Json out = Json::object();
  put(out, "correlationId", p.correlation_id);
  put(out, "code", p.code);
  put(out, "message", p.message);
  put(out, "details", p.details);
  merge_extra(out, p.extra);
  return out;
}

}  // namespace

Json to_json(const Message& m) {
  const Envelope& e = m.envelope;
  Json from = Json::object();
  put(from, "agentId", e.from.agent_id);
  put(from, "name", e.from.name);
  put(from, "capabilities", e.from.capabilities);
  merge_extra(from, e.from.extra);
  Json to = Json::object();
  put(to, "agentId", e.to.agent_id);
  put(to, "broadcast", e.to.broadcast);
  merge_extra(to, e.to.extra);

  Json out = Json::object();
  put(out, "protocol", e.protocol);
  put(out, "id", e.id);
  put(out, "timestamp", e.timestamp);
  out["from"] = std::move(from);
  out["to"] = std::move(to);
  out["type"] = std::string(m.type_name());
  out["payload"] = std::visit([](const auto& p) { return payload_json(p); }, m.payload);
  put(out, "signature", e.signature);
  put(out, "metadata", e.metadata);
  merge_extra(out, e.extra);
  return out;
}

std::string encode(const Message& message) { return typed::wire_text(to_json(message)); }

Expected<Message, CodecError> from_decoded(Decoded decoded) {
  return typed::read_decoded<Message>(ProtocolId::agentprotocol, {"/type", "message type", "id"}, std::move(decoded), parse_type, read_message);
}

Expected<Message, CodecError> from_json(Json value) {
  return typed::check_with<Message>(ProtocolId::agentprotocol, std::move(value), from_decoded);
}

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits) {
  return typed::decode_with<Message>(ProtocolId::agentprotocol, bytes, limits, from_decoded);
}

}  // namespace ac::proto::agentprotocol
