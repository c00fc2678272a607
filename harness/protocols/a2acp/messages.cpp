#include "harness/protocols/a2acp/messages.hpp"

#include <array>

namespace ac::proto::a2acp {
namespace {

struct Names {
  std::string_view key, message_type, intent;
};

constexpr std::array<Names, kMessageTypeCount> kNames = {{
    {"request", "request", ""},
    {"response", "response", ""},
    {"event", "event", ""},
    {"error", "error", ""},
    {"request.initiate_handshake", "request", "initiate_handshake"},
    {"request.accept_handshake", "request", "accept_handshake"},
    {"response.accept_handshake", "response", "accept_handshake"},
    {"response.initiate_handshake", "response", "initiate_handshake"},
}};

}  // namespace

std::string_view key_name(MessageType type) { return kNames.at(static_cast<std::size_t>(type)).key; }

std::optional<MessageType> parse_key(std::string_view key) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i].key == key) return static_cast<MessageType>(i);
  }
  return std::nullopt;
}

std::string_view message_type_name(MessageType type) { return kNames.at(static_cast<std::size_t>(type)).message_type; }

std::optional<std::string_view> implied_intent(MessageType type) {
  const auto intent = kNames.at(static_cast<std::size_t>(type)).intent;
  if (intent.empty()) return std::nullopt;
  return intent;
}

}  // namespace ac::proto::a2acp
