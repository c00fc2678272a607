#include "harness/engine/target.hpp"

#include "harness/engine/driver.hpp"
#include "harness/engine/pacer.hpp"

#include "harness/json/strict_reader.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/util/data_dir.hpp"
#include "harness/util/read_file.hpp"
#include "harness/util/redact.hpp"

namespace ac::engine {
namespace {

// target.json is a few hundred bytes; a megabyte leaves room for embedded schemas and pools.
constexpr std::size_t kTargetFileLimit = 1u << 20;

struct ParsedUrl {
  std::string kind;  // remote | exec | dir
  std::string scheme, authority, path;
  std::string exec_command, directory;
};

Expected<ParsedUrl, std::string> parse_target_url(const std::string& url) {
  ParsedUrl p;
  if (url.empty()) return unexpected(std::string("the target is empty: give ws[s]://, http[s]://, exec:'COMMAND' or dir:PATH"));
  if (url.size() > 2048) return unexpected(std::string("the target is longer than 2048 characters"));
  if (url.starts_with("exec:")) {
    p.kind = "exec";
    p.exec_command = url.substr(5);
    if (p.exec_command.size() >= 2 && (p.exec_command.front() == '\'' || p.exec_command.front() == '"') &&
        p.exec_command.back() == p.exec_command.front()) {
      p.exec_command = p.exec_command.substr(1, p.exec_command.size() - 2);
    }
    if (p.exec_command.empty()) return unexpected(std::string("exec: target needs a command (exec:'./my-adapter --stdio')"));
    return p;
  }
  if (url.starts_with("dir:")) {
    p.kind = "dir";
    p.directory = url.substr(4);
    if (p.directory.empty()) return unexpected(std::string("dir: target needs a directory (dir:/path/to/exchange)"));
    return p;
  }
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) {
    return unexpected("target '" + url + "' has no scheme: use ws://, wss://, http://, https://, exec:'COMMAND' or dir:PATH");
  }
  p.kind = "remote";
  p.scheme = url.substr(0, scheme_end);
  if (p.scheme != "ws" && p.scheme != "wss" && p.scheme != "http" && p.scheme != "https") {
    return unexpected("unsupported scheme '" + p.scheme + "' in target " + url + " (ws, wss, http, https, exec:, dir:)");
  }
  const auto path_start = url.find('/', scheme_end + 3);
  p.authority = url.substr(scheme_end + 3, path_start == std::string::npos ? std::string::npos : path_start - scheme_end - 3);
  if (p.authority.empty()) return unexpected("target " + url + " has no host");
  if (p.authority.find_first_of("?#@ ") != std::string::npos) return unexpected("target " + url + ": the host part '" + p.authority + "' is not host:port");
  if (const auto colon = p.authority.rfind(':'); colon != std::string::npos && p.authority.back() != ']') {
    const std::string port = p.authority.substr(colon + 1);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) == 0 ||
        std::stoi(port) > 65535) {
      return unexpected("target " + url + ": port '" + port + "' is not a number from 1 to 65535");
    }
  }
  if (path_start != std::string::npos) p.path = url.substr(path_start);
  if (p.path.find_first_of("?#") != std::string::npos) {
    return unexpected("target " + url + ": a query or fragment does not belong in --target (settings go into target.json)");
  }
  return p;
}

// The shared target.json schema, loaded once.
const schema::CompiledSchema* target_schema(std::string& error) {
  static const auto store = schema::SchemaStore::load_directory(data_dir() / "schemas");
  if (!store) {
    error = store.error();
    return nullptr;
  }
  const auto* s = (*store)->find("target.schema.json");
  if (s == nullptr) error = "schemas/target.schema.json is missing";
  return s;
}

Expected<Json, std::string> read_target_file(const std::string& file) {
  auto text = read_file_bounded(file, kTargetFileLimit, "target.json");
  if (!text) return unexpected("--config: " + text.error());
  auto doc = json::parse_strict(*text);
  if (!doc) {
    const auto& e = doc.error();
    return unexpected(file + ": not valid JSON: " + e.message + " (byte " + std::to_string(e.offset) + ")");
  }
  std::string error;
  const auto* schema = target_schema(error);
  if (schema == nullptr) return unexpected(error);
  if (auto v = schema->validate(*doc, 8); !v.empty()) {
    std::string out = file + " does not match schemas/target.schema.json:";
    for (const auto& x : v) out += "\n  " + (x.pointer.empty() ? std::string("(root)") : x.pointer) + ": " + x.message;
    return unexpected(out);
  }
  return std::move(*doc);
}

std::string bullet_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += "\n  " + i;
  return out;
}

}  // namespace

std::string TargetConfig::path(const std::string& name) const {
  auto it = paths.find(name);
  return it == paths.end() ? std::string() : it->second;
}

std::string TargetConfig::setting(const std::string& key, const std::string& fallback) const {
  auto it = settings.find(key);
  return it != settings.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::vector<std::string> TargetConfig::secret_values() const {
  std::vector<std::string> out;
  if (declaration == nullptr) return out;
  for (const auto& [name, decl] : declaration->settings) {
    if (!decl.secret) continue;
    auto it = settings.find(name);
    if (it == settings.end() || it->is_null()) continue;
    std::string v = it->is_string() ? it->get<std::string>() : it->dump();
    if (v.size() >= 4) out.push_back(std::move(v));  // shorter "secrets" would redact ordinary text
  }
  return out;
}

Json TargetConfig::describe() const {
  Json endpoints = Json::object();
  if (declaration != nullptr) {
    for (const auto& [name, p] : declaration->paths) {
      auto it = paths.find(name);
      if (it == paths.end() || (!p.feature.empty() && !claims(p.feature)) || !offers(p.transport)) continue;
      if (!p.when_setting.empty() && !settings.value(p.when_setting, false)) continue;
      if (!p.roles.empty() && std::none_of(p.roles.begin(), p.roles.end(), [&](const auto& r) { return plays(r); })) continue;
      endpoints[name] = (p.transport == "ws" ? ws_base : http_base) + it->second;
    }
  }
  Json shown_settings = Json::object();
  for (const auto& [k, v] : settings.items()) {
    const bool secret = declaration != nullptr && declaration->settings.count(k) && declaration->settings.at(k).secret;
    shown_settings[k] = secret ? Json("(secret)") : v;
  }
  Json out = {{"kind", kind}, {"protocol", protocol}, {"url", url}, {"endpoints", endpoints}, {"settings", shown_settings},
              {"features", std::vector<std::string>(features.begin(), features.end())}};
  if (!roles.empty()) out["roles"] = std::vector<std::string>(roles.begin(), roles.end());
  if (!transports.empty()) out["transports"] = std::vector<std::string>(transports.begin(), transports.end());
  if (kind == "exec") out["command"] = exec_command;
  if (!directory.empty()) out["directory"] = directory;
  if (uses_tls()) {
    out["tls"] = {{"ca_file", tls.ca_file}, {"insecure", tls.insecure}};
    if (!tls.server_name.empty()) out["tls"]["server_name"] = tls.server_name;
  }
  return out;
}

std::string protocol_of_config(const std::string& config_file) {
  auto text = read_file_bounded(config_file, kTargetFileLimit, "target.json");
  if (!text) return "";
  auto doc = json::parse_strict(*text);
  if (!doc || !doc->is_object()) return "";
  auto it = doc->find("protocol");
  return it != doc->end() && it->is_string() ? it->get<std::string>() : "";
}

Expected<TargetConfig, std::string> target_from_document(const TargetDeclaration& d, const Json& doc, const std::string& url,
                                                         const std::string& source) {
  // Settings declared secret are hidden from here on, before any message could quote them.
  if (auto it = doc.find("settings"); it != doc.end() && it->is_object()) {
    for (const auto& [name, decl] : d.settings) {
      auto v = it->find(name);
      if (!decl.secret || v == it->end() || v->is_null()) continue;
      register_secret(v->is_string() ? v->get<std::string>() : v->dump(), name);
    }
  }
  if (auto problems = check_against(d, doc); !problems.empty()) {
    return unexpected(source + " does not fit protocol " + d.protocol + " (suites/" + d.protocol + "/target-settings.json, docs/targets.md):" +
                      bullet_list(problems));
  }
  auto parsed = parse_target_url(url);
  if (!parsed) return unexpected(parsed.error());
  TargetConfig t;
  t.protocol = d.protocol;
  t.declaration = &d;
  t.kind = parsed->kind;
  t.url = url;
  t.exec_command = parsed->exec_command;
  t.directory = parsed->directory;
  if (parsed->kind == "remote") {
    const bool tls = parsed->scheme == "wss" || parsed->scheme == "https";
    t.http_base = std::string(tls ? "https" : "http") + "://" + parsed->authority;
    t.ws_base = std::string(tls ? "wss" : "ws") + "://" + parsed->authority;
  }
  // Paths: the declaration's defaults, then target.json, then the path of the URL (the primary
  // entry point), which wins with a warning when target.json says otherwise.
  for (const auto& [name, p] : d.paths) t.paths[name] = p.default_path;
  if (auto it = doc.find("paths"); it != doc.end()) {
    for (const auto& [k, v] : it->items()) t.paths[k] = v.get<std::string>();
  }
  if (!parsed->path.empty() && parsed->path != "/") {
    const PathDecl* primary = d.primary_path();
    // An http(s):// URL names an HTTP entry point: with a WebSocket primary, its path is the one
    // HTTP entry point every target has (AgentProtocol's POST path), never paths.ws.
    if (primary != nullptr && primary->transport == "ws" && (parsed->scheme == "http" || parsed->scheme == "https")) {
      const PathDecl* only_http = nullptr;
      std::size_t n = 0;
      for (const auto& [name, p] : d.paths) {
        if (p.transport == "http" && p.feature.empty()) {
          only_http = &p;
          ++n;
        }
      }
      if (n == 1) primary = only_http;
    }
    if (primary != nullptr) {
      if (doc.contains("paths") && doc["paths"].contains(primary->name) && doc["paths"][primary->name] != parsed->path) {
        t.warnings.push_back("the path of --target (" + parsed->path + ") overrides paths." + primary->name + " (" +
                             doc["paths"][primary->name].get<std::string>() + ") of " + source);
      }
      t.paths[primary->name] = parsed->path;
    }
  }
  // Settings: target.json, then the declared defaults of what it leaves out.
  if (auto it = doc.find("settings"); it != doc.end()) t.settings = *it;
  for (const auto& [name, s] : d.settings) {
    if (!t.settings.contains(name) && s.default_value) t.settings[name] = *s.default_value;
  }
  if (auto it = doc.find("features"); it != doc.end()) {
    for (const auto& f : *it) t.features.insert(f.get<std::string>());
  }
  if (t.uses_tls() && d.features.count("tls")) t.features.insert("tls");
  if (auto it = doc.find("roles"); it != doc.end()) {
    for (const auto& r : *it) t.roles.insert(r.get<std::string>());
  }
  if (auto it = doc.find("transports"); it != doc.end()) {
    for (const auto& r : *it) t.transports.insert(r.get<std::string>());
  }
  if (auto it = doc.find("tls"); it != doc.end()) {
    t.tls.ca_file = it->value("ca_file", t.tls.ca_file);
    t.tls.insecure = it->value("insecure", t.tls.insecure);
    t.tls.server_name = it->value("server_name", std::string());
  }
  t.timeout_scale = doc.value("timeout_scale", 1.0);
  if (auto it = doc.find("limits"); it != doc.end() && it->is_object()) {
    t.max_connections = it->value("connections", std::size_t{0});
    t.max_requests_per_second = it->value("requests_per_second", 0.0);
    if (t.max_requests_per_second > 0) t.pacer = std::make_shared<RequestPacer>(t.max_requests_per_second);
  }
  // A claimed feature is only usable with the settings it needs.
  std::vector<std::string> missing;
  for (const auto& f : t.features) {
    auto it = d.features.find(f);
    if (it == d.features.end()) continue;
    for (const auto& s : it->second.settings) {
      if (!t.settings.contains(s)) missing.push_back("features: " + f + " is claimed but settings." + s + " is not set (" + d.settings.at(s).description + ")");
    }
  }
  if (!missing.empty()) return unexpected(source + ":" + bullet_list(missing));
  if (auto id = proto::parse_protocol(t.protocol)) driver_for(*id).defaults(t);  // adaptations that are logic, not data
  for (const auto& [name, decl] : d.settings) {
    if (decl.secret && !t.setting(name).empty()) register_secret(t.setting(name), name);  // declared defaults too
  }
  return t;
}

Expected<TargetConfig, std::string> resolve_target(const Declarations& declarations, const TargetRequest& r) {
  Json doc = Json::object();
  std::string source = "the command line";
  if (!r.config_file.empty()) {
    auto read = read_target_file(r.config_file);
    if (!read) return unexpected(read.error());
    doc = std::move(*read);
    source = r.config_file;
  }
  std::string protocol = r.protocol;
  if (auto it = doc.find("protocol"); it != doc.end()) {
    const std::string in_file = it->get<std::string>();
    if (!protocol.empty() && protocol != in_file) {
      return unexpected("--protocol " + protocol + " disagrees with \"protocol\": \"" + in_file + "\" in " + r.config_file);
    }
    protocol = in_file;
  }
  if (protocol.empty()) return unexpected(std::string("a target needs --protocol (or \"protocol\" in target.json)"));
  const TargetDeclaration* d = declarations.find(protocol);
  if (d == nullptr) return unexpected("no target declaration for protocol " + protocol + " (suites/" + protocol + "/target-settings.json)");
  std::string url = r.url;
  if (url.empty()) url = doc.value("target", std::string());
  if (url.empty()) {
    return unexpected(r.config_file.empty() ? std::string("no target given")
                                            : r.config_file + " has no \"target\" and --target is not given: say where the implementation is");
  }
  return target_from_document(*d, doc, url, source);
}

}  // namespace ac::engine
