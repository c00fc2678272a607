// Contracts (a2acp-1.0.md §Contract Negotiation): the broker generates one from a handshake
// (input schema from the source's capability spec, output schema from the target's, security
// policy from the domain policies), validates it (the ContractValidatorAgent's three checks:
// schema compatibility, security policy, permissions) and stores it, with its collaboration and
// the requests routed under it that still await a response.
//
//   - input schema: the source's declared input schema for the intent (the handshake payload's
//     `input_schema`, else the directory's `uses`), else the target's expected one. Payloads are
//     validated against the target's expected schema and, when declared, the source's own.
//   - output schema: the target's; a source may declare what it expects back (`output_schema`),
//     which the target's output schema must then satisfy.
//   - security policy: {encryption: "aes256" for a PII intent else "none", pii, cross_domain,
//     source_domain, target_domain, required_capabilities}.
// Permission verification is token rule 4 on the handshake (the intent's required capabilities).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/net/types.hpp"
#include "harness/protocols/a2acp/messages.hpp"
#include "reference/a2acp/directory.hpp"
#include "reference/a2acp/rate_limits.hpp"
#include "reference/a2acp/settings.hpp"

namespace ac::ref::a2acp {

// Why the broker refuses something: an A2ACP error code, a message and details.
struct Failure {
  std::string code;
  std::string message;
  Json details = Json::object();
};

// A request routed under a contract, awaiting the target's response (or its timeout).
struct PendingRequest {
  std::string message_id;
  std::optional<std::string> correlation_id;
  std::optional<std::string> intent;
  proto::a2acp::Agent source_agent;  // who is told TIMEOUT
  net::Scheduler::TimerId timer = 0;
};

struct Contract {
  std::string contract_id, collaboration_id, intent;
  proto::a2acp::Agent source, target;
  Json input_schema = Json::object(), output_schema = Json::object();  // as published
  CompiledPtr target_input, source_input, output;                       // the checks
  std::vector<std::string> required_capabilities;
  bool pii = false;
  bool cross_domain = false;
  std::string source_domain, target_domain;
  std::chrono::milliseconds routing_timeout{30000};
  TimePoint created{}, expires{};

  Json security_policy() const;
  // The contract object of the handshake result (schemas/a2acp/handshake_result.schema.json).
  Json to_json() const;
  bool expired(TimePoint now) const { return now >= expires; }
};

struct Collaboration {
  Contract contract;
  std::map<std::uint64_t, PendingRequest> pending;  // by arrival order
};

struct NegotiationInput {
  proto::a2acp::Agent source;     // the source agent as its handshake names it
  std::string source_domain;      // the directory's, else the token's domain claim
  const AgentSpec* source_spec = nullptr;  // when the source is listed
  const AgentSpec* target = nullptr;
  const IntentSpec* intent = nullptr;
  const Json* handshake_extra = nullptr;  // the initiate_handshake payload's other members
};

// Generates and validates the contract of a handshake (ids left empty for the caller).
Expected<Contract, Failure> negotiate(const Settings& settings, const NegotiationInput& in, TimePoint now);

// The payload as the contract schemas see it: without the broker's own members contract_id and
// correlation_id (the spec's examples mix them into the data).
Json contract_view(const Json& payload);

// The first violation of a request payload (input) or response payload (output), if any.
std::optional<schema::Violation> check_input(const Contract& contract, const Json& payload);
std::optional<schema::Violation> check_output(const Contract& contract, const Json& payload);

}  // namespace ac::ref::a2acp
