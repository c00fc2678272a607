// The concrete channels: WebSocket (over net::WsClient) and exec (a child process speaking one
// JSON message per line on stdin/stdout). Both record everything in the case transcript.
#pragma once

#include <memory>
#include <string>

#include "harness/engine/channel.hpp"
#include "harness/engine/transcript.hpp"
#include "harness/net/client.hpp"

namespace ac::engine {

std::shared_ptr<Channel> make_ws_channel(std::shared_ptr<net::WsClient> client, Transcript& transcript, std::string name);

// Starts `/bin/sh -c command` with AGENTCONFORM_* variables in its environment; each line the
// process writes on stdout is one incoming text message, each sent message one line on its
// stdin. The process is killed when the channel is closed or destroyed.
Expected<std::shared_ptr<Channel>, std::string> make_exec_channel(const std::string& command, Transcript& transcript,
                                                                  std::string name, std::size_t max_line_bytes = 16 * 1024 * 1024);

}  // namespace ac::engine
