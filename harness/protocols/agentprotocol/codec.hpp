// AgentProtocol 0.1 typed codec: bytes -> agentprotocol::Message (strict JSON, schema
// validation with INVALID_MESSAGE, conversion) and back to compact JSON. The signature is
// carried, not checked (see signature.hpp). Nothing here throws.
#pragma once

#include <string>
#include <string_view>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/agentprotocol/messages.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto::agentprotocol {

Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits = {});
Expected<Message, CodecError> from_json(Json value);
Expected<Message, CodecError> from_decoded(Decoded decoded);

Json to_json(const Message& message);
std::string encode(const Message& message);

}  // namespace ac::proto::agentprotocol
