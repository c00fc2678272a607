// Ready-made Chopsticks messages for the reference controller and mock agents.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/protocols/chopsticks/messages.hpp"

namespace ac::proto::chopsticks {

// Controller -> agent.
Message make_error(std::string text);
// The controller's answer to a hello whose protocolVersion is not supported (chopsticks-1.0.0.md
// "Version Mismatch": "Incompatible protocol version 0.9.0. Controller expects 1.0.0.").
Message make_version_error(std::string_view offered, std::string_view expected);
// A req with a fresh UUID id.
Message make_req(std::string op, std::optional<Json> data, std::string agent_id);

// Agent -> controller.
Message make_hello(std::string agent_id, std::string pool_id, std::vector<std::string> guild_ids, bool ready = true,
                   std::optional<std::string> bot_user_id = {}, std::optional<std::string> tag = {},
                   std::string protocol_version = "1.0.0");
Message make_guilds(std::vector<std::string> guild_ids);
// Answers `req` (same id).
Message make_resp_ok(const Req& req, std::optional<Json> data = {});
Message make_resp_error(const Req& req, std::string error);

}  // namespace ac::proto::chopsticks
