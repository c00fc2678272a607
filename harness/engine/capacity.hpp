// Refusals that say "too much load", not "this breaks the spec": a close 1013 (try again later),
// a close 1008/1001 whose reason speaks of capacity, HTTP 429 or 503 (with or without
// Retry-After), a connection reset right after connecting. Real deployments cap connections per
// address, rate-limit and open circuit breakers; a case that met one is run again alone after a
// pause, and one that meets it again is ERROR "target capacity", never a FAIL of its requirement.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

namespace ac::engine {

struct CapacityRefusal {
  std::string what;                     // "close 1008 \"too-many-connections\"", "HTTP 503 (Retry-After: 2)"
  std::chrono::milliseconds retry_after{0};  // what the target asked for (Retry-After), 0: not said
  bool found() const { return !what.empty(); }
};

// The first capacity refusal in a case's transcript (engine transcript entries). `steps`: the
// case's steps as written; a status or close code the case itself expects (a rate-limit case
// that waits for 429) is not a capacity refusal.
CapacityRefusal capacity_refusal(const nlohmann::json& transcript, const nlohmann::json& steps);

// The delay a "retry-after: N" line in a transcript entry asks for (delay-seconds, RFC 9110
// §10.2.3; at most 30 s), 0 when there is none.
std::chrono::milliseconds retry_after_of(const std::string& text);

// Whether an HTTP status or a close (code, reason) is a capacity refusal.
bool capacity_status(int status);
bool capacity_close(int code, const std::string& reason);

}  // namespace ac::engine
