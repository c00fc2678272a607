// The reference A2ACP agent (a2acp-1.0.md, the agent side): a client of the a_domain auth service
// and of the ProtocolBrokerAgent, over the WebSocket binding of readings A2-6 and A2-14. It is the
// client that client-under-test mode is proven with
// (agentconform serve --protocol a2acp --command "agentconform agent --protocol a2acp").
//
// What it does (the "client script" the A2ACP client cases expect, docs/serve-a2acp.md):
//   1. acquires its tokens from the auth service (POST /auth/token, reading A2-11), one per
//      audience: first the broker's, then its peer's (when it has a peer), and keeps each until it
//      expires (renewing it once exp is reached, or a quarter of its lifetime before, at most 30 s);
//   2. attaches to the broker: <url>?agent_id=<id>&token=<its broker token> (reading A2-14);
//   3. as initiator (a peer is set): sends initiate_handshake {target_agent_id, requested_intent};
//      on the result {collaboration_id, contract} sends its request to the peer with
//      payload.contract_id (and a correlation_id) and the peer's token; a rejection (an error, or a
//      response with accepted false) ends the collaboration; an error with retry_after > 0 is
//      retried after that many seconds (at most three times), one with retry_after 0 never;
//   4. as responder: answers accept_handshake for the intent it serves with accepted true (others:
//      accepted false and a reason), and a routed request under a contract with a response to its
//      source carrying the same contract_id and correlation_id, with a token for that source.
// Every message carries security.auth_token, a token for the message's target_agent.
#pragma once

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ac::ref {

struct A2acpAgentOptions {
  std::string url;                 // ws://host:port/a2acp/ws (the broker)
  std::string http_base;           // http://host:port (the auth service)
  std::string token_path = "/auth/token";
  std::string api_key;             // sent as body member api_key when set (reading A2-20)
  std::string agent_id = "sdlc-test-agent";
  std::string domain = "a_domain";
  std::string version = "1.2.3";
  std::string protocol_version = "1.0";
  std::string broker_id = "protocol-broker-agent";
  std::string broker_domain = "a_domain";
  std::string broker_version = "1.0.0";
  std::string peer = "dataset-provisioning-agent";  // the agent it initiates a collaboration with; empty: none
  std::string peer_domain = "a_domain";
  std::string peer_version = "1.0.0";
  std::string intent = "provision_test_dataset";    // the intent it requests from its peer and serves itself
  std::vector<std::string> capabilities = {"read:datasets"};
  nlohmann::json input = {{"test_scenario_id", "scenario-123"}, {"dataset_type", "patient_demographics"}, {"record_count", 1000}};
  nlohmann::json output = {{"dataset_id", "dataset-abc"}, {"record_count", 1000}};
  std::chrono::milliseconds reconnect_delay{1000};
  int max_connections = -1;        // -1: reconnect forever
  // Misbehaviours, to prove the client cases fail on a broken agent (agents.hpp).
  bool ignore_contract_rejection = false;  // sends its request after a rejected handshake
  bool reuse_expired_token = false;        // keeps sending a token after its exp
  bool wrong_contract_id = false;          // requests carry the collaboration_id as contract_id
  bool omit_response_contract_id = false;  // responses to routed requests carry no contract_id
  bool wrong_audience_token = false;       // sends to other agents under its broker token
  bool decision_not_boolean = false;       // accept_handshake decision with accepted "true" (a string)
  bool ignore_retry_after = false;         // resends at once after an error with retry_after > 0
  bool retry_non_retryable = false;        // resends after an error with retry_after 0
};

// Runs until `stop` is set or the connection budget is spent. Returns 0, or 3 when the broker
// could never be reached.
int run_a2acp_agent(const A2acpAgentOptions& options, const std::atomic<bool>& stop, std::ostream& log);

}  // namespace ac::ref
