// The broker's agent directory (protocols.a2acp.agents): which agents exist, their domain and
// version, the intents each serves (input/output JSON Schemas, required capabilities, optional
// routing timeout) and the intents each uses as a source (its declared input schema, the
// "source agent capability spec" of §Contract Negotiation). The spec never says how a broker
// learns capability specs, so the reference reads them from its configuration (reading A2-15);
// schemas are compiled once, with compile_untrusted, when the configuration is loaded.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/protocols/a2acp/messages.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/util/expected.hpp"

namespace ac::ref::a2acp {

using Json = nlohmann::json;
using CompiledPtr = std::shared_ptr<const schema::CompiledSchema>;

// An intent an agent serves (it is the target of collaborations for it).
struct IntentSpec {
  std::string name;
  Json input_schema = Json::object();   // what the target expects ({} = anything)
  Json output_schema = Json::object();  // what the target answers
  CompiledPtr input, output;
  std::vector<std::string> required_capabilities;  // token rule 4 for this intent
  std::optional<std::chrono::milliseconds> routing_timeout;  // unscaled; default: the section's
};

// An intent an agent uses as a source: the schema of what it will send, and of what it expects back.
struct UseSpec {
  std::optional<Json> input_schema;
  std::optional<Json> output_schema;
};

struct AgentSpec {
  std::string agent_id, domain, version;
  std::map<std::string, IntentSpec> intents;  // served
  std::map<std::string, UseSpec> uses;        // used as a source
  // Capabilities the auth service may grant this agent (absent: whatever it requests).
  std::optional<std::vector<std::string>> grantable_capabilities;

  proto::a2acp::Agent identity() const { return {agent_id, domain, version, Json::object()}; }
};

class Directory {
 public:
  const AgentSpec* find(const std::string& agent_id) const;
  const std::map<std::string, AgentSpec>& agents() const { return agents_; }
  // The directory as GET /a2acp/agents shows it (schemas included).
  Json to_json() const;

  // Parses the `agents` array; errors name the member ("protocols.a2acp.agents[1].intents.x.input_schema: ...").
  static Expected<Directory, std::string> parse(const Json& agents, const std::string& where);
  // The spec's example agents (a_domain's sdlc-test-agent, medtronic_poc's dataset-provisioning-agent).
  static Json default_json();

 private:
  std::map<std::string, AgentSpec> agents_;
};

// MAJOR.MINOR.PATCH, digits only (the base schema's Agent.version pattern).
bool is_agent_version(const std::string& v);

}  // namespace ac::ref::a2acp
