#include "harness/protocols/agora/codec.hpp"

#include "harness/protocols/typed/convert.hpp"
#include "harness/protocols/typed/fields.hpp"

namespace ac::proto::agora {
namespace {

using typed::Fields;
using typed::merge_extra;
using typed::put;

Body read_body(MessageType type, Fields& f) {
  f.string("type");  // given by the alternative
  switch (type) {
    case MessageType::send: {
      Send b;
      b.to = f.string("to");
      b.stream_id = f.optional_string("stream_id");
      b.stream = f.optional_boolean("stream");
      b.payload = f.optional_object("payload");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::send_chunk: {
      SendChunk b;
      b.to = f.string("to");
      b.stream_id = f.string("stream_id");
      b.chunk = f.string("chunk");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::send_end: {
      SendEnd b;
      b.to = f.string("to");
      b.stream_id = f.string("stream_id");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::message: {
      Forward b;
      b.from = f.string("from");
      b.stream_id = f.optional_string("stream_id");
      b.stream = f.optional_boolean("stream");
      b.payload = f.optional_object("payload");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::message_chunk: {
      ForwardChunk b;
      b.from = f.string("from");
      b.stream_id = f.string("stream_id");
      b.chunk = f.string("chunk");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::message_end: {
      ForwardEnd b;
      b.from = f.string("from");
      b.stream_id = f.string("stream_id");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::reply: {
      Reply b;
      b.to = f.string("to");
      b.from = f.optional_string("from");
      b.stream_id = f.optional_string("stream_id");
      b.stream = f.optional_boolean("stream");
      b.payload = f.optional_object("payload");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::reply_chunk: {
      ReplyChunk b;
      b.to = f.string("to");
      b.from = f.optional_string("from");
      b.stream_id = f.string("stream_id");
      b.chunk = f.string("chunk");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::reply_end: {
      ReplyEnd b;
      b.to = f.string("to");
      b.from = f.optional_string("from");
      b.stream_id = f.string("stream_id");
      f.rest_into(b.extra);
      return b;
    }
    case MessageType::error: {
      Error b;
      b.code = f.string("code");
      b.message = f.string("message");
      b.stream_id = f.optional_string("stream_id");
      f.rest_into(b.extra);
      return b;
    }
  }
  return Error{};
}

void write(Json& out, const Send& b) {
  put(out, "to", b.to);
  put(out, "stream_id", b.stream_id);
  put(out, "stream", b.stream);
  put(out, "payload", b.payload);
  merge_extra(out, b.extra);
}
void write(Json& out, const SendChunk& b) {
  put(out, "to", b.to);
  put(out, "stream_id", b.stream_id);
  put(out, "chunk", b.chunk);
  merge_extra(out, b.extra);
}
void write(Json& out, const SendEnd& b) {
  put(out, "to", b.to);
  put(out, "stream_id", b.stream_id);
  merge_extra(out, b.extra);
}
void write(Json& out, const Forward& b) {
  put(out, "from", b.from);
  put(out, "stream_id", b.stream_id);
  put(out, "stream", b.stream);
  put(out, "payload", b.payload);
  merge_extra(out, b.extra);
}
void write(Json& out, const ForwardChunk& b) {
  put(out, "from", b.from);
  put(out, "stream_id", b.stream_id);
  put(out, "chunk", b.chunk);
  merge_extra(out, b.extra);
}
void write(Json& out, const ForwardEnd& b) {
  put(out, "from", b.from);
  put(out, "stream_id", b.stream_id);
  merge_extra(out, b.extra);
}
void write(Json& out, const Reply& b) {
  put(out, "to", b.to);
  put(out, "from", b.from);
  put(out, "stream_id", b.stream_id);
  put(out, "stream", b.stream);
  put(out, "payload", b.payload);
  merge_extra(out, b.extra);
}
void write(Json& out, const ReplyChunk& b) {
  put(out, "to", b.to);
  put(out, "from", b.from);
  put(out, "stream_id", b.stream_id);
  put(out, "chunk", b.chunk);
  merge_extra(out, b.extra);
}
void write(Json& out, const ReplyEnd& b) {
  put(out, "to", b.to);
  put(out, "from", b.from);
  put(out, "stream_id", b.stream_id);
  merge_extra(out, b.extra);
}
void write(Json& out, const Error& b) {
  put(out, "code", b.code);
  put(out, "message", b.message);
  put(out, "stream_id", b.stream_id);
  merge_extra(out, b.extra);
}

}  // namespace

Json to_json(const Message& m) {
  Json out = Json::object();
  out["type"] = std::string(m.type_name());
  std::visit([&out](const auto& b) { write(out, b); }, m.body);
  return out;
}

std::string encode(const Message& message) { return typed::wire_text(to_json(message)); }

Expected<Message, CodecError> from_decoded(Decoded decoded) {
  return typed::read_decoded<Message>(ProtocolId::agora, {"/type", "frame type", ""}, std::move(decoded), parse_type,
                                      [](MessageType type, Fields& f) { return Message{read_body(type, f)}; });
}

Expected<Message, CodecError> from_json(Json value) {
  return typed::check_with<Message>(ProtocolId::agora, std::move(value), from_decoded);
}

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits) {
  return typed::decode_with<Message>(ProtocolId::agora, bytes, limits, from_decoded);
}

}  // namespace ac::proto::agora
