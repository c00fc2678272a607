// libFuzzer target fuzz_hub_a2acp: sessions of several agents played straight into the reference
// A2ACP auth service and broker (POST /auth/token, /a2acp/ws, GET /a2acp/agents), no sockets:
// see fuzz/hub/hub_driver.hpp and fuzz/hub/README.md (input grammar, oracles). Inputs get past
// authentication with `jwt N {claims}` (HS256 with the configured secret, times relative to
// the virtual clock) and ${jwt:N} in frames, queries and headers. Status oracle: one connection
// entry per open connection, attached agents among them; once every connection closed and every
// timer ran, nobody attached and no handshake or request pending.
// Seeds: fuzz/corpus/hub_a2acp/ (scripts/transcripts_to_hub_seeds.py); dictionary fuzz/dict/hub_a2acp.dict.
#include "fuzz/hub/hub_driver.hpp"
#include "fuzz/hub/status.hpp"

namespace {

std::string check(const nlohmann::json& s, const ac::fuzz::hub::StatusView& v) {
  using ac::fuzz::hub::count;
  const auto connections = count(s, "connections"), online = count(s, "agents_online");
  const auto handshakes = count(s, "pending_handshakes"), requests = count(s, "pending_requests");
  if (!connections || !online || !handshakes || !requests || !count(s, "collaborations")) return "lacks a count";
  if (*connections != v.open_connections) return "counts a connection per open connection";
  if (*online > *connections) return "has more agents attached than connections";
  if (v.final && (*online != 0 || *handshakes != 0 || *requests != 0)) {
    return "keeps agents attached, handshakes or requests pending after everyone left";
  }
  return "";
}

const ac::fuzz::hub::Target kTarget{ac::proto::ProtocolId::a2acp, "hub_a2acp", check};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ac::fuzz::hub::run_one(kTarget, data, size);
}
