#include "harness/protocols/alp/messages.hpp"

#include <array>

namespace ac::proto::alp {
namespace {

constexpr std::array<std::string_view, kMessageTypeCount> kNames = {
    "REGISTER_CLIENT",           "REGISTER_CLIENT_ACK",        "UNREGISTER_CLIENT", "DISCOVER_CAPABILITIES",
    "CAPABILITIES_FOUND",        "DIRECT_MESSAGE",             "INVOKE_CAPABILITY_REQUEST",
    "INVOKE_CAPABILITY_RESPONSE", "LOBBY_BROADCAST",           "PING",              "PONG",
    "PROTOCOL_ERROR",
};

}  // namespace

std::string_view type_name(MessageType type) { return kNames.at(static_cast<std::size_t>(type)); }

std::optional<MessageType> parse_type(std::string_view message_type) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == message_type) return static_cast<MessageType>(i);
  }
  return std::nullopt;
}

}  // namespace ac::proto::alp
