// The profile registry and the step-editing helpers the profiles share.
#include "harness/fuzz/profiles/profiles.hpp"

namespace ac::fuzz {

const Profile& profile_for(Protocol p) {
  switch (p) {
    case Protocol::alp: return alp_profile();
    case Protocol::agora: return agora_profile();
    case Protocol::agentprotocol: return agentprotocol_profile();
    case Protocol::a2acp: return a2acp_profile();
    case Protocol::chopsticks: return chopsticks_profile();
  }
  return alp_profile();
}

const proto::Profile& profile_of(Protocol p) {
  proto::ProtocolId id = proto::ProtocolId::alp;
  switch (p) {
    case Protocol::alp: id = proto::ProtocolId::alp; break;
    case Protocol::agora: id = proto::ProtocolId::agora; break;
    case Protocol::agentprotocol: id = proto::ProtocolId::agentprotocol; break;
    case Protocol::a2acp: id = proto::ProtocolId::a2acp; break;
    case Protocol::chopsticks: id = proto::ProtocolId::chopsticks; break;
  }
  return proto::Catalog::builtin().profile(id);
}

bool set_member(Step& step, const char* key, const Json& value, bool only_if_present) {
  Json doc = parse_loose(step.data);
  if (doc.is_discarded() || !doc.is_object() || (only_if_present && !doc.contains(key))) return false;
  if (value.is_discarded()) {
    doc.erase(key);
  } else {
    doc[key] = value;
  }
  step.data = doc.dump();
  return true;
}

bool set_pointer(Step& step, const std::string& pointer, const Json& value) {
  Json doc = parse_loose(step.data);
  if (doc.is_discarded() || !doc.is_object()) return false;
  try {
    const Json::json_pointer p(pointer);
    if (!doc.contains(p.parent_pointer()) || !doc[p.parent_pointer()].is_object()) return false;
    doc[p] = value;
  } catch (const Json::exception&) {
    return false;
  }
  step.data = doc.dump();
  return true;
}

std::vector<std::size_t> text_steps_with(const std::vector<Step>& s, std::string_view needle) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i].kind == Step::Kind::text && s[i].data.find(needle) != std::string::npos) out.push_back(i);
  }
  return out;
}

std::vector<std::string> connection_labels(const std::vector<Step>& s) {
  std::vector<std::string> out;
  for (const auto& step : s) {
    if (step.kind == Step::Kind::connect && std::find(out.begin(), out.end(), step.conn) == out.end()) out.push_back(step.conn);
  }
  return out;
}

}  // namespace ac::fuzz
