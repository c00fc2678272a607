// The target-settings declarations (suites/<protocol>/target-settings.json) against everything
// that depends on them: their schema (schemas/target-settings.schema.json), the example targets
// (examples/targets/*.json against schemas/target.schema.json, using only declared names with
// values their settings' schemas accept), the cases and requirement catalogues (every feature,
// server role and connect transport they name is declared), and their own cross-references
// (a path's feature, a feature's settings and paths, every default valid for its setting).
// docs/targets.md's generated reference is checked by the CTest entry targets_doc (the script).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/json/strict_reader.hpp"
#include "harness/schema/schema_store.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const fs::path kRoot = AC_SOURCE_DIR;
const std::vector<std::string> kProtocols = {"alp", "agora", "agentprotocol", "a2acp", "chopsticks"};

Json read_json(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto doc = ac::json::parse_strict(buffer.str());
  if (!doc) {
    ADD_FAILURE() << file << ": " << doc.error().describe();
    return Json();
  }
  return *doc;
}

const ac::schema::SchemaStore& store() {
  static const auto s = [] {
    auto loaded = ac::schema::SchemaStore::load_directory(kRoot / "schemas");
    if (!loaded) throw std::runtime_error(loaded.error());
    return *loaded;
  }();
  return *s;
}

std::string violations(const ac::schema::CompiledSchema& schema, const Json& doc) {
  std::string out;
  for (const auto& v : schema.validate(doc, 8)) out += "\n  " + (v.pointer.empty() ? "(root)" : v.pointer) + ": " + v.rule + ": " + v.message;
  return out;
}

// The problems of `value` under a setting's own schema ("" when it is valid).
std::string setting_problems(const Json& setting_schema, const Json& value) {
  auto compiled = ac::schema::compile_untrusted(setting_schema);
  if (!compiled) return "the setting's schema does not compile: " + compiled.error();
  return violations(**compiled, value);
}

Json declaration(const std::string& protocol) { return read_json(kRoot / "suites" / protocol / "target-settings.json"); }

// Every name a target.json uses must be declared for its protocol, and every setting's value
// must match the setting's schema. Returns one line per problem.
std::vector<std::string> undeclared_names(const Json& target, const Json& decl) {
  std::vector<std::string> problems;
  auto check_list = [&](const char* member, const char* declared) {
    for (const auto& name : target.value(member, Json::array())) {
      if (!decl.at(declared).contains(name.get<std::string>())) problems.push_back(std::string(member) + ": " + name.dump() + " is not declared");
    }
  };
  check_list("roles", "roles");
  check_list("transports", "transports");
  check_list("features", "features");
  // (items() of a temporary would dangle: keep the members in locals.)
  const Json target_paths = target.value("paths", Json::object()), target_settings = target.value("settings", Json::object());
  for (const auto& [name, value] : target_paths.items()) {
    if (!decl.at("paths").contains(name)) problems.push_back("paths: \"" + name + "\" is not declared");
  }
  for (const auto& [name, value] : target_settings.items()) {
    if (!decl.at("settings").contains(name)) {
      problems.push_back("settings: \"" + name + "\" is not declared");
    } else if (auto p = setting_problems(decl["settings"][name]["schema"], value); !p.empty()) {
      problems.push_back("settings." + name + ":" + p);
    }
  }
  return problems;
}

struct CaseFacts {
  std::string id, role;
  std::vector<std::string> features;
  std::set<std::string> transports;  // named by connect steps, as declared transports
};

void connect_transports(const Json& node, std::set<std::string>& out) {
  if (node.is_object()) {
    if (node.contains("connect") && node.contains("transport") && node["transport"].is_string()) {
      const std::string t = node["transport"].get<std::string>();
      out.insert(t == "dir" ? "file" : t);  // the file exchange is "dir" in cases, "file" as a transport
    }
    for (const auto& [k, v] : node.items()) connect_transports(v, out);
  } else if (node.is_array()) {
    for (const auto& v : node) connect_transports(v, out);
  }
}

std::vector<CaseFacts> cases_of(const std::string& protocol) {
  std::vector<CaseFacts> out;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kRoot / "suites" / protocol)) files.push_back(entry.path());
  if (fs::is_directory(kRoot / "suites" / protocol / "generated")) {  // the schema-derived cases (docs/generated-cases.md)
    for (const auto& entry : fs::directory_iterator(kRoot / "suites" / protocol / "generated")) files.push_back(entry.path());
  }
  for (const auto& path : files) {
    const auto name = path.filename().string();
    if (path.extension() != ".json" || name == "requirements.json" || name == "target-settings.json") continue;
    for (const auto& c : read_json(path).value("cases", Json::array())) {
      CaseFacts f{c.at("id").get<std::string>(), c.at("role").get<std::string>(), c.value("features", std::vector<std::string>{}), {}};
      connect_transports(c.at("steps"), f.transports);
      out.push_back(std::move(f));
    }
  }
  return out;
}

class Declaration : public ::testing::TestWithParam<std::string> {};

TEST_P(Declaration, ValidAgainstItsSchema) {
  const auto* schema = store().find("target-settings.schema.json");
  ASSERT_NE(schema, nullptr) << "schemas/target-settings.schema.json is missing";
  const Json decl = declaration(GetParam());
  EXPECT_TRUE(schema->is_valid(decl)) << "suites/" << GetParam() << "/target-settings.json:" << violations(*schema, decl);
  EXPECT_EQ(decl.value("protocol", ""), GetParam());
}

TEST_P(Declaration, DefaultsMatchTheirSettingsSchemas) {
  const Json decl = declaration(GetParam());
  std::size_t with_default = 0;
  for (const auto& [name, s] : decl.at("settings").items()) {
    if (!s.contains("default")) continue;
    ++with_default;
    EXPECT_EQ(setting_problems(s.at("schema"), s["default"]), "") << GetParam() << " setting " << name << ": default " << s["default"].dump();
    EXPECT_FALSE(s.value("required", false)) << GetParam() << " setting " << name << " is required and has a default";
  }
  EXPECT_GT(with_default, 0u);
}

TEST_P(Declaration, CrossReferencesResolve) {
  const Json decl = declaration(GetParam());
  const Json &roles = decl.at("roles"), &transports = decl.at("transports"), &paths = decl.at("paths");
  const Json &settings = decl.at("settings"), &features = decl.at("features");
  int primaries = 0;
  for (const auto& [name, p] : paths.items()) {
    primaries += p.value("primary", false) ? 1 : 0;
    EXPECT_TRUE(transports.contains(p.at("transport").get<std::string>())) << "path " << name << ": transport not declared";
    for (const auto& r : p.value("roles", Json::array())) EXPECT_TRUE(roles.contains(r.get<std::string>())) << "path " << name << ": role " << r;
    if (p.contains("feature")) {
      EXPECT_TRUE(features.contains(p["feature"].get<std::string>())) << "path " << name << ": feature " << p["feature"];
    }
  }
  EXPECT_EQ(primaries, 1) << GetParam() << ": exactly one path is the primary one (the path of a ws:// --target)";
  for (const auto& [name, s] : settings.items()) {
    for (const auto& r : s.value("roles", Json::array())) EXPECT_TRUE(roles.contains(r.get<std::string>())) << "setting " << name << ": role " << r;
    if (s.contains("feature")) {
      EXPECT_TRUE(features.contains(s["feature"].get<std::string>())) << "setting " << name << ": feature " << s["feature"];
    }
  }
  for (const auto& [name, f] : features.items()) {
    for (const auto& s : f.value("settings", Json::array())) EXPECT_TRUE(settings.contains(s.get<std::string>())) << "feature " << name << ": setting " << s;
    for (const auto& p : f.value("paths", Json::array())) EXPECT_TRUE(paths.contains(p.get<std::string>())) << "feature " << name << ": path " << p;
  }
}

TEST_P(Declaration, DeclaresEverythingTheCasesUse) {
  const Json decl = declaration(GetParam());
  const auto cases = cases_of(GetParam());
  ASSERT_FALSE(cases.empty());
  std::set<std::string> server_roles;
  for (const auto& c : cases) {
    if (c.role != "agent") {
      server_roles.insert(c.role);
      EXPECT_TRUE(decl["roles"].contains(c.role)) << c.id << ": role " << c.role << " is not declared";
    }
    for (const auto& f : c.features) EXPECT_TRUE(decl["features"].contains(f)) << c.id << ": feature " << f << " is not declared";
    for (const auto& t : c.transports) EXPECT_TRUE(decl["transports"].contains(t)) << c.id << ": transport " << t << " is not declared";
  }
  // Every declared role is played by some case: a role nothing tests is a typo or dead data.
  for (const auto& [role, d] : decl["roles"].items()) EXPECT_TRUE(server_roles.count(role)) << "role " << role << " has no case";
}

TEST_P(Declaration, DeclaresEveryFeatureOfTheCatalogue) {
  const Json decl = declaration(GetParam());
  const Json catalogue = read_json(kRoot / "suites" / GetParam() / "requirements.json");
  EXPECT_FALSE(catalogue.contains("features")) << "features live in target-settings.json, not in requirements.json";
  std::set<std::string> gating;
  for (const auto& r : catalogue.at("requirements")) {
    if (!r["feature"].is_string()) continue;
    gating.insert(r["feature"].get<std::string>());
    EXPECT_TRUE(decl["features"].contains(r["feature"].get<std::string>())) << r["id"] << ": feature " << r["feature"] << " is not declared";
  }
  for (const auto& [name, f] : decl["features"].items()) EXPECT_TRUE(gating.count(name)) << "feature " << name << " gates no requirement";
}

INSTANTIATE_TEST_SUITE_P(Protocols, Declaration, ::testing::ValuesIn(kProtocols), [](const auto& param_info) { return param_info.param; });

TEST(ExampleTargets, ValidAndUseOnlyDeclaredNames) {
  const auto* schema = store().find("target.schema.json");
  ASSERT_NE(schema, nullptr);
  std::set<std::string> covered;
  for (const auto& entry : fs::directory_iterator(kRoot / "examples" / "targets")) {
    if (entry.path().extension() != ".json") continue;
    const std::string file = "examples/targets/" + entry.path().filename().string();
    const Json target = read_json(entry.path());
    EXPECT_TRUE(schema->is_valid(target)) << file << ":" << violations(*schema, target);
    ASSERT_TRUE(target.contains("protocol") && target["protocol"].is_string()) << file << ": an example names its protocol";
    const std::string protocol = target["protocol"].get<std::string>();
    covered.insert(protocol);
    EXPECT_FALSE(target.value("description", "").empty()) << file << ": an example explains itself in description";
    EXPECT_TRUE(target.contains("target")) << file << ": an example names its target";
    for (const auto& p : undeclared_names(target, declaration(protocol))) ADD_FAILURE() << file << ": " << p;
    // A required setting is given, unless the setting names roles and the file plays none of them.
    const Json played = target.value("roles", Json::array());
    const Json decl = declaration(protocol);
    for (const auto& [name, s] : decl["settings"].items()) {
      if (!s.value("required", false)) continue;
      bool needed = !s.contains("roles") || !target.contains("roles");
      for (const auto& r : s.value("roles", Json::array())) needed = needed || std::count(played.begin(), played.end(), r) > 0;
      if (needed) {
        EXPECT_TRUE(target.value("settings", Json::object()).contains(name)) << file << ": required setting " << name;
      }
    }
  }
  for (const auto& p : kProtocols) EXPECT_TRUE(covered.count(p)) << "no examples/targets/*.json for " << p;
}

// The name check above can fail: a misspelled setting, feature, path, role or a badly typed
// value in an otherwise valid example is reported.
TEST(ExampleTargets, TheNameCheckCatchesMistakes) {
  Json target = read_json(kRoot / "examples" / "targets" / "alp.json");
  const Json decl = declaration("alp");
  ASSERT_TRUE(undeclared_names(target, decl).empty());
  target["settings"]["apikey"] = "x";
  target["settings"]["token_ttl_ms"] = "30 s";
  target["features"].push_back("alp.rate-limits");
  target["paths"]["registration"] = "/register";
  target["roles"].push_back("relay");
  target["transports"].push_back("file");
  EXPECT_EQ(undeclared_names(target, decl).size(), 6u);
}

}  // namespace
