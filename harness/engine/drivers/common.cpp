#include "harness/engine/drivers/common.hpp"

#include "harness/json/strict_reader.hpp"

namespace ac::engine {

ConnectResult connect_ws(AgentSession& agent, const Json& step, CaseEnv& env, const std::string& path_name,
                         std::map<std::string, std::string> query) {
  if (env.target.kind == "exec") {
    auto ch = env.open_exec(agent.name);
    if (!ch) return {ConnectResult::Outcome::harness_error, 0, "", ch.error()};
    agent.channel = *ch;
    return {};
  }
  std::string path = step.value("path", env.target.path(path_name));
  if (path.empty()) return {ConnectResult::Outcome::harness_error, 0, "", "no endpoint path for " + path_name};
  if (auto q = step.find("query"); q != step.end()) {
    for (const auto& [k, v] : q->items()) query[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  std::string qs;
  for (const auto& [k, v] : query) qs += (qs.empty() ? "?" : "&") + percent_encode(k) + "=" + percent_encode(v);
  net::Headers headers;
  if (auto h = step.find("headers"); h != step.end()) {
    for (const auto& [k, v] : h->items()) headers.emplace(k, v.get<std::string>());
  }
  auto ch = env.ws_connect(path + qs, headers, agent.name);
  if (!ch) {
    const auto& e = ch.error();
    const std::string request = "GET " + path + " (WebSocket upgrade)";
    if (e.kind == net::ClientError::Kind::refused) return {ConnectResult::Outcome::refused, e.status, e.body, "", request};
    if (e.kind == net::ClientError::Kind::unreachable) return {ConnectResult::Outcome::unreachable, 0, "", e.describe(), request};
    return {ConnectResult::Outcome::refused, 0, "", e.describe(), request};
  }
  agent.channel = *ch;
  return {};
}

Expected<Json, std::string> http_json(CaseEnv& env, const std::string& method, const std::string& path, net::Headers headers,
                                      const std::string& body, bool any_status) {
  if (!body.empty()) headers.emplace("Content-Type", "application/json");
  auto r = env.http(method, path, std::move(headers), body, "http");
  if (!r) return unexpected(r.error().describe());
  auto parsed = r->body.empty() ? Expected<Json, json::JsonError>(Json(nullptr)) : json::parse_strict(r->body);
  if (!parsed) return unexpected("HTTP " + std::to_string(r->status) + " with a body that is not JSON: " + r->body.substr(0, 200));
  if (any_status) return Json{{"status", r->status}, {"body", *parsed}};
  if (r->status < 200 || r->status > 299) return unexpected("HTTP " + std::to_string(r->status) + ": " + r->body.substr(0, 300));
  return *parsed;
}

}  // namespace ac::engine
