// A2ACP 1.0 as C++ types (a2acp-1.0.md): the base message of the spec's own schema, and one
// alternative per message key of schemas/a2acp/index.json, which selects on (message_type,
// intent): the generic request/response/event/error, and the four handshake steps of
// §Message Lifecycle. The base schema is open, so every object keeps unknown members in
// `extra`. The JWT in security.auth_token is carried, not verified (see token.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::proto::a2acp {

using Json = nlohmann::json;

inline constexpr std::string_view kProtocolVersion = "1.0";

// §Base Message Schema definitions/Agent
struct Agent {
  std::string agent_id;
  std::string domain;
  std::string version;  // MAJOR.MINOR.PATCH
  Json extra = Json::object();
  bool operator==(const Agent&) const = default;
};

// definitions/Security (required in every message, §Authentication)
struct Security {
  std::string auth_token;                 // JWT
  std::optional<std::string> encryption;  // none | aes256 (default none)
  Json extra = Json::object();
  bool operator==(const Security&) const = default;
};

// The base message without message_type and payload. For the handshake alternatives `intent`
// is implied by the type (to_json writes it even when unset here).
struct Envelope {
  std::string protocol_version{kProtocolVersion};
  std::string message_id;
  std::string timestamp;
  Agent source_agent;
  Agent target_agent;
  std::optional<std::string> intent;
  Security security;
  Json extra = Json::object();
  bool operator==(const Envelope&) const = default;
};

// Generic messages: the payload is "Message-specific data" (any object) and may be absent.
struct Request {
  std::optional<Json> payload;
  bool operator==(const Request&) const = default;
};
struct Response {
  std::optional<Json> payload;
  bool operator==(const Response&) const = default;
};
struct Event {
  std::optional<Json> payload;
  bool operator==(const Event&) const = default;
};

// §Error Codes / Error Response Format: payload.error.
struct ErrorInfo {
  std::string code;  // CAPABILITY_NOT_FOUND, SCHEMA_MISMATCH, AUTH_FAILED, TIMEOUT, ...
  std::string message;
  std::optional<Json> details;
  std::uint64_t retry_after = 0;  // seconds; 0 = don't retry
  std::optional<std::string> correlation_id;
  Json extra = Json::object();
  bool operator==(const ErrorInfo&) const = default;
};

struct Error {
  ErrorInfo error;
  Json extra = Json::object();  // other payload members
  bool operator==(const Error&) const = default;
};

// Handshake step 1 (request, intent initiate_handshake): source agent -> broker.
struct InitiateHandshake {
  std::string target_agent_id;
  std::string requested_intent;
  Json extra = Json::object();
  bool operator==(const InitiateHandshake&) const = default;
};

// Handshake step 3 (request, intent accept_handshake): broker -> target agent. The spec gives no
// payload; its members are typed when present and the payload itself may be absent.
struct HandshakeOffer {
  std::optional<std::string> requested_intent;
  std::optional<std::string> collaboration_id;
  std::optional<std::string> source_agent_id;
  Json extra = Json::object();
  bool operator==(const HandshakeOffer&) const = default;
};
struct AcceptHandshake {
  std::optional<HandshakeOffer> payload;
  bool operator==(const AcceptHandshake&) const = default;
};

// Handshake step 4 (response, intent accept_handshake): target agent -> broker.
struct HandshakeDecision {
  bool accepted = false;
  std::optional<std::string> reason;
  Json extra = Json::object();
  bool operator==(const HandshakeDecision&) const = default;
};

// §Contract Negotiation
struct Contract {
  std::string contract_id;
  std::optional<Json> input_schema;
  std::optional<Json> output_schema;
  std::optional<Json> security_policy;
  Json extra = Json::object();
  bool operator==(const Contract&) const = default;
};

// Handshake step 5 (response, intent initiate_handshake): broker -> source agent.
struct HandshakeResult {
  std::string collaboration_id;
  Contract contract;
  Json extra = Json::object();
  bool operator==(const HandshakeResult&) const = default;
};

using Payload = std::variant<Request, Response, Event, Error, InitiateHandshake, AcceptHandshake, HandshakeDecision,
                             HandshakeResult>;

enum class MessageType {
  request,
  response,
  event,
  error,
  initiate_handshake,  // "request.initiate_handshake"
  accept_handshake,    // "request.accept_handshake"
  handshake_decision,  // "response.accept_handshake"
  handshake_result,    // "response.initiate_handshake"
};

inline constexpr std::size_t kMessageTypeCount = std::variant_size_v<Payload>;

// The index key: "request", "request.initiate_handshake", ...
std::string_view key_name(MessageType type);
std::optional<MessageType> parse_key(std::string_view key);
// The wire message_type ("request" for initiate_handshake) and, for handshakes, the intent.
std::string_view message_type_name(MessageType type);
std::optional<std::string_view> implied_intent(MessageType type);

struct Message {
  Envelope envelope;
  Payload payload;

  MessageType type() const { return static_cast<MessageType>(payload.index()); }
  std::string_view key() const { return key_name(type()); }
  template <typename T>
  T* get() { return std::get_if<T>(&payload); }
  template <typename T>
  const T* get() const { return std::get_if<T>(&payload); }
  bool operator==(const Message&) const = default;
};

// §Token Acquisition: POST /auth/token bodies.
struct TokenRequest {
  std::string agent_id;
  std::string target_agent_id;
  std::vector<std::string> requested_capabilities;
  std::optional<std::uint64_t> ttl;  // seconds
  Json extra = Json::object();
  bool operator==(const TokenRequest&) const = default;
};

struct TokenResponse {
  std::string token;
  std::string expires_at;
  Json extra = Json::object();
  bool operator==(const TokenResponse&) const = default;
};

}  // namespace ac::proto::a2acp
