// libFuzzer target fuzz_hub_alp: sessions of several agents played straight into the reference
// ALP lobby's handlers (POST /api/v1/register, /ws/connect, GET /api/v1/agents, the admin
// broadcast), no sockets: see fuzz/hub/hub_driver.hpp and fuzz/hub/README.md (input grammar,
// oracles). Status oracle: one session per open connection, online agents only among them;
// once every connection closed and every timer ran, nobody online and nothing pending.
// Seeds: fuzz/corpus/hub_alp/ (scripts/transcripts_to_hub_seeds.py); dictionary fuzz/dict/hub_alp.dict.
#include "fuzz/hub/hub_driver.hpp"
#include "fuzz/hub/status.hpp"

namespace {

std::string check(const nlohmann::json& s, const ac::fuzz::hub::StatusView& v) {
  using ac::fuzz::hub::count;
  const auto sessions = count(s, "sessions"), online = count(s, "online"), pending = count(s, "pending_invocations");
  if (!sessions || !online || !pending || !count(s, "agents")) return "lacks a count";
  if (*sessions != v.open_connections) return "counts a session per open connection";
  if (*online > *sessions) return "has more agents online than sessions";
  if (v.final && (*online != 0 || *pending != 0)) return "keeps agents online or invocations pending after everyone left";
  return "";
}

const ac::fuzz::hub::Target kTarget{ac::proto::ProtocolId::alp, "hub_alp", check};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ac::fuzz::hub::run_one(kTarget, data, size);
}
