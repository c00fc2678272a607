// The two AgentProtocol transports that are not a WebSocket (agentprotocol-0.1.md §Transport
// Bindings), as engine Channels so the same case can run over any of them:
//   HTTP  each sent message is one `POST <path>` (Content-Type: application/json), made in
//         order by a worker thread so a slow answer never blocks the case; a non-empty response
//         body becomes the next incoming message (an empty one, e.g. 202 for a notify, none).
//         A failed POST (unreachable, timeout) ends the channel like a dropped connection.
//   dir   the file exchange: each sent message is written to the shared directory under the
//         naming convention (harness/protocols/agentprotocol/file_naming.hpp; temporary name, then
//         rename), and incoming messages are the files addressed to the agent ({to} segment =
//         its own id), read oldest first and deleted. Closing the channel removes the agent's
//         unread mail and the files it wrote that nobody consumed.
// Both record every message in the case transcript.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "harness/engine/channel.hpp"
#include "harness/engine/driver.hpp"

namespace ac::engine {

std::shared_ptr<Channel> make_ap_http_channel(CaseEnv& env, std::string path, std::string name);

std::shared_ptr<Channel> make_ap_dir_channel(std::filesystem::path dir, std::string own_agent_id, std::string default_peer_id,
                                             Transcript& transcript, std::string name);

}  // namespace ac::engine
