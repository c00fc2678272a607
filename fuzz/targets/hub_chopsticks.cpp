// libFuzzer target fuzz_hub_chopsticks: sessions of several agents played straight into the
// reference Chopsticks controller (/chopsticks/ws, GET /chopsticks/agents, POST
// /chopsticks/request), no sockets: see fuzz/hub/hub_driver.hpp and fuzz/hub/README.md (input
// grammar, oracles). A `req` the controller sends is answered with ${id} (the id it last sent).
// Status oracle: live agents only among the open connections; once every connection closed and
// every timer ran, no live agent and no RPC pending (each HTTP request answered exactly once).
// Seeds: fuzz/corpus/hub_chopsticks/ (scripts/transcripts_to_hub_seeds.py); dictionary
// fuzz/dict/hub_chopsticks.dict.
#include "fuzz/hub/hub_driver.hpp"
#include "fuzz/hub/status.hpp"

namespace {

std::string check(const nlohmann::json& s, const ac::fuzz::hub::StatusView& v) {
  using ac::fuzz::hub::count;
  const auto live = count(s, "live_agents"), pending = count(s, "pending_requests");
  if (!live || !pending) return "lacks a count";
  if (*live > v.open_connections) return "has more live agents than open connections";
  if (v.final && (*live != 0 || *pending != 0)) return "keeps live agents or pending requests after everyone left";
  return "";
}

const ac::fuzz::hub::Target kTarget{ac::proto::ProtocolId::chopsticks, "hub_chopsticks", check};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ac::fuzz::hub::run_one(kTarget, data, size);
}
