// Contract generation and validation (see contracts.hpp).
#include "reference/a2acp/contracts.hpp"

#include "harness/protocols/typed/stamp.hpp"
#include "reference/a2acp/schema_compat.hpp"

namespace ac::ref::a2acp {
namespace {

// A schema the source declares in its handshake or its directory entry, compiled.
Expected<CompiledPtr, Failure> compile_declared(const Json& schema, const std::string& member) {
  if (!schema.is_object()) {
    return unexpected(Failure{"SCHEMA_MISMATCH", "the source's " + member + " is not a JSON Schema object",
                              Json{{"pointer", "/payload/" + member}, {"rule", "type"}}});
  }
  auto compiled = schema::compile_untrusted(schema);
  if (!compiled) {
    return unexpected(Failure{"SCHEMA_MISMATCH", "the source's " + member + " is not a usable JSON Schema: " + compiled.error(),
                              Json{{"pointer", "/payload/" + member}, {"rule", "schema"}}});
  }
  return CompiledPtr(*compiled);
}

std::optional<schema::Violation> first_violation(const CompiledPtr& schema, const Json& instance) {
  if (!schema) return std::nullopt;
  auto v = schema->validate(instance, 1);
  if (v.empty()) return std::nullopt;
  return v.front();
}

}  // namespace

Json Contract::security_policy() const {
  return {{"encryption", pii ? "aes256" : "none"}, {"pii", pii},
          {"cross_domain", cross_domain},          {"source_domain", source_domain},
          {"target_domain", target_domain},        {"required_capabilities", required_capabilities}};
}

Json Contract::to_json() const {
  return {{"contract_id", contract_id},
          {"collaboration_id", collaboration_id},
          {"intent", intent},
          {"source_agent_id", source.agent_id},
          {"target_agent_id", target.agent_id},
          {"input_schema", input_schema},
          {"output_schema", output_schema},
          {"security_policy", security_policy()},
          {"protocol_version", std::string(proto::a2acp::kProtocolVersion)},
          {"routing_timeout_ms", routing_timeout.count()},
          {"created_at", proto::typed::utc_timestamp(created)},
          {"expires_at", proto::typed::utc_timestamp(expires)}};
}

Expected<Contract, Failure> negotiate(const Settings& s, const NegotiationInput& in, TimePoint now) {
  const AgentSpec& target = *in.target;
  const IntentSpec& intent = *in.intent;
  Contract c;
  c.intent = intent.name;
  c.source = in.source;
  c.target = target.identity();
  c.source_domain = in.source_domain;
  c.target_domain = target.domain;
  c.required_capabilities = intent.required_capabilities;
  c.pii = s.pii_intents.count(intent.name) != 0;
  c.cross_domain = c.source_domain != c.target_domain;
  c.routing_timeout = s.routing_timeout_for(&intent);
  c.created = now;
  c.expires = now + s.contract_ttl;
  c.output_schema = intent.output_schema;
  c.target_input = intent.input;
  c.output = intent.output;

  // Security policy: a cross-domain collaboration only for an allowed domain pair.
  if (c.cross_domain && !s.faults.policy_allow_cross_domain && !s.cross_domain_allowed_for(c.source_domain, c.target_domain)) {
    return unexpected(Failure{"SECURITY_POLICY_VIOLATION",
                              "the domain policy does not allow collaborations from domain \"" + c.source_domain +
                                  "\" to domain \"" + c.target_domain + "\"",
                              Json{{"source_domain", c.source_domain}, {"target_domain", c.target_domain}}});
  }

  // The source's capability spec: its handshake's declaration, else its directory entry.
  std::optional<Json> declared_input, declared_output;
  if (in.handshake_extra != nullptr && in.handshake_extra->is_object()) {
    if (auto it = in.handshake_extra->find("input_schema"); it != in.handshake_extra->end()) declared_input = *it;
    if (auto it = in.handshake_extra->find("output_schema"); it != in.handshake_extra->end()) declared_output = *it;
  }
  if (in.source_spec != nullptr) {
    if (auto use = in.source_spec->uses.find(intent.name); use != in.source_spec->uses.end()) {
      if (!declared_input) declared_input = use->second.input_schema;
      if (!declared_output) declared_output = use->second.output_schema;
    }
  }
  if (declared_input) {
    auto compiled = compile_declared(*declared_input, "input_schema");
    if (!compiled) return unexpected(std::move(compiled).error());
    c.source_input = *compiled;
  }
  if (declared_output) {
    auto compiled = compile_declared(*declared_output, "output_schema");
    if (!compiled) return unexpected(std::move(compiled).error());
  }
  c.input_schema = declared_input ? *declared_input : intent.input_schema;

  // Schema compatibility: what the source sends must suit the target's input, what the target
  // answers must suit the source's expectation.
  if (!s.faults.contract_skip_schema_compatibility) {
    if (declared_input) {
      if (auto bad = check_compatible(*declared_input, intent.input_schema)) {
        return unexpected(Failure{"SCHEMA_MISMATCH", "Input schema incompatible with target agent's expected schema: " + bad->reason,
                                  Json{{"expected_schema", type_summary(intent.input_schema)},
                                       {"received_schema", type_summary(*declared_input)},
                                       {"pointer", bad->pointer},
                                       {"intent", intent.name}}});
      }
    }
    if (declared_output) {
      if (auto bad = check_compatible(intent.output_schema, *declared_output)) {
        return unexpected(Failure{"SCHEMA_MISMATCH", "Target agent's output schema incompatible with the source's expected output: " + bad->reason,
                                  Json{{"expected_schema", type_summary(*declared_output)},
                                       {"received_schema", type_summary(intent.output_schema)},
                                       {"pointer", bad->pointer},
                                       {"intent", intent.name}}});
      }
    }
  }
  return c;
}

Json contract_view(const Json& payload) {
  if (!payload.is_object()) return payload;
  Json view = payload;
  view.erase("contract_id");
  view.erase("correlation_id");
  return view;
}

std::optional<schema::Violation> check_input(const Contract& c, const Json& payload) {
  const Json view = contract_view(payload);
  if (auto v = first_violation(c.target_input, view)) return v;
  return first_violation(c.source_input, view);
}

std::optional<schema::Violation> check_output(const Contract& c, const Json& payload) {
  return first_violation(c.output, contract_view(payload));
}

}  // namespace ac::ref::a2acp
