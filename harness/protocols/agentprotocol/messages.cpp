#include "harness/protocols/agentprotocol/messages.hpp"

#include <array>

namespace ac::proto::agentprotocol {
namespace {

constexpr std::array<std::string_view, kMessageTypeCount> kNames = {"hello", "request", "response", "notify", "error"};

}  // namespace

std::string_view type_name(MessageType type) { return kNames.at(static_cast<std::size_t>(type)); }

std::optional<MessageType> parse_type(std::string_view type) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == type) return static_cast<MessageType>(i);
  }
  return std::nullopt;
}

}  // namespace ac::proto::agentprotocol
