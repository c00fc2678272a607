// Chopsticks 1.0.0 controller/agent messages as C++ types (chopsticks-1.0.0.md "Message Types").
// No envelope: each message is one flat object selected by `type` (and `event` for event
// messages). Members follow the TypeScript declarations of the spec: `?` members are
// std::optional; `botUserId` and `tag` are required but may be null (std::optional, written as
// null when empty); `data: any` stays JSON. The schemas are open (TypeScript types are
// structural), so unknown members are kept in `extra`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::proto::chopsticks {

using Json = nlohmann::json;

// Agent -> controller: handshake and heartbeat.
struct Hello {
  std::string protocol_version;             // protocolVersion, checked against SUPPORTED_VERSIONS
  std::string agent_id;                     // agentId
  std::optional<std::string> bot_user_id;   // botUserId: string | null
  std::optional<std::string> tag;           // tag: string | null
  bool ready = false;
  std::vector<std::string> guild_ids;       // guildIds
  std::string pool_id;                      // poolId
  std::optional<std::string> runner_secret; // runnerSecret?
  Json extra = Json::object();
  bool operator==(const Hello&) const = default;
};

struct Guilds {
  std::vector<std::string> guild_ids;
  Json extra = Json::object();
  bool operator==(const Guilds&) const = default;
};

// event "released": left a voice channel.
struct EventReleased {
  std::string agent_id;
  std::string guild_id;
  std::string voice_channel_id;
  std::string reason;  // USER_LEFT, TIMEOUT, ...
  std::string kind;    // music | assistant
  Json extra = Json::object();
  bool operator==(const EventReleased&) const = default;
};

// event "add": joined (or failed to join) a voice channel.
struct EventAdd {
  std::string agent_id;
  std::string guild_id;
  std::string voice_channel_id;
  std::optional<std::string> text_channel_id;
  std::string channel_id;  // same as voiceChannelId
  std::string kind;        // music | assistant
  std::optional<std::string> owner_user_id;
  bool ok = false;
  std::optional<std::string> error;
  Json extra = Json::object();
  bool operator==(const EventAdd&) const = default;
};

// Agent -> controller: answer to a req.
struct Resp {
  std::string id;  // the req's UUID
  bool ok = false;
  std::optional<Json> data;  // data?: any (present null is kept)
  std::optional<std::string> error;
  Json extra = Json::object();
  bool operator==(const Resp&) const = default;
};

// Controller -> agent: RPC command.
struct Req {
  std::string id;  // UUID
  std::string op;  // play, pause, resume, skip, stop, queue, search, status, ...
  std::optional<Json> data;  // `any` includes undefined: may be absent on the wire (CH-2)
  std::string agent_id;
  Json extra = Json::object();
  bool operator==(const Req&) const = default;
};

// Controller -> agent: protocol error.
struct Error {
  std::string error;
  Json extra = Json::object();
  bool operator==(const Error&) const = default;
};

using Body = std::variant<Hello, Guilds, EventReleased, EventAdd, Resp, Req, Error>;

enum class MessageType { hello, guilds, event_released, event_add, resp, req, error };

inline constexpr std::size_t kMessageTypeCount = std::variant_size_v<Body>;

// The index key: "hello", "event.released", ...
std::string_view key_name(MessageType type);
std::optional<MessageType> parse_key(std::string_view key);

struct Message {
  Body body;

  MessageType type() const { return static_cast<MessageType>(body.index()); }
  std::string_view key() const { return key_name(type()); }
  template <typename T>
  T* get() { return std::get_if<T>(&body); }
  template <typename T>
  const T* get() const { return std::get_if<T>(&body); }
  bool operator==(const Message&) const = default;
};

}  // namespace ac::proto::chopsticks
