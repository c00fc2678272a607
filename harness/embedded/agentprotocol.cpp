// AgentProtocol: a known key (so the peer's agentId is a setting), a private exchange directory
// (removed at shutdown), a fast poll and a rate limit the error-code cases reach.
#include <stdlib.h>

#include <filesystem>

#include "harness/crypto/ed25519.hpp"
#include "harness/embedded/protocols.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"

namespace ac::embedded {
namespace {

void configure(ref::LobbyConfig& config) {
  Json& s = config.protocols["agentprotocol"];
  if (!s.is_object()) s = Json::object();
  if (!s.contains("key_pem") && !s.contains("key_file")) {
    if (auto key = crypto::Ed25519PrivateKey::generate()) {
      if (auto pem = key->to_pem()) s["key_pem"] = *pem;
    }
  }
  if (!s.contains("exchange_dir")) {
    std::string templ = (std::filesystem::temp_directory_path() / "agentconform-ap-XXXXXX").string();
    if (::mkdtemp(templ.data()) != nullptr) {
      s["exchange_dir"] = templ;
      s["exchange_cleanup"] = true;
    }
  }
  if (!s.contains("exchange_poll_ms")) s["exchange_poll_ms"] = 20;
  if (!s.contains("rate_limit_burst")) s["rate_limit_burst"] = 20;
  if (!s.contains("rate_limit_per_second")) s["rate_limit_per_second"] = 10;
}

Description describe(const ref::LobbyConfig& config) {
  const Json& s = config.section("agentprotocol");
  Json settings = {{"max_message_bytes", static_cast<std::int64_t>(config.max_message_bytes)}};
  if (auto pem = s.find("key_pem"); pem != s.end() && pem->is_string()) {
    if (auto key = crypto::Ed25519PrivateKey::from_pem(pem->get<std::string>())) {
      settings["peer_agent_id"] = proto::agentprotocol::agent_id(key->public_key());
    }
  }
  Description d;
  d.document = {{"settings", settings},
                {"features", {"agentprotocol.http", "agentprotocol.ws", "agentprotocol.file-exchange", "agentprotocol.relay",
                              "agentprotocol.rate-limit", "agentprotocol.request-timeout", "agentprotocol.failing-action"}}};
  if (auto dir = s.find("exchange_dir"); dir != s.end() && dir->is_string()) d.directory = dir->get<std::string>();
  return d;
}

}  // namespace

ProtocolWiring agentprotocol_wiring() { return {"agentprotocol", configure, describe}; }

}  // namespace ac::embedded
