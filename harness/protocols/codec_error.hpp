// A structured decoding error: everything a user needs to fix a message, in the protocol's
// own vocabulary.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ac::proto {

struct CodecError {
  std::string code;                   // the protocol's error code: MISSING_REQUIRED_FIELD, INVALID_MESSAGE, ...
  std::string pointer;                // JSON Pointer of the offending field; "" means the whole message
  std::string rule;                   // what was violated: "required", "type", "json.duplicate-key", ...
  std::string section;                // where the rule is written: "alp-0.2.0.md §7.3.2"
  std::string message;                // one line, human readable
  std::optional<std::size_t> offset;  // byte offset, for errors found while reading the JSON text
  std::string message_id;             // the offending message's id when it could be read ("" otherwise)

  // "MISSING_REQUIRED_FIELD at /payload/capability_name [required] (alp-0.2.0.md §7.3.2): ..."
  std::string describe() const;
  nlohmann::json to_json() const;
};

}  // namespace ac::proto
