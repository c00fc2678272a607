// The reference AgentProtocol 0.1 agent (agentprotocol-0.1.md): one Ed25519 identity that
// answers messages arriving over any transport (WebSocket, HTTP, file exchange), and a relay
// between the agents connected over WebSocket.
//
// Every incoming message goes through the same pipeline, in this order (README.md, "Pipeline"):
//   1. size and strict JSON (INVALID_MESSAGE)
//   2. signature against from.agentId, before anything else (INVALID_SIGNATURE; a message
//      without signature too, unless require_signature is false)
//   3. rate limit per verified sender (RATE_LIMITED)
//   4. schema (codec; INVALID_MESSAGE with the pointer, rule and section in details)
//   5. routing by to: the reference itself, a broadcast (relayed to every other connected
//      agent and handled here too), a connected agent (relayed unchanged), else UNKNOWN_AGENT
//   6. by type: hello -> hello (version check), request -> demo action (response,
//      CAPABILITY_NOT_SUPPORTED, TIMEOUT), notify/response/error -> nothing
// Each handled message ends in exactly one Sink call: reply() (signed message) or no_reply().
// Everything the agent sends is built with the typed builders and signed last.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/crypto/ed25519.hpp"
#include "harness/net/types.hpp"
#include "harness/protocols/agentprotocol/messages.hpp"
#include "reference/agentprotocol/actions.hpp"
#include "reference/agentprotocol/rate_limiter.hpp"
#include "reference/core/hub.hpp"

namespace ac::ref::agentprotocol {

using Json = nlohmann::json;
namespace ap = proto::agentprotocol;

struct AgentSettings {
  std::string name = "agentconform reference agent";
  std::set<std::string> supported_versions = {"0.1"};
  std::vector<std::string> features = {"signed-messages"};
  bool require_signature = true;  // the spec says SHOULD sign; the reference refuses unsigned messages
  bool relay = true;
  bool rate_limit = true;
  double rate_limit_burst = 100;
  double rate_limit_per_second = 20;
  ActionLimits limits;
  std::size_t max_pending_per_sender = 16;
  std::size_t max_pending = 4096;
  std::size_t max_bindings_per_connection = 16;
  std::size_t max_message_bytes = 1024 * 1024;

  // Faults (reference/agentprotocol/faults.json), each breaking one rule.
  bool skip_verify = false;               // agentprotocol.signature.skip-verify
  bool coerce_wrong_types = false;        // agentprotocol.schema.coerce-wrong-types (reference/core/lenient_types.hpp)
  bool hello_no_capabilities = false;     // agentprotocol.hello.no-capabilities
  bool error_wrong_code = false;          // agentprotocol.error.wrong-code
  bool protocol_accept_any = false;       // agentprotocol.version.accept-any
  bool hello_accept_any_version = false;  // agentprotocol.hello.accept-any-version
  bool reply_unsigned = false;            // agentprotocol.reply.unsigned
  bool reply_bad_signature = false;       // agentprotocol.reply.bad-signature
  bool error_no_correlation_id = false;   // agentprotocol.error.no-correlation-id
  bool broadcast_ignored = false;         // agentprotocol.relay.broadcast-ignored
  bool timeout_ignored = false;           // agentprotocol.timeout.ignored
  bool response_wrong_correlation = false;  // agentprotocol.response.wrong-correlation-id
  bool notify_answered = false;           // agentprotocol.notify.answered
  bool planted_leak_invalid = false;      // agentprotocol.planted.leak-per-invalid-message (fuzzer proof)
};

// Where the answer to one handled message goes. Exactly one call per handled message, possibly
// later and from another thread (a delayed action).
class Sink {
 public:
  virtual ~Sink() = default;
  // A signed message for the sender; `error_code` is the payload code of an error ("" otherwise).
  virtual void reply(const Json& message, const std::string& error_code) = 0;
  // Nothing to answer: notify, response, error, or a message relayed to other agents.
  virtual void no_reply() = 0;
};

// The transport a message came from.
struct Origin {
  std::shared_ptr<net::Peer> peer;  // WebSocket: the connection (bound to the verified sender)
  std::string fallback_sender;      // file exchange: the sender named by the file, for errors
};

class Agent : public std::enable_shared_from_this<Agent> {
 public:
  Agent(HubContext& context, AgentSettings settings, crypto::Ed25519PrivateKey key);

  const std::string& agent_id() const { return agent_id_; }
  const AgentSettings& settings() const { return settings_; }

  void handle(std::string_view text, const Origin& origin, const std::shared_ptr<Sink>& sink);
  // A frame that cannot be a message at all (a binary WebSocket frame, an oversized body).
  void reject(const std::string& why, const std::string& rule, const Origin& origin, const std::shared_ptr<Sink>& sink);
  // A WebSocket connection closed: its agents are no longer reachable.
  void disconnected(std::uint64_t peer_id);
  // Cancels every pending action; their senders get INTERNAL_ERROR.
  void shutdown();

  Json status() const;

 private:
  struct Pending {
    std::string sender;
    std::string correlation;
    std::shared_ptr<Sink> sink;
    net::Scheduler::TimerId timer = 0;
  };
  struct Binding {
    std::shared_ptr<net::Peer> peer;
  };

  void route(const Json& raw_json, std::string_view text, const ap::Message& message, const Origin& origin,
             const std::shared_ptr<Sink>& sink);
  void handle_local(const ap::Message& message, const std::shared_ptr<Sink>& sink);
  void handle_request(const ap::Message& message, const ap::Request& request, const std::shared_ptr<Sink>& sink);
  void finish_pending(std::uint64_t id, ap::Message reply);
  void bind(const Origin& origin, const std::string& sender);

  ap::From self(bool for_hello = false) const;
  Json seal(const ap::Message& message) const;  // to_json + signature (and the reply faults)
  void send_error(const std::shared_ptr<Sink>& sink, const std::string& to, const std::string& code, const std::string& text,
                  std::optional<std::string> correlation, Json details);
  void send(const std::shared_ptr<Sink>& sink, const ap::Message& message);

  HubContext& context_;
  AgentSettings settings_;
  crypto::Ed25519PrivateKey key_;
  std::optional<crypto::Ed25519PrivateKey> wrong_key_;  // reply.bad-signature only
  std::string agent_id_;

  mutable std::mutex mutex_;
  RateLimiter limiter_;
  std::map<std::string, Binding> bindings_;                         // agentId -> connection
  std::map<std::uint64_t, std::set<std::string>> by_connection_;    // peer id -> agentIds
  std::map<std::uint64_t, Pending> pending_;                        // delayed actions
  std::map<std::string, std::size_t> pending_by_sender_;
  std::uint64_t next_pending_ = 1;
  bool stopped_ = false;
  // Planted bug agentprotocol.planted.leak-per-invalid-message: rejected input kept for ever.
  std::mutex rejected_mutex_;
  std::vector<std::string> rejected_cache_;
};

}  // namespace ac::ref::agentprotocol
