// Schema walker and fixture loading for spec_examples_test.cpp (see spec_fixture_walker.hpp).
#include "tests/protocols/spec_fixture_walker.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "harness/json/strict_reader.hpp"

namespace ac::test {
namespace {

constexpr int kMaxDepth = 64;  // schema recursion guard; our schemas are a few levels deep

struct Walker {
  const schema::SchemaStore& store;
  SchemaWalk out;

  const Json* resolve(const std::string& ref) {
    const auto hash = ref.find('#');
    const std::string uri = ref.substr(0, hash);
    const std::string fragment = hash == std::string::npos ? std::string() : ref.substr(hash + 1);
    const Json* doc = store.document(uri);
    if (doc == nullptr) {
      out.problems.push_back("unresolvable $ref " + ref);
      return nullptr;
    }
    try {
      return &doc->at(Json::json_pointer(fragment));
    } catch (const std::exception&) {
      out.problems.push_back("$ref " + ref + " points nowhere");
      return nullptr;
    }
  }

  bool if_matches(const Json& if_schema, const Json& instance, const std::string& where) {
    auto compiled = schema::compile_untrusted(if_schema);
    if (!compiled) {
      out.problems.push_back(where + ": cannot evaluate `if`: " + compiled.error());
      return false;
    }
    return (*compiled)->is_valid(instance);
  }

  void visit(const Json& node, const Json& instance, const std::string& ptr, int depth) {
    if (depth > kMaxDepth) {
      out.problems.push_back(ptr + ": schema recursion too deep");
      return;
    }
    if (!node.is_object()) return;  // boolean schemas constrain nothing we mutate
    if (auto it = node.find("$ref"); it != node.end()) {
      // draft-07: siblings of $ref are ignored.
      if (const Json* target = resolve(it->get<std::string>())) visit(*target, instance, ptr, depth + 1);
      return;
    }
    for (const char* unsupported : {"anyOf", "oneOf"}) {
      if (node.contains(unsupported)) out.problems.push_back(ptr + ": the walker does not follow " + unsupported);
    }
    if (auto it = node.find("type"); it != node.end()) {
      std::vector<std::string> types;
      if (it->is_string()) types.push_back(it->get<std::string>());
      else for (const auto& t : *it) types.push_back(t.get<std::string>());
      out.facts[ptr].types.push_back(std::move(types));
    }
    if (auto it = node.find("allOf"); it != node.end()) {
      for (const auto& sub : *it) visit(sub, instance, ptr, depth + 1);
    }
    if (auto it = node.find("if"); it != node.end()) {
      const char* branch = if_matches(*it, instance, ptr) ? "then" : "else";
      if (auto b = node.find(branch); b != node.end()) visit(*b, instance, ptr, depth + 1);
    }
    if (instance.is_object()) {
      if (auto it = node.find("required"); it != node.end()) {
        for (const auto& name : *it) {
          if (instance.contains(name.get<std::string>())) out.required.emplace_back(ptr, name.get<std::string>());
        }
      }
      std::set<std::string> named;
      if (auto it = node.find("properties"); it != node.end()) {
        for (const auto& [name, sub] : it->items()) {
          named.insert(name);
          if (auto m = instance.find(name); m != instance.end()) {
            out.facts[ptr + "/" + escape_pointer_segment(name)].declared = true;
            visit(sub, *m, ptr + "/" + escape_pointer_segment(name), depth + 1);
          }
        }
      }
      if (auto it = node.find("additionalProperties"); it != node.end()) {
        if (it->is_boolean() && !it->get<bool>()) out.facts[ptr].closed = true;
        if (it->is_object()) {
          for (const auto& [name, value] : instance.items()) {
            if (named.count(name) == 0) visit(*it, value, ptr + "/" + escape_pointer_segment(name), depth + 1);
          }
        }
      }
    }
    if (instance.is_array()) {
      if (auto it = node.find("items"); it != node.end()) {
        for (std::size_t i = 0; i < instance.size(); ++i) {
          const Json& item_schema = it->is_array() ? (i < it->size() ? (*it)[i] : Json(true)) : *it;
          out.facts[ptr + "/" + std::to_string(i)].declared = true;
          visit(item_schema, instance[i], ptr + "/" + std::to_string(i), depth + 1);
        }
      }
    }
  }
};

std::vector<std::string> segments(const std::string& pointer) {
  std::vector<std::string> out;
  std::size_t start = 1;
  while (start <= pointer.size() && !pointer.empty()) {
    std::size_t end = pointer.find('/', start);
    if (end == std::string::npos) end = pointer.size();
    out.push_back(pointer.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string string_member(const Json& entry, const char* key) {
  auto it = entry.find(key);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

SchemaWalk walk_schema(const schema::SchemaStore& store, const std::string& schema_key, const Json& instance) {
  Walker w{store, {}};
  const Json* root = store.document(schema_key);
  if (root == nullptr) {
    w.out.problems.push_back("no schema " + schema_key);
    return w.out;
  }
  w.visit(*root, instance, "", 0);
  return w.out;
}

bool type_accepts(const std::vector<std::string>& types, const Json& value) {
  for (const auto& t : types) {
    if (t == "string" && value.is_string()) return true;
    if (t == "integer" && value.is_number_integer()) return true;
    if (t == "number" && value.is_number()) return true;
    if (t == "boolean" && value.is_boolean()) return true;
    if (t == "null" && value.is_null()) return true;
    if (t == "array" && value.is_array()) return true;
    if (t == "object" && value.is_object()) return true;
  }
  return false;
}

std::string escape_pointer_segment(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::filesystem::path fixtures_root() { return std::filesystem::path(AC_SOURCE_DIR) / "fixtures"; }

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<Fixture> load_fixtures(proto::ProtocolId id) {
  const auto dir = fixtures_root() / std::string(proto::name(id));
  std::vector<Fixture> out;
  auto index = json::parse_strict(read_bytes(dir / "examples.json"));
  if (!index || !index->is_array()) {
    ADD_FAILURE() << dir / "examples.json" << " is not a JSON array";
    return out;
  }
  for (const auto& entry : *index) {
    Fixture f;
    f.file = string_member(entry, "file");
    f.source = string_member(entry, "source");
    f.note = string_member(entry, "note");
    f.key = string_member(entry, "key");
    f.document = string_member(entry, "document");
    f.verbatim = entry.value("verbatim", false);
    EXPECT_TRUE(entry.contains("verbatim") && entry["verbatim"].is_boolean()) << f.file << ": verbatim must be true|false";
    EXPECT_FALSE(f.source.empty()) << f.file << ": no source";
    EXPECT_FALSE(f.note.empty()) << f.file << ": no note";
    EXPECT_TRUE(f.file.starts_with("valid/") || f.file.starts_with("invalid/")) << f.file;
    if (f.valid()) {
      EXPECT_NE(f.key.empty(), f.document.empty()) << f.file << ": a valid fixture names exactly one of key, document";
    }
    EXPECT_TRUE(std::filesystem::is_regular_file(dir / f.file)) << dir / f.file << " is listed but missing";
    f.bytes = read_bytes(dir / f.file);
    out.push_back(std::move(f));
  }
  return out;
}

Json load_expectations(proto::ProtocolId id) {
  const auto path = fixtures_root() / std::string(proto::name(id)) / "invalid" / "expectations.json";
  auto doc = json::parse_strict(read_bytes(path));
  if (!doc || !doc->is_object()) {
    ADD_FAILURE() << path << " is not a JSON object";
    return Json::object();
  }
  return *doc;
}

std::string expected_code(proto::ProtocolId id, const std::string& pointer, const std::string& rule) {
  using proto::ProtocolId;
  switch (id) {
    case ProtocolId::alp:  // §8.3
      return rule == "required" ? "MISSING_REQUIRED_FIELD" : "MESSAGE_MALFORMED";
    case ProtocolId::agora:  // AG-7
      return "INVALID_FRAME";
    case ProtocolId::agentprotocol:  // §Error Codes
      return "INVALID_MESSAGE";
    case ProtocolId::a2acp:  // A2-12
      return pointer == "/security" || pointer.starts_with("/security/") ? "AUTH_FAILED" : "SCHEMA_MISMATCH";
    case ProtocolId::chopsticks:  // CH-7
      if (pointer == "/protocolVersion" || pointer.starts_with("/protocolVersion/")) return "MISSING_VERSION";
      return rule == "required" ? "MISSING_REQUIRED_FIELD" : "INVALID_MESSAGE_FORMAT";
  }
  return "?";
}

bool documented_any_value(proto::ProtocolId id, const std::string& pointer) {
  using proto::ProtocolId;
  switch (id) {
    case ProtocolId::alp: return pointer == "/payload/content";            // §7.3.1 "any" (ALP-13)
    case ProtocolId::agentprotocol: return pointer == "/payload/result";   // AP-8
    case ProtocolId::chopsticks: return pointer == "/data";                // `data: any` / `data?: any`
    case ProtocolId::agora:
    case ProtocolId::a2acp: return false;
  }
  return false;
}

std::string malformed_code(proto::ProtocolId id) {
  using proto::ProtocolId;
  switch (id) {
    case ProtocolId::alp: return "MESSAGE_MALFORMED";
    case ProtocolId::agora: return "INVALID_FRAME";
    case ProtocolId::agentprotocol: return "INVALID_MESSAGE";
    case ProtocolId::a2acp: return "SCHEMA_MISMATCH";
    case ProtocolId::chopsticks: return "INVALID_MESSAGE_FORMAT";
  }
  return "?";
}

bool policy_allows_extra_members(proto::ProtocolId id, const std::string& pointer) {
  using proto::ProtocolId;
  const auto segs = segments(pointer);
  switch (id) {
    case ProtocolId::alp: {
      // ALP-1: closed, except inside the free-form members.
      static const std::set<std::string> open = {"metadata",     "input_data",    "output_data",
                                                 "details",      "data",          "content",
                                                 "input_schema", "output_schema", "error_schema"};
      for (const auto& s : segs) {
        if (open.count(s) != 0) return true;
      }
      return false;
    }
    case ProtocolId::agentprotocol:  // AP-5: custom fields go to payload or metadata only
      return !segs.empty() && (segs.front() == "payload" || segs.front() == "metadata");
    case ProtocolId::agora:       // AG-2
    case ProtocolId::a2acp:       // A2-1
    case ProtocolId::chopsticks:  // CH-3
      return true;
  }
  return false;
}

}  // namespace ac::test
