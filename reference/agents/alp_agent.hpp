// The reference ALP agent (alp-0.2.0.md, agent side, §6 and §10.1): registers over HTTP
// (POST /api/v1/register with agent_id, agent_type and the API key), opens the WebSocket with
// ?token=&agent_id=, sends REGISTER_CLIENT to the lobby_id first, answers PING with PONG (nonce
// echoed), validates every INVOKE_CAPABILITY_REQUEST (§9 "Agents MUST validate requests they
// receive") and answers it pending_async, then success, with the request's conversation_id; sends
// PING when idle, reconnects after a close (registering again when the lobby refuses its token)
// and leaves with UNREGISTER_CLIENT. It is the client that client-under-test mode is proven with
// (agentconform serve --protocol alp --command "agentconform agent --protocol alp").
#pragma once

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <string>

namespace ac::ref {

struct AlpAgentOptions {
  std::string url;                // ws://host:port/ws/connect (the query is added by the agent)
  std::string register_url;       // http://host:port/api/v1/register
  std::string agent_id = "reference-agent";
  std::string agent_type = "reference";
  std::string api_key = "agentconform-reference-key";
  std::string protocol_version = "0.2.0";
  std::chrono::milliseconds heartbeat{30000};        // PING after this long without sending
  std::chrono::milliseconds reconnect_delay{1000};
  std::chrono::milliseconds async_delay{100};        // pending_async -> final response
  int max_connections = -1;       // -1: reconnect forever
  // Misbehaviours, to prove the client-under-test cases fail on a broken agent.
  bool register_without_type = false;  // registration body without agent_type
  bool no_reregister = false;          // after a refused upgrade, retry with the same token
  bool reuse_old_token = false;        // registers again but connects with the first token
  bool token_in_header = false;        // token in an Authorization header, not in the URI
  bool ignore_lobby_id = false;        // REGISTER_CLIENT to "lobby", not the lobby_id returned
  bool no_pong = false;                // PING left unanswered
  bool pong_without_nonce = false;     // PONG without the PING's nonce
  bool no_input_validation = false;    // input_data not checked: a non-object input succeeds
  bool never_complete = false;         // pending_async, then no final response
  bool new_conversation_id = false;    // responses carry a fresh conversation_id
};

// Runs until `stop` is set (then UNREGISTER_CLIENT and close 1000) or until the connection budget
// is spent. Returns 0, or 3 when the lobby could never be reached.
int run_alp_agent(const AlpAgentOptions& options, const std::atomic<bool>& stop, std::ostream& log);

}  // namespace ac::ref
