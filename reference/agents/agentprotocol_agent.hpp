// The reference AgentProtocol 0.1 agent, client side (agentprotocol-0.1.md): connects to a peer's
// WebSocket (/agentprotocol/ws), says hello to it (Agent A of §Handshake Flow), and once the
// peer's hello lists settings' capability sends one request for that action. It serves `echo`
// requests from the peer itself (AgentProtocol is symmetric: both ends are agents). Every message
// it sends is signed over the canonical form (harness/protocols/agentprotocol/signature.hpp);
// every message it receives is checked before it acts on it, in this order:
//   signature (missing or not verifying under from.agentId: error INVALID_SIGNATURE, reading
//   AP-13 for unsigned ones), sender (from.agentId must be the peer: INVALID_SIGNATURE),
//   protocol "agentprotocol/0.1" and the message format (INVALID_MESSAGE), addressee (to.agentId
//   must be its own: UNKNOWN_AGENT), timestamp within max_skew of its clock (INVALID_MESSAGE,
//   reading AP-15), message id not already processed from that sender (INVALID_MESSAGE, reading
//   AP-14), and for a hello payload.version "0.1" (INVALID_MESSAGE).
// Refused messages are answered with an error (carrying the correlationId when there is one; a
// refused error is only logged) and otherwise ignored: a forged hello never leads to a request, a
// forged request is never served.
//
// It is the client that `agentconform serve --protocol agentprotocol` is proven with. The peer's
// agentId comes from AGENTCONFORM_PEER_ID (serve sets it) or --set peer=ID.
#pragma once

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <string>

namespace ac::ref {

struct AgentProtocolAgentOptions {
  std::string url;                          // ws://host:port/agentprotocol/ws
  std::string peer_id;                      // the peer's agentId (base64 Ed25519 public key)
  std::string seed_hex;                     // 64 hex digits: a fixed key; empty: a fresh key
  std::string name = "agentconform reference agent";
  std::string version = "0.1";              // payload.version of its hello
  std::string action = "echo";              // what it requests once the peer lists `capability`
  std::string capability = "agentconform:echo";
  std::chrono::seconds max_skew{300};       // accepted distance of a timestamp from its clock
  std::chrono::milliseconds reconnect_delay{1000};
  int max_connections = -1;                 // -1: reconnect forever
  // Misbehaviours, to prove the client-under-test cases fail on a broken agent.
  bool skip_signature_verification = false; // acts on forged and unsigned messages
  bool accept_unsigned = false;             // checks signatures only when there is one
  bool accept_old_version = false;          // takes any protocol / hello version
  bool sign_wrong_bytes = false;            // signs indented JSON, not the canonical form
  bool reuse_message_id = false;            // every message it sends has the same id
  bool accept_replay = false;               // serves a message id it already processed
  bool ignore_timestamp = false;            // serves stale and future-dated messages
};

// Runs until `stop` is set or the connection budget is spent. Returns 0, 2 for a bad setting
// (said on `log`), 3 when the peer could never be reached.
int run_agentprotocol_agent(const AgentProtocolAgentOptions& options, const std::atomic<bool>& stop, std::ostream& log);

}  // namespace ac::ref
