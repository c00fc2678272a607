// Ready-made A2ACP 1.0 messages for the reference broker and mock agents: fresh UUID
// message_id, UTC timestamp, protocol_version 1.0, and the given JWT in security.auth_token
// (issue it with a2acp::issue(), token.hpp). Replies swap source and target agents and keep
// the intent and the payload's correlation_id (§Example Messages).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/protocols/a2acp/messages.hpp"

namespace ac::proto::a2acp {

Envelope make_envelope(Agent source, Agent target, std::string auth_token, std::optional<std::string> intent = {});

Message make_request(Agent source, Agent target, std::string auth_token, std::string intent, Json payload);
Message make_event(Agent source, Agent target, std::string auth_token, std::optional<std::string> intent, Json payload);
// Answers `request` (source and target swapped, same intent, its correlation_id copied into the
// payload unless the payload has one).
Message make_response(const Message& request, std::string auth_token, Json payload);

Message make_error(Agent source, Agent target, std::string auth_token, std::string code, std::string message,
                   std::uint64_t retry_after = 0, std::optional<std::string> correlation_id = {},
                   std::optional<Json> details = {});
// The error answering `offending`, from its target back to its source.
Message make_error_reply(const Message& offending, std::string auth_token, std::string code, std::string message,
                         std::uint64_t retry_after = 0, std::optional<Json> details = {});

// §Handshake Flow
Message make_initiate_handshake(Agent source, Agent broker, std::string auth_token, std::string target_agent_id,
                                std::string requested_intent);
Message make_accept_handshake(Agent broker, Agent target, std::string auth_token, std::optional<HandshakeOffer> offer);
Message make_handshake_decision(const Message& accept_handshake, std::string auth_token, bool accepted,
                                std::optional<std::string> reason = {});
Message make_handshake_result(const Message& initiate_handshake, std::string auth_token, std::string collaboration_id,
                              Contract contract);

}  // namespace ac::proto::a2acp
