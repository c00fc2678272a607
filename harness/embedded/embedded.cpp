#include "harness/embedded/embedded.hpp"

#include <unistd.h>

#include <atomic>
#include <optional>

#include "harness/embedded/protocols.hpp"
#include "harness/net/self_signed.hpp"

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

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  if (this != &other) {
    ScratchDir gone(std::move(*this));
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

namespace {

// The TLS twin: the same configuration on a TLS-only port with a certificate made now. Returns
// an error message, or nothing.
std::optional<std::string> start_tls_twin(const engine::Declarations& declarations, const std::set<std::string>& protocols,
                                            const std::set<std::string>& faults, Started& out) {
  static std::atomic<unsigned> counter{0};
  out.tls_dir = ScratchDir(std::filesystem::temp_directory_path() /
                           ("agentconform-tls-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1))));
  auto files = net::write_self_signed_certificate(out.tls_dir.path());
  if (!files) return "cannot make the embedded lobby's TLS certificate: " + files.error();
  // Configured for the protocols that have TLS cases only (another exchange directory for
  // AgentProtocol, say, would be made for nothing).
  std::set<std::string> tls_protocols;
  for (const auto& p : protocols) {
    const auto* decl = declarations.find(p);
    if (decl != nullptr && decl->features.count("tls") != 0) tls_protocols.insert(p);
  }
  if (tls_protocols.empty()) return std::nullopt;
  ref::LobbyConfig config = lobby_config(tls_protocols, faults);
  config.tls_cert_file = files->cert_pem.string();
  config.tls_key_file = files->key_pem.string();
  auto lobby = ref::Lobby::start(config);
  if (!lobby) return "cannot start the embedded reference lobby over TLS: " + lobby.error();
  out.tls_lobby = std::move(*lobby);
  for (auto& [p, plain] : out.targets) {
    if (tls_protocols.count(p) == 0) continue;
    auto t = target_for(declarations, p, out.tls_lobby->config(), out.tls_lobby->http_url(), out.tls_lobby->ws_url());
    if (!t) return t.error();
    t->tls.ca_file = files->cert_pem.string();
    t->features.insert("tls");
    plain.tls_twin = std::make_shared<const engine::TargetConfig>(std::move(*t));
  }
  return std::nullopt;
}

}  // namespace

Expected<Started, std::string> start(const engine::Declarations& declarations, const std::set<std::string>& protocols,
                                     const std::set<std::string>& faults, bool tls_twin) {
  Started out;
  auto lobby = ref::Lobby::start(lobby_config(protocols, faults));
  if (!lobby) return unexpected("cannot start the embedded reference lobby: " + lobby.error());
  out.lobby = std::move(*lobby);
  for (const auto& p : protocols) {
    auto t = target_for(declarations, p, out.lobby->config(), out.lobby->http_url(), out.lobby->ws_url());
    if (!t) return unexpected(t.error());
    out.targets.emplace(p, std::move(*t));
  }
  if (tls_twin) {
    if (auto error = start_tls_twin(declarations, protocols, faults, out)) return unexpected(*error);
  }
  return out;
}

}  // namespace ac::embedded
