// What the harness knows about the implementation under test: where it is, the endpoint paths,
// credentials, the roles and transports it plays, the optional features it claims, TLS trust.
// Built from --target and --config target.json (schemas/target.schema.json), validated against
// the protocol's declaration (target_decl.hpp); the embedded reference lobby is described by a
// target document of the same format (harness/embedded/), so it goes through the same checks.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/engine/target_decl.hpp"
#include "harness/net/client.hpp"
#include "harness/util/expected.hpp"

namespace ac::engine {

using Json = nlohmann::json;

struct TargetConfig {
  std::string protocol;
  std::string kind = "remote";  // remote | embedded | exec | dir | client
  std::string url;              // the target as given (--target or target.json "target")
  std::string http_base;        // "http://127.0.0.1:8080" (https when TLS)
  std::string ws_base;          // "ws://127.0.0.1:8080" (wss when TLS)
  std::string exec_command;     // kind exec: the shell command of the implementation's shim
  std::string directory;        // kind dir (and the embedded AgentProtocol exchange): the exchange directory
  std::map<std::string, std::string> paths;  // endpoint name -> path ("connect" -> "/ws/connect")
  Json settings = Json::object();            // protocol specific (api_key, lobby_id, jwt_secret, binding, ...)
  std::set<std::string> features;            // claimed optional features ("*" claims all)
  std::set<std::string> roles;               // roles played; empty: every role of the protocol
  std::set<std::string> transports;          // transports offered; empty: every transport
  net::TlsClientOptions tls;
  double timeout_scale = 1.0;
  // target.json "limits": what the deployment allows one client address (0: not said).
  std::size_t max_connections = 0;
  double max_requests_per_second = 0;
  // Paces HTTP requests and WebSocket upgrades to max_requests_per_second across every case
  // (shared by the copies of this config; null: unpaced).
  std::shared_ptr<class RequestPacer> pacer;
  const TargetDeclaration* declaration = nullptr;
  std::vector<std::string> warnings;         // e.g. a --target path overriding target.json's
  // The embedded reference lobby only: the same lobby configuration served over TLS (a TLS-only
  // port, a certificate made at start-up, tls.ca_file set), which runs the cases that need the
  // feature tls while the plain target runs the rest.
  std::shared_ptr<const TargetConfig> tls_twin;

  bool claims(const std::string& feature) const { return features.count("*") != 0 || features.count(feature) != 0; }
  bool plays(const std::string& role) const { return roles.empty() || roles.count(role) != 0; }
  bool offers(const std::string& transport) const { return transports.empty() || transports.count(transport) != 0; }
  bool uses_tls() const { return http_base.starts_with("https://"); }
  std::string path(const std::string& name) const;
  std::string setting(const std::string& key, const std::string& fallback = "") const;
  // The values of settings declared secret (non-empty strings, and the text of other JSON values),
  // for redaction.
  std::vector<std::string> secret_values() const;
  // What the run actually uses, for the banner and results.json: kind, url, endpoints (base URL +
  // path of each entry point), roles, transports, features, TLS trust; settings with secret ones
  // shown as "(secret)".
  Json describe() const;
};

// A third-party target: --target (may be empty when target.json has "target"), --config (may be
// empty), and the protocol. Every problem is a configuration error naming the field and, for an
// unknown name, the nearest valid one; the message lists all of them.
struct TargetRequest {
  std::string protocol;
  std::string url;
  std::string config_file;
};
Expected<TargetConfig, std::string> resolve_target(const Declarations& declarations, const TargetRequest& request);

// The protocol named by target.json's "protocol" member ("" when absent or unreadable): lets
// `--config F` alone choose the protocol.
std::string protocol_of_config(const std::string& config_file);

// A target described by a target document (the format of target.json, already parsed) at `url`.
// Used for target.json files and for the embedded lobby's generated description.
Expected<TargetConfig, std::string> target_from_document(const TargetDeclaration& declaration, const Json& document,
                                                         const std::string& url, const std::string& source);

}  // namespace ac::engine
