// The ALP lobby's registry: every agent that registered over HTTP (§6 step 1), its auth_token
// and lifetime, its roles, its live session and its capabilities of that session (§6 step 4),
// and the index from token to agent. Plain data with no locking and no networking: the ALP
// core owns one Registry under its mutex, and the HTTP endpoint and the WebSocket handler both
// go through the core.
//
// Bounded: at most `max_agents` records. A registration at the cap evicts the record that has
// been offline longest among those whose token expired; when every record is still held (online
// or with a live token) the registration is refused (the endpoint answers 503).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "harness/protocols/alp/messages.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/semver/version.hpp"
#include "reference/alp/rate_limiter.hpp"
#include "reference/alp/settings.hpp"

namespace ac::ref::alp {

using TimePoint = std::chrono::system_clock::time_point;

// One advertised capability with what routing needs precomputed.
struct StoredCapability {
  proto::alp::Capability capability;
  semver::Version version;                                   // capability_version, parsed
  std::shared_ptr<const schema::CompiledSchema> input_schema;  // compiled input_schema (null: not validated)
};

struct AgentRecord {
  std::string agent_id;
  std::string agent_type;
  std::vector<std::string> roles;
  std::string token;  // the current auth_token
  TimePoint token_expires{};
  TimePoint registered_at{};
  TimePoint last_seen{};
  std::uint64_t session_peer = 0;  // peer id of the live WebSocket session, 0 when none
  bool online = false;             // a live session that did not send UNREGISTER_CLIENT
  std::string sticky_session_id;   // only for the fault alp.ack.reuse-session-id
  std::vector<StoredCapability> capabilities;  // of the latest successful REGISTER_CLIENT
  std::string agent_version, sdk_version;
  TokenBucket bucket;
  std::size_t pending_requests = 0;  // invocations this agent sent that await a final response
};

enum class TokenStatus { ok, missing, invalid, expired, agent_mismatch };

struct TokenCheck {
  TokenStatus status = TokenStatus::invalid;
  AgentRecord* agent = nullptr;  // the token's agent (also for expired and agent_mismatch)
};

struct RegistrationRequest {
  std::optional<std::string> agent_id;  // absent: provision one
  std::string agent_type;
  std::vector<std::string> roles;
};

struct Registration {
  enum class Outcome { created, renewed, provisioned, reissued, taken, full, internal_error };
  Outcome outcome = Outcome::internal_error;
  AgentRecord* agent = nullptr;  // for every outcome but taken, full and internal_error
  std::string message;           // why, for the refusals
};

class Registry {
 public:
  explicit Registry(std::size_t max_agents) : max_agents_(max_agents) {}

  // §6 step 1: registers (or re-registers) an agent and issues a fresh random token valid for `ttl`.
  Registration register_agent(const RegistrationRequest& request, IdConflict conflict, TimePoint now,
                              std::chrono::milliseconds ttl);
  // §6 step 3: the token of a WebSocket handshake and the agent_id it claims.
  TokenCheck check_token(std::string_view token, std::string_view agent_id, TimePoint now);

  AgentRecord* find(std::string_view agent_id);
  const AgentRecord* find(std::string_view agent_id) const;
  // Creates a record without registration (only the fault alp.handshake.accept-invalid-token
  // needs it); nullptr at the cap.
  AgentRecord* adopt(const std::string& agent_id, TimePoint now);

  // An agent_id is held while its agent is connected or its token is still valid.
  static bool held(const AgentRecord& agent, TimePoint now);

  const std::map<std::string, AgentRecord, std::less<>>& agents() const { return agents_; }
  std::map<std::string, AgentRecord, std::less<>>& agents() { return agents_; }
  std::size_t size() const { return agents_.size(); }

 private:
  bool make_room(TimePoint now);
  bool issue_token(AgentRecord& agent, TimePoint now, std::chrono::milliseconds ttl);

  std::size_t max_agents_;
  std::map<std::string, AgentRecord, std::less<>> agents_;
  std::unordered_map<std::string, std::string> tokens_;  // auth_token -> agent_id
};

}  // namespace ac::ref::alp
