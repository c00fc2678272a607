#include "harness/protocols/chopsticks/messages.hpp"

#include <array>

namespace ac::proto::chopsticks {
namespace {

constexpr std::array<std::string_view, kMessageTypeCount> kNames = {"hello", "guilds", "event.released", "event.add",
                                                                    "resp",  "req",    "error"};

}  // namespace

std::string_view key_name(MessageType type) { return kNames.at(static_cast<std::size_t>(type)); }

std::optional<MessageType> parse_key(std::string_view key) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == key) return static_cast<MessageType>(i);
  }
  return std::nullopt;
}

}  // namespace ac::proto::chopsticks
