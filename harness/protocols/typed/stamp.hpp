// What the builders stamp on messages the harness sends: fresh UUIDv4 message ids and RFC 3339
// UTC timestamps (ALP §5 "UUIDv4" and "ISO 8601 UTC"; AgentProtocol and A2ACP likewise).
#pragma once

#include <chrono>
#include <string>

namespace ac::proto::typed {

// A random (version 4, RFC 4122 variant) UUID in lower-case 8-4-4-4-12 form. Uniqueness, not
// secrecy, is what message ids need; the generator is per thread, seeded from std::random_device.
std::string new_uuid_v4();

// "2026-02-01T15:08:00.123Z": UTC, millisecond precision.
std::string utc_timestamp(std::chrono::system_clock::time_point t);
inline std::string utc_now() { return utc_timestamp(std::chrono::system_clock::now()); }

}  // namespace ac::proto::typed
