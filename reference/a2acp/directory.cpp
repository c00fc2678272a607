// The agent directory: parsing and validation of protocols.a2acp.agents (see directory.hpp).
#include "reference/a2acp/directory.hpp"

#include <set>

namespace ac::ref::a2acp {
namespace {

constexpr std::size_t kMaxAgents = 10000;
constexpr std::size_t kMaxIntents = 256;
constexpr std::size_t kMaxIdLength = 256;

bool non_empty_string(const Json& j) { return j.is_string() && !j.get_ref<const std::string&>().empty(); }

Expected<std::vector<std::string>, std::string> string_list(const Json& j, const std::string& where) {
  if (!j.is_array()) return unexpected(where + ": expected an array of strings");
  std::vector<std::string> out;
  for (const auto& e : j) {
    if (!non_empty_string(e)) return unexpected(where + ": expected an array of non-empty strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

Expected<CompiledPtr, std::string> compile(const Json& schema, const std::string& where) {
  if (!schema.is_object()) return unexpected(where + ": a JSON Schema must be an object");
  auto compiled = schema::compile_untrusted(schema);
  if (!compiled) return unexpected(where + ": " + compiled.error());
  return CompiledPtr(*compiled);
}

Expected<bool, std::string> known_keys(const Json& obj, std::initializer_list<const char*> keys, const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    bool ok = false;
    for (const char* k : keys) ok = ok || key == k;
    if (!ok) return unexpected(where + "." + key + ": unknown key");
  }
  return true;
}

Expected<IntentSpec, std::string> parse_intent(const std::string& name, const Json& j, const std::string& where) {
  if (!j.is_object()) return unexpected(where + ": expected an object");
  if (auto k = known_keys(j, {"input_schema", "output_schema", "required_capabilities", "routing_timeout_ms"}, where); !k) {
    return unexpected(k.error());
  }
  IntentSpec s;
  s.name = name;
  if (auto it = j.find("input_schema"); it != j.end()) s.input_schema = *it;
  if (auto it = j.find("output_schema"); it != j.end()) s.output_schema = *it;
  auto in = compile(s.input_schema, where + ".input_schema");
  if (!in) return unexpected(in.error());
  auto out = compile(s.output_schema, where + ".output_schema");
  if (!out) return unexpected(out.error());
  s.input = *in;
  s.output = *out;
  if (auto it = j.find("required_capabilities"); it != j.end()) {
    auto caps = string_list(*it, where + ".required_capabilities");
    if (!caps) return unexpected(caps.error());
    s.required_capabilities = std::move(*caps);
  }
  if (auto it = j.find("routing_timeout_ms"); it != j.end()) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 1) return unexpected(where + ".routing_timeout_ms: expected an integer >= 1");
    s.routing_timeout = std::chrono::milliseconds(it->get<std::int64_t>());
  }
  return s;
}

Expected<UseSpec, std::string> parse_use(const Json& j, const std::string& where) {
  if (!j.is_object()) return unexpected(where + ": expected an object");
  if (auto k = known_keys(j, {"input_schema", "output_schema"}, where); !k) return unexpected(k.error());
  UseSpec u;
  for (const char* key : {"input_schema", "output_schema"}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    if (auto c = compile(*it, where + "." + key); !c) return unexpected(c.error());
    (std::string(key) == "input_schema" ? u.input_schema : u.output_schema) = *it;
  }
  return u;
}

Expected<AgentSpec, std::string> parse_agent(const Json& j, const std::string& where) {
  if (!j.is_object()) return unexpected(where + ": expected an object");
  if (auto k = known_keys(j, {"agent_id", "domain", "version", "intents", "uses", "grantable_capabilities"}, where); !k) {
    return unexpected(k.error());
  }
  AgentSpec a;
  for (auto [field, key] : {std::pair{&a.agent_id, "agent_id"}, {&a.domain, "domain"}, {&a.version, "version"}}) {
    auto it = j.find(key);
    if (it == j.end() || !non_empty_string(*it)) return unexpected(where + "." + key + ": required non-empty string");
    *field = it->get<std::string>();
  }
  if (a.agent_id.size() > kMaxIdLength) return unexpected(where + ".agent_id: longer than 256 characters");
  if (!is_agent_version(a.version)) return unexpected(where + ".version: \"" + a.version + "\" is not MAJOR.MINOR.PATCH");
  if (auto it = j.find("intents"); it != j.end()) {
    if (!it->is_object()) return unexpected(where + ".intents: expected an object {intent: {...}}");
    if (it->size() > kMaxIntents) return unexpected(where + ".intents: more than 256 intents");
    for (const auto& [name, spec] : it->items()) {
      if (name.empty()) return unexpected(where + ".intents: an intent name is empty");
      auto intent = parse_intent(name, spec, where + ".intents." + name);
      if (!intent) return unexpected(intent.error());
      a.intents.emplace(name, std::move(*intent));
    }
  }
  if (auto it = j.find("uses"); it != j.end()) {
    if (!it->is_object()) return unexpected(where + ".uses: expected an object {intent: {...}}");
    if (it->size() > kMaxIntents) return unexpected(where + ".uses: more than 256 intents");
    for (const auto& [name, spec] : it->items()) {
      auto use = parse_use(spec, where + ".uses." + name);
      if (!use) return unexpected(use.error());
      a.uses.emplace(name, std::move(*use));
    }
  }
  if (auto it = j.find("grantable_capabilities"); it != j.end()) {
    auto caps = string_list(*it, where + ".grantable_capabilities");
    if (!caps) return unexpected(caps.error());
    a.grantable_capabilities = std::move(*caps);
  }
  return a;
}

Json summary(const IntentSpec& s) {
  Json j = {{"input_schema", s.input_schema}, {"output_schema", s.output_schema}, {"required_capabilities", s.required_capabilities}};
  if (s.routing_timeout) j["routing_timeout_ms"] = s.routing_timeout->count();
  return j;
}

}  // namespace

bool is_agent_version(const std::string& v) {
  int parts = 0;
  std::size_t digits = 0;
  for (char c : v) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.' && digits > 0 && parts < 2) {
      ++parts;
      digits = 0;
    } else {
      return false;
    }
  }
  return parts == 2 && digits > 0;
}

const AgentSpec* Directory::find(const std::string& agent_id) const {
  auto it = agents_.find(agent_id);
  return it == agents_.end() ? nullptr : &it->second;
}

Json Directory::to_json() const {
  Json out = Json::array();
  for (const auto& [id, a] : agents_) {
    Json intents = Json::object();
    for (const auto& [name, s] : a.intents) intents[name] = summary(s);
    Json uses = Json::object();
    for (const auto& [name, u] : a.uses) {
      uses[name] = Json::object();
      if (u.input_schema) uses[name]["input_schema"] = *u.input_schema;
      if (u.output_schema) uses[name]["output_schema"] = *u.output_schema;
    }
    Json entry = {{"agent_id", id}, {"domain", a.domain}, {"version", a.version}, {"intents", intents}, {"uses", uses}};
    if (a.grantable_capabilities) entry["grantable_capabilities"] = *a.grantable_capabilities;
    out.push_back(std::move(entry));
  }
  return out;
}

Expected<Directory, std::string> Directory::parse(const Json& agents, const std::string& where) {
  if (!agents.is_array()) return unexpected(where + ": expected an array of agents");
  if (agents.size() > kMaxAgents) return unexpected(where + ": more than 10000 agents");
  Directory d;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    auto a = parse_agent(agents[i], where + "[" + std::to_string(i) + "]");
    if (!a) return unexpected(a.error());
    const std::string id = a->agent_id;
    if (!d.agents_.emplace(id, std::move(*a)).second) return unexpected(where + ": agent_id \"" + id + "\" is listed twice");
  }
  return d;
}

Json Directory::default_json() {
  const Json dataset_input = {{"type", "object"},
                              {"required", {"test_scenario_id", "dataset_type"}},
                              {"properties",
                               {{"test_scenario_id", {{"type", "string"}}},
                                {"dataset_type", {{"type", "string"}}},
                                {"record_count", {{"type", "integer"}, {"minimum", 1}}}}}};
  const Json dataset_output = {{"type", "object"},
                               {"required", {"dataset_id"}},
                               {"properties",
                                {{"dataset_id", {{"type", "string"}}},
                                 {"connection_string", {{"type", "string"}}},
                                 {"record_count", {{"type", "integer"}}},
                                 {"schema_version", {{"type", "string"}}}}}};
  const Json patient_input = {{"type", "object"},
                              {"required", {"cohort_id"}},
                              {"properties", {{"cohort_id", {{"type", "string"}}}, {"record_count", {{"type", "integer"}}}}}};
  return Json::array(
      {{{"agent_id", "sdlc-test-agent"},
        {"domain", "a_domain"},
        {"version", "1.2.3"},
        {"uses", {{"provision_test_dataset", {{"input_schema", dataset_input}, {"output_schema", dataset_output}}}}}},
       {{"agent_id", "dataset-provisioning-agent"},
        {"domain", "medtronic_poc"},
        {"version", "2.1.0"},
        {"intents",
         {{"provision_test_dataset",
           {{"input_schema", dataset_input}, {"output_schema", dataset_output}, {"required_capabilities", {"read:datasets"}}}},
          {"provision_patient_records",
           {{"input_schema", patient_input},
            {"output_schema", dataset_output},
            {"required_capabilities", {"read:patient_records"}}}}}}}});
}

}  // namespace ac::ref::a2acp
