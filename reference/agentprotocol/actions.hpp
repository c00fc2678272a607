// The reference agent's demo capabilities: real actions a request can name, so suites and
// hand-written clients have something to call (agentprotocol-0.1.md §Request/Response).
//   echo     params (any object) -> result: the same object
//   reverse  params {"text": string} -> result {"text": the text reversed by code point}
//   sum      params {"numbers": [number, ...]} -> result {"sum": number}
//   sleep    params {"ms": integer 0..max_sleep_ms} -> result {"slept_ms": ms}, after ms
//            (the slow action that makes a request's payload.timeout observable: TIMEOUT)
//   fail     always fails with INTERNAL_ERROR (so a client can see the agent's internal-error
//            path; a conforming agent cannot otherwise be made to fail from outside)
// An action is named by its short name ("echo") or by its capability URI ("agentconform:echo");
// hello lists the URIs, CAPABILITY_NOT_SUPPORTED lists the short names in details.available
// (as the spec's example does). Pure functions: the delay is returned, the hub schedules it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::ref::agentprotocol {

using Json = nlohmann::json;

inline constexpr std::string_view kCapabilityScheme = "agentconform:";

struct ActionLimits {
  std::chrono::milliseconds max_sleep{10000};
  std::size_t max_numbers = 10000;
  std::size_t max_text_bytes = 64 * 1024;
};

struct ActionOutcome {
  bool supported = true;  // false: CAPABILITY_NOT_SUPPORTED
  bool ok = true;         // false: an error (code, message, details) instead of a response
  Json result;
  std::chrono::milliseconds delay{0};
  std::string error_code;
  std::string error_message;
  Json details = Json::object();
};

// Short names of the demo actions, in a stable order.
const std::vector<std::string>& action_names();
// Capability URIs the reference advertises: agentprotocol:core plus one per action.
std::vector<std::string> capability_uris();
// "echo" or "agentconform:echo" -> "echo"; nullopt for anything else.
std::optional<std::string> normalize_action(std::string_view action);

ActionOutcome run_action(std::string_view action, const std::optional<Json>& params, const ActionLimits& limits);

}  // namespace ac::ref::agentprotocol
