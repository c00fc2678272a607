#include "harness/protocols/agora/builders.hpp"

namespace ac::proto::agora {

Message make_send(std::string to, Json payload) {
  Send b;
  b.to = std::move(to);
  b.payload = std::move(payload);
  return Message{std::move(b)};
}

Message make_stream_start(std::string to, std::string stream_id, std::optional<Json> payload) {
  Send b;
  b.to = std::move(to);
  b.stream_id = std::move(stream_id);
  b.stream = true;
  b.payload = std::move(payload);
  return Message{std::move(b)};
}

Message make_send_chunk(std::string to, std::string stream_id, std::string chunk) {
  return Message{SendChunk{std::move(to), std::move(stream_id), std::move(chunk), Json::object()}};
}

Message make_send_end(std::string to, std::string stream_id) {
  return Message{SendEnd{std::move(to), std::move(stream_id), Json::object()}};
}

Message make_reply(std::string to, Json payload) {
  Reply b;
  b.to = std::move(to);
  b.payload = std::move(payload);
  return Message{std::move(b)};
}

Message make_reply_stream_start(std::string to, std::string stream_id, std::optional<Json> payload) {
  Reply b;
  b.to = std::move(to);
  b.stream_id = std::move(stream_id);
  b.stream = true;
  b.payload = std::move(payload);
  return Message{std::move(b)};
}

Message make_reply_chunk(std::string to, std::string stream_id, std::string chunk) {
  ReplyChunk b;
  b.to = std::move(to);
  b.stream_id = std::move(stream_id);
  b.chunk = std::move(chunk);
  return Message{std::move(b)};
}

Message make_reply_end(std::string to, std::string stream_id) {
  ReplyEnd b;
  b.to = std::move(to);
  b.stream_id = std::move(stream_id);
  return Message{std::move(b)};
}

namespace {

// A sender's own "from" member is not believed: the relay names the sender.
Json without_from(Json extra) {
  if (extra.is_object()) extra.erase("from");
  return extra;
}

}  // namespace

std::optional<Message> make_forward(const Message& received, std::string from) {
  if (const auto* s = received.get<Send>()) {
    return Message{Forward{std::move(from), s->stream_id, s->stream, s->payload, without_from(s->extra)}};
  }
  if (const auto* s = received.get<SendChunk>()) {
    return Message{ForwardChunk{std::move(from), s->stream_id, s->chunk, without_from(s->extra)}};
  }
  if (const auto* s = received.get<SendEnd>()) {
    return Message{ForwardEnd{std::move(from), s->stream_id, without_from(s->extra)}};
  }
  if (const auto* r = received.get<Reply>()) {
    Reply out = *r;
    out.from = std::move(from);
    return Message{std::move(out)};
  }
  if (const auto* r = received.get<ReplyChunk>()) {
    ReplyChunk out = *r;
    out.from = std::move(from);
    return Message{std::move(out)};
  }
  if (const auto* r = received.get<ReplyEnd>()) {
    ReplyEnd out = *r;
    out.from = std::move(from);
    return Message{std::move(out)};
  }
  return std::nullopt;
}

Message make_error(std::string code, std::string message, std::optional<std::string> stream_id) {
  return Message{Error{std::move(code), std::move(message), std::move(stream_id), Json::object()}};
}

}  // namespace ac::proto::agora
