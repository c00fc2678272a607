// Chopsticks 1.0.0 typed codec: bytes -> chopsticks::Message (strict JSON, schema validation
// with the spec's reactions: MISSING_VERSION for /protocolVersion, MISSING_REQUIRED_FIELD,
// INVALID_MESSAGE_FORMAT; conversion) and back to compact JSON. Nothing here throws.
#pragma once

#include <string>
#include <string_view>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/chopsticks/messages.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto::chopsticks {

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits = {});
Expected<Message, CodecError> from_json(Json value);
Expected<Message, CodecError> from_decoded(Decoded decoded);

Json to_json(const Message& message);
std::string encode(const Message& message);

}  // namespace ac::proto::chopsticks
