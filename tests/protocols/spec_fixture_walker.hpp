// Test support for spec_examples_test.cpp: loads fixtures/<protocol>/ and walks a schema along
// one concrete instance, to derive mutations (drop a required member, change a member's type,
// add a member) whose expected verdicts the tests then check against the codec.
//
// The walker follows $ref (absolute after SchemaStore loading), allOf, properties, items and
// if/then/else (the `if` is evaluated on the instance), i.e. exactly the parts of a schema that
// apply to the instance. It refuses anyOf/oneOf (their required members depend on which branch
// matched), so a schema that starts using them gets a clear test failure instead of silently
// weaker tests.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/protocols/profile.hpp"
#include "harness/schema/schema_store.hpp"

namespace ac::test {

using Json = nlohmann::json;

// What the schema says about one location of the instance.
struct LocationFacts {
  std::vector<std::vector<std::string>> types;  // every `type` constraint met at this location
  bool closed = false;                          // additionalProperties: false met here
  bool declared = false;                        // named by a `properties` (or reached by `items`)
};

struct SchemaWalk {
  // (JSON Pointer of the object, member name) for each required member the instance has.
  std::vector<std::pair<std::string, std::string>> required;
  std::map<std::string, LocationFacts> facts;  // by instance JSON Pointer ("" = root)
  std::vector<std::string> problems;           // constructs the walker cannot follow
};

SchemaWalk walk_schema(const schema::SchemaStore& store, const std::string& schema_key, const Json& instance);

// True when a value of `value`'s JSON type satisfies the draft-07 `type` list.
bool type_accepts(const std::vector<std::string>& types, const Json& value);

std::string escape_pointer_segment(const std::string& name);

// One entry of fixtures/<protocol>/examples.json, with its bytes.
struct Fixture {
  std::string file;      // "valid/ping.json"
  std::string source;    // spec file + section, or "hand-made"
  bool verbatim = false;
  std::string note;
  std::string key;       // expected message key (valid messages)
  std::string document;  // document name (standalone documents)
  std::string bytes;
  bool valid() const { return file.starts_with("valid/"); }
  std::string name() const { return file.substr(file.find('/') + 1); }
};

std::filesystem::path fixtures_root();
std::string read_bytes(const std::filesystem::path& path);
// Every entry of fixtures/<protocol>/examples.json; fails the current test on malformed entries.
std::vector<Fixture> load_fixtures(proto::ProtocolId id);
// fixtures/<protocol>/invalid/expectations.json
Json load_expectations(proto::ProtocolId id);

// The error code the protocol's documented mapping (schemas/README.md) gives a schema violation.
// Written out here, independently of index.json, so that a wrong index fails the tests.
std::string expected_code(proto::ProtocolId id, const std::string& pointer, const std::string& rule);
// Members the spec declares with any JSON value (ALP content, AgentProtocol result, Chopsticks
// data): the only declared locations allowed to carry no `type`.
bool documented_any_value(proto::ProtocolId id, const std::string& pointer);
// The code for input that is not JSON at all.
std::string malformed_code(proto::ProtocolId id);
// The documented extensibility policy (docs/spec-readings.md ALP-1, AP-5, AG-2, A2-1, CH-3):
// may the object at `pointer` of a message (or document) carry members the spec does not name?
bool policy_allows_extra_members(proto::ProtocolId id, const std::string& pointer);

}  // namespace ac::test
