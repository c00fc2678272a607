#include "harness/protocols/agora/messages.hpp"

#include <array>

namespace ac::proto::agora {
namespace {

constexpr std::array<std::string_view, kMessageTypeCount> kNames = {
    "send", "send_chunk", "send_end", "message", "message_chunk", "message_end", "reply", "reply_chunk", "reply_end", "error",
};

}  // namespace

std::string_view type_name(MessageType type) { return kNames.at(static_cast<std::size_t>(type)); }

std::optional<MessageType> parse_type(std::string_view type) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == type) return static_cast<MessageType>(i);
  }
  return std::nullopt;
}

std::optional<std::string> Message::stream_id() const {
  return std::visit([](const auto& b) -> std::optional<std::string> { return b.stream_id; }, body);
}

}  // namespace ac::proto::agora
