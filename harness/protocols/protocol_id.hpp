// The five protocols agentconform knows, by their command-line spelling.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace ac::proto {

enum class ProtocolId { alp, agora, agentprotocol, a2acp, chopsticks };

inline constexpr std::array<ProtocolId, 5> kAllProtocols = {ProtocolId::alp, ProtocolId::agora, ProtocolId::agentprotocol,
                                                            ProtocolId::a2acp, ProtocolId::chopsticks};

constexpr std::string_view name(ProtocolId id) {
  switch (id) {
    case ProtocolId::alp: return "alp";
    case ProtocolId::agora: return "agora";
    case ProtocolId::agentprotocol: return "agentprotocol";
    case ProtocolId::a2acp: return "a2acp";
    case ProtocolId::chopsticks: return "chopsticks";
  }
  return "alp";
}

constexpr std::optional<ProtocolId> parse_protocol(std::string_view s) {
  for (auto id : kAllProtocols) {
    if (name(id) == s) return id;
  }
  return std::nullopt;
}

}  // namespace ac::proto
