// Configuration of the reference lobby: one JSON file (validated by
// schemas/lobby-config.schema.json) plus command-line overrides. Protocol-specific settings stay
// as JSON sections that each protocol's hub reads itself, so the core knows no protocol.
#pragma once

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::ref {

struct LobbyConfig {
  std::string lobby_id = "agentconform-reference-lobby";
  std::vector<std::string> api_keys = {"agentconform-test-key"};
  std::string admin_token = "agentconform-admin";
  // Multiplies every protocol timeout (token lifetimes excluded), so tests can shrink them.
  double timeout_scale = 1.0;

  std::string listen_address = "127.0.0.1";
  std::uint16_t port = 0;
  std::size_t threads = 2;
  std::size_t max_connections = 10000;
  std::size_t max_message_bytes = 1024 * 1024;
  std::size_t max_send_queue_bytes = 8 * 1024 * 1024;
  std::chrono::milliseconds handshake_timeout{10000};
  std::chrono::milliseconds ws_idle_timeout{60000};
  std::chrono::milliseconds http_idle_timeout{30000};
  std::string tls_cert_file;
  std::string tls_key_file;

  std::set<std::string> faults;  // names from reference/faults.json
  nlohmann::json protocols = nlohmann::json::object();  // "alp": {...}, "agora": {...}, ...

  // A protocol section ({} when absent).
  const nlohmann::json& section(std::string_view protocol) const;
  std::chrono::milliseconds scaled(std::chrono::milliseconds base) const;
};

// Reads and validates a config file; unknown keys and wrong types are errors naming the field.
Expected<LobbyConfig, std::string> load_config(const std::filesystem::path& file);
// Applies a parsed config document onto defaults (used by load_config and tests).
Expected<LobbyConfig, std::string> config_from_json(const nlohmann::json& doc);

// Typed reads of a protocol section with defaults; a wrong type is reported, not thrown.
struct SectionReader {
  const nlohmann::json& section;
  std::vector<std::string>& errors;
  std::string prefix;  // "alp."

  std::int64_t integer(const char* key, std::int64_t fallback) const;
  double number(const char* key, double fallback) const;
  bool boolean(const char* key, bool fallback) const;
  std::string string(const char* key, std::string fallback) const;
  std::vector<std::string> strings(const char* key, std::vector<std::string> fallback) const;
  std::chrono::milliseconds millis(const char* key, std::chrono::milliseconds fallback) const;
};

}  // namespace ac::ref
