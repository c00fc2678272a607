// Shared by the five <protocol>_codec_test.cpp files: reading the fixtures of
// fixtures/<protocol>/ (examples.json lists the valid ones with their message key or document
// name; invalid/expectations.json gives code, pointer and rule of each invalid one) and the
// checks every typed codec must pass on them.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/codec_error.hpp"
#include "harness/util/expected.hpp"

namespace ac::test {

using Json = nlohmann::json;

inline std::filesystem::path fixtures_dir(std::string_view protocol) {
  return std::filesystem::path(AC_SOURCE_DIR) / "fixtures" / std::string(protocol);
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

inline Json read_json(const std::filesystem::path& path) {
  auto parsed = json::parse_strict(read_file(path));
  EXPECT_TRUE(parsed.has_value()) << path << ": " << (parsed ? "" : parsed.error().describe());
  return parsed ? *parsed : Json();
}

struct Example {
  std::string file;      // relative to fixtures/<protocol>/: "valid/ping.json"
  std::string key;       // message key, "" for documents
  std::string document;  // document name, "" for messages
};

// The valid fixtures listed in examples.json.
inline std::vector<Example> valid_examples(std::string_view protocol) {
  std::vector<Example> out;
  const Json index = read_json(fixtures_dir(protocol) / "examples.json");
  if (!index.is_array()) return out;
  for (const auto& e : index) {
    const std::string file = e.value("file", "");
    if (!file.starts_with("valid/")) continue;
    out.push_back({file, e.value("key", ""), e.value("document", "")});
  }
  return out;
}

struct Expectation {
  std::string file;  // "invalid/missing_message_id.json"
  std::string code, pointer, rule, document;
};

inline std::vector<Expectation> invalid_expectations(std::string_view protocol) {
  std::vector<Expectation> out;
  const Json index = read_json(fixtures_dir(protocol) / "invalid" / "expectations.json");
  if (!index.is_object()) return out;
  for (const auto& [name, e] : index.items()) {
    out.push_back({"invalid/" + name, e.value("code", ""), e.value("pointer", ""), e.value("rule", ""),
                   e.value("document", "")});
  }
  return out;
}

// Compact JSON: what encode() must produce. Equal to nlohmann's compact dump of the same value.
inline bool is_compact_dump_of(const std::string& bytes, const Json& value) { return bytes == value.dump(); }

// The checks every codec passes on its fixtures, given its decode, to_json, encode and a
// function naming the key of a decoded message.
template <typename Decode, typename ToJson, typename Encode, typename KeyOf>
void check_valid_fixtures(std::string_view protocol, Decode decode, ToJson to_json, Encode encode, KeyOf key_of,
                          std::size_t minimum) {
  std::size_t messages = 0;
  for (const auto& ex : valid_examples(protocol)) {
    if (ex.key.empty()) continue;
    SCOPED_TRACE(ex.file);
    const std::string bytes = read_file(fixtures_dir(protocol) / ex.file);
    auto m = decode(bytes);
    ASSERT_TRUE(m.has_value()) << m.error().describe();
    EXPECT_EQ(key_of(*m), ex.key);
    // Nothing lost: the typed form prints back to the same JSON value.
    const Json original = read_json(fixtures_dir(protocol) / ex.file);
    EXPECT_EQ(to_json(*m), original);
    // encode() is compact JSON that decodes back to an equal message.
    const std::string encoded = encode(*m);
    EXPECT_TRUE(is_compact_dump_of(encoded, original)) << encoded;
    auto again = decode(encoded);
    ASSERT_TRUE(again.has_value()) << again.error().describe();
    EXPECT_TRUE(*again == *m);
    ++messages;
  }
  EXPECT_GE(messages, minimum) << "too few valid message fixtures for " << protocol;
}

// Invalid message fixtures fail with the expected code, pointer and rule, a section naming the
// spec file, and never crash.
// Errors about the message as a whole or its type member may carry only the spec file (there
// is no message schema to take a section from); all others name a section too.
template <typename Decode>
void check_invalid_fixtures(std::string_view protocol, std::string_view spec_file, std::string_view discriminator,
                            Decode decode, std::size_t minimum) {
  std::size_t checked = 0;
  for (const auto& ex : invalid_expectations(protocol)) {
    if (!ex.document.empty()) continue;
    SCOPED_TRACE(ex.file);
    auto m = decode(read_file(fixtures_dir(protocol) / ex.file));
    ASSERT_FALSE(m.has_value()) << "accepted";
    const proto::CodecError& e = m.error();
    EXPECT_EQ(e.code, ex.code) << e.describe();
    EXPECT_EQ(e.pointer, ex.pointer) << e.describe();
    EXPECT_EQ(e.rule, ex.rule) << e.describe();
    if (!e.rule.starts_with("json.")) {
      EXPECT_TRUE(e.section.starts_with(spec_file)) << e.describe();
      if (!e.pointer.empty() && e.pointer != discriminator) {
        EXPECT_GT(e.section.size(), spec_file.size()) << "no section: " << e.describe();
      }
    }
    EXPECT_FALSE(e.message.empty());
    ++checked;
  }
  EXPECT_GE(checked, minimum) << "too few invalid fixtures for " << protocol;
}

}  // namespace ac::test
