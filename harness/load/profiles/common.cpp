#include "harness/load/profiles/common.hpp"

#include "harness/json/strict_reader.hpp"

namespace ac::load {

std::string ProfileBase::ws_url(const std::string& path_name, const std::string& query) const {
  std::string url = target().ws_base + target().path(path_name);
  if (!query.empty()) url += (url.find('?') == std::string::npos ? "?" : "&") + query;
  return url;
}

std::string ProfileBase::http_url(const std::string& path_name) const { return target().http_base + target().path(path_name); }

std::vector<const Lane*> ProfileBase::lanes_from(std::size_t agent) const {
  std::vector<const Lane*> out;
  for (const auto& l : topology().lanes) {
    if (l.from == agent) out.push_back(&l);
  }
  return out;
}

std::vector<const Lane*> ProfileBase::lanes_to(std::size_t agent) const {
  std::vector<const Lane*> out;
  for (const auto& l : topology().lanes) {
    if (l.to == agent) out.push_back(&l);
  }
  return out;
}

Expected<Json, std::string> ProfileBase::post_json(net::Runtime& runtime, const std::string& what, const std::string& url,
                                                   const Json& body, net::Headers headers) const {
  net::HttpCall call;
  call.method = "POST";
  call.url = url;
  call.headers = std::move(headers);
  call.headers.emplace("Content-Type", "application/json");
  call.body = body.dump();
  call.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(10000 * target().timeout_scale));
  call.tls = target().tls;
  call.max_response_bytes = 1 << 20;
  auto r = net::http_request(runtime, call);
  if (!r) return unexpected(what + ": POST " + url + ": " + r.error().describe());
  auto parsed = json::parse_strict(r->body);
  if (r->status < 200 || r->status > 299) {
    return unexpected(what + ": POST " + url + " answered HTTP " + std::to_string(r->status) + ": " + r->body.substr(0, 300));
  }
  if (!parsed) return unexpected(what + ": POST " + url + " answered a body that is not JSON: " + r->body.substr(0, 200));
  return std::move(*parsed);
}

std::string ProfileBase::str_at(const Json& j, const char* pointer) {
  try {
    const Json& v = j.at(Json::json_pointer(pointer));
    return v.is_string() ? v.get<std::string>() : std::string();
  } catch (const std::exception&) {
    return {};
  }
}

Expected<std::unique_ptr<Profile>, std::string> make_profile(proto::ProtocolId protocol, ProfileSettings settings) {
  switch (protocol) {
    case proto::ProtocolId::alp: return make_alp_profile(std::move(settings));
    case proto::ProtocolId::agora: return make_agora_profile(std::move(settings));
    case proto::ProtocolId::agentprotocol: return make_agentprotocol_profile(std::move(settings));
    case proto::ProtocolId::a2acp: return make_a2acp_profile(std::move(settings));
    case proto::ProtocolId::chopsticks: return make_chopsticks_profile(std::move(settings));
  }
  return unexpected(std::string("unknown protocol"));
}

}  // namespace ac::load
