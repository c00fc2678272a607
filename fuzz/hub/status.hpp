// Reading the counts of a hub's status() for the targets' status oracles.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace ac::fuzz::hub {

// The unsigned count under `key`; nullopt when it is missing or not a count.
inline std::optional<std::uint64_t> count(const nlohmann::json& status, const char* key) {
  auto it = status.find(key);
  if (it == status.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::uint64_t>();
}

}  // namespace ac::fuzz::hub
