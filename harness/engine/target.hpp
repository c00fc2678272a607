// What the harness knows about the implementation under test: where it is, the endpoint paths,
// credentials, the registration binding, the optional features it claims, TLS trust. Read
// from --target and --config target.json (schemas/target.schema.json), or produced for the
// embedded reference lobby.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/net/client.hpp"
#include "harness/util/expected.hpp"

namespace ac::engine {

using Json = nlohmann::json;

struct TargetConfig {
  std::string protocol;
  std::string kind = "remote";  // remote | embedded | exec | dir
  std::string url;              // as given with --target
  std::string http_base;        // "http://127.0.0.1:8080" (https when TLS)
  std::string ws_base;          // "ws://127.0.0.1:8080" (wss when TLS)
  std::string exec_command;     // kind exec: the shell command of the implementation's shim
  std::string directory;        // kind dir: the exchange directory
  std::map<std::string, std::string> paths;  // endpoint name -> path ("connect" -> "/ws/connect")
  Json settings = Json::object();            // protocol specific (api_key, lobby_id, jwt_secret, binding, ...)
  std::set<std::string> features;            // claimed optional features ("*" claims all)
  std::set<std::string> roles;               // roles the target plays (empty: every role of its protocol)
  std::set<std::string> transports;          // transports it offers (empty: every transport of its protocol)
  net::TlsClientOptions tls;
  double timeout_scale = 1.0;

  bool claims(const std::string& feature) const { return features.count("*") != 0 || features.count(feature) != 0; }
  bool plays(const std::string& role) const { return roles.empty() || roles.count(role) != 0; }
  bool offers(const std::string& transport) const { return transports.empty() || transports.count(transport) != 0; }
  std::string path(const std::string& name) const;
  std::string setting(const std::string& key, const std::string& fallback = "") const;
};

// Parses --target (ws://, wss://, http://, https://, exec:'CMD', dir:PATH) onto `config`.
// `primary_path` names the endpoint a ws:// URL's path designates for this protocol.
Expected<bool, std::string> apply_target_url(TargetConfig& config, const std::string& url, const std::string& primary_path);
// Reads target.json (validated) onto `config`.
Expected<bool, std::string> apply_target_file(TargetConfig& config, const std::filesystem::path& file);

}  // namespace ac::engine
