#include "harness/engine/preflight.hpp"

#include <algorithm>
#include <filesystem>

#include "harness/engine/driver.hpp"
#include "harness/engine/transcript.hpp"
#include "harness/engine/vars.hpp"
#include "harness/protocols/protocol_id.hpp"

namespace ac::engine {
namespace {

using Status = PreflightCheck::Status;

std::string authority_of(const std::string& base) {
  const auto p = base.find("://");
  return p == std::string::npos ? base : base.substr(p + 3);
}

bool contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

std::string scheme_word(const TargetConfig& t, bool tls) {
  const bool ws = t.url.starts_with("ws");
  return tls ? (ws ? "wss://" : "https://") : (ws ? "ws://" : "http://");
}

// The TLS half of an error message, turned into what to change.
PreflightCheck tls_failure(const TargetConfig& t, const net::ClientError& e) {
  PreflightCheck c{"tls", Status::failed, e.message, ""};
  const std::string& m = e.message;
  if (contains(m, "wrong version number") || contains(m, "packet length too long") || contains(m, "unknown protocol") ||
      contains(m, "record layer failure") || contains(m, "http request")) {
    c.detail = authority_of(t.http_base) + " does not speak TLS (the TLS handshake failed: " + m + ")";
    c.fix = "use " + scheme_word(t, false) + " in --target: this port serves plain HTTP";
  } else if (contains(m, "certificate verify failed") || contains(m, "self-signed") || contains(m, "unable to get local issuer")) {
    c.detail = "the target's certificate is not trusted (" + m + ")";
    c.fix = t.tls.ca_file.empty() ? "set tls.ca_file in target.json to the CA certificate that signed the target's (PEM), or "
                                    "tls.insecure: true for a throwaway test server"
                                  : "tls.ca_file (" + t.tls.ca_file + ") does not hold the CA that signed the target's certificate";
  } else if (contains(m, "CA file")) {
    c.detail = m;
    c.fix = "tls.ca_file must name a readable PEM file";
  } else if (contains(m, "version")) {
    c.detail = "no TLS version in common with the target (" + m + ")";
    c.fix = "the target offers no TLS version agentconform accepts (TLS 1.2 or 1.3)";
  } else {
    c.detail = "the TLS handshake failed: " + m;
    c.fix = "check that the target serves TLS with a certificate for the name in --target (or set tls.server_name)";
  }
  return c;
}

// Step 1 and 2: something answers HTTP at the target, with TLS as the scheme says.
std::vector<PreflightCheck> check_reachable(const TargetConfig& t, net::Runtime& runtime, const PreflightOptions& o) {
  std::vector<PreflightCheck> out;
  net::HttpCall call;
  call.url = t.http_base + "/";
  call.timeout = o.timeout;
  call.tls = t.tls;
  call.max_response_bytes = 16u << 20;  // only the status matters, but a large page is still an answer
  auto r = net::http_request(runtime, call);
  const std::string where = authority_of(t.http_base);
  if (r || r.error().kind == net::ClientError::Kind::refused) {
    out.push_back({"reachable", Status::passed, where + " answers HTTP (GET / gave " + std::to_string(r ? r->status : r.error().status) + ")", ""});
    if (t.uses_tls()) out.push_back({"tls", Status::passed, "TLS handshake with " + where + " succeeded", ""});
    return out;
  }
  const auto& e = r.error();
  switch (e.kind) {
    case net::ClientError::Kind::unreachable:
      out.push_back({"reachable", Status::failed, "nothing answers at " + where + " (" + e.message + ")",
                     "start the implementation, or correct the host and port of --target"});
      return out;
    case net::ClientError::Kind::timeout:
      out.push_back({"reachable", Status::failed,
                     where + " accepts connections but sent no HTTP answer within " + std::to_string(o.timeout.count()) + " ms",
                     t.uses_tls() ? "check that the port serves HTTPS (a plain or silent server does not answer a TLS handshake)"
                                  : "check that the port serves HTTP (a TLS-only server waits for a handshake: try " + scheme_word(t, true) + ")"});
      return out;
    case net::ClientError::Kind::tls:
      out.push_back({"reachable", Status::passed, where + " accepts connections", ""});
      out.push_back(tls_failure(t, e));
      return out;
    case net::ClientError::Kind::bad_url:
      out.push_back({"reachable", Status::failed, e.message, "correct --target"});
      return out;
    default:
      break;
  }
  // The connection was made, but the answer was not HTTP. A TLS server sent a TLS record to
  // our plain request, or closed: try the handshake to say so precisely.
  if (!t.uses_tls()) {
    net::HttpCall tls_call = call;
    tls_call.url = "https://" + where + "/";
    tls_call.tls.insecure = true;
    if (auto again = net::http_request(runtime, tls_call); again || again.error().kind == net::ClientError::Kind::refused) {
      out.push_back({"reachable", Status::passed, where + " accepts connections", ""});
      out.push_back({"tls", Status::failed, where + " speaks TLS, but --target says " + scheme_word(t, false),
                     "use " + scheme_word(t, true) + " in --target (and tls.ca_file or tls.insecure in target.json)"});
      return out;
    }
  }
  out.push_back({"reachable", Status::failed, where + " accepted the connection but did not answer HTTP (" + e.message + ")",
                 "check that --target names the implementation's HTTP/WebSocket port"});
  return out;
}

bool needed(const TargetConfig& t, const PathDecl& p) {
  if (!t.offers(p.transport)) return false;
  if (!p.when_setting.empty() && !t.settings.value(p.when_setting, false)) return false;
  if (!p.feature.empty() && !t.claims(p.feature)) return false;
  if (!p.roles.empty() && std::none_of(p.roles.begin(), p.roles.end(), [&](const auto& r) { return t.plays(r); })) return false;
  return true;
}

}  // namespace

// Step 3: each entry point the target should serve answers as an entry point of that kind.
PreflightCheck check_entry_point(const TargetConfig& t, const PathDecl& p, net::Runtime& runtime, const PreflightOptions& o) {
  const std::string path = t.path(p.name);
  PreflightCheck c{"paths." + p.name, Status::passed, "", ""};
  std::string set_it = "set paths." + p.name + " in target.json to the path where the implementation serves it (" + p.description + ")";
  // A partial target (an auth service without a broker, AgentProtocol over HTTP only) has no such
  // entry point at all: say how to declare that instead.
  if (t.declaration != nullptr) {
    std::vector<std::string> other_roles, other_transports;
    for (const auto& r : t.declaration->role_names()) {
      if (std::find(p.roles.begin(), p.roles.end(), r) == p.roles.end()) other_roles.push_back(r);
    }
    for (const auto& x : t.declaration->transport_names()) {
      // A network target offers HTTP or WebSocket; the file exchange is a dir: target.
      if (x != p.transport && (x == "http" || x == "ws")) other_transports.push_back(x);
    }
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += (s.empty() ? "\"" : ", \"") + x + "\"";
      return s;
    };
    if (!p.roles.empty() && !other_roles.empty()) {
      set_it += "; or, if the implementation does not play the " + p.roles.front() + " role, declare \"roles\": [" + list(other_roles) + "]";
    } else if (p.transport == "ws" && !other_transports.empty()) {
      set_it += "; or, if the implementation has no WebSocket entry point, declare \"transports\": [" + list(other_transports) + "]";
    }
  }
  if (p.transport == "ws") {
    net::WsConnectOptions wo;
    wo.timeout = o.timeout;
    wo.tls = t.tls;
    auto ws = net::WsClient::connect(runtime, t.ws_base + path, wo);
    if (ws) {
      (*ws)->abort();
      c.detail = "GET " + path + " upgrades to a WebSocket";
      return c;
    }
    const auto& e = ws.error();
    if (e.kind != net::ClientError::Kind::refused) {
      c.status = Status::failed;
      c.detail = "WebSocket upgrade at " + path + " failed: " + e.describe();
      c.fix = "check that " + path + " is a WebSocket endpoint of the implementation";
      return c;
    }
    if (e.status == 404 || e.status == 405 || e.status == 410 || e.status == 501) {
      c.status = Status::failed;
      c.detail = "WebSocket upgrade at " + path + " answered HTTP " + std::to_string(e.status) + (e.body.empty() ? "" : ": " + e.body.substr(0, 160));
      c.fix = set_it;
    } else if (e.status >= 200 && e.status < 400) {
      c.status = Status::failed;
      c.detail = "GET " + path + " answered HTTP " + std::to_string(e.status) + " without switching to WebSocket: not a WebSocket endpoint";
      c.fix = set_it;
    } else {
      c.detail = "WebSocket endpoint " + path + " exists (an upgrade without credentials is refused with HTTP " + std::to_string(e.status) + ")";
    }
    return c;
  }
  net::HttpCall call;
  call.method = p.method.empty() ? "GET" : p.method;
  call.url = t.http_base + path;
  call.timeout = o.timeout;
  call.tls = t.tls;
  call.max_response_bytes = 16u << 20;  // a directory listing may be large; only the status matters
  if (call.method == "POST" || call.method == "PUT") {
    call.body = "{}";
    call.headers.emplace("Content-Type", "application/json");
  }
  auto r = net::http_request(runtime, call);
  if (!r) {
    c.status = Status::failed;
    c.detail = call.method + " " + path + " failed: " + r.error().describe();
    c.fix = "check that the implementation serves " + path;
    return c;
  }
  if (r->status == 404 || r->status == 410 || r->status == 501) {
    c.status = Status::failed;
    c.detail = call.method + " " + path + " answered HTTP " + std::to_string(r->status) + (r->body.empty() ? "" : ": " + r->body.substr(0, 160));
    c.fix = set_it;
  } else if (r->status == 405) {
    c.status = Status::failed;
    c.detail = call.method + " " + path + " answered HTTP 405: a route exists there, but not for " + call.method;
    c.fix = set_it;
  } else {
    c.detail = call.method + " " + path + " answered HTTP " + std::to_string(r->status) + " (the route exists)";
  }
  return c;
}

namespace {

bool role_applies(const TargetConfig& t, const std::vector<std::string>& roles) {
  return roles.empty() || std::any_of(roles.begin(), roles.end(), [&](const auto& r) { return t.plays(r); });
}

}  // namespace

std::string status_name(PreflightCheck::Status s) {
  switch (s) {
    case Status::passed: return "passed";
    case Status::failed: return "failed";
    case Status::skipped: return "skipped";
    case Status::noted: return "noted";
  }
  return "?";
}

bool PreflightResult::ok() const {
  return std::none_of(checks.begin(), checks.end(), [](const auto& c) { return c.status == Status::failed; });
}

bool PreflightResult::setup_ok() const {
  return std::none_of(checks.begin(), checks.end(), [](const auto& c) { return c.status == Status::failed && c.requirement.empty(); });
}

std::vector<const PreflightCheck*> PreflightResult::conformance_failures() const {
  std::vector<const PreflightCheck*> out;
  for (const auto& c : checks) {
    if (c.status == Status::failed && !c.requirement.empty()) out.push_back(&c);
  }
  return out;
}

std::string PreflightResult::summary() const {
  for (const bool setup : {true, false}) {
    for (const auto& c : checks) {
      if (c.status != Status::failed || c.requirement.empty() != setup) continue;
      return c.name + ": " + c.detail + (c.requirement.empty() ? "" : "\n  breaks: " + c.requirement) + (c.fix.empty() ? "" : "\n  fix: " + c.fix);
    }
  }
  return "every check passed";
}

nlohmann::json PreflightResult::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : checks) {
    nlohmann::json j = {{"check", c.name}, {"status", status_name(c.status)}, {"detail", c.detail}};
    if (!c.fix.empty()) j["fix"] = c.fix;
    if (!c.requirement.empty()) j["requirement"] = c.requirement;
    list.push_back(std::move(j));
  }
  return {{"ok", ok()}, {"setup_ok", setup_ok()}, {"checks", list}, {"summary", summary()}, {"transcript", transcript}};
}

PreflightResult preflight(const TargetConfig& t, net::Runtime& runtime, const PreflightOptions& o) {
  PreflightResult result;
  auto& checks = result.checks;
  if (t.kind == "remote" || t.kind == "embedded") {
    for (auto& c : check_reachable(t, runtime, o)) checks.push_back(std::move(c));
    if (!result.ok()) return result;
    if (t.declaration != nullptr) {
      for (const auto& [name, p] : t.declaration->paths) {
        if (needed(t, p)) checks.push_back(check_entry_point(t, p, runtime, o));
      }
    }
    if (!result.ok()) return result;
  } else if (t.kind == "dir") {
    std::error_code ec;
    if (!std::filesystem::is_directory(t.directory, ec)) {
      checks.push_back({"directory", Status::failed, t.directory + " is not a directory", "create it, or correct dir: in --target"});
      return result;
    }
    checks.push_back({"directory", Status::passed, t.directory + " exists", ""});
  }
  // Required settings of the roles the target plays.
  if (t.declaration != nullptr) {
    std::string missing;
    std::string fix;
    for (const auto& [name, s] : t.declaration->settings) {
      if (!s.required || !role_applies(t, s.roles) || t.settings.contains(name)) continue;
      missing += (missing.empty() ? "" : ", ") + name;
      fix += (fix.empty() ? "" : "; ") + std::string("settings.") + name + ": " + s.description;
    }
    if (!missing.empty()) {
      checks.push_back({"settings", Status::failed, "required settings are not set: " + missing, "add them to target.json (" + fix + ")"});
      return result;
    }
    checks.push_back({"settings", Status::passed, "every required setting is set", ""});
  }
  // The protocol's own probe: one agent connected as every case connects one.
  const auto id = proto::parse_protocol(t.protocol);
  if (!id) return result;
  const Driver& driver = driver_for(*id);
  Case probe_case;
  probe_case.id = "PREFLIGHT";
  probe_case.protocol = t.protocol;
  probe_case.title = "preflight probe";
  probe_case.agents = {{"probe", Json::object()}};
  Vars vars;
  Transcript transcript;
  CaseEnv env(runtime, t, probe_case, vars, transcript, o.timeout, o.seed);
  for (auto& p : driver.probe(env)) {
    checks.push_back({p.check, p.ok ? Status::passed : Status::failed, p.detail, p.fix, p.ok ? std::string() : p.requirement});
  }
  for (auto& [name, a] : env.agents) {
    if (a.channel) a.channel->abort();
  }
  result.transcript = transcript.to_json();
  return result;
}

}  // namespace ac::engine
