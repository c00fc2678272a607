#include "harness/protocols/alp/builders.hpp"

#include "harness/protocols/typed/stamp.hpp"

namespace ac::proto::alp {
namespace {

// The envelope of a reply to `request`: back to its sender, same conversation.
Envelope reply_envelope(const Message& request) {
  return make_envelope(request.envelope.receiver_id, request.envelope.sender_id, request.envelope.conversation_id);
}

Message invoke_response(const Message& request, InvokeCapabilityResponse payload) {
  payload.request_message_id = request.envelope.message_id;
  return Message{reply_envelope(request), std::move(payload)};
}

}  // namespace

Envelope make_envelope(std::string sender_id, std::string receiver_id, std::optional<std::string> conversation_id) {
  Envelope e;
  e.message_id = typed::new_uuid_v4();
  e.protocol_version = std::string(kProtocolVersion);
  e.sender_id = std::move(sender_id);
  e.receiver_id = std::move(receiver_id);
  e.timestamp = typed::utc_now();
  e.conversation_id = std::move(conversation_id);
  return e;
}

Message make_message(std::string sender_id, std::string receiver_id, Payload payload,
                     std::optional<std::string> conversation_id) {
  return Message{make_envelope(std::move(sender_id), std::move(receiver_id), std::move(conversation_id)),
                 std::move(payload)};
}

Message make_register_client(std::string agent_id, std::string lobby_id, std::vector<Capability> capabilities,
                             std::string agent_version, std::string sdk_version) {
  RegisterClient p;
  p.capabilities = std::move(capabilities);
  p.agent_version = std::move(agent_version);
  p.sdk_version = std::move(sdk_version);
  return make_message(std::move(agent_id), std::move(lobby_id), std::move(p));
}

Message make_unregister_client(std::string agent_id, std::string lobby_id, std::optional<std::string> reason) {
  UnregisterClient p;
  p.reason = std::move(reason);
  return make_message(std::move(agent_id), std::move(lobby_id), std::move(p));
}

Message make_register_client_ack(const Message& register_client, std::string lobby_id, std::string status,
                                 std::optional<std::string> message, std::optional<std::string> session_id) {
  RegisterClientAck p;
  p.status = std::move(status);
  p.lobby_id = lobby_id;
  p.message = std::move(message);
  p.server_time_utc = typed::utc_now();
  p.session_id = session_id ? std::move(*session_id) : typed::new_uuid_v4();
  return make_message(std::move(lobby_id), register_client.envelope.sender_id, std::move(p),
                      register_client.envelope.conversation_id);
}

Message make_discover_capabilities(std::string agent_id, std::string lobby_id, CapabilityFilter filter,
                                   std::optional<std::uint64_t> max_results) {
  DiscoverCapabilities p;
  p.capability_filter = std::move(filter);
  p.max_results = max_results;
  return make_message(std::move(agent_id), std::move(lobby_id), std::move(p), typed::new_uuid_v4());
}

Message make_capabilities_found(const Message& discover, std::string lobby_id, std::vector<AgentMatch> agents) {
  CapabilitiesFound p;
  p.query_ref = discover.envelope.conversation_id;
  p.agents = std::move(agents);
  return make_message(std::move(lobby_id), discover.envelope.sender_id, std::move(p), discover.envelope.conversation_id);
}

Message make_direct_message(std::string sender_id, std::string receiver_id, std::string content_type, Json content) {
  DirectMessage p;
  p.content_type = std::move(content_type);
  p.content = std::move(content);
  return make_message(std::move(sender_id), std::move(receiver_id), std::move(p));
}

Message make_invoke_request(std::string sender_id, std::string receiver_id, std::string capability_name, Json input_data,
                            std::optional<std::string> capability_version) {
  InvokeCapabilityRequest p;
  p.capability_name = std::move(capability_name);
  p.capability_version = std::move(capability_version);
  p.input_data = std::move(input_data);
  return make_message(std::move(sender_id), std::move(receiver_id), std::move(p), typed::new_uuid_v4());
}

Message make_invoke_success(const Message& request, Json output_data) {
  InvokeCapabilityResponse p;
  p.status = "success";
  p.output_data = std::move(output_data);
  return invoke_response(request, std::move(p));
}

Message make_invoke_error(const Message& request, ErrorObject error) {
  InvokeCapabilityResponse p;
  p.status = "error";
  p.error_details = std::move(error);
  return invoke_response(request, std::move(p));
}

Message make_invoke_progress(const Message& request, std::int64_t percentage, std::string description) {
  InvokeCapabilityResponse p;
  p.status = "in_progress";
  p.progress_info = ProgressInfo{percentage, std::move(description), Json::object()};
  return invoke_response(request, std::move(p));
}

Message make_invoke_pending(const Message& request) {
  InvokeCapabilityResponse p;
  p.status = "pending_async";
  return invoke_response(request, std::move(p));
}

Message make_lobby_broadcast(std::string lobby_id, std::string receiver_id, std::string event_type, Json data) {
  LobbyBroadcast p;
  p.event_type = std::move(event_type);
  p.data = std::move(data);
  return make_message(std::move(lobby_id), std::move(receiver_id), std::move(p));
}

Message make_ping(std::string sender_id, std::string receiver_id, std::optional<std::string> nonce) {
  Ping p;
  p.nonce = std::move(nonce);
  return make_message(std::move(sender_id), std::move(receiver_id), std::move(p));
}

Message make_pong(const Message& ping, std::string sender_id) {
  Pong p;
  if (const auto* in = ping.get<Ping>()) p.nonce = in->nonce;
  return make_message(std::move(sender_id), ping.envelope.sender_id, std::move(p), ping.envelope.conversation_id);
}

Message make_protocol_error(std::string lobby_id, std::string receiver, std::string code, std::string message,
                            std::optional<std::string> offending_message_id) {
  ProtocolError p;
  p.error.code = std::move(code);
  p.error.message = std::move(message);
  p.offending_message_id = std::move(offending_message_id);
  return make_message(std::move(lobby_id), std::move(receiver), std::move(p));
}

Message make_protocol_error(std::string lobby_id, std::string receiver, const CodecError& error) {
  ProtocolError p;
  p.error.code = error.code;
  p.error.message = error.message;
  Json details = {{"pointer", error.pointer}, {"rule", error.rule}, {"section", error.section}};
  if (error.offset) details["offset"] = *error.offset;
  p.error.details = std::move(details);
  if (!error.message_id.empty()) p.offending_message_id = error.message_id;
  return make_message(std::move(lobby_id), std::move(receiver), std::move(p));
}

}  // namespace ac::proto::alp
