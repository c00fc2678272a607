// ALP 0.2.0 typed codec: bytes -> alp::Message (strict JSON, schema validation with the
// protocol's own error codes, then conversion) and alp::Message -> compact JSON bytes.
// Nothing here throws: every failure is a CodecError with code, pointer, rule and section.
#pragma once

#include <string>
#include <string_view>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/alp/messages.hpp"
#include "harness/protocols/profile.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto::alp {

// Catalog::builtin().profile(alp).decode(bytes) followed by conversion to the typed form.
Expected<Message, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits = {});
// Same for an already parsed value (validated first).
Expected<Message, CodecError> from_json(Json value);
// Conversion only, for a message Profile::decode/check already accepted.
Expected<Message, CodecError> from_decoded(Decoded decoded);

Json to_json(const Message& message);
// Compact JSON, UTF-8, no trailing newline. Invalid UTF-8 in a string the caller put in the
// message is replaced by U+FFFD rather than throwing.
std::string encode(const Message& message);

// The documents inside messages and the HTTP registration bodies.
Json to_json(const Capability& capability);
Json to_json(const ErrorObject& error);
Json to_json(const RegisterRequest& request);
Json to_json(const RegisterResponse& response);
Expected<Capability, CodecError> capability_from_json(Json value);          // validated against §9
Expected<RegisterRequest, CodecError> register_request_from_json(Json value);  // validated against §4.1
Expected<RegisterResponse, CodecError> register_response_from_json(Json value);

}  // namespace ac::proto::alp
