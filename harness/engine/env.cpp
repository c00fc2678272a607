// CaseEnv and the Driver defaults.
#include <algorithm>
#include <cctype>
#include <cstdio>

#include <thread>

#include "harness/engine/capacity.hpp"
#include "harness/engine/channels.hpp"
#include "harness/engine/driver.hpp"
#include "harness/engine/pacer.hpp"

namespace ac::engine {

CaseEnv::CaseEnv(net::Runtime& rt, const TargetConfig& t, const Case& k, Vars& v, Transcript& tr, std::chrono::milliseconds st,
                 std::uint64_t s)
    : runtime(rt), target(t), kase(k), vars(v), transcript(tr), step_timeout(st), seed(s),
      rng(s ^ std::hash<std::string>{}(k.id)) {}

Expected<net::HttpResult, net::ClientError> CaseEnv::http(const std::string& method, const std::string& path, net::Headers headers,
                                                         const std::string& body, const std::string& channel) {
  const bool absolute = path.find("://") != std::string::npos;
  net::HttpCall call;
  call.method = method;
  call.url = absolute ? path : target.http_base + path;
  call.headers = std::move(headers);
  call.body = body;
  call.timeout = step_timeout;
  call.tls = target.tls;
  std::string head = method + " " + (absolute ? path : path);
  for (const auto& [k, v] : call.headers) head += "\n" + k + ": " + v;
  transcript.add(channel, "out", "http-request", head + (body.empty() ? "" : "\n\n" + body));
  if (target.pacer) target.pacer->wait();
  auto r = net::http_request(runtime, call);
  if (!r) {
    transcript.add(channel, "in", "error", r.error().describe());
    return r;
  }
  std::string shown;
  for (const auto& [k, v] : r->headers) {
    if (k == "content-type" || k == "www-authenticate" || k == "retry-after" || k == "location") shown += k + ": " + v + "\n";
  }
  transcript.add(channel, "in", "http-response", shown + (r->body.empty() ? "" : "\n" + r->body), r->status);
  return r;
}

Expected<std::shared_ptr<Channel>, net::ClientError> CaseEnv::ws_connect(const std::string& path_and_query, net::Headers headers,
                                                                        const std::string& channel) {
  net::WsConnectOptions o;
  o.headers = std::move(headers);
  o.timeout = step_timeout;
  o.tls = target.tls;
  const std::string url = path_and_query.find("://") != std::string::npos ? path_and_query : target.ws_base + path_and_query;
  transcript.add(channel, "out", "connect", url);
  if (target.pacer) target.pacer->wait();
  auto c = net::WsClient::connect(runtime, url, o);
  // A refusal for capacity (429/503 at the upgrade) is retried with backoff, a few times, within
  // the step's timeout: the deployment said "later", not "no". Each try is in the transcript.
  std::chrono::milliseconds backoff(100);
  const auto give_up = std::chrono::steady_clock::now() + step_timeout;
  // A refused upgrade's transcript entry carries its Retry-After, which sets the next backoff.
  auto refused_text = [](const net::ClientError& e) {
    std::string out;
    for (const auto& [k, v] : e.headers) {
      if (k.size() == 11 && std::equal(k.begin(), k.end(), "retry-after", [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; })) {
        out = "retry-after: " + v + "\n";
      }
    }
    return out + e.body;
  };
  auto asked = [&](const net::ClientError& e) { return retry_after_of(refused_text(e)); };
  while (!c && c.error().kind == net::ClientError::Kind::refused && capacity_status(c.error().status) &&
         std::chrono::steady_clock::now() + std::max(backoff, asked(c.error())) < give_up) {
    backoff = std::max(backoff, asked(c.error()));
    transcript.add(channel, "in", "refused", refused_text(c.error()), c.error().status);
    transcript.add(channel, "note", "note", "refused for capacity: retrying in " + std::to_string(backoff.count()) + " ms");
    std::this_thread::sleep_for(backoff);
    backoff *= 2;
    transcript.add(channel, "out", "connect", url);
    if (target.pacer) target.pacer->wait();
    c = net::WsClient::connect(runtime, url, o);
  }
  if (!c) {
    if (c.error().kind == net::ClientError::Kind::refused) {
      transcript.add(channel, "in", "refused", capacity_status(c.error().status) ? refused_text(c.error()) : c.error().body, c.error().status);
    } else {
      transcript.add(channel, "in", "error", c.error().describe());
    }
    return unexpected(c.error());
  }
  transcript.add(channel, "in", "connected", "101 Switching Protocols", 101);
  return make_ws_channel(*c, transcript, channel);
}

Expected<std::shared_ptr<Channel>, std::string> CaseEnv::open_exec(const std::string& channel) {
  return make_exec_channel(target.exec_command, transcript, channel);
}

std::string CaseEnv::unique(const std::string& prefix) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08llx", static_cast<unsigned long long>(rng() & 0xffffffffULL));
  std::string base = kase.id;
  for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return base + "-" + prefix + "-" + buf;
}

void Driver::init_agent(AgentSession&, CaseEnv&) const {}

namespace {

void collect_transports(const Json& steps, const std::string& connect_default, std::set<std::string>& out) {
  if (!steps.is_array()) return;
  for (const auto& s : steps) {
    if (!s.is_object()) continue;
    if (s.contains("connect")) out.insert(s.value("transport", connect_default));
    if (s.contains("http")) out.insert("http");
    if (auto p = s.find("plaintext"); p != s.end() && p->is_object()) out.insert(p->value("websocket", false) ? "ws" : "http");
    if (s.contains("repeat")) collect_transports(s.value("steps", Json::array()), connect_default, out);
    if (auto p = s.find("parallel"); p != s.end() && p->is_array()) {
      for (const auto& branch : *p) collect_transports(branch, connect_default, out);
    }
  }
}

}  // namespace

std::set<std::string> Driver::case_transports(const Case& kase, const TargetConfig& target) const {
  std::string connect_default = "ws";
  if (target.declaration != nullptr) {
    if (const PathDecl* p = target.declaration->primary_path()) connect_default = p->transport;
  }
  std::set<std::string> out;
  collect_transports(kase.steps, connect_default, out);
  return out;
}

ProbeResult probe_result(const ConnectResult& r, const std::string& requirement) {
  switch (r.outcome) {
    case ConnectResult::Outcome::connected:
      return {"connect", true, "a probe agent connected the way every case connects its agents", "", ""};
    case ConnectResult::Outcome::refused: {
      const bool credential = r.status == 401 || r.status == 403;
      ProbeResult p{"connect", false,
                    (r.request.empty() ? std::string("the connection") : r.request) + " was refused" +
                        (r.status != 0 ? " with HTTP " + std::to_string(r.status) : "") + (r.body.empty() ? "" : ": " + r.body.substr(0, 200)) +
                        (r.message.empty() ? "" : " (" + r.message + ")"),
                    "check the settings and paths the protocol's connect uses (docs/targets.md)", ""};
      if (!credential && !requirement.empty()) {
        p.requirement = requirement;
        p.fix = "the entry point exists (the paths checks passed) and refused a valid agent: the target breaks " + requirement +
                "; the cases that need this entry point are BLOCKED";
      } else if (credential && !requirement.empty()) {
        p.fix += "; if the credential is right, the target breaks " + requirement;
      }
      return p;
    }
    case ConnectResult::Outcome::unreachable:
      return {"connect", false, r.message, "check that the target is running and --target names it"};
    case ConnectResult::Outcome::harness_error:
      return {"connect", false, r.message, "check target.json (docs/targets.md)"};
  }
  return {"connect", false, "?", ""};
}

AgentSession& Driver::probe_agent(CaseEnv& env) const {
  auto& agent = env.agents["probe"];
  agent.name = "probe";
  agent.id = env.unique("probe");
  env.vars.set("probe.id", agent.id);
  init_agent(agent, env);
  return agent;
}

std::vector<ProbeResult> Driver::probe(CaseEnv& env) const {
  return {probe_result(connect(probe_agent(env), Json{{"connect", "probe"}}, env), admission_requirement())};
}

Expected<Json, std::string> Driver::trigger(const std::string& action, const Json&, CaseEnv&) const {
  return unexpected("this protocol has no trigger named " + action);
}

}  // namespace ac::engine
