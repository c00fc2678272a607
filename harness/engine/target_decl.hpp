// The declaration of each protocol's target settings (suites/<protocol>/target-settings.json,
// schemas/target-settings.schema.json): the roles, transports, endpoint paths, settings (type,
// default, secret, required) and optional features a target of that protocol can have. It is
// the one place these names live: target.json is validated against it (with the nearest valid
// name for typos), declared defaults fill what target.json leaves out, secret settings are
// redacted, preflight probes the declared paths, and `doctor` and docs/targets.md print it.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::schema {
class CompiledSchema;
}

namespace ac::engine {

using Json = nlohmann::json;

struct PathDecl {
  std::string name;
  std::string default_path;
  std::string transport;  // http | ws
  std::string method;     // http paths: the method the harness uses
  std::vector<std::string> roles;  // empty: every role
  std::string feature;             // "": every target
  std::string when_setting;        // "": always; else only when that boolean setting is true
  bool primary = false;
  std::string description;
};

struct SettingDecl {
  std::string name;
  Json schema;
  std::shared_ptr<const schema::CompiledSchema> compiled;
  std::optional<Json> default_value;
  bool secret = false;
  bool required = false;
  std::vector<std::string> roles;
  std::string feature;
  std::string embedded;
  std::string description;
};

struct FeatureDecl {
  std::string name;
  std::string description;
  std::string reading;  // a docs/spec-readings.md id when the feature rests on a reading
  std::vector<std::string> settings;
  std::vector<std::string> paths;
};

struct TargetDeclaration {
  std::string protocol;
  std::string description;
  std::map<std::string, std::string> roles;       // name -> description
  std::map<std::string, std::string> transports;  // name -> description
  std::map<std::string, PathDecl> paths;
  std::map<std::string, SettingDecl> settings;
  std::map<std::string, FeatureDecl> features;

  const PathDecl* primary_path() const;
  std::vector<std::string> role_names() const;
  std::vector<std::string> transport_names() const;
  std::vector<std::string> path_names() const;
  std::vector<std::string> setting_names() const;
  std::vector<std::string> feature_names() const;
};

class Declarations {
 public:
  // Reads suites_dir/<protocol>/target-settings.json for every protocol directory that has one,
  // each validated against schemas/target-settings.schema.json.
  static Expected<Declarations, std::string> load(const std::filesystem::path& suites_dir);

  const TargetDeclaration* find(const std::string& protocol) const;
  std::vector<std::string> protocols() const;

 private:
  std::map<std::string, TargetDeclaration> by_protocol_;
};

// Problems of one target.json document (or of settings given otherwise) against a declaration:
// unknown roles, transports, paths, settings and features (each with the nearest valid name) and
// setting values that do not match their declared schema. Each entry reads
// "settings.api_kye: unknown setting of alp (did you mean 'api_key'?)".
std::vector<std::string> check_against(const TargetDeclaration& declaration, const Json& target_document);

}  // namespace ac::engine
