// Agora: the relay needs no configuration; its frame limit is the lobby's.
#include "harness/embedded/protocols.hpp"

namespace ac::embedded {
namespace {

void configure(ref::LobbyConfig&) {}

Description describe(const ref::LobbyConfig& c) {
  Description d;
  d.document = {{"settings", {{"max_frame_bytes", c.section("agora").value("max_frame_bytes", static_cast<std::int64_t>(c.max_message_bytes))}}},
                {"features", {"agora.streaming", "agora.error-frames", "agora.stream-tracking"}}};
  return d;
}

}  // namespace

ProtocolWiring agora_wiring() { return {"agora", configure, describe}; }

}  // namespace ac::embedded
