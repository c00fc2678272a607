// Wires the reference lobby into a run as an ordinary target. For each protocol: how the lobby is
// configured for a conformance run (short timeouts and token lifetimes, known keys, directory
// pools), and the target document (the format of target.json: settings, features) that
// describes the configured lobby. The engine then builds the embedded target through the same
// declaration checks a third-party target.json goes through; it includes nothing from
// reference/. This layer sits above both (engine, reference) and below the command line.
#pragma once

#include <filesystem>
#include <memory>
#include <utility>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/engine/target.hpp"
#include "harness/util/expected.hpp"
#include "reference/core/config.hpp"
#include "reference/lobby/lobby.hpp"

namespace ac::embedded {

using Json = nlohmann::json;

// Adjusts the lobby's configuration for a conformance run of `protocol` (keeps what is set).
void configure(const std::string& protocol, ref::LobbyConfig& config);

// The target document ({"settings": ..., "features": [...]}) of a lobby started with `config`,
// and the AgentProtocol exchange directory ("" for the other protocols).
struct Description {
  Json document = Json::object();
  std::string directory;
};
Description describe(const std::string& protocol, const ref::LobbyConfig& config);

// A lobby configuration for these protocols, with these faults (names from the fault catalogues).
ref::LobbyConfig lobby_config(const std::set<std::string>& protocols, const std::set<std::string>& faults);

// The target of `protocol` served by a lobby with `config` at http_url/ws_url, validated
// against the protocol's declaration like any target.json.
Expected<engine::TargetConfig, std::string> target_for(const engine::Declarations& declarations, const std::string& protocol,
                                                       const ref::LobbyConfig& config, const std::string& http_url,
                                                       const std::string& ws_url);

// A directory of throw-away files (the TLS twin's certificate), removed with its owner.
class ScratchDir {
 public:
  ScratchDir() = default;
  explicit ScratchDir(std::filesystem::path path) : path_(std::move(path)) {}
  ScratchDir(ScratchDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  ScratchDir& operator=(ScratchDir&& other) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// An in-process lobby serving `protocols` and the targets of each. With `tls_twin`, a second
// lobby of the same configuration (and faults) listens TLS-only with a self-signed certificate
// made at start-up, and each target of a protocol that declares the feature tls gets it as its
// tls_twin (the TLS cases run there; the lobby's own TLS floor and refusal of plain text apply).
struct Started {
  std::unique_ptr<ref::Lobby> lobby;
  std::unique_ptr<ref::Lobby> tls_lobby;
  ScratchDir tls_dir;
  std::map<std::string, engine::TargetConfig> targets;
};
Expected<Started, std::string> start(const engine::Declarations& declarations, const std::set<std::string>& protocols,
                                     const std::set<std::string>& faults, bool tls_twin = false);

}  // namespace ac::embedded
