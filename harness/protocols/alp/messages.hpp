// ALP 0.2.0 as C++ types: the §5 envelope, one struct per §7 message payload, the §8.2 Error
// object and the §9 Capability. Field names are the wire names; optional members are
// std::optional; free-form members (input_data, metadata, schemas, content) stay JSON. Every
// struct keeps the members it does not model in `extra` (always an object), so that
// encode(decode(x)) == x even if the schemas are opened later. A Message is the envelope plus a
// variant of payloads; a handler switches on Message::type():
//
//   switch (m.type()) {
//     case alp::MessageType::ping: reply(alp::make_pong(m, lobby_id)); break;
//     case alp::MessageType::invoke_capability_request: route(m.get<alp::InvokeCapabilityRequest>()); ...
//   }
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::proto::alp {

using Json = nlohmann::json;

inline constexpr std::string_view kProtocolVersion = "0.2.0";

// §5 base message, without message_type (given by the payload) and payload.
struct Envelope {
  std::string message_id;
  std::string protocol_version{kProtocolVersion};
  std::string sender_id;
  std::string receiver_id;
  std::string timestamp;
  std::optional<std::string> conversation_id;
  std::optional<std::string> auth_token;  // deprecated for WebSocket messages (§5)
  std::optional<Json> metadata;
  Json extra = Json::object();
  bool operator==(const Envelope&) const = default;
};

// §8.2
struct ErrorObject {
  std::string code;
  std::string message;
  std::optional<Json> details;
  std::optional<bool> retryable;
  Json extra = Json::object();
  bool operator==(const ErrorObject&) const = default;
};

// §9 authorization_rules
struct AuthorizationRules {
  std::string type;  // allow_list, requires_role, public, ...
  std::optional<std::vector<std::string>> allowed_agent_ids;
  std::optional<std::vector<std::string>> required_roles;
  Json extra = Json::object();
  bool operator==(const AuthorizationRules&) const = default;
};

// §9
struct Capability {
  std::string name;
  std::string capability_version;  // SemVer (harness/semver)
  std::string description;
  Json input_schema = Json::object();
  Json output_schema = Json::object();
  std::optional<Json> error_schema;
  std::optional<std::vector<std::string>> keywords;
  std::optional<AuthorizationRules> authorization_rules;
  std::optional<Json> metadata;
  Json extra = Json::object();
  bool operator==(const Capability&) const = default;
};

// §7.1.1
struct RegisterClient {
  std::vector<Capability> capabilities;
  std::string agent_version;
  std::string sdk_version;
  Json extra = Json::object();
  bool operator==(const RegisterClient&) const = default;
};

// §7.1.2
struct RegisterClientAck {
  std::string status;  // success | failure
  std::string lobby_id;
  std::optional<std::string> message;
  std::string server_time_utc;
  std::string session_id;
  Json extra = Json::object();
  bool operator==(const RegisterClientAck&) const = default;
};

// §7.1.3
struct UnregisterClient {
  std::optional<std::string> reason;
  Json extra = Json::object();
  bool operator==(const UnregisterClient&) const = default;
};

// §7.2.1 capability_filter
struct CapabilityFilter {
  std::optional<std::string> name;
  std::optional<std::string> version_match;  // a range (harness/semver/range.hpp)
  std::optional<std::vector<std::string>> keywords;
  Json extra = Json::object();
  bool operator==(const CapabilityFilter&) const = default;
};

// §7.2.1
struct DiscoverCapabilities {
  CapabilityFilter capability_filter;
  std::optional<std::uint64_t> max_results;  // default 10
  Json extra = Json::object();
  bool operator==(const DiscoverCapabilities&) const = default;
};

// §7.2.2 agents[]
struct AgentMatch {
  std::string agent_id;
  std::string agent_type;
  std::vector<Capability> matching_capabilities;
  std::optional<std::string> last_seen_utc;
  Json extra = Json::object();
  bool operator==(const AgentMatch&) const = default;
};

// §7.2.2
struct CapabilitiesFound {
  std::optional<std::string> query_ref;
  std::vector<AgentMatch> agents;
  Json extra = Json::object();
  bool operator==(const CapabilitiesFound&) const = default;
};

// §7.3.1
struct DirectMessage {
  std::string content_type;
  Json content;  // any JSON value
  Json extra = Json::object();
  bool operator==(const DirectMessage&) const = default;
};

// §7.3.2
struct InvokeCapabilityRequest {
  std::string capability_name;
  std::optional<std::string> capability_version;
  Json input_data = Json::object();
  Json extra = Json::object();
  bool operator==(const InvokeCapabilityRequest&) const = default;
};

// §7.3.3 progress_info
struct ProgressInfo {
  std::int64_t percentage = 0;  // 0-100
  std::string description;
  Json extra = Json::object();
  bool operator==(const ProgressInfo&) const = default;
};

// §7.3.3
struct InvokeCapabilityResponse {
  std::string request_message_id;
  std::string status;  // success | error | in_progress | pending_async
  std::optional<Json> output_data;
  std::optional<ErrorObject> error_details;
  std::optional<ProgressInfo> progress_info;
  Json extra = Json::object();
  bool operator==(const InvokeCapabilityResponse&) const = default;
};

// §7.4.1
struct LobbyBroadcast {
  std::string event_type;
  Json data = Json::object();
  Json extra = Json::object();
  bool operator==(const LobbyBroadcast&) const = default;
};

// §7.4.2
struct Ping {
  std::optional<std::string> nonce;
  Json extra = Json::object();
  bool operator==(const Ping&) const = default;
};

// §7.4.3
struct Pong {
  std::optional<std::string> nonce;
  Json extra = Json::object();
  bool operator==(const Pong&) const = default;
};

// §7.5.1
struct ProtocolError {
  ErrorObject error;
  std::optional<std::string> offending_message_id;
  Json extra = Json::object();
  bool operator==(const ProtocolError&) const = default;
};

// The alternatives in §7 order; MessageType lists them in the same order.
using Payload = std::variant<RegisterClient, RegisterClientAck, UnregisterClient, DiscoverCapabilities, CapabilitiesFound,
                             DirectMessage, InvokeCapabilityRequest, InvokeCapabilityResponse, LobbyBroadcast, Ping, Pong,
                             ProtocolError>;

enum class MessageType {
  register_client,
  register_client_ack,
  unregister_client,
  discover_capabilities,
  capabilities_found,
  direct_message,
  invoke_capability_request,
  invoke_capability_response,
  lobby_broadcast,
  ping,
  pong,
  protocol_error,
};

inline constexpr std::size_t kMessageTypeCount = std::variant_size_v<Payload>;

// "REGISTER_CLIENT", ...: the message_type string.
std::string_view type_name(MessageType type);
std::optional<MessageType> parse_type(std::string_view message_type);

// §4.1 / §6 HTTP registration documents (POST /api/v1/register), not WebSocket messages.
struct RegisterRequest {
  std::optional<std::string> api_key;  // may instead travel in a header
  std::string agent_id;
  std::string agent_type;
  Json extra = Json::object();
  bool operator==(const RegisterRequest&) const = default;
};

struct RegisterResponse {
  std::string auth_token;
  std::string lobby_id;
  std::optional<std::string> agent_id;
  std::optional<std::string> expires_at;
  Json extra = Json::object();
  bool operator==(const RegisterResponse&) const = default;
};

struct Message {
  Envelope envelope;
  Payload payload;

  MessageType type() const { return static_cast<MessageType>(payload.index()); }
  std::string_view type_name() const { return alp::type_name(type()); }
  template <typename T>
  T* get() { return std::get_if<T>(&payload); }
  template <typename T>
  const T* get() const { return std::get_if<T>(&payload); }
  bool operator==(const Message&) const = default;
};

}  // namespace ac::proto::alp
