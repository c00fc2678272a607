// Agora typed codec: bytes -> agora::Message (strict JSON, schema validation with INVALID_FRAME,
// conversion) and back to compact JSON. Unknown members of a frame are kept (the relay forwards
// frames as-is). Nothing here throws.
#pragma once

#include <string>
#include <string_view>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/agora/messages.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto::agora {

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits = {});
Expected<Message, CodecError> from_json(Json value);
Expected<Message, CodecError> from_decoded(Decoded decoded);

Json to_json(const Message& message);
std::string encode(const Message& message);

}  // namespace ac::proto::agora
