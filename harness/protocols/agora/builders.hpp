// Ready-made Agora frames for mock agents and the reference relay, including the relay's one
// transformation: forwarding a sender's frame to its receiver (agora-relay-streaming.md §2:
// send -> message, send_chunk -> message_chunk, send_end -> message_end, `to` replaced by
// `from`; reply frames keep `to` and gain `from`, AG-5). Unknown members travel unchanged.
#pragma once

#include <optional>
#include <string>

#include "harness/protocols/agora/messages.hpp"

namespace ac::proto::agora {

// §1 sender side
Message make_send(std::string to, Json payload);                                            // one-shot
Message make_stream_start(std::string to, std::string stream_id, std::optional<Json> payload = {});
Message make_send_chunk(std::string to, std::string stream_id, std::string chunk);
Message make_send_end(std::string to, std::string stream_id);

// §3 receiver side
Message make_reply(std::string to, Json payload);                                           // one-shot
Message make_reply_stream_start(std::string to, std::string stream_id, std::optional<Json> payload = {});
Message make_reply_chunk(std::string to, std::string stream_id, std::string chunk);
Message make_reply_end(std::string to, std::string stream_id);

// What the relay delivers for a frame received from agent `from`: send* -> message*, reply* ->
// reply* with `from`. Frames that are not forwarded (message*, error) give nullopt.
std::optional<Message> make_forward(const Message& received, std::string from);

// The relay's error frame (AG-6).
Message make_error(std::string code, std::string message, std::optional<std::string> stream_id = {});

}  // namespace ac::proto::agora
