#include "harness/embedded/embedded.hpp"

#include "harness/embedded/protocols.hpp"

namespace ac::embedded {

const std::vector<ProtocolWiring>& wirings() {
  static const std::vector<ProtocolWiring> all = {alp_wiring(), agora_wiring(), agentprotocol_wiring(), a2acp_wiring(), chopsticks_wiring()};
  return all;
}

namespace {

const ProtocolWiring* wiring_of(const std::string& protocol) {
  for (const auto& w : wirings()) {
    if (protocol == w.protocol) return &w;
  }
  return nullptr;
}

}  // namespace

void configure(const std::string& protocol, ref::LobbyConfig& config) {
  if (const auto* w = wiring_of(protocol)) w->configure(config);
}

Description describe(const std::string& protocol, const ref::LobbyConfig& config) {
  Description d;
  if (const auto* w = wiring_of(protocol)) d = w->describe(config);
  return d;
}

ref::LobbyConfig lobby_config(const std::set<std::string>& protocols, const std::set<std::string>& faults) {
  ref::LobbyConfig config;
  config.port = 0;
  config.threads = 2;
  config.faults = faults;
  for (const auto& p : protocols) configure(p, config);
  return config;
}

Expected<engine::TargetConfig, std::string> target_for(const engine::Declarations& declarations, const std::string& protocol,
                                                       const ref::LobbyConfig& config, const std::string& http_url,
                                                       const std::string& ws_url) {
  const auto* decl = declarations.find(protocol);
  if (decl == nullptr) return unexpected("no target declaration for " + protocol);
  Description d = describe(protocol, config);
  auto t = engine::target_from_document(*decl, d.document, http_url, "the embedded lobby's description");
  if (!t) return unexpected("the embedded lobby does not fit its own declaration (a bug): " + t.error());
  t->kind = "embedded";
  t->ws_base = ws_url;
  if (!d.directory.empty()) t->directory = d.directory;
  return t;
}

Expected<Started, std::string> start(const engine::Declarations& declarations, const std::set<std::string>& protocols,
                                     const std::set<std::string>& faults) {
  Started out;
  auto lobby = ref::Lobby::start(lobby_config(protocols, faults));
  if (!lobby) return unexpected("cannot start the embedded reference lobby: " + lobby.error());
  out.lobby = std::move(*lobby);
  for (const auto& p : protocols) {
    auto t = target_for(declarations, p, out.lobby->config(), out.lobby->http_url(), out.lobby->ws_url());
    if (!t) return unexpected(t.error());
    out.targets.emplace(p, std::move(*t));
  }
  return out;
}

}  // namespace ac::embedded
