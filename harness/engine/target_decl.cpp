#include "harness/engine/target_decl.hpp"

#include <algorithm>

#include "harness/json/strict_reader.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/util/data_dir.hpp"
#include "harness/util/did_you_mean.hpp"
#include "harness/util/read_file.hpp"

namespace ac::engine {
namespace {

constexpr std::size_t kDeclarationLimit = 1u << 20;

template <typename Map>
std::vector<std::string> keys_of(const Map& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

std::vector<std::string> strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (auto it = j.find(key); it != j.end() && it->is_array()) {
    for (const auto& s : *it) {
      if (s.is_string()) out.push_back(s.get<std::string>());
    }
  }
  return out;
}

Expected<TargetDeclaration, std::string> parse_declaration(const Json& d, const std::string& file) {
  TargetDeclaration decl;
  decl.protocol = d.at("protocol").get<std::string>();
  decl.description = d.at("description").get<std::string>();
  for (const auto& [name, v] : d.at("roles").items()) decl.roles[name] = v.at("description").get<std::string>();
  for (const auto& [name, v] : d.at("transports").items()) decl.transports[name] = v.at("description").get<std::string>();
  int primaries = 0;
  for (const auto& [name, v] : d.at("paths").items()) {
    PathDecl p;
    p.name = name;
    p.default_path = v.at("default").get<std::string>();
    p.transport = v.at("transport").get<std::string>();
    p.method = v.value("method", std::string(p.transport == "http" ? "GET" : ""));
    p.roles = strings(v, "roles");
    p.feature = v.value("feature", std::string());
    p.when_setting = v.value("when_setting", std::string());
    p.primary = v.value("primary", false);
    p.description = v.at("description").get<std::string>();
    primaries += p.primary ? 1 : 0;
    if (!decl.transports.count(p.transport)) return unexpected(file + ": paths." + name + ": transport " + p.transport + " is not declared");
    decl.paths.emplace(name, std::move(p));
  }
  if (primaries > 1) return unexpected(file + ": more than one primary path");
  for (const auto& [name, v] : d.at("settings").items()) {
    SettingDecl s;
    s.name = name;
    s.schema = v.at("schema");
    auto compiled = schema::compile_untrusted(s.schema);
    if (!compiled) return unexpected(file + ": settings." + name + ".schema: " + compiled.error());
    s.compiled = *compiled;
    if (auto def = v.find("default"); def != v.end()) {
      if (auto bad = s.compiled->validate(*def, 1); !bad.empty()) {
        return unexpected(file + ": settings." + name + ".default does not match its schema: " + bad[0].message);
      }
      s.default_value = *def;
    }
    s.secret = v.value("secret", false);
    s.required = v.value("required", false);
    s.roles = strings(v, "roles");
    s.feature = v.value("feature", std::string());
    s.embedded = v.value("embedded", std::string());
    s.description = v.at("description").get<std::string>();
    decl.settings.emplace(name, std::move(s));
  }
  for (const auto& [name, v] : d.at("features").items()) {
    FeatureDecl f;
    f.name = name;
    f.description = v.at("description").get<std::string>();
    f.reading = v.value("reading", std::string());
    f.settings = strings(v, "settings");
    f.paths = strings(v, "paths");
    for (const auto& s : f.settings) {
      if (!decl.settings.count(s)) return unexpected(file + ": features." + name + " names undeclared setting " + s);
    }
    for (const auto& p : f.paths) {
      if (!decl.paths.count(p)) return unexpected(file + ": features." + name + " names undeclared path " + p);
    }
    decl.features.emplace(name, std::move(f));
  }
  for (const auto& [name, p] : decl.paths) {
    if (!p.feature.empty() && !decl.features.count(p.feature)) return unexpected(file + ": paths." + name + ": undeclared feature " + p.feature);
    if (!p.when_setting.empty() && !decl.settings.count(p.when_setting)) {
      return unexpected(file + ": paths." + name + ": undeclared setting " + p.when_setting);
    }
    for (const auto& r : p.roles) {
      if (!decl.roles.count(r)) return unexpected(file + ": paths." + name + ": undeclared role " + r);
    }
  }
  for (const auto& [name, s] : decl.settings) {
    if (!s.feature.empty() && !decl.features.count(s.feature)) return unexpected(file + ": settings." + name + ": undeclared feature " + s.feature);
    for (const auto& r : s.roles) {
      if (!decl.roles.count(r)) return unexpected(file + ": settings." + name + ": undeclared role " + r);
    }
  }
  return decl;
}

void check_names(const Json& doc, const char* member, const std::vector<std::string>& declared, const std::string& what,
                 const std::string& protocol, std::vector<std::string>& problems) {
  auto it = doc.find(member);
  if (it == doc.end()) return;
  auto check = [&](const std::string& name, const std::string& where) {
    if (std::find(declared.begin(), declared.end(), name) == declared.end()) {
      problems.push_back(where + ": unknown " + what + " of " + protocol + did_you_mean(name, declared));
    }
  };
  if (it->is_array()) {
    for (std::size_t i = 0; i < it->size(); ++i) {
      if ((*it)[i].is_string()) check((*it)[i].get<std::string>(), std::string(member) + "[" + std::to_string(i) + "] '" + (*it)[i].get<std::string>() + "'");
    }
  } else if (it->is_object()) {
    for (const auto& [k, v] : it->items()) check(k, std::string(member) + "." + k);
  }
}

}  // namespace

const PathDecl* TargetDeclaration::primary_path() const {
  for (const auto& [name, p] : paths) {
    if (p.primary) return &p;
  }
  return nullptr;
}

std::vector<std::string> TargetDeclaration::role_names() const { return keys_of(roles); }
std::vector<std::string> TargetDeclaration::transport_names() const { return keys_of(transports); }
std::vector<std::string> TargetDeclaration::path_names() const { return keys_of(paths); }
std::vector<std::string> TargetDeclaration::setting_names() const { return keys_of(settings); }
std::vector<std::string> TargetDeclaration::feature_names() const { return keys_of(features); }

Expected<Declarations, std::string> Declarations::load(const std::filesystem::path& suites_dir) {
  auto store = schema::SchemaStore::load_directory(data_dir() / "schemas");
  if (!store) return unexpected(store.error());
  const schema::CompiledSchema* schema = (*store)->find("target-settings.schema.json");
  if (schema == nullptr) return unexpected(std::string("schemas/target-settings.schema.json is missing"));
  Declarations out;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(suites_dir, ec)) {
    const auto file = entry.path() / "target-settings.json";
    if (entry.is_directory(ec) && std::filesystem::exists(file, ec)) files.push_back(file);
  }
  if (ec) return unexpected("cannot list " + suites_dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    auto text = read_file_bounded(file.string(), kDeclarationLimit, "a target-settings declaration");
    if (!text) return unexpected(text.error());
    auto doc = json::parse_strict(*text);
    if (!doc) return unexpected(file.string() + ": " + doc.error().describe());
    if (auto v = schema->validate(*doc, 1); !v.empty()) {
      return unexpected(file.string() + ": " + (v[0].pointer.empty() ? "(root)" : v[0].pointer) + ": " + v[0].message);
    }
    auto decl = parse_declaration(*doc, file.string());
    if (!decl) return unexpected(decl.error());
    if (file.parent_path().filename() != decl->protocol) {
      return unexpected(file.string() + ": declares protocol " + decl->protocol + " in the directory of another");
    }
    out.by_protocol_.emplace(decl->protocol, std::move(*decl));
  }
  return out;
}

const TargetDeclaration* Declarations::find(const std::string& protocol) const {
  auto it = by_protocol_.find(protocol);
  return it == by_protocol_.end() ? nullptr : &it->second;
}

std::vector<std::string> Declarations::protocols() const { return keys_of(by_protocol_); }

std::vector<std::string> check_against(const TargetDeclaration& d, const Json& doc) {
  std::vector<std::string> problems;
  if (!doc.is_object()) return {"(root): a target description must be a JSON object"};
  check_names(doc, "roles", d.role_names(), "role", d.protocol, problems);
  check_names(doc, "transports", d.transport_names(), "transport", d.protocol, problems);
  check_names(doc, "paths", d.path_names(), "path", d.protocol, problems);
  check_names(doc, "settings", d.setting_names(), "setting", d.protocol, problems);
  check_names(doc, "features", d.feature_names(), "feature", d.protocol, problems);
  if (auto s = doc.find("settings"); s != doc.end() && s->is_object()) {
    for (const auto& [name, value] : s->items()) {
      auto it = d.settings.find(name);
      if (it == d.settings.end()) continue;
      if (auto bad = it->second.compiled->validate(value, 1); !bad.empty()) {
        problems.push_back("settings." + name + (bad[0].pointer.empty() ? "" : bad[0].pointer) + ": " + bad[0].message +
                           " (declared: " + it->second.schema.dump() + ")");
      }
    }
  }
  return problems;
}

}  // namespace ac::engine
