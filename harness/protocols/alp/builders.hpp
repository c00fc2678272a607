// Ready-made ALP messages for the reference lobby and the mock agents. Each builder fills the
// §5 envelope (fresh UUIDv4 message_id, UTC timestamp, protocol_version 0.2.0) and the reply
// relations of §7 and §10 (a response goes back to the request's sender, keeps its
// conversation_id and names its message_id). Everything built here validates against the schemas.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/protocols/alp/messages.hpp"
#include "harness/protocols/codec_error.hpp"

namespace ac::proto::alp {

// A fresh envelope from `sender_id` to `receiver_id`.
Envelope make_envelope(std::string sender_id, std::string receiver_id, std::optional<std::string> conversation_id = {});
// A message with a fresh envelope.
Message make_message(std::string sender_id, std::string receiver_id, Payload payload,
                     std::optional<std::string> conversation_id = {});

// §7.1.1 / §7.1.3 (agent side)
Message make_register_client(std::string agent_id, std::string lobby_id, std::vector<Capability> capabilities,
                             std::string agent_version, std::string sdk_version);
Message make_unregister_client(std::string agent_id, std::string lobby_id, std::optional<std::string> reason = {});
// §7.1.2: answers `register_client`; session_id is a fresh UUID when not given.
Message make_register_client_ack(const Message& register_client, std::string lobby_id, std::string status = "success",
                                 std::optional<std::string> message = {}, std::optional<std::string> session_id = {});

// §7.2.1 / §7.2.2
Message make_discover_capabilities(std::string agent_id, std::string lobby_id, CapabilityFilter filter,
                                   std::optional<std::uint64_t> max_results = {});
// query_ref mirrors the DISCOVER_CAPABILITIES conversation_id, if it had one.
Message make_capabilities_found(const Message& discover, std::string lobby_id, std::vector<AgentMatch> agents);

// §7.3
Message make_direct_message(std::string sender_id, std::string receiver_id, std::string content_type, Json content);
// A fresh conversation_id correlates the responses (§10.1 step 5).
Message make_invoke_request(std::string sender_id, std::string receiver_id, std::string capability_name, Json input_data,
                            std::optional<std::string> capability_version = {});
Message make_invoke_success(const Message& request, Json output_data);
Message make_invoke_error(const Message& request, ErrorObject error);
Message make_invoke_progress(const Message& request, std::int64_t percentage, std::string description);
Message make_invoke_pending(const Message& request);

// §7.4
Message make_lobby_broadcast(std::string lobby_id, std::string receiver_id, std::string event_type, Json data);
Message make_ping(std::string sender_id, std::string receiver_id, std::optional<std::string> nonce = {});
// Echoes the PING's nonce back to its sender.
Message make_pong(const Message& ping, std::string sender_id);

// §7.5.1 PROTOCOL_ERROR from the lobby (`lobby_id`) to `receiver`.
Message make_protocol_error(std::string lobby_id, std::string receiver, std::string code, std::string message,
                            std::optional<std::string> offending_message_id = {});
// The PROTOCOL_ERROR reporting a decoding error: its code, its message, and
// details {pointer, rule, section}; offending_message_id is the bad message's id when known.
Message make_protocol_error(std::string lobby_id, std::string receiver, const CodecError& error);

}  // namespace ac::proto::alp
