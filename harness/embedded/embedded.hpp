// Wires the reference lobby into a run as an ordinary target. For each protocol: how the lobby is
// configured for a conformance run (short timeouts and token lifetimes, known keys, directory
// pools), and the target document (the format of target.json: settings, features) that
// describes the configured lobby. The engine then builds the embedded target through the same
// declaration checks a third-party target.json goes through; it includes nothing from
// reference/. This layer sits above both (engine, reference) and below the command line.
#pragma once

#include <memory>
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

// An in-process lobby serving `protocols` and the targets of each.
struct Started {
  std::unique_ptr<ref::Lobby> lobby;
  std::map<std::string, engine::TargetConfig> targets;
};
Expected<Started, std::string> start(const engine::Declarations& declarations, const std::set<std::string>& protocols,
                                     const std::set<std::string>& faults);

}  // namespace ac::embedded
