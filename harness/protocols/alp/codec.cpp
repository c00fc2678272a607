#include "harness/protocols/alp/codec.hpp"

#include "harness/protocols/typed/convert.hpp"
#include "harness/protocols/typed/fields.hpp"

namespace ac::proto::alp {
namespace {

using typed::Fields;
using typed::merge_extra;
using typed::put;

// ---- JSON -> types ----------------------------------------------------------------------------

ErrorObject read_error(Fields& f) {
  ErrorObject e;
  e.code = f.string("code");
  e.message = f.string("message");
  e.details = f.optional_object("details");
  e.retryable = f.optional_boolean("retryable");
  f.rest_into(e.extra);
  return e;
}

AuthorizationRules read_rules(Fields& f) {
  AuthorizationRules r;
  r.type = f.string("type");
  r.allowed_agent_ids = f.optional_strings("allowed_agent_ids");
  r.required_roles = f.optional_strings("required_roles");
  f.rest_into(r.extra);
  return r;
}

Capability read_capability(Fields& f) {
  Capability c;
  c.name = f.string("name");
  c.capability_version = f.string("capability_version");
  c.description = f.string("description");
  c.input_schema = f.object("input_schema");
  c.output_schema = f.object("output_schema");
  c.error_schema = f.optional_object("error_schema");
  c.keywords = f.optional_strings("keywords");
  c.authorization_rules = f.optional_nested("authorization_rules", read_rules);
  c.metadata = f.optional_object("metadata");
  f.rest_into(c.extra);
  return c;
}

RegisterClient read_register_client(Fields& f) {
  RegisterClient p;
  p.capabilities = f.list("capabilities", read_capability);
  p.agent_version = f.string("agent_version");
  p.sdk_version = f.string("sdk_version");
  f.rest_into(p.extra);
  return p;
}

RegisterClientAck read_register_client_ack(Fields& f) {
  RegisterClientAck p;
  p.status = f.string("status");
  p.lobby_id = f.string("lobby_id");
  p.message = f.optional_string("message");
  p.server_time_utc = f.string("server_time_utc");
  p.session_id = f.string("session_id");
  f.rest_into(p.extra);
  return p;
}

CapabilityFilter read_filter(Fields& f) {
  CapabilityFilter c;
  c.name = f.optional_string("name");
  c.version_match = f.optional_string("version_match");
  c.keywords = f.optional_strings("keywords");
  f.rest_into(c.extra);
  return c;
}

AgentMatch read_agent_match(Fields& f) {
  AgentMatch a;
  a.agent_id = f.string("agent_id");
  a.agent_type = f.string("agent_type");
  a.matching_capabilities = f.list("matching_capabilities", read_capability);
  a.last_seen_utc = f.optional_string("last_seen_utc");
  f.rest_into(a.extra);
  return a;
}

ProgressInfo read_progress(Fields& f) {
  ProgressInfo p;
  p.percentage = f.integer("percentage");
  p.description = f.string("description");
  f.rest_into(p.extra);
  return p;
}

Payload read_payload(MessageType type, Fields& f) {
  switch (type) {
    case MessageType::register_client: return read_register_client(f);
    case MessageType::register_client_ack: return read_register_client_ack(f);
    case MessageType::unregister_client: {
      UnregisterClient p;
      p.reason = f.optional_string("reason");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::discover_capabilities: {
      DiscoverCapabilities p;
      p.capability_filter = f.nested("capability_filter", read_filter);
      p.max_results = f.optional_unsigned("max_results");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::capabilities_found: {
      CapabilitiesFound p;
      p.query_ref = f.optional_string("query_ref");
      p.agents = f.list("agents", read_agent_match);
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::direct_message: {
      DirectMessage p;
      p.content_type = f.string("content_type");
      p.content = f.any("content");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::invoke_capability_request: {
      InvokeCapabilityRequest p;
      p.capability_name = f.string("capability_name");
      p.capability_version = f.optional_string("capability_version");
      p.input_data = f.object("input_data");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::invoke_capability_response: {
      InvokeCapabilityResponse p;
      p.request_message_id = f.string("request_message_id");
      p.status = f.string("status");
      p.output_data = f.optional_object("output_data");
      p.error_details = f.optional_nested("error_details", read_error);
      p.progress_info = f.optional_nested("progress_info", read_progress);
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::lobby_broadcast: {
      LobbyBroadcast p;
      p.event_type = f.string("event_type");
      p.data = f.object("data");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::ping: {
      Ping p;
      p.nonce = f.optional_string("nonce");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::pong: {
      Pong p;
      p.nonce = f.optional_string("nonce");
      f.rest_into(p.extra);
      return p;
    }
    case MessageType::protocol_error: {
      ProtocolError p;
      p.error = f.nested("error", read_error);
      p.offending_message_id = f.optional_string("offending_message_id");
      f.rest_into(p.extra);
      return p;
    }
  }
  return Ping{};
}

Message read_message(MessageType type, Fields& top) {
  Envelope e;
  e.message_id = top.string("message_id");
  e.protocol_version = top.string("protocol_version");
  e.sender_id = top.string("sender_id");
  e.receiver_id = top.string("receiver_id");
  top.string("message_type");  // carried by the payload alternative
  Payload payload = top.nested("payload", [type](Fields& f) { return read_payload(type, f); });
  e.timestamp = top.string("timestamp");
  e.conversation_id = top.optional_string("conversation_id");
  e.auth_token = top.optional_string("auth_token");
  e.metadata = top.optional_object("metadata");
  top.rest_into(e.extra);
  return Message{std::move(e), std::move(payload)};
}

// ---- types -> JSON ----------------------------------------------------------------------------

Json payload_json(const RegisterClient& p) {
  Json out = Json::object();
  Json caps = Json::array();
  for (const auto& c : p.capabilities) caps.push_back(to_json(c));
  out["capabilities"] = std::move(caps);
  put(out, "agent_version", p.agent_version);
  put(out, "sdk_version", p.sdk_version);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const RegisterClientAck& p) {
  Json out = Json::object();
  put(out, "status", p.status);
  put(out, "lobby_id", p.lobby_id);
  put(out, "message", p.message);
  put(out, "server_time_utc", p.server_time_utc);
  put(out, "session_id", p.session_id);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const UnregisterClient& p) {
  Json out = Json::object();
  put(out, "reason", p.reason);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const DiscoverCapabilities& p) {
  Json filter = Json::object();
  put(filter, "name", p.capability_filter.name);
  put(filter, "version_match", p.capability_filter.version_match);
  put(filter, "keywords", p.capability_filter.keywords);
  merge_extra(filter, p.capability_filter.extra);
  Json out = Json::object();
  out["capability_filter"] = std::move(filter);
  put(out, "max_results", p.max_results);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const CapabilitiesFound& p) {
  Json agents = Json::array();
  for (const auto& a : p.agents) {
    Json agent = Json::object();
    put(agent, "agent_id", a.agent_id);
    put(agent, "agent_type", a.agent_type);
    Json caps = Json::array();
    for (const auto& c : a.matching_capabilities) caps.push_back(to_json(c));
    agent["matching_capabilities"] = std::move(caps);
    put(agent, "last_seen_utc", a.last_seen_utc);
    merge_extra(agent, a.extra);
    agents.push_back(std::move(agent));
  }
  Json out = Json::object();
  put(out, "query_ref", p.query_ref);
  out["agents"] = std::move(agents);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const DirectMessage& p) {
  Json out = Json::object();
  put(out, "content_type", p.content_type);
  out["content"] = p.content;
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const InvokeCapabilityRequest& p) {
  Json out = Json::object();
  put(out, "capability_name", p.capability_name);
  put(out, "capability_version", p.capability_version);
  out["input_data"] = p.input_data;
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const InvokeCapabilityResponse& p) {
  Json out = Json::object();
  put(out, "request_message_id", p.request_message_id);
  put(out, "status", p.status);
  put(out, "output_data", p.output_data);
  if (p.error_details) out["error_details"] = to_json(*p.error_details);
  if (p.progress_info) {
    Json progress = Json::object();
    put(progress, "percentage", p.progress_info->percentage);
    put(progress, "description", p.progress_info->description);
    merge_extra(progress, p.progress_info->extra);
    out["progress_info"] = std::move(progress);
  }
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const LobbyBroadcast& p) {
  Json out = Json::object();
  put(out, "event_type", p.event_type);
  out["data"] = p.data;
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const Ping& p) {
  Json out = Json::object();
  put(out, "nonce", p.nonce);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const Pong& p) {
  Json out = Json::object();
  put(out, "nonce", p.nonce);
  merge_extra(out, p.extra);
  return out;
}

Json payload_json(const ProtocolError& p) {
  Json out = Json::object();
  out["error"] = to_json(p.error);
  put(out, "offending_message_id", p.offending_message_id);
  merge_extra(out, p.extra);
  return out;
}

}  // namespace

Json to_json(const ErrorObject& e) {
  Json out = Json::object();
  put(out, "code", e.code);
  put(out, "message", e.message);
  put(out, "details", e.details);
  put(out, "retryable", e.retryable);
  merge_extra(out, e.extra);
  return out;
}

Json to_json(const Capability& c) {
  Json out = Json::object();
  put(out, "name", c.name);
  put(out, "capability_version", c.capability_version);
  put(out, "description", c.description);
  out["input_schema"] = c.input_schema;
  out["output_schema"] = c.output_schema;
  put(out, "error_schema", c.error_schema);
  put(out, "keywords", c.keywords);
  if (c.authorization_rules) {
    Json rules = Json::object();
    put(rules, "type", c.authorization_rules->type);
    put(rules, "allowed_agent_ids", c.authorization_rules->allowed_agent_ids);
    put(rules, "required_roles", c.authorization_rules->required_roles);
    merge_extra(rules, c.authorization_rules->extra);
    out["authorization_rules"] = std::move(rules);
  }
  put(out, "metadata", c.metadata);
  merge_extra(out, c.extra);
  return out;
}

Json to_json(const RegisterRequest& r) {
  Json out = Json::object();
  put(out, "api_key", r.api_key);
  put(out, "agent_id", r.agent_id);
  put(out, "agent_type", r.agent_type);
  merge_extra(out, r.extra);
  return out;
}

Json to_json(const RegisterResponse& r) {
  Json out = Json::object();
  put(out, "auth_token", r.auth_token);
  put(out, "lobby_id", r.lobby_id);
  put(out, "agent_id", r.agent_id);
  put(out, "expires_at", r.expires_at);
  merge_extra(out, r.extra);
  return out;
}

Json to_json(const Message& m) {
  const Envelope& e = m.envelope;
  Json out = Json::object();
  put(out, "message_id", e.message_id);
  put(out, "protocol_version", e.protocol_version);
  put(out, "sender_id", e.sender_id);
  put(out, "receiver_id", e.receiver_id);
  out["message_type"] = std::string(m.type_name());
  out["payload"] = std::visit([](const auto& p) { return payload_json(p); }, m.payload);
  put(out, "timestamp", e.timestamp);
  put(out, "conversation_id", e.conversation_id);
  put(out, "auth_token", e.auth_token);
  put(out, "metadata", e.metadata);
  merge_extra(out, e.extra);
  return out;
}

std::string encode(const Message& message) { return typed::wire_text(to_json(message)); }

Expected<Message, CodecError> from_decoded(Decoded decoded) {
  return typed::read_decoded<Message>(ProtocolId::alp, {"/message_type", "message type", "message_id"}, std::move(decoded), parse_type, read_message);
}

Expected<Message, CodecError> from_json(Json value) {
  return typed::check_with<Message>(ProtocolId::alp, std::move(value), from_decoded);
}

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits) {
  return typed::decode_with<Message>(ProtocolId::alp, bytes, limits, from_decoded);
}

Expected<Capability, CodecError> capability_from_json(Json value) {
  return typed::document_with<Capability>(ProtocolId::alp, "capability", std::move(value), read_capability);
}

Expected<RegisterRequest, CodecError> register_request_from_json(Json value) {
  return typed::document_with<RegisterRequest>(ProtocolId::alp, "register_request", std::move(value), [](Fields& f) {
    RegisterRequest r;
    r.api_key = f.optional_string("api_key");
    r.agent_id = f.string("agent_id");
    r.agent_type = f.string("agent_type");
    f.rest_into(r.extra);
    return r;
  });
}

Expected<RegisterResponse, CodecError> register_response_from_json(Json value) {
  return typed::document_with<RegisterResponse>(ProtocolId::alp, "register_response", std::move(value), [](Fields& f) {
    RegisterResponse r;
    r.auth_token = f.string("auth_token");
    r.lobby_id = f.string("lobby_id");
    r.agent_id = f.optional_string("agent_id");
    r.expires_at = f.optional_string("expires_at");
    f.rest_into(r.extra);
    return r;
  });
}

}  // namespace ac::proto::alp
