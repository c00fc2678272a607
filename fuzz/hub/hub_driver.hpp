// The in-process session driver behind the fuzz_hub_<protocol> targets: it creates one
// reference hub (reference/core/hub.hpp, through hub_factories()) per input, with fake peers
// instead of sockets and a manual clock instead of Asio timers, and plays the input as a session
// of several agents straight into the hub's WsHandler / HttpHandler routes. So libFuzzer's
// coverage guidance reaches the hubs' state machines, and everything is deterministic except
// the hubs' random ids (UUIDs, tokens), which inputs reference by placeholder.
//
// Input: one operation per line (fuzz/hub/README.md has the grammar, the placeholders and the
// oracles). The driver emulates what net::Server does around the handlers (exact-path routes,
// 1009 for oversized messages, 1007 for invalid UTF-8 in text frames, no frames delivered once a
// close started, on_close once per opened connection) and aborts on any oracle violation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/protocols/protocol_id.hpp"

namespace ac::fuzz::hub {

// What a target knows about its hub, for the status() oracle.
struct StatusView {
  std::size_t open_connections = 0;  // opened (on_open ran) and not closed (on_close ran)
  std::size_t pending_upgrades = 0;  // upgrades accepted whose open has not run yet (`upgrade` lines)
  bool final = false;                // every connection closed and every timer drained
};

struct Target {
  proto::ProtocolId protocol;
  // The config variants: data_dir()/fuzz/hub/configs/<name>.json, {"variants": [LobbyConfig...]}.
  const char* name;
  // "" when the hub's status() is consistent with the view, otherwise what is wrong.
  std::function<std::string(const nlohmann::json& status, const StatusView& view)> check_status;
};

// Plays one input; aborts (libFuzzer reports a crash) when an oracle is violated.
int run_one(const Target& target, const std::uint8_t* data, std::size_t size);

}  // namespace ac::fuzz::hub
