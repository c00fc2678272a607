// The reference Agora agent (agora-relay-streaming.md, agent side): connects to the relay with its
// id in the URL (?agent_id=, reading AG-1), sends what its script says (a one-shot send, a stream
// send(stream true) -> send_chunk... -> send_end, or two streams open at once with distinct
// stream_ids), and answers what it receives: a one-shot `message` with a one-shot `reply`, a
// streamed one (message/message_chunk/message_end) with a streamed reply, each reply carrying the
// request's request_id (§3). Relay error frames (reading AG-6) end the stream they name. It is the
// client that client-under-test mode is proven with (agentconform serve --protocol agora).
#pragma once

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <string>

namespace ac::ref {

// What the agent sends once connected. The relay never tells an agent to send, so the client cases
// (AGORA-LC-101, AGORA-ST-101/102) need each a different opening: the agent picks its script from
// $AGENTCONFORM_CASE (set by serve) unless --set script= names one.
enum class AgoraScript { none, oneshot, stream, two_streams, all };

struct AgoraAgentOptions {
  std::string url;                 // ws://host:port/agora/ws (the query is added by the agent)
  std::string agent_id = "reference-agent";
  std::string query_parameter = "agent_id";
  std::string to = "agentconform-peer";  // the recipient of the scripted sends
  AgoraScript script = AgoraScript::all;
  std::chrono::milliseconds reconnect_delay{1000};
  int max_connections = -1;        // -1: reconnect forever
  // Misbehaviours, to prove the client-under-test cases fail on a broken agent.
  bool end_oneshot = false;        // a one-shot send followed by send_end
  bool oneshot_stream_true = false;  // a one-shot send flagged stream: true
  bool no_send_end = false;        // streams never ended
  bool chunk_wrong_stream_id = false;  // chunks carry another stream_id than the start
  bool chunk_after_end = false;    // one more send_chunk after send_end
  bool reuse_stream_id = false;    // every stream uses the same stream_id
  bool drop_request_id = false;    // replies without the request's request_id
};

// Runs until `stop` is set (then closes with 1000) or the connection budget is spent. Returns 0,
// or 3 when the relay could never be reached.
int run_agora_agent(const AgoraAgentOptions& options, const std::atomic<bool>& stop, std::ostream& log);

}  // namespace ac::ref
