// AgentProtocol 0.1 as C++ types (agentprotocol-0.1.md): the base message (protocol, id,
// timestamp, from, to, type, payload, signature, metadata) and one struct per payload type.
// JSON names are camelCase on the wire (agentId, correlationId) and snake_case here. Payloads
// are open (§Extensibility): unknown payload members stay in `extra`, and a notify payload,
// which the spec does not define, is kept whole.
//
// Signing and verifying are not done here (harness/protocols/agentprotocol/signature.hpp): the
// codec carries `signature` through untouched, and because decode -> encode preserves the JSON
// value exactly, a re-encoded message still verifies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::proto::agentprotocol {

using Json = nlohmann::json;

inline constexpr std::string_view kProtocol = "agentprotocol/0.1";

struct From {
  std::string agent_id;  // base64 of the raw 32-byte Ed25519 public key
  std::optional<std::string> name;
  std::vector<std::string> capabilities;  // capability URIs: agentprotocol:core, myagent:code-review
  Json extra = Json::object();
  bool operator==(const From&) const = default;
};

struct To {
  std::string agent_id;
  bool broadcast = false;
  Json extra = Json::object();
  bool operator==(const To&) const = default;
};

// The base message without type and payload.
struct Envelope {
  std::string protocol{kProtocol};
  std::string id;         // UUID
  std::string timestamp;  // ISO 8601
  From from;
  To to;
  std::optional<std::string> signature;  // base64 Ed25519 signature over the canonical message without it
  std::optional<Json> metadata;
  Json extra = Json::object();
  bool operator==(const Envelope&) const = default;
};

// §Hello Message
struct Hello {
  std::string version;  // "0.1"
  std::optional<std::vector<std::string>> features;
  Json extra = Json::object();
  bool operator==(const Hello&) const = default;
};

// §Request
struct Request {
  std::string action;
  std::string correlation_id;
  std::optional<Json> params;
  std::optional<std::uint64_t> timeout;  // milliseconds
  Json extra = Json::object();
  bool operator==(const Request&) const = default;
};

// §Response
struct Response {
  std::string correlation_id;
  std::string status;
  std::optional<Json> result;  // any JSON value
  Json extra = Json::object();
  bool operator==(const Response&) const = default;
};

// §Message Types: one-way notification; the payload is any object.
struct Notify {
  Json body = Json::object();
  bool operator==(const Notify&) const = default;
};

// §Error Response
struct Error {
  std::optional<std::string> correlation_id;
  std::string code;  // INVALID_MESSAGE, INVALID_SIGNATURE, UNKNOWN_AGENT, ...
  std::string message;
  std::optional<Json> details;
  Json extra = Json::object();
  bool operator==(const Error&) const = default;
};

using Payload = std::variant<Hello, Request, Response, Notify, Error>;

enum class MessageType { hello, request, response, notify, error };

inline constexpr std::size_t kMessageTypeCount = std::variant_size_v<Payload>;

std::string_view type_name(MessageType type);
std::optional<MessageType> parse_type(std::string_view type);

struct Message {
  Envelope envelope;
  Payload payload;

  MessageType type() const { return static_cast<MessageType>(payload.index()); }
  std::string_view type_name() const { return agentprotocol::type_name(type()); }
  template <typename T>
  T* get() { return std::get_if<T>(&payload); }
  template <typename T>
  const T* get() const { return std::get_if<T>(&payload); }
  bool operator==(const Message&) const = default;
};

}  // namespace ac::proto::agentprotocol
