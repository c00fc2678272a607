// A2ACP 1.0 typed codec: bytes -> a2acp::Message (strict JSON, schema validation with the
// spec's codes: SCHEMA_MISMATCH, AUTH_FAILED for /security; conversion) and back to compact
// JSON. The JWT is carried, not verified (token.hpp). Nothing here throws.
#pragma once

#include <string>
#include <string_view>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/a2acp/messages.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto::a2acp {

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits = {});
Expected<Message, CodecError> from_json(Json value);
Expected<Message, CodecError> from_decoded(Decoded decoded);

Json to_json(const Message& message);
std::string encode(const Message& message);

// POST /auth/token bodies (validated against token_request / token_response).
Json to_json(const TokenRequest& request);
Json to_json(const TokenResponse& response);
Expected<TokenRequest, CodecError> token_request_from_json(Json value);
Expected<TokenResponse, CodecError> token_response_from_json(Json value);

}  // namespace ac::proto::a2acp
