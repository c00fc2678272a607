// The `tls_handshake` and `plaintext` steps (see tls_steps.hpp). What the spec leaves open and
// these steps decide (docs/scenarios.md, "Transport security steps"):
//   - a plain request counts as served only when it gets the answer the same request gets over
//     TLS (or a 101 for an upgrade): a TLS-only port may close, send a TLS alert, or answer with
//     an error page of its own, and the probe sends a decoy, never a credential, in clear;
//   - the certificate is checked after the handshake, so a wrong name is reported as such (with
//     the names the certificate carries) and does not hide the negotiated version.
#include "harness/engine/tls_steps.hpp"

#include <algorithm>
#include <optional>

#include "harness/net/tls_probe.hpp"

namespace ac::engine {
namespace {

using Json = nlohmann::json;
using Kind = TlsStepResult::Kind;

TlsStepResult make(Kind kind, std::string message, std::string expected = "", std::string actual = "") {
  TlsStepResult r;
  r.kind = kind;
  r.message = std::move(message);
  r.expected = std::move(expected);
  r.actual = std::move(actual);
  return r;
}

// Host and port of the target's HTTP side ("https://host:port"); 443/80 when the URL has none.
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
};
std::optional<Endpoint> endpoint_of(const TargetConfig& t) {
  const std::string& base = t.http_base;
  const auto scheme_end = base.find("://");
  if (scheme_end == std::string::npos) return std::nullopt;
  std::string authority = base.substr(scheme_end + 3);
  if (const auto slash = authority.find('/'); slash != std::string::npos) authority.resize(slash);
  Endpoint e;
  e.port = t.uses_tls() ? 443 : 80;
  std::string port;
  if (authority.starts_with("[")) {
    const auto close = authority.find(']');
    if (close == std::string::npos) return std::nullopt;
    e.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') port = authority.substr(close + 2);
  } else if (const auto colon = authority.rfind(':'); colon != std::string::npos) {
    e.host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  } else {
    e.host = authority;
  }
  if (!port.empty()) {
    try {
      const int p = std::stoi(port);
      if (p < 1 || p > 65535) return std::nullopt;
      e.port = static_cast<std::uint16_t>(p);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (e.host.empty()) return std::nullopt;
  return e;
}

// The probe options of a TLS target, or why the step cannot run against this one.
std::optional<TlsStepResult> probe_options(CaseEnv& env, std::chrono::milliseconds timeout, net::TlsProbeOptions& o) {
  if (!env.target.uses_tls()) {
    return make(Kind::not_applicable, "a TLS step needs a TLS target: give the target as https:// or wss://");
  }
  auto e = endpoint_of(env.target);
  if (!e) return make(Kind::error, "cannot read host and port from " + env.target.http_base);
  o.host = e->host;
  o.port = e->port;
  o.server_name = env.target.tls.server_name;
  o.ca_file = env.target.tls.ca_file;
  o.timeout = timeout;
  return std::nullopt;
}

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string range_text(const net::TlsProbeOptions& o) {
  if (o.min_version.empty() && o.max_version.empty()) return "TLS handshake";
  if (o.min_version == o.max_version) return "TLS " + o.min_version + "-only handshake";
  if (o.max_version.empty()) return "TLS " + o.min_version + "+ handshake";
  return "TLS " + (o.min_version.empty() ? std::string("1.2") : o.min_version) + "-" + o.max_version + " handshake";
}

// The raw HTTP/1.1 request of a plaintext step.
std::string build_request(const Json& spec, const std::string& host_header) {
  const bool websocket = spec.value("websocket", false);
  std::string body;
  if (spec.contains("body")) body = spec["body"].is_string() ? spec["body"].get<std::string>() : spec["body"].dump();
  const std::string method = websocket ? "GET" : spec.value("method", std::string(body.empty() ? "GET" : "POST"));
  std::string req = method + " " + spec["path"].get<std::string>() + " HTTP/1.1\r\nHost: " + host_header + "\r\n";
  bool has_type = false;
  const Json headers = spec.value("headers", Json::object());  // items() of a temporary would dangle
  for (const auto& [k, v] : headers.items()) {
    std::string lower = k;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    has_type = has_type || lower == "content-type";
    req += k + ": " + v.get<std::string>() + "\r\n";
  }
  if (websocket) {
    req += "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
  } else {
    req += "Connection: close\r\n";
  }
  if (!body.empty()) {
    if (!has_type && spec.contains("body") && !spec["body"].is_string()) req += "Content-Type: application/json\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return req + "\r\n" + body;
}

}  // namespace

TlsStepResult run_tls_handshake_step(const Json& step, CaseEnv& env, std::chrono::milliseconds timeout) {
  net::TlsProbeOptions o;
  if (auto na = probe_options(env, timeout, o)) return *na;
  const Json spec = step.value("tls_handshake", Json::object());
  o.min_version = spec.value("min_version", std::string());
  o.max_version = spec.value("max_version", std::string());
  const bool verify = spec.value("verify", true);
  const std::string outcome = step.value("outcome", std::string("established"));
  if (verify && outcome == "established" && env.target.tls.insecure) {
    return make(Kind::not_applicable, "the certificate cannot be checked: tls.insecure is set in target.json (remove it and set tls.ca_file)");
  }
  const std::string what = range_text(o);
  const std::string name = o.server_name.empty() ? o.host : o.server_name;
  env.transcript.add("tls", "out", "connect", what + " with " + o.host + ":" + std::to_string(o.port) + " (name " + name + ")");
  auto r = net::probe_tls(o);
  if (!r) return make(Kind::error, r.error());
  if (!r->tcp_connected) return make(Kind::error, "the target is unreachable: " + r->error);
  const std::string seen = r->established ? "TLS " + r->version + " established (" + r->cipher + "), certificate names: " +
                                                join(r->certificate_names) +
                                                (r->certificate_valid ? ", certificate valid" : ", certificate NOT valid: " + r->certificate_error)
                                          : "handshake refused: " + r->error;
  env.transcript.add("tls", "in", r->established ? "connected" : "refused", seen);
  TlsStepResult result;
  result.request = what;
  result.answer = r->established ? "TLS " + r->version + " established" : "refused";
  if (outcome == "refused") {
    if (!r->established) return result;
    result.kind = Kind::fail;
    result.message = "the target completed a " + what + " that it must refuse";
    result.expected = "the handshake refused (an alert or a closed connection)";
    result.actual = seen;
    return result;
  }
  if (!r->established) {
    result.kind = Kind::fail;
    result.message = "the " + what + " did not complete";
    result.expected = "a completed TLS handshake";
    result.actual = seen;
    return result;
  }
  if (step.contains("version")) {
    const auto wanted = step["version"].get<std::vector<std::string>>();
    if (std::find(wanted.begin(), wanted.end(), r->version) == wanted.end()) {
      result.kind = Kind::fail;
      result.message = "the target negotiated TLS " + r->version;
      result.expected = "TLS " + join(wanted, " or ");
      result.actual = seen;
      result.answer = "TLS " + r->version;
      return result;
    }
  }
  if (verify && !r->certificate_valid) {
    result.kind = Kind::fail;
    result.message = "the certificate does not verify for " + name + " against " +
                     (o.ca_file.empty() ? std::string("the system trust store") : "tls.ca_file " + o.ca_file) + ": " + r->certificate_error;
    result.expected = "a certificate for " + name + " that chains to the trusted CA";
    result.actual = "certificate names: " + join(r->certificate_names) + "; " + r->certificate_error;
    result.answer = "certificate not valid";
    return result;
  }
  return result;
}

TlsStepResult run_plaintext_step(const Json& step, CaseEnv& env, std::chrono::milliseconds timeout) {
  net::TlsProbeOptions o;
  if (auto na = probe_options(env, timeout, o)) return *na;
  const Json& spec = step["plaintext"];
  const bool websocket = spec.value("websocket", false);
  const std::string host_header = (o.host.find(':') != std::string::npos ? "[" + o.host + "]" : o.host) + ":" + std::to_string(o.port);
  const std::string request = build_request(spec, host_header);
  const std::string line = request.substr(0, request.find("\r\n"));
  env.transcript.add("tls", "out", "http-request", "over TLS: " + line);
  const auto secure = net::raw_http_exchange(o, true, false, request);
  env.transcript.add("tls", "in", "http-response", secure.answered ? secure.status_line : "no answer: " + secure.error,
                     secure.answered ? std::optional<int>(secure.status) : std::nullopt);
  if (!secure.answered) {
    return make(Kind::error, "the request over TLS got no HTTP answer (" + secure.error + "), so there is nothing to compare the plain one with");
  }
  env.transcript.add("plain", "out", "http-request", "in plain text: " + line);
  const auto plain = net::raw_http_exchange(o, false, false, request);
  env.transcript.add("plain", "in", "http-response", plain.answered ? plain.status_line : "no answer: " + plain.error,
                     plain.answered ? std::optional<int>(plain.status) : std::nullopt);
  TlsStepResult result;
  result.request = "plain " + line;
  result.answer = plain.answered ? "HTTP " + std::to_string(plain.status) : "no answer";
  if (!plain.connected) return make(Kind::error, "the plain connection failed: " + plain.error);
  const bool served = plain.answered && (plain.status == secure.status || (websocket && plain.status == 101));
  if (!served) return result;
  result.kind = Kind::fail;
  result.message = std::string("the plain-text ") + (websocket ? "WebSocket upgrade" : "request") + " was served on the TLS port";
  result.expected = "no HTTP answer, or a refusal other than the TLS answer (" + secure.status_line + ")";
  result.actual = plain.status_line + " (the same answer as over TLS)";
  return result;
}

}  // namespace ac::engine
