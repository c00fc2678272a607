#include "harness/protocols/typed/convert.hpp"

namespace ac::proto::typed {

std::string_view default_code(ProtocolId id) {
  // Mirrors error_codes.default of schemas/<protocol>/index.json.
  switch (id) {
    case ProtocolId::alp: return "MESSAGE_MALFORMED";
    case ProtocolId::agora: return "INVALID_FRAME";
    case ProtocolId::agentprotocol: return "INVALID_MESSAGE";
    case ProtocolId::a2acp: return "SCHEMA_MISMATCH";
    case ProtocolId::chopsticks: return "INVALID_MESSAGE_FORMAT";
  }
  return "INVALID_MESSAGE";
}

CodecError conversion_error(ProtocolId id, std::string_view key, const Problem& problem, std::string message_id) {
  CodecError e;
  e.code = std::string(default_code(id));
  e.pointer = problem.pointer;
  e.rule = "typed-model";
  e.message = "the message passed its schema but does not fit the typed model: " + problem.message;
  e.message_id = std::move(message_id);
  try {
    const Profile& p = Catalog::builtin().profile(id);
    e.section = p.spec_file();
    const MessageSpec* spec = p.message(key);
    if (spec == nullptr) spec = p.document(key);
    if (spec != nullptr && !spec->section.empty()) e.section += " " + spec->section;
  } catch (const std::exception&) {
    e.section = std::string(name(id));
  }
  return e;
}

CodecError internal_error(ProtocolId id, const std::exception& ex) {
  CodecError e;
  e.code = "INTERNAL";
  e.rule = "internal";
  e.section = std::string(name(id));
  e.message = std::string("decoding aborted: ") + ex.what();
  return e;
}

Expected<const Profile*, CodecError> builtin_profile(ProtocolId id) {
  try {
    return &Catalog::builtin().profile(id);
  } catch (const std::exception& ex) {
    CodecError e;
    e.code = "INTERNAL";
    e.rule = "catalog";
    e.section = std::string(name(id));
    e.message = std::string("the shipped schemas cannot be loaded: ") + ex.what();
    return unexpected(std::move(e));
  }
}

std::string string_at(const Json& value, std::string_view member) {
  if (!value.is_object()) return {};
  auto it = value.find(member);
  if (it == value.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

}  // namespace ac::proto::typed
