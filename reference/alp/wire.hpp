// Small wire-level helpers of the ALP hub: the HTTP error body of the lobby's endpoints
// ({"error": <§8.2 Error object>}, the shape of schemas/alp/register_error.schema.json), a
// best-effort read of the message_id of a frame that is not valid JSON (for
// offending_message_id), constant-time comparison of secrets, and protocol-version compatibility.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/net/types.hpp"
#include "harness/semver/version.hpp"

namespace ac::ref::alp {

net::HttpResponse http_error(int status, const std::string& code, const std::string& message,
                             std::optional<nlohmann::json> details = {}, std::optional<bool> retryable = {});

// The value of the first "message_id": "<string>" member found in raw bytes (no escapes, at most
// 128 characters), or nullopt. Only used when the frame cannot be parsed as JSON.
std::optional<std::string> scan_message_id(std::string_view frame);

bool constant_time_equal(std::string_view a, std::string_view b);
bool key_in(std::string_view key, const std::vector<std::string>& keys);  // constant time per key

// The reading of §12 the reference takes: a message's protocol_version is supported when it has
// the same MAJOR as a supported version and, while MAJOR is 0 (SemVer §4: anything may change),
// the same MINOR. Patch levels and pre-releases of a supported line are accepted.
bool version_supported(const semver::Version& v, const std::vector<semver::Version>& supported);

}  // namespace ac::ref::alp
