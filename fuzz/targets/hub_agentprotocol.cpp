// libFuzzer target fuzz_hub_agentprotocol: sessions of several agents played straight into the
// reference AgentProtocol agent (/agentprotocol/ws and POST /agentprotocol), no sockets: see
// fuzz/hub/hub_driver.hpp and fuzz/hub/README.md (input grammar, oracles). Inputs get past
// signature verification with `sign K` (the next frame or body gets from.agentId and the
// signature of test key K; ${key:K} is that agentId). Status oracle: at most 16 agents bound per
// open connection; once every connection closed and every timer ran, none bound, none pending.
// Seeds: fuzz/corpus/hub_agentprotocol/ (scripts/transcripts_to_hub_seeds.py); dictionary
// fuzz/dict/hub_agentprotocol.dict.
#include "fuzz/hub/hub_driver.hpp"
#include "fuzz/hub/status.hpp"

namespace {

// AgentSettings::max_bindings_per_connection (reference/agentprotocol/agent.hpp).
constexpr std::uint64_t kMaxBindingsPerConnection = 16;

std::string check(const nlohmann::json& s, const ac::fuzz::hub::StatusView& v) {
  using ac::fuzz::hub::count;
  const auto bound = count(s, "connected_agents"), pending = count(s, "pending_requests");
  if (!bound || !pending || !count(s, "rate_limited_senders")) return "lacks a count";
  if (*bound > kMaxBindingsPerConnection * v.open_connections) return "has more agents bound than its connections may carry";
  if (v.final && (*bound != 0 || *pending != 0)) return "keeps agents bound or requests pending after everyone left";
  return "";
}

const ac::fuzz::hub::Target kTarget{ac::proto::ProtocolId::agentprotocol, "hub_agentprotocol", check};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ac::fuzz::hub::run_one(kTarget, data, size);
}
