// A protocol profile: what agentconform knows about one protocol's messages, loaded from
// schemas/<protocol>/index.json (see schemas/README.md for the format). Decoding is generic:
// strict JSON -> discriminator lookup -> schema validation -> the protocol's own error code.
// Typed views of the messages live in harness/protocols/<protocol>/.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/codec_error.hpp"
#include "harness/protocols/protocol_id.hpp"
#include "harness/schema/schema_store.hpp"
#include "harness/util/expected.hpp"

namespace ac::proto {

using Json = nlohmann::json;

// One message type (or standalone document such as a JWT claims set) of a protocol.
struct MessageSpec {
  std::string key;         // "INVOKE_CAPABILITY_REQUEST", "event.released", "request.initiate_handshake"
  std::string schema;      // path relative to schemas/: "alp/invoke_capability_request.schema.json"
  std::string section;     // "§7.3.2"
  std::string direction;   // free text from the index: "agent-to-lobby", "both", ...
  const schema::CompiledSchema* compiled = nullptr;
};

// A message that passed decoding: its type key, its JSON and its spec.
struct Decoded {
  std::string key;
  Json value;
  const MessageSpec* spec = nullptr;
};

class Profile {
 public:
  ProtocolId id() const { return id_; }
  const std::string& title() const { return title_; }
  const std::string& version() const { return version_; }
  const std::string& spec_file() const { return spec_file_; }
  const std::vector<std::string>& discriminator() const { return discriminator_; }

  // Bytes -> validated message, or the error a conforming peer would report.
  Expected<Decoded, CodecError> decode(std::string_view bytes, const json::ReadLimits& limits = {}) const;
  // Same, for an already parsed value.
  Expected<Decoded, CodecError> check(Json message) const;
  // Every problem of a parsed message (up to max_errors), most specific first; empty when valid.
  std::vector<CodecError> diagnose(const Json& message, std::size_t max_errors = 16) const;
  // Validates a standalone document ("capability", "jwt_claims", "register_request", ...).
  std::optional<CodecError> check_document(std::string_view name, const Json& document) const;

  // The message type key of a JSON value (discriminator values joined by '.'), or nullopt.
  std::optional<std::string> key_of(const Json& message) const;

  const MessageSpec* message(std::string_view key) const;
  const MessageSpec* document(std::string_view name) const;
  const std::map<std::string, MessageSpec, std::less<>>& messages() const { return messages_; }
  const std::map<std::string, MessageSpec, std::less<>>& documents() const { return documents_; }

  // Typed message -> bytes: compact JSON (UTF-8, no trailing newline).
  static std::string encode(const Json& message);

 private:
  friend class Catalog;
  CodecError make_error(std::string code, std::string pointer, std::string rule, std::string section, std::string message) const;
  std::string code_for(const schema::Violation& v) const;
  std::string section_for(const MessageSpec* spec, const std::string& pointer) const;
  std::optional<CodecError> subtype_error(const Json& message) const;

  ProtocolId id_ = ProtocolId::alp;
  std::string title_, version_, spec_file_;
  std::vector<std::string> discriminator_;
  std::string message_id_pointer_;
  std::map<std::string, MessageSpec, std::less<>> messages_;
  std::map<std::string, MessageSpec, std::less<>> documents_;
  std::optional<MessageSpec> envelope_;
  std::string payload_pointer_;
  // error_codes from the index
  std::string code_malformed_json_, code_not_object_, code_missing_discriminator_, code_unknown_type_, code_default_;
  std::map<std::string, std::string> code_by_rule_;
  std::vector<std::pair<std::string, std::string>> code_by_pointer_;  // prefix -> code, longest first
};

// All five profiles over one schema store.
class Catalog {
 public:
  // Loads schemas/ (every *.schema.json plus each protocol's index.json).
  static Expected<std::shared_ptr<const Catalog>, std::string> load(const std::filesystem::path& schemas_root);
  // The catalog of the data directory (ac::data_dir()/schemas), loaded once on first use.
  // Throws std::runtime_error if the shipped schemas are broken (a packaging error).
  static const Catalog& builtin();

  const Profile& profile(ProtocolId id) const { return profiles_.at(static_cast<std::size_t>(id)); }
  const schema::SchemaStore& store() const { return *store_; }

 private:
  std::shared_ptr<schema::SchemaStore> store_;
  std::vector<Profile> profiles_;  // indexed by ProtocolId
};

}  // namespace ac::proto
