#include "harness/protocols/chopsticks/codec.hpp"

#include "harness/protocols/typed/convert.hpp"
#include "harness/protocols/typed/fields.hpp"

namespace ac::proto::chopsticks {
namespace {

using typed::Fields;
using typed::merge_extra;
using typed::put;

Body read_body(MessageType type, Fields& f) {
  f.string("type");  // given by the alternative
  switch (type) {
    case MessageType::hello: {
      Hello b;
      b.protocol_version = f.string("protocolVersion");
      b.agent_id = f.string("agentId");
      b.bot_user_id = f.nullable_string("botUserId");
      b.tag = f.nullable_string("tag");
      b.ready = f.boolean("ready");
      b.guild_ids = f.strings("guildIds");
      b.pool_id = f.string("poolId");
      b.runner_secret = f.optional_string("runnerSecret");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::guilds: {
      Guilds b;
      b.guild_ids = f.strings("guildIds");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::event_released: {
      EventReleased b;
      f.string("event");
      b.agent_id = f.string("agentId");
      b.guild_id = f.string("guildId");
      b.voice_channel_id = f.string("voiceChannelId");
      b.reason = f.string("reason");
      b.kind = f.string("kind");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::event_add: {
      EventAdd b;
      f.string("event");
      b.agent_id = f.string("agentId");
      b.guild_id = f.string("guildId");
      b.voice_channel_id = f.string("voiceChannelId");
      b.text_channel_id = f.optional_string("textChannelId");
      b.channel_id = f.string("channelId");
      b.kind = f.string("kind");
      b.owner_user_id = f.optional_string("ownerUserId");
      b.ok = f.boolean("ok");
      b.error = f.optional_string("error");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::resp: {
      Resp b;
      b.id = f.string("id");
      b.ok = f.boolean("ok");
      b.data = f.optional_any("data");
      b.error = f.optional_string("error");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::req: {
      Req b;
      b.id = f.string("id");
      b.op = f.string("op");
      b.data = f.optional_any("data");
      b.agent_id = f.string("agentId");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::error: {
      Error b;
      b.error = f.string("error");
      f.rest_into(b.extra);
      return b;
    }
  }
  return Error{};
}

void write(Json& out, const Hello& b) {
  out["type"] = "hello";
  put(out, "protocolVersion", b.protocol_version);
  put(out, "agentId", b.agent_id);
  typed::put_nullable(out, "botUserId", b.bot_user_id);
  typed::put_nullable(out, "tag", b.tag);
  put(out, "ready", b.ready);
  put(out, "guildIds", b.guild_ids);
  put(out, "poolId", b.pool_id);
  put(out, "runnerSecret", b.runner_secret);
  merge_extra(out, b.extra);
}
void write(Json& out, const Guilds& b) {
  out["type"] = "guilds";
  put(out, "guildIds", b.guild_ids);
  merge_extra(out, b.extra);
}
void write(Json& out, const EventReleased& b) {
  out["type"] = "event";
  out["event"] = "released";
  put(out, "agentId", b.agent_id);
  put(out, "guildId", b.guild_id);
  put(out, "voiceChannelId", b.voice_channel_id);
  put(out, "reason", b.reason);
  put(out, "kind", b.kind);
  merge_extra(out, b.extra);
}
void write(Json& out, const EventAdd& b) {
  out["type"] = "event";
  out["event"] = "add";
  put(out, "agentId", b.agent_id);
  put(out, "guildId", b.guild_id);
  put(out, "voiceChannelId", b.voice_channel_id);
  put(out, "textChannelId", b.text_channel_id);
  put(out, "channelId", b.channel_id);
  put(out, "kind", b.kind);
  put(out, "ownerUserId", b.owner_user_id);
  put(out, "ok", b.ok);
  put(out, "error", b.error);
  merge_extra(out, b.extra);
}
void write(Json& out, const Resp& b) {
  out["type"] = "resp";
  put(out, "id", b.id);
  put(out, "ok", b.ok);
  put(out, "data", b.data);
  put(out, "error", b.error);
  merge_extra(out, b.extra);
}
void write(Json& out, const Req& b) {
  out["type"] = "req";
  put(out, "id", b.id);
  put(out, "op", b.op);
  put(out, "data", b.data);
  put(out, "agentId", b.agent_id);
  merge_extra(out, b.extra);
}
void write(Json& out, const Error& b) {
  out["type"] = "error";
  put(out, "error", b.error);
  merge_extra(out, b.extra);
}

}  // namespace

Json to_json(const Message& m) {
  Json out = Json::object();
  std::visit([&out](const auto& b) { write(out, b); }, m.body);
  return out;
}

std::string encode(const Message& message) { return typed::wire_text(to_json(message)); }

Expected<Message, CodecError> from_decoded(Decoded decoded) {
  return typed::read_decoded<Message>(ProtocolId::chopsticks, {"/type", "message key", "id"}, std::move(decoded), parse_key,
                                      [](MessageType type, Fields& f) { return Message{read_body(type, f)}; });
}

Expected<Message, CodecError> from_json(Json value) {
  return typed::check_with<Message>(ProtocolId::chopsticks, std::move(value), from_decoded);
}

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits) {
  return typed::decode_with<Message>(ProtocolId::chopsticks, bytes, limits, from_decoded);
}

}  // namespace ac::proto::chopsticks
