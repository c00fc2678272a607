// Redaction of credentials (issue 13, point 4): reports, transcripts, fuzz reproducers and
// terminal lines are published (CI artifacts, bug reports), so no credential may reach them in
// clear. Two sources of what to hide:
//   - registered values: the settings a protocol declares "secret" (suites/<p>/target-settings.json)
//     are registered when a target is built from them, and drivers register what they obtain
//     (tokens); each is hidden in its raw, JSON-escaped, HTML-escaped and percent-encoded forms,
//     also when a peer echoes it back;
//   - recognisable credentials, whatever their origin: Authorization and X-API-Key header values,
//     token=/access_token=/api_key= query parameters, JWTs (eyJ...), PEM private keys, and the
//     string values of JSON members named like credentials (api_key, admin_token, jwt_secret,
//     token, password, runnerSecret, ...; docs/limits.md lists them).
// Each is replaced by "<redacted:LABEL>". The rules are documented in docs/limits.md.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ac {

// Registers a credential for the rest of the process (thread-safe). Values shorter than 4 bytes
// are ignored: hiding them would mangle ordinary text.
void register_secret(std::string_view value, std::string_view label);

// `text` with every registered value and every recognisable credential replaced.
std::string redact(std::string_view text);

// The same for every string (member names included) of a JSON document, plus the values of
// members named like credentials. Used on results documents before any writer renders them, so
// each format escapes the markers as it escapes everything else.
void redact_json(nlohmann::json& doc);

}  // namespace ac
