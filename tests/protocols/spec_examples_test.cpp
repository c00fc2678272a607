// Pins every spec example and every schema rule of the five protocols against the generic codec
// (Catalog::builtin().profile(p).decode): fixtures/<protocol>/ holds the spec's examples verbatim,
// completed partial examples and hand-made messages; these tests check
//   - every valid fixture decodes to its expected message key (documents: check_document passes);
//   - every invalid fixture fails with exactly the expected code, JSON Pointer and rule;
//   - for every required member the fixture instantiates (walking the schema through $ref, allOf,
//     if/then/else), a copy without it fails with that member's pointer, rule "required" and the
//     protocol's code;
//   - for every member with a declared type, a copy with a value of another type fails at or below
//     that member;
//   - a member nobody defined is accepted or refused as the documented extensibility policy says;
//   - empty, blank, oversized, over-deep and non-UTF-8 input gives the protocol's malformed code;
//   - the schemas carry $schema/$id/$comment, and the fixture set covers every message type.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "harness/json/strict_reader.hpp"
#include "harness/protocols/profile.hpp"
#include "tests/protocols/spec_fixture_walker.hpp"

namespace ac::test {
namespace {

using proto::Catalog;
using proto::ProtocolId;

const proto::Profile& profile(ProtocolId id) { return Catalog::builtin().profile(id); }

std::string schema_of(ProtocolId id, const Fixture& f) {
  const auto* spec = f.document.empty() ? profile(id).message(f.key) : profile(id).document(f.document);
  return spec ? spec->schema : std::string();
}

// Decodes a message (or checks a document) and returns the error, or nullopt when it passes.
// For messages, also reports the decoded key in `key`.
std::optional<proto::CodecError> verdict(ProtocolId id, const Fixture& f, const Json& value, std::string* key = nullptr) {
  if (!f.document.empty()) return profile(id).check_document(f.document, value);
  auto decoded = profile(id).decode(proto::Profile::encode(value));
  if (!decoded) return decoded.error();
  if (key) *key = decoded->key;
  return std::nullopt;
}

std::string show(const proto::CodecError& e) { return e.describe(); }

// Every pointer (members and array elements, not the root) of a JSON value.
void collect_pointers(const Json& v, const std::string& ptr, std::vector<std::string>& out) {
  if (v.is_object()) {
    for (const auto& [k, sub] : v.items()) {
      const std::string p = ptr + "/" + escape_pointer_segment(k);
      out.push_back(p);
      collect_pointers(sub, p, out);
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string p = ptr + "/" + std::to_string(i);
      out.push_back(p);
      collect_pointers(v[i], p, out);
    }
  }
}

void collect_objects(const Json& v, const std::string& ptr, std::vector<std::string>& out) {
  if (v.is_object()) out.push_back(ptr);
  if (v.is_object()) {
    for (const auto& [k, sub] : v.items()) collect_objects(sub, ptr + "/" + escape_pointer_segment(k), out);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) collect_objects(v[i], ptr + "/" + std::to_string(i), out);
  }
}

class SpecExamples : public ::testing::TestWithParam<ProtocolId> {};

std::string param_name(const ::testing::TestParamInfo<ProtocolId>& info) { return std::string(proto::name(info.param)); }

TEST_P(SpecExamples, ValidFixturesDecodeToTheirKey) {
  const ProtocolId id = GetParam();
  std::size_t count = 0;
  for (const auto& f : load_fixtures(id)) {
    if (!f.valid()) continue;
    SCOPED_TRACE(f.file);
    ++count;
    if (f.document.empty()) {
      auto decoded = profile(id).decode(f.bytes);
      ASSERT_TRUE(decoded) << show(decoded.error());
      EXPECT_EQ(decoded->key, f.key);
      ASSERT_NE(decoded->spec, nullptr);
      EXPECT_EQ(decoded->spec->key, f.key);
    } else {
      auto parsed = json::parse_strict(f.bytes);
      ASSERT_TRUE(parsed) << parsed.error().describe();
      auto error = profile(id).check_document(f.document, *parsed);
      EXPECT_FALSE(error) << show(*error);
    }
  }
  EXPECT_GE(count, 8u);
}

TEST_P(SpecExamples, InvalidFixturesFailWithTheExpectedError) {
  const ProtocolId id = GetParam();
  const Json expectations = load_expectations(id);
  std::set<std::string> listed;
  for (const auto& f : load_fixtures(id)) {
    if (f.valid()) continue;
    SCOPED_TRACE(f.file + " (" + f.note + ")");
    listed.insert(f.name());
    ASSERT_TRUE(expectations.contains(f.name())) << "no expectation for " << f.name();
    const Json& x = expectations[f.name()];
    std::optional<proto::CodecError> error;
    if (x.contains("document")) {
      auto parsed = json::parse_strict(f.bytes);
      ASSERT_TRUE(parsed) << "a document fixture must be JSON";
      error = profile(id).check_document(x["document"].get<std::string>(), *parsed);
    } else {
      auto decoded = profile(id).decode(f.bytes);
      if (!decoded) error = decoded.error();
      else ADD_FAILURE() << "decoded as " << decoded->key;
    }
    ASSERT_TRUE(error);
    EXPECT_EQ(error->code, x.at("code").get<std::string>()) << show(*error);
    EXPECT_EQ(error->pointer, x.at("pointer").get<std::string>()) << show(*error);
    EXPECT_EQ(error->rule, x.at("rule").get<std::string>()) << show(*error);
    EXPECT_TRUE(error->section.starts_with(profile(id).spec_file()) || error->section.starts_with("RFC 8259")) << error->section;
    // The code agrees with the documented mapping whenever the error is a schema violation (an
    // unknown message type has its own code: ALP INVALID_MESSAGE_TYPE).
    const auto& disc = profile(id).discriminator();
    const bool unknown_type = error->rule == "enum" && std::find(disc.begin(), disc.end(), error->pointer) != disc.end();
    if (!error->rule.starts_with("json.") && !unknown_type && !error->pointer.empty()) {
      EXPECT_EQ(error->code, expected_code(id, error->pointer, error->rule)) << show(*error);
    }
  }
  for (const auto& [name, x] : expectations.items()) EXPECT_TRUE(listed.count(name)) << name << " expected but not in examples.json";
  EXPECT_GE(listed.size(), 15u);
}

TEST_P(SpecExamples, EveryFixtureFileIsListed) {
  const ProtocolId id = GetParam();
  std::set<std::string> listed;
  for (const auto& f : load_fixtures(id)) EXPECT_TRUE(listed.insert(f.file).second) << f.file << " listed twice";
  const auto dir = fixtures_root() / std::string(proto::name(id));
  for (const char* sub : {"valid", "invalid"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir / sub)) {
      const std::string rel = std::string(sub) + "/" + entry.path().filename().string();
      if (rel == "invalid/expectations.json") continue;
      EXPECT_TRUE(listed.count(rel)) << rel << " is not in examples.json";
    }
  }
}

TEST_P(SpecExamples, EveryMessageTypeAndDocumentHasAValidFixture) {
  const ProtocolId id = GetParam();
  std::set<std::string> keys, documents;
  for (const auto& f : load_fixtures(id)) {
    if (!f.valid()) continue;
    if (f.document.empty()) keys.insert(f.key);
    else documents.insert(f.document);
  }
  for (const auto& [key, spec] : profile(id).messages()) EXPECT_TRUE(keys.count(key)) << "no valid fixture of " << key;
  for (const auto& [name, spec] : profile(id).documents()) EXPECT_TRUE(documents.count(name)) << "no valid fixture of document " << name;
}

// Verbatim fixtures are the spec's own bytes: each must occur in the spec text.
TEST_P(SpecExamples, VerbatimFixturesAreTheSpecsBytes) {
  const ProtocolId id = GetParam();
  const auto spec_path = std::filesystem::path(AC_SOURCE_DIR).parent_path() / "shared" / "specs" / profile(id).spec_file();
  if (!std::filesystem::exists(spec_path)) GTEST_SKIP() << "specs not found at " << spec_path;
  const std::string spec = read_bytes(spec_path);
  // Complete messages (or documents) the spec shows, per protocol; partial ones are pinned too.
  const std::map<ProtocolId, std::size_t> expected = {{ProtocolId::alp, 1},  {ProtocolId::agora, 9},      {ProtocolId::agentprotocol, 4},
                                                      {ProtocolId::a2acp, 6}, {ProtocolId::chopsticks, 9}};
  std::size_t verbatim = 0;
  for (const auto& f : load_fixtures(id)) {
    if (!f.verbatim) continue;
    ++verbatim;
    std::string text = f.bytes;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    EXPECT_NE(spec.find(text), std::string::npos) << f.file << " is marked verbatim but is not in " << spec_path;
    EXPECT_TRUE(f.source.starts_with(profile(id).spec_file())) << f.file;
  }
  EXPECT_EQ(verbatim, expected.at(id));
}

TEST_P(SpecExamples, DroppingAnyRequiredMemberIsRejectedAtItsPointer) {
  const ProtocolId id = GetParam();
  std::size_t checks = 0;
  for (const auto& f : load_fixtures(id)) {
    if (!f.valid()) continue;
    SCOPED_TRACE(f.file);
    auto value = json::parse_strict(f.bytes);
    ASSERT_TRUE(value);
    const auto walk = walk_schema(Catalog::builtin().store(), schema_of(id, f), *value);
    EXPECT_TRUE(walk.problems.empty()) << walk.problems.front();
    EXPECT_FALSE(walk.required.empty()) << "the schema requires nothing of this fixture";
    for (const auto& [parent, member] : walk.required) {
      const std::string pointer = parent + "/" + escape_pointer_segment(member);
      SCOPED_TRACE("without " + pointer);
      Json copy = *value;
      copy.at(Json::json_pointer(parent.empty() ? "" : parent)).erase(member);
      auto error = verdict(id, f, copy);
      ASSERT_TRUE(error) << "accepted without " << pointer;
      EXPECT_EQ(error->pointer, pointer) << show(*error);
      EXPECT_EQ(error->rule, "required") << show(*error);
      EXPECT_EQ(error->code, expected_code(id, pointer, "required")) << show(*error);
      ++checks;
    }
  }
  EXPECT_GE(checks, 40u);
  std::cout << "[ info     ] " << proto::name(id) << ": " << checks << " required-member removals checked\n";
}

// Values of every JSON type, the wrong one for each declared type is taken from here.
const std::vector<Json>& candidates() {
  static const std::vector<Json> values = {Json(12345), Json("not-the-right-type"), Json(true), Json(nullptr),
                                           Json::array(), Json::object(), Json(1.5)};
  return values;
}

TEST_P(SpecExamples, AWrongTypeIsRejectedAtOrBelowTheMember) {
  const ProtocolId id = GetParam();
  std::size_t checks = 0, untyped = 0;
  for (const auto& f : load_fixtures(id)) {
    if (!f.valid()) continue;
    SCOPED_TRACE(f.file);
    auto value = json::parse_strict(f.bytes);
    ASSERT_TRUE(value);
    const auto walk = walk_schema(Catalog::builtin().store(), schema_of(id, f), *value);
    std::vector<std::string> pointers;
    collect_pointers(*value, "", pointers);
    for (const auto& pointer : pointers) {
      auto facts = walk.facts.find(pointer);
      if (facts == walk.facts.end() || facts->second.types.empty()) {
        // Any value is allowed here: a member the spec declares as "any", or a location the schema
        // does not describe (inside an open payload, metadata, a capability's input_schema, ...).
        const bool declared = facts != walk.facts.end() && facts->second.declared;
        EXPECT_TRUE(!declared || documented_any_value(id, pointer)) << pointer << " is declared without a type";
        ++untyped;
        continue;
      }
      const Json& current = value->at(Json::json_pointer(pointer));
      // A replacement that at least one `type` constraint refuses and that differs in kind from
      // the current value.
      const Json* wrong = nullptr;
      for (const auto& c : candidates()) {
        if (c.type() == current.type()) continue;
        for (const auto& types : facts->second.types) {
          if (!type_accepts(types, c)) wrong = &c;
        }
        if (wrong) break;
      }
      ASSERT_NE(wrong, nullptr) << pointer << " accepts every type although it declares one";
      SCOPED_TRACE(pointer + " := " + wrong->dump());
      Json copy = *value;
      copy.at(Json::json_pointer(pointer)) = *wrong;
      auto error = verdict(id, f, copy);
      ASSERT_TRUE(error) << "accepted " << wrong->dump() << " at " << pointer;
      EXPECT_TRUE(error->pointer == pointer || error->pointer.starts_with(pointer + "/")) << show(*error);
      EXPECT_EQ(error->code, expected_code(id, error->pointer, error->rule)) << show(*error);
      ++checks;
    }
  }
  EXPECT_GE(checks, 60u);
  std::cout << "[ info     ] " << proto::name(id) << ": " << checks << " wrong-type mutations checked, " << untyped
            << " untyped locations skipped\n";
}

TEST_P(SpecExamples, ExtraMembersFollowTheDocumentedPolicy) {
  const ProtocolId id = GetParam();
  const std::string extra = "x_agentconform_extra";
  std::size_t refused = 0, accepted = 0;
  for (const auto& f : load_fixtures(id)) {
    if (!f.valid()) continue;
    SCOPED_TRACE(f.file);
    auto value = json::parse_strict(f.bytes);
    ASSERT_TRUE(value);
    const auto walk = walk_schema(Catalog::builtin().store(), schema_of(id, f), *value);
    std::vector<std::string> objects;
    collect_objects(*value, "", objects);
    for (const auto& pointer : objects) {
      SCOPED_TRACE("extra member in " + (pointer.empty() ? std::string("(root)") : pointer));
      const bool allowed = policy_allows_extra_members(id, pointer);
      // The schema says the same thing as the policy (visible in the schema itself).
      auto facts = walk.facts.find(pointer);
      const bool closed = facts != walk.facts.end() && facts->second.closed;
      EXPECT_EQ(closed, !allowed) << "schema and documented policy disagree";
      Json copy = *value;
      copy.at(Json::json_pointer(pointer))[extra] = 1;
      std::string key;
      auto error = verdict(id, f, copy, &key);
      if (allowed) {
        EXPECT_FALSE(error) << show(*error);
        if (!error && f.document.empty()) {
          EXPECT_EQ(key, f.key);
        }
        ++accepted;
      } else {
        ASSERT_TRUE(error);
        EXPECT_EQ(error->pointer, pointer + "/" + extra) << show(*error);
        EXPECT_EQ(error->rule, "additionalProperties") << show(*error);
        EXPECT_EQ(error->code, expected_code(id, error->pointer, error->rule)) << show(*error);
        ++refused;
      }
    }
  }
  const std::size_t min_refused = id == ProtocolId::alp ? 50u : id == ProtocolId::agentprotocol ? 20u : 0u;
  EXPECT_GE(refused, min_refused);
  EXPECT_GE(accepted, 1u);
}

TEST_P(SpecExamples, InputThatIsNotAMessageGetsTheMalformedCode) {
  const ProtocolId id = GetParam();
  const std::string code = malformed_code(id);
  std::string any_valid;
  for (const auto& f : load_fixtures(id)) {
    if (f.valid() && f.document.empty()) {
      any_valid = f.bytes;
      break;
    }
  }
  ASSERT_FALSE(any_valid.empty());
  struct Case {
    std::string name, bytes, rule;
  };
  const std::string two_mib(2u << 20, ' ');
  auto padded = json::parse_strict(any_valid);
  ASSERT_TRUE(padded);
  // A 2 MiB message: the same message with a 2 MiB member (valid or not, it is too large below).
  (*padded)["x_padding"] = std::string(2u << 20, 'a');
  const std::string huge = proto::Profile::encode(*padded);
  const std::vector<Case> cases = {
      {"empty", "", "json.empty-input"},
      {"whitespace", " \t\r\n  ", "json.empty-input"},
      {"2 MiB of whitespace", two_mib, "json.empty-input"},
      {"2 MiB of '['", std::string(2u << 20, '['), "json.too-deep"},
      {"2 MiB of garbage", std::string(2u << 20, 'x'), "json.syntax"},
      {"invalid UTF-8", "{\"type\": \"\xC3\x28\"}", "json.invalid-utf8"},
      {"UTF-16 BOM", "\xFF\xFE{}", "json.invalid-utf8"},
      {"CESU-8 surrogate", "{\"type\": \"\xED\xA0\x80\"}", "json.invalid-utf8"},
      {"NUL after the message", any_valid + std::string(1, '\0'), "json.nul-byte"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto decoded = profile(id).decode(c.bytes);
    ASSERT_FALSE(decoded);
    EXPECT_EQ(decoded.error().code, code) << show(decoded.error());
    EXPECT_EQ(decoded.error().rule, c.rule) << show(decoded.error());
  }
  // A 2 MiB message over a 1 MiB limit (A2ACP's "Maximum message size: 1 MB") is refused before
  // parsing; under the default 16 MiB limit its verdict is the schema's, not a size error.
  json::ReadLimits limits;
  limits.max_bytes = 1u << 20;
  auto too_large = profile(id).decode(huge, limits);
  ASSERT_FALSE(too_large);
  EXPECT_EQ(too_large.error().code, code);
  EXPECT_EQ(too_large.error().rule, "json.too-large");
  auto by_schema = profile(id).decode(huge);
  if (!by_schema) {
    EXPECT_FALSE(by_schema.error().rule.starts_with("json.")) << show(by_schema.error());
  }
}

TEST_P(SpecExamples, SchemasCiteTheirSpecAndShowTheirPolicy) {
  const ProtocolId id = GetParam();
  const auto& store = Catalog::builtin().store();
  const std::string prefix = std::string(proto::name(id)) + "/";
  std::size_t count = 0;
  for (const auto& key : store.keys()) {
    if (!key.starts_with(prefix)) continue;
    SCOPED_TRACE(key);
    ++count;
    const Json* doc = store.document(key);
    ASSERT_NE(doc, nullptr);
    EXPECT_EQ(doc->value("$schema", ""), "http://json-schema.org/draft-07/schema#");
    EXPECT_EQ(doc->value("$id", ""), "https://agentconform.dev/schemas/" + key);
    const std::string comment = doc->value("$comment", "");
    EXPECT_NE(comment.find(profile(id).spec_file()), std::string::npos) << "$comment must cite " << profile(id).spec_file();
    EXPECT_NE(comment.find("Policy:"), std::string::npos) << "$comment must state the extensibility policy";
  }
  EXPECT_GE(count, 5u);
  for (const auto& [key, spec] : profile(id).messages()) {
    EXPECT_FALSE(spec.section.empty()) << key;
    EXPECT_NE(store.find(spec.schema), nullptr) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(AllProtocols, SpecExamples, ::testing::ValuesIn(proto::kAllProtocols), param_name);

// Cross-protocol and profile behaviour the fixtures rely on.
TEST(SpecExamplesProfile, DiscriminatorsSelectTheDocumentedKeys) {
  const auto& a2 = profile(ProtocolId::a2acp);
  std::set<std::string> keys;
  for (const auto& [key, spec] : a2.messages()) keys.insert(key);
  EXPECT_EQ(keys, (std::set<std::string>{"request", "response", "event", "error", "request.initiate_handshake",
                                         "request.accept_handshake", "response.accept_handshake", "response.initiate_handshake"}));
  // Longest known key wins; an unknown intent falls back to the generic message.
  EXPECT_EQ(a2.key_of(Json{{"message_type", "request"}, {"intent", "initiate_handshake"}}), "request.initiate_handshake");
  EXPECT_EQ(a2.key_of(Json{{"message_type", "request"}, {"intent", "provision_test_dataset"}}), "request");
  keys.clear();
  for (const auto& [key, spec] : profile(ProtocolId::chopsticks).messages()) keys.insert(key);
  EXPECT_EQ(keys, (std::set<std::string>{"hello", "guilds", "event.released", "event.add", "resp", "req", "error"}));
  EXPECT_EQ(profile(ProtocolId::alp).discriminator(), std::vector<std::string>{"/message_type"});
  EXPECT_EQ(profile(ProtocolId::agora).discriminator(), std::vector<std::string>{"/type"});
  EXPECT_EQ(profile(ProtocolId::agentprotocol).discriminator(), std::vector<std::string>{"/type"});
}

// A2-1: schemas/a2acp/envelope.schema.json is the spec's base schema, with only $id and $comment added.
TEST(SpecExamplesProfile, A2acpBaseSchemaIsTheSpecsOwn) {
  const auto spec_path = std::filesystem::path(AC_SOURCE_DIR).parent_path() / "shared" / "specs" / "a2acp-1.0.md";
  if (!std::filesystem::exists(spec_path)) GTEST_SKIP() << "specs not found at " << spec_path;
  const std::string spec = read_bytes(spec_path);
  const auto heading = spec.find("### Base Message Schema");
  ASSERT_NE(heading, std::string::npos);
  const auto start = spec.find("```json\n", heading);
  ASSERT_NE(start, std::string::npos);
  const auto end = spec.find("```", start + 8);
  auto from_spec = json::parse_strict(spec.substr(start + 8, end - start - 8));
  ASSERT_TRUE(from_spec);
  auto ours = json::parse_strict(read_bytes(std::filesystem::path(AC_SOURCE_DIR) / "schemas" / "a2acp" / "envelope.schema.json"));
  ASSERT_TRUE(ours);
  EXPECT_EQ(ours->value("$id", ""), "https://agentconform.dev/schemas/a2acp/envelope.schema.json");
  EXPECT_NE(ours->value("$comment", "").find("a2acp-1.0.md"), std::string::npos);
  ours->erase("$id");
  ours->erase("$comment");
  EXPECT_EQ(*ours, *from_spec);
}

// A peer's capability input_schema (ALP §9) that valijson cannot parse must be an error value, not
// abort() (valijson's behaviour unless VALIJSON_USE_EXCEPTIONS is set, cmake/Dependencies.cmake).
TEST(SpecExamplesProfile, BrokenPeerSchemaIsAnErrorNotAnAbort) {
  auto dangling = schema::compile_untrusted(Json{{"$ref", "#/definitions/missing"}});
  EXPECT_FALSE(dangling);
  auto bad_type = schema::compile_untrusted(Json{{"type", 7}});
  EXPECT_FALSE(bad_type);
}

TEST(SpecExamplesProfile, OffendingMessageIdIsReported) {
  auto decoded = profile(ProtocolId::alp).decode(
      R"({"message_id":"0b8e9c1d-3f2a-4b5c-8d6e-7f8091a2b3c4","protocol_version":"0.2.0","sender_id":"a",)"
      R"("receiver_id":"b","message_type":"PING","payload":{"nonce":1},"timestamp":"2023-10-27T10:30:00Z"})");
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().pointer, "/payload/nonce");
  EXPECT_EQ(decoded.error().message_id, "0b8e9c1d-3f2a-4b5c-8d6e-7f8091a2b3c4");
  EXPECT_EQ(decoded.error().section, "alp-0.2.0.md §7.4.2");
}

// A message with several problems reports the deepest one first, and diagnose() lists them all.
TEST(SpecExamplesProfile, DeepestViolationLeads) {
  const auto& alp = profile(ProtocolId::alp);
  const Json message = {{"message_id", "not-a-uuid"},  {"protocol_version", "0.2.0"}, {"sender_id", "a"},
                        {"receiver_id", "b"},          {"message_type", "INVOKE_CAPABILITY_REQUEST"},
                        {"timestamp", "2023-10-27T10:30:00Z"},
                        {"payload", {{"capability_name", "x"}, {"input_data", Json::object()}, {"capability_version", 3}}}};
  auto checked = alp.check(message);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.error().pointer, "/payload/capability_version");
  EXPECT_EQ(checked.error().section, "alp-0.2.0.md §7.3.2");
  const auto all = alp.diagnose(message);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].pointer, "/message_id");
  EXPECT_EQ(all[1].section, "alp-0.2.0.md §5");
}

}  // namespace
}  // namespace ac::test
