// The Agora relay's JSON text frames as C++ types (agora-relay-streaming.md "Message Types").
// There is no envelope: each frame is one flat object with `type`. The schemas are open (the
// relay "forwards as-is"), so every struct keeps unknown members in `extra`, and forwarding a
// frame keeps them too.
//
//   send / send_chunk / send_end           sender -> Agora            (Send, SendChunk, SendEnd)
//   message / message_chunk / message_end  Agora -> receiver          (Forward, ForwardChunk, ForwardEnd)
//   reply / reply_chunk / reply_end        receiver -> Agora -> sender (Reply, ReplyChunk, ReplyEnd)
//   error                                  Agora -> agent (agentconform extension, AG-6)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

namespace ac::proto::agora {

using Json = nlohmann::json;

// §1 stream start (stream: true) or one-shot send.
struct Send {
  std::string to;
  std::optional<std::string> stream_id;
  std::optional<bool> stream;
  std::optional<Json> payload;  // an object; request_id correlates a reply (§3)
  Json extra = Json::object();
  bool operator==(const Send&) const = default;
};

struct SendChunk {
  std::string to;
  std::string stream_id;
  std::string chunk;
  Json extra = Json::object();
  bool operator==(const SendChunk&) const = default;
};

struct SendEnd {
  std::string to;
  std::string stream_id;
  Json extra = Json::object();
  bool operator==(const SendEnd&) const = default;
};

// §2 `message`: what the receiver gets for a `send`.
struct Forward {
  std::string from;
  std::optional<std::string> stream_id;
  std::optional<bool> stream;
  std::optional<Json> payload;
  Json extra = Json::object();
  bool operator==(const Forward&) const = default;
};

struct ForwardChunk {
  std::string from;
  std::string stream_id;
  std::string chunk;
  Json extra = Json::object();
  bool operator==(const ForwardChunk&) const = default;
};

struct ForwardEnd {
  std::string from;
  std::string stream_id;
  Json extra = Json::object();
  bool operator==(const ForwardEnd&) const = default;
};

// §3: `to` is the original sender; the relay adds `from` (the replier) when delivering (AG-5).
struct Reply {
  std::string to;
  std::optional<std::string> from;
  std::optional<std::string> stream_id;
  std::optional<bool> stream;
  std::optional<Json> payload;
  Json extra = Json::object();
  bool operator==(const Reply&) const = default;
};

struct ReplyChunk {
  std::string to;
  std::optional<std::string> from;
  std::string stream_id;
  std::string chunk;
  Json extra = Json::object();
  bool operator==(const ReplyChunk&) const = default;
};

struct ReplyEnd {
  std::string to;
  std::optional<std::string> from;
  std::string stream_id;
  Json extra = Json::object();
  bool operator==(const ReplyEnd&) const = default;
};

// The relay's error frame (agentconform extension, AG-6).
struct Error {
  std::string code;  // UNKNOWN_RECIPIENT, UNKNOWN_STREAM, STREAM_ENDED, INVALID_FRAME, AGENT_ID_TAKEN, ...
  std::string message;
  std::optional<std::string> stream_id;
  Json extra = Json::object();
  bool operator==(const Error&) const = default;
};

using Body = std::variant<Send, SendChunk, SendEnd, Forward, ForwardChunk, ForwardEnd, Reply, ReplyChunk, ReplyEnd, Error>;

enum class MessageType {
  send,
  send_chunk,
  send_end,
  message,
  message_chunk,
  message_end,
  reply,
  reply_chunk,
  reply_end,
  error,
};

inline constexpr std::size_t kMessageTypeCount = std::variant_size_v<Body>;

std::string_view type_name(MessageType type);  // the `type` string: "send_chunk"
std::optional<MessageType> parse_type(std::string_view type);

struct Message {
  Body body;

  MessageType type() const { return static_cast<MessageType>(body.index()); }
  std::string_view type_name() const { return agora::type_name(type()); }
  template <typename T>
  T* get() { return std::get_if<T>(&body); }
  template <typename T>
  const T* get() const { return std::get_if<T>(&body); }
  // The stream this frame belongs to, if any.
  std::optional<std::string> stream_id() const;
  bool operator==(const Message&) const = default;
};

}  // namespace ac::proto::agora
