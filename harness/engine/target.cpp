#include "harness/engine/target.hpp"

#include <fstream>
#include <sstream>

#include "harness/json/strict_reader.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/util/data_dir.hpp"

namespace ac::engine {

std::string TargetConfig::path(const std::string& name) const {
  auto it = paths.find(name);
  return it == paths.end() ? std::string() : it->second;
}

std::string TargetConfig::setting(const std::string& key, const std::string& fallback) const {
  auto it = settings.find(key);
  return it != settings.end() && it->is_string() ? it->get<std::string>() : fallback;
}

Expected<bool, std::string> apply_target_url(TargetConfig& c, const std::string& url, const std::string& primary_path) {
  c.url = url;
  if (url.starts_with("exec:")) {
    c.kind = "exec";
    c.exec_command = url.substr(5);
    if (c.exec_command.size() >= 2 && (c.exec_command.front() == '\'' || c.exec_command.front() == '"') &&
        c.exec_command.back() == c.exec_command.front()) {
      c.exec_command = c.exec_command.substr(1, c.exec_command.size() - 2);
    }
    if (c.exec_command.empty()) return unexpected(std::string("exec: target needs a command"));
    return true;
  }
  if (url.starts_with("dir:")) {
    c.kind = "dir";
    c.directory = url.substr(4);
    if (c.directory.empty()) return unexpected(std::string("dir: target needs a directory"));
    return true;
  }
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return unexpected("target URL must be ws://, wss://, http://, https://, exec: or dir:, got " + url);
  const std::string scheme = url.substr(0, scheme_end);
  const bool tls = scheme == "wss" || scheme == "https";
  if (scheme != "ws" && scheme != "wss" && scheme != "http" && scheme != "https") {
    return unexpected("unsupported scheme '" + scheme + "' in " + url);
  }
  const auto path_start = url.find('/', scheme_end + 3);
  const std::string authority = url.substr(scheme_end + 3, path_start == std::string::npos ? std::string::npos : path_start - scheme_end - 3);
  if (authority.empty()) return unexpected("target URL has no host: " + url);
  c.http_base = std::string(tls ? "https" : "http") + "://" + authority;
  c.ws_base = std::string(tls ? "wss" : "ws") + "://" + authority;
  if (path_start != std::string::npos) {
    std::string path = url.substr(path_start);
    if (path != "/" && !primary_path.empty()) c.paths[primary_path] = path;
  }
  return true;
}

Expected<bool, std::string> apply_target_file(TargetConfig& c, const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return unexpected("cannot open target config " + file.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto doc = json::parse_strict(buffer.str());
  if (!doc) return unexpected(file.string() + ": " + doc.error().describe());
  auto store = schema::SchemaStore::load_directory(data_dir() / "schemas");
  if (!store) return unexpected(store.error());
  if (const auto* schema = (*store)->find("target.schema.json")) {
    if (auto v = schema->validate(*doc, 1); !v.empty()) {
      return unexpected(file.string() + ": " + (v[0].pointer.empty() ? "(root)" : v[0].pointer) + ": " + v[0].message);
    }
  }
  const Json& d = *doc;
  if (auto it = d.find("paths"); it != d.end()) {
    for (const auto& [k, v] : it->items()) c.paths[k] = v.get<std::string>();
  }
  if (auto it = d.find("settings"); it != d.end()) {
    for (const auto& [k, v] : it->items()) c.settings[k] = v;
  }
  if (auto it = d.find("features"); it != d.end()) {
    for (const auto& f : *it) c.features.insert(f.get<std::string>());
  }
  if (auto it = d.find("roles"); it != d.end()) {
    for (const auto& r : *it) c.roles.insert(r.get<std::string>());
  }
  if (auto it = d.find("transports"); it != d.end()) {
    for (const auto& t : *it) c.transports.insert(t.get<std::string>());
  }
  if (auto it = d.find("tls"); it != d.end()) {
    c.tls.ca_file = it->value("ca_file", c.tls.ca_file);
    c.tls.insecure = it->value("insecure", c.tls.insecure);
  }
  c.timeout_scale = d.value("timeout_scale", c.timeout_scale);
  return true;
}

}  // namespace ac::engine
