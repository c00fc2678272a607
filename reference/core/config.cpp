#include "reference/core/config.hpp"

#include <fstream>
#include <sstream>

#include "harness/json/strict_reader.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/util/data_dir.hpp"

namespace ac::ref {

const nlohmann::json& LobbyConfig::section(std::string_view protocol) const {
  static const nlohmann::json empty = nlohmann::json::object();
  auto it = protocols.find(std::string(protocol));
  return it == protocols.end() ? empty : *it;
}

std::chrono::milliseconds LobbyConfig::scaled(std::chrono::milliseconds base) const {
  const double ms = static_cast<double>(base.count()) * timeout_scale;
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms < 1.0 ? 1.0 : ms));
}

Expected<LobbyConfig, std::string> config_from_json(const nlohmann::json& doc) {
  static const auto store = [] {
    auto s = schema::SchemaStore::load_directory(data_dir() / "schemas");
    return s ? *s : nullptr;
  }();
  if (store == nullptr) return unexpected(std::string("cannot load schemas/ to validate the configuration"));
  const auto* schema = store->find("lobby-config.schema.json");
  if (schema == nullptr) return unexpected(std::string("schemas/lobby-config.schema.json is missing"));
  if (auto violations = schema->validate(doc, 1); !violations.empty()) {
    const auto& v = violations.front();
    return unexpected("config " + (v.pointer.empty() ? std::string("(root)") : v.pointer) + ": " + v.rule + ": " + v.message);
  }
  LobbyConfig c;
  std::vector<std::string> errors;
  SectionReader r{doc, errors, ""};
  c.lobby_id = r.string("lobby_id", c.lobby_id);
  c.api_keys = r.strings("api_keys", c.api_keys);
  c.admin_token = r.string("admin_token", c.admin_token);
  c.timeout_scale = r.number("timeout_scale", c.timeout_scale);
  c.listen_address = r.string("listen_address", c.listen_address);
  c.port = static_cast<std::uint16_t>(r.integer("port", c.port));
  c.threads = static_cast<std::size_t>(r.integer("threads", static_cast<std::int64_t>(c.threads)));
  c.max_connections = static_cast<std::size_t>(r.integer("max_connections", static_cast<std::int64_t>(c.max_connections)));
  c.max_message_bytes = static_cast<std::size_t>(r.integer("max_message_bytes", static_cast<std::int64_t>(c.max_message_bytes)));
  c.max_send_queue_bytes =
      static_cast<std::size_t>(r.integer("max_send_queue_bytes", static_cast<std::int64_t>(c.max_send_queue_bytes)));
  c.handshake_timeout = r.millis("handshake_timeout_ms", c.handshake_timeout);
  c.ws_idle_timeout = r.millis("ws_idle_timeout_ms", c.ws_idle_timeout);
  c.http_idle_timeout = r.millis("http_idle_timeout_ms", c.http_idle_timeout);
  c.tls_cert_file = r.string("tls_cert_file", c.tls_cert_file);
  c.tls_key_file = r.string("tls_key_file", c.tls_key_file);
  for (const auto& f : r.strings("faults", {})) c.faults.insert(f);
  if (auto it = doc.find("protocols"); it != doc.end()) c.protocols = *it;
  if (!errors.empty()) return unexpected(errors.front());
  return c;
}

Expected<LobbyConfig, std::string> load_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return unexpected("cannot open config file " + file.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto doc = json::parse_strict(buffer.str());
  if (!doc) return unexpected(file.string() + ": " + doc.error().describe());
  auto config = config_from_json(*doc);
  if (!config) return unexpected(file.string() + ": " + config.error());
  return config;
}

namespace {
template <typename T, typename Check>
T read(const SectionReader& r, const char* key, T fallback, Check is_type, const char* type_name) {
  auto it = r.section.find(key);
  if (it == r.section.end()) return fallback;
  if (!is_type(*it)) {
    r.errors.push_back(r.prefix + key + ": expected " + type_name);
    return fallback;
  }
  return it->template get<T>();
}
}  // namespace

std::int64_t SectionReader::integer(const char* key, std::int64_t fallback) const {
  return read<std::int64_t>(*this, key, fallback, [](const nlohmann::json& j) { return j.is_number_integer(); }, "an integer");
}
double SectionReader::number(const char* key, double fallback) const {
  return read<double>(*this, key, fallback, [](const nlohmann::json& j) { return j.is_number(); }, "a number");
}
bool SectionReader::boolean(const char* key, bool fallback) const {
  return read<bool>(*this, key, fallback, [](const nlohmann::json& j) { return j.is_boolean(); }, "a boolean");
}
std::string SectionReader::string(const char* key, std::string fallback) const {
  return read<std::string>(*this, key, std::move(fallback), [](const nlohmann::json& j) { return j.is_string(); }, "a string");
}
std::vector<std::string> SectionReader::strings(const char* key, std::vector<std::string> fallback) const {
  auto is_strings = [](const nlohmann::json& j) {
    if (!j.is_array()) return false;
    for (const auto& e : j) {
      if (!e.is_string()) return false;
    }
    return true;
  };
  return read<std::vector<std::string>>(*this, key, std::move(fallback), is_strings, "an array of strings");
}
std::chrono::milliseconds SectionReader::millis(const char* key, std::chrono::milliseconds fallback) const {
  return std::chrono::milliseconds(integer(key, fallback.count()));
}

}  // namespace ac::ref
