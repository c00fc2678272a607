#include "harness/protocols/codec_error.hpp"

namespace ac::proto {

std::string CodecError::describe() const {
  std::string out = code;
  out += " at ";
  out += pointer.empty() ? std::string("(message)") : pointer;
  out += " [" + rule + "]";
  if (!section.empty()) out += " (" + section + ")";
  if (offset) out += " byte " + std::to_string(*offset);
  out += ": " + message;
  return out;
}

nlohmann::json CodecError::to_json() const {
  nlohmann::json j = {{"code", code}, {"pointer", pointer}, {"rule", rule}, {"section", section}, {"message", message}};
  if (offset) j["offset"] = *offset;
  if (!message_id.empty()) j["message_id"] = message_id;
  return j;
}

}  // namespace ac::proto
