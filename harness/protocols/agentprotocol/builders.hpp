// Ready-made AgentProtocol 0.1 messages for mock agents and the reference peer. Builders fill
// protocol, a fresh UUID id and a UTC timestamp; they do not sign: pass to_json(message) to
// agentprotocol::sign() (signature.hpp) with the sender's key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/protocols/agentprotocol/messages.hpp"

namespace ac::proto::agentprotocol {

// A fresh base message from `from` to `to`.
Envelope make_envelope(From from, To to);
// To one agent (broadcast false).
To to_agent(std::string agent_id);

Message make_hello(From from, To to, std::vector<std::string> features = {}, std::string version = "0.1");
Message make_request(From from, To to, std::string action, std::string correlation_id, std::optional<Json> params = {},
                     std::optional<std::uint64_t> timeout_ms = {});
Message make_notify(From from, To to, Json body);
Message make_error(From from, To to, std::string code, std::string message,
                   std::optional<std::string> correlation_id = {}, std::optional<Json> details = {});

// Answers to a received request: back to its sender, same correlationId.
Message make_response(const Message& request, From self, std::string status, std::optional<Json> result = {});
Message make_error_reply(const Message& request, From self, std::string code, std::string message,
                         std::optional<Json> details = {});

}  // namespace ac::proto::agentprotocol
