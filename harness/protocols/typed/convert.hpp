// The step shared by the five typed codecs: a validated message (Profile::decode / check) ->
// the typed model, with every surprise (a schema looser than the model, an exception, a
// missing catalog) turned into a CodecError instead of escaping.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include "harness/protocols/profile.hpp"
#include "harness/protocols/typed/fields.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto::typed {

// The code a protocol uses for "this message does not fit": the index's `default` error code.
std::string_view default_code(ProtocolId id);

// A CodecError for a problem found while converting a message of type `key`.
CodecError conversion_error(ProtocolId id, std::string_view key, const Problem& problem, std::string message_id);

// An exception that escaped the generic decoder (out of memory, a broken catalog).
CodecError internal_error(ProtocolId id, const std::exception& ex);

// Catalog::builtin().profile(id), or the CodecError saying why the shipped schemas are unusable.
Expected<const Profile*, CodecError> builtin_profile(ProtocolId id);

// The string at `pointer` in `value`, or "" (for CodecError::message_id).
std::string string_at(const Json& value, std::string_view member);

// Runs `convert(Problem&) -> T` so that nothing escapes: a recorded Problem or an exception
// becomes a CodecError for message type `key`.
template <typename T, typename F>
Expected<T, CodecError> guarded(ProtocolId id, std::string_view key, std::string message_id, F&& convert) {
  Problem problem;
  try {
    T out = convert(problem);
    if (!problem.failed) return out;
  } catch (const std::exception& ex) {
    Fields::report(problem, "", std::string("typed conversion failed: ") + ex.what());
  }
  return unexpected(conversion_error(id, key, problem, std::move(message_id)));
}

// Where a protocol's messages say what they are, for read_decoded.
struct MessageNaming {
  std::string_view type_pointer;  // the JSON Pointer of the member naming the type ("/type", "/message_type")
  std::string_view noun;          // what the error calls the key ("message type", "message key", "frame type")
  std::string_view id_member;     // the member holding the message id (CodecError::message_id); "": none
};

// A validated message (Decoded) -> the typed model T: its key parsed by `parse(key) ->
// std::optional<Type>`, then `read(Type, Fields& top) -> T`, guarded (see above). A key with no
// typed model is a problem at the type's pointer: no typed model for <noun> "<key>".
template <typename T, typename Parse, typename Read>
Expected<T, CodecError> read_decoded(ProtocolId id, const MessageNaming& naming, Decoded decoded, Parse&& parse, Read&& read) {
  const auto type = parse(decoded.key);
  std::string message_id = naming.id_member.empty() ? std::string() : string_at(decoded.value, naming.id_member);
  return guarded<T>(id, decoded.key, std::move(message_id), [&](Problem& problem) {
    if (!type) {
      Fields::report(problem, std::string(naming.type_pointer),
                     "no typed model for " + std::string(naming.noun) + " \"" + decoded.key + "\"");
      return T{};
    }
    Fields top(decoded.value, "", problem);
    return read(*type, top);
  });
}

// A typed message's JSON as wire text: compact, invalid UTF-8 replaced instead of thrown.
inline std::string wire_text(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Profile::decode followed by `convert(Decoded) -> Expected<T, CodecError>`; never throws.
template <typename T, typename F>
Expected<T, CodecError> decode_with(ProtocolId id, std::string_view bytes, const json::ReadLimits& limits, F&& convert) {
  try {
    auto profile = builtin_profile(id);
    if (!profile) return unexpected(std::move(profile).error());
    auto decoded = (*profile)->decode(bytes, limits);
    if (!decoded) return unexpected(std::move(decoded).error());
    return convert(std::move(*decoded));
  } catch (const std::exception& ex) {
    return unexpected(internal_error(id, ex));
  }
}

// Profile::check followed by `convert`; never throws.
template <typename T, typename F>
Expected<T, CodecError> check_with(ProtocolId id, Json value, F&& convert) {
  try {
    auto profile = builtin_profile(id);
    if (!profile) return unexpected(std::move(profile).error());
    auto checked = (*profile)->check(std::move(value));
    if (!checked) return unexpected(std::move(checked).error());
    return convert(std::move(*checked));
  } catch (const std::exception& ex) {
    return unexpected(internal_error(id, ex));
  }
}

// Profile::check_document(name) followed by `read(Fields&) -> T`; never throws.
template <typename T, typename F>
Expected<T, CodecError> document_with(ProtocolId id, std::string_view name, Json value, F&& read) {
  try {
    auto profile = builtin_profile(id);
    if (!profile) return unexpected(std::move(profile).error());
    if (auto error = (*profile)->check_document(name, value)) return unexpected(std::move(*error));
  } catch (const std::exception& ex) {
    return unexpected(internal_error(id, ex));
  }
  return guarded<T>(id, name, "", [&](Problem& problem) {
    Fields f(value, "", problem);
    return read(f);
  });
}

}  // namespace ac::proto::typed
