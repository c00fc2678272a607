#include "harness/embedded/targets.hpp"

#include <algorithm>

#include "harness/embedded/embedded.hpp"
#include "reference/core/faults.hpp"

namespace ac::embedded {

std::string RunTargets::label() const {
  if (embedded() || targets.empty()) return "the embedded reference lobby";
  return targets.begin()->second.url;
}

bool third_party(const engine::RunOptions& o) { return !o.target_url.empty() || !o.target_config.empty(); }

Expected<RunTargets, std::string> prepare_targets(const engine::Loaded& loaded, const engine::Plan& plan, const engine::RunOptions& o,
                                                  bool* harness_error) {
  RunTargets out;
  std::set<std::string> protocols;
  for (const auto* c : plan.cases) protocols.insert(c->protocol);
  if (third_party(o)) {
    if (!o.lobby_faults.empty()) return unexpected(std::string("--lobby-fault applies to the embedded lobby only, not to --target"));
    std::string protocol = o.protocols.size() == 1 ? o.protocols.front() : "";
    if (o.protocols.size() > 1) return unexpected(std::string("a third-party target needs exactly one --protocol"));
    if (protocol.empty() && !o.target_config.empty()) protocol = engine::protocol_of_config(o.target_config);
    if (protocol.empty()) return unexpected(std::string("--target needs --protocol (or \"protocol\" in target.json)"));
    auto t = engine::resolve_target(loaded.declarations, {protocol, o.target_url, o.target_config});
    if (!t) return unexpected(t.error());
    out.targets.emplace(protocol, std::move(*t));
    return out;
  }
  for (const auto& f : o.lobby_faults) {
    if (!ref::FaultCatalog::builtin().find(f)) return unexpected("unknown fault \"" + f + "\" (agentconform lobby --list-faults)");
  }
  bool tls_cases = false;
  for (const auto* c : plan.cases) {
    tls_cases = tls_cases || std::find(c->features.begin(), c->features.end(), "tls") != c->features.end();
  }
  auto started = start(loaded.declarations, protocols, std::set<std::string>(o.lobby_faults.begin(), o.lobby_faults.end()), tls_cases);
  if (!started) {
    if (harness_error != nullptr) *harness_error = true;
    return unexpected(started.error());
  }
  out.lobby = std::move(started->lobby);
  out.tls_lobby = std::move(started->tls_lobby);
  out.tls_files = std::make_shared<ScratchDir>(std::move(started->tls_dir));
  out.targets = std::move(started->targets);
  return out;
}

}  // namespace ac::embedded
