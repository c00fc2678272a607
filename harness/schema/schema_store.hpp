// JSON Schema (draft-07) validation with valijson, made safe for hostile input.
//
// The rules of every message live once, in schemas/<protocol>/*.schema.json; nothing in C++
// repeats them. Two valijson behaviours are replaced (see schema_store.cpp):
//   - `pattern` runs on RE2 (linear time, no recursion) instead of std::regex, which overflows
//     the stack on long inputs and backtracks exponentially on hostile patterns;
//   - `format` (uuid, date-time, date, time) is checked by hand-written parsers instead of a
//     std::regex constructed on every call.
// Schemas from the network (an ALP capability's input_schema) are compiled with
// compile_untrusted(), which refuses remote references and patternProperties.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/util/expected.hpp"

namespace ac::schema {

using Json = nlohmann::json;

// One reason an instance does not match its schema.
struct Violation {
  std::string pointer;  // JSON Pointer into the instance ("/payload/capability_name")
  std::string rule;     // the JSON Schema keyword that failed: required, type, pattern, format, ...
  std::string message;  // human readable
};

// A compiled schema; immutable, safe to validate from many threads at once.
class CompiledSchema {
 public:
  virtual ~CompiledSchema() = default;
  virtual bool is_valid(const Json& instance) const = 0;
  // Up to max_violations most specific violations, deepest first; empty when valid.
  virtual std::vector<Violation> validate(const Json& instance, std::size_t max_violations = 8) const = 0;
  // The `$comment` of the schema root (spec section and readings), "" when absent.
  virtual const std::string& comment() const = 0;
};

// All schema files under a directory, addressable by relative path ("alp/envelope.schema.json")
// or by their `$id`. `$ref`s between files resolve against `$id`s.
class SchemaStore {
 public:
  static Expected<std::shared_ptr<SchemaStore>, std::string> load_directory(const std::filesystem::path& root);

  // nullptr when no such schema. `key` is a path relative to the root or an `$id`.
  const CompiledSchema* find(std::string_view key) const;
  std::vector<std::string> keys() const;  // relative paths, sorted

  // The JSON document of a loaded schema (for tools that walk schemas, e.g. the fuzzer), as read
  // except that every `$ref` of a document with an `$id` has been made absolute against that `$id`.
  const Json* document(std::string_view key) const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

// Compiles one self-contained schema received from a peer. Refuses (with a reason) remote
// `$ref`s, `patternProperties`, `pattern` that RE2 cannot compile, and schemas nested deeper
// than 32 levels.
Expected<std::shared_ptr<const CompiledSchema>, std::string> compile_untrusted(const Json& schema);

// Format checkers, exposed for the codecs and tests.
bool is_uuid(std::string_view s);          // 8-4-4-4-12 hex, any version
bool is_date_time(std::string_view s);     // RFC 3339 date-time (ISO 8601 profile)
bool is_date(std::string_view s);          // RFC 3339 full-date
bool is_time(std::string_view s);          // RFC 3339 full-time

}  // namespace ac::schema
