// libFuzzer target fuzz_hub_agora: sessions of several agents played straight into the reference
// Agora relay (/agora/ws), no sockets: see fuzz/hub/hub_driver.hpp and fuzz/hub/README.md (input
// grammar, oracles). Status oracle: agents online only among the open (or accepted, opening)
// connections; once every connection closed, no agent online and no stream open.
// Seeds: fuzz/corpus/hub_agora/ (scripts/transcripts_to_hub_seeds.py); dictionary fuzz/dict/hub_agora.dict.
#include "fuzz/hub/hub_driver.hpp"
#include "fuzz/hub/status.hpp"

namespace {

std::string check(const nlohmann::json& s, const ac::fuzz::hub::StatusView& v) {
  using ac::fuzz::hub::count;
  const auto online = count(s, "agents_online"), streams = count(s, "open_streams");
  if (!online || !streams) return "lacks a count";
  // The relay binds an id when it accepts the upgrade (reading AG-1), before the open.
  if (*online > v.open_connections + v.pending_upgrades) return "has more agents online than open or opening connections";
  if (v.final && (*online != 0 || *streams != 0)) return "keeps agents online or streams open after everyone left";
  return "";
}

const ac::fuzz::hub::Target kTarget{ac::proto::ProtocolId::agora, "hub_agora", check};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ac::fuzz::hub::run_one(kTarget, data, size);
}
