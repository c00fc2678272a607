// AgentProtocol 0.1 signatures: independently signed messages, sign -> verify, every failure
// reason, the duplicate-key differential, and the properties "sign -> verify holds" and "a
// one-byte change of a signed message fails verification exactly when it changes the
// canonical form" (whitespace-only and member-order changes still verify).
#include "harness/protocols/agentprotocol/signature.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/crypto/base64.hpp"
#include "harness/json/canonical.hpp"
#include "crypto_test_support.hpp"

namespace ac::proto::agentprotocol {
namespace {

using ac::testing::from_hex;
using ac::testing::read_json_fixture;

const Json& vectors() {
  static const Json doc = read_json_fixture("fixtures/vectors/agentprotocol_signatures.json");
  return doc;
}

const crypto::Ed25519PrivateKey& test1_key() {
  static const auto key = *crypto::Ed25519PrivateKey::from_seed(from_hex(vectors()["secretKeyHex"]));
  return key;
}

const crypto::Ed25519PrivateKey& random_key() {
  static const auto key = *crypto::Ed25519PrivateKey::generate();
  return key;
}

Json hello(const crypto::Ed25519PrivateKey& key) {
  return Json{{"protocol", "agentprotocol/0.1"},
              {"id", "550e8400-e29b-41d4-a716-446655440000"},
              {"timestamp", "2026-02-01T15:08:00Z"},
              {"from", {{"agentId", agent_id(key.public_key())}, {"name", "Freya"}, {"capabilities", {"agentprotocol:core"}}}},
              {"to", {{"agentId", "ABCdef123..."}, {"broadcast", false}}},
              {"type", "hello"},
              {"payload", {{"version", "0.1"}, {"features", {"signed-messages", "streaming"}}}}};
}

Json signed_hello() { return *sign(hello(random_key()), random_key()); }

SignatureFailure reason_of(const Json& message) {
  auto r = verify(message);
  EXPECT_FALSE(r) << "verified: " << message.dump();
  return r ? SignatureFailure::signing_failed : r.error().reason;
}

TEST(AgentProtocolSignature, IndependentlySignedMessagesVerify) {
  ASSERT_EQ(vectors()["cases"].size(), 2u);
  EXPECT_EQ(agent_id(test1_key().public_key()), vectors()["agentId"]);
  for (const auto& c : vectors()["cases"]) {
    const Json& message = c["message"];
    auto base = signature_base(message);
    ASSERT_TRUE(base) << base.error().describe();
    EXPECT_EQ(*base, c["canonical"].get<std::string>());
    auto v = verify(message);
    EXPECT_TRUE(v) << v.error().describe();
    EXPECT_TRUE(verify_text(message.dump(2)));
    // Ed25519 is deterministic: signing the unsigned message reproduces their signature.
    Json unsigned_message = message;
    unsigned_message.erase("signature");
    auto ours = sign(unsigned_message, test1_key());
    ASSERT_TRUE(ours) << ours.error().describe();
    EXPECT_EQ((*ours)["signature"], message["signature"]);
  }
}

TEST(AgentProtocolSignature, SignSetsOnlyTheSignature) {
  const Json original = hello(random_key());
  auto signed_message = sign(original, random_key());
  ASSERT_TRUE(signed_message) << signed_message.error().describe();
  Json without = *signed_message;
  const std::string sig = without["signature"];
  without.erase("signature");
  EXPECT_EQ(without, original);
  EXPECT_EQ(sig.size(), 88u);  // base64 of 64 bytes
  EXPECT_EQ(crypto::base64_decode(sig)->size(), 64u);
  EXPECT_TRUE(verify(*signed_message));
  // Re-signing replaces the signature (the old one is not part of the base).
  auto again = sign(*signed_message, random_key());
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)["signature"], sig);
}

TEST(AgentProtocolSignature, SignDoesNotSetTheAgentId) {
  const auto other = *crypto::Ed25519PrivateKey::generate();
  auto m = sign(hello(random_key()), other);  // agentId names random_key, signed by other
  ASSERT_TRUE(m);
  EXPECT_EQ(reason_of(*m), SignatureFailure::signature_mismatch);
  auto fixed = sign(with_agent_id(*m, other.public_key()), other);
  ASSERT_TRUE(fixed);
  EXPECT_TRUE(verify(*fixed));
  EXPECT_EQ((*fixed)["from"]["name"], "Freya");  // with_agent_id keeps the rest of `from`
  Json no_from = hello(random_key());
  no_from.erase("from");
  EXPECT_EQ(with_agent_id(no_from, other.public_key())["from"]["agentId"], agent_id(other.public_key()));
}

TEST(AgentProtocolSignature, EveryFailureReason) {
  const Json good = signed_hello();
  ASSERT_TRUE(verify(good));
  auto edit = [&](auto f) {
    Json m = good;
    f(m);
    return m;
  };
  const std::string sig63 = crypto::base64_encode(std::string(63, 'x'));
  const std::string bad_point = crypto::base64_encode(from_hex("0100000000000000000000000000000000000000000000000000000000000080"));

  struct Case {
    const char* name;
    Json message;
    SignatureFailure reason;
    const char* pointer;
    const char* code;
  };
  const std::vector<Case> cases = {
      {"array", Json::array({good}), SignatureFailure::not_an_object, "", "INVALID_MESSAGE"},
      {"no signature", edit([](Json& m) { m.erase("signature"); }), SignatureFailure::missing_signature, "/signature", "INVALID_SIGNATURE"},
      {"signature number", edit([](Json& m) { m["signature"] = 42; }), SignatureFailure::signature_not_string, "/signature", "INVALID_SIGNATURE"},
      {"signature null", edit([](Json& m) { m["signature"] = nullptr; }), SignatureFailure::signature_not_string, "/signature", "INVALID_SIGNATURE"},
      {"signature base64url", edit([](Json& m) {
         std::string s = m["signature"];
         for (auto& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
         if (s == m["signature"]) s[0] = '-';
         m["signature"] = s;
       }), SignatureFailure::signature_bad_base64, "/signature", "INVALID_SIGNATURE"},
      {"signature with newline", edit([](Json& m) { m["signature"] = m["signature"].get<std::string>().insert(44, "\n"); }),
       SignatureFailure::signature_bad_base64, "/signature", "INVALID_SIGNATURE"},
      {"signature unpadded", edit([](Json& m) { m["signature"] = m["signature"].get<std::string>().substr(0, 86); }),
       SignatureFailure::signature_bad_base64, "/signature", "INVALID_SIGNATURE"},
      {"signature 63 bytes", edit([&](Json& m) { m["signature"] = sig63; }), SignatureFailure::signature_wrong_length, "/signature", "INVALID_SIGNATURE"},
      {"signature empty", edit([](Json& m) { m["signature"] = ""; }), SignatureFailure::signature_wrong_length, "/signature", "INVALID_SIGNATURE"},
      {"no from", edit([](Json& m) { m.erase("from"); }), SignatureFailure::missing_agent_id, "/from", "INVALID_SIGNATURE"},
      {"from is a string", edit([](Json& m) { m["from"] = "me"; }), SignatureFailure::missing_agent_id, "/from", "INVALID_SIGNATURE"},
      {"no agentId", edit([](Json& m) { m["from"].erase("agentId"); }), SignatureFailure::missing_agent_id, "/from/agentId", "INVALID_SIGNATURE"},
      {"agentId number", edit([](Json& m) { m["from"]["agentId"] = 7; }), SignatureFailure::agent_id_not_string, "/from/agentId", "INVALID_SIGNATURE"},
      {"agentId not base64", edit([](Json& m) { m["from"]["agentId"] = "FVnKJxyz..."; }), SignatureFailure::agent_id_bad_base64, "/from/agentId", "INVALID_SIGNATURE"},
      {"agentId 31 bytes", edit([](Json& m) { m["from"]["agentId"] = crypto::base64_encode(std::string(31, 'k')); }),
       SignatureFailure::agent_id_wrong_length, "/from/agentId", "INVALID_SIGNATURE"},
      {"agentId not a point", edit([&](Json& m) { m["from"]["agentId"] = bad_point; }), SignatureFailure::agent_id_invalid_point, "/from/agentId", "INVALID_SIGNATURE"},
      {"invalid UTF-8 in payload", edit([](Json& m) { m["payload"]["x"] = std::string("\xc3\x28"); }), SignatureFailure::canonicalization_failed, "", "INVALID_MESSAGE"},
      {"payload changed", edit([](Json& m) { m["payload"]["version"] = "0.2"; }), SignatureFailure::signature_mismatch, "/signature", "INVALID_SIGNATURE"},
      {"field added", edit([](Json& m) { m["metadata"] = Json::object(); }), SignatureFailure::signature_mismatch, "/signature", "INVALID_SIGNATURE"},
      {"other agent", edit([](Json& m) { m["from"]["agentId"] = agent_id(test1_key().public_key()); }), SignatureFailure::signature_mismatch, "/signature", "INVALID_SIGNATURE"},
      {"payload field added", edit([](Json& m) { m["payload"]["n"] = 1; }), SignatureFailure::signature_mismatch, "/signature", "INVALID_SIGNATURE"},
  };
  for (const auto& c : cases) {
    auto r = verify(c.message);
    ASSERT_FALSE(r) << c.name;
    EXPECT_EQ(r.error().reason, c.reason) << c.name << ": " << r.error().describe();
    if (c.reason != SignatureFailure::canonicalization_failed) {
      EXPECT_EQ(r.error().pointer, c.pointer) << c.name;
    }
    EXPECT_EQ(r.error().code(), c.code) << c.name;
    EXPECT_EQ(r.error().describe().rfind(std::string(failure_name(c.reason)), 0), 0u) << r.error().describe();
  }
}

TEST(AgentProtocolSignature, VerifyTextRejectsWhatTheStrictReaderRejects) {
  const std::string text = signed_hello().dump();
  EXPECT_TRUE(verify_text(text));
  // A duplicate member: one parser could verify the first "type", another act on the second.
  std::string dup = text;
  dup.insert(dup.size() - 1, R"(,"type":"request")");
  auto r = verify_text(dup);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().reason, SignatureFailure::invalid_json);
  EXPECT_NE(r.error().message.find("duplicate-key"), std::string::npos) << r.error().describe();
  EXPECT_EQ(r.error().code(), "INVALID_MESSAGE");
  EXPECT_EQ(verify_text(text + std::string("\0x", 2)).error().reason, SignatureFailure::invalid_json);
  EXPECT_EQ(verify_text(text + "{}").error().reason, SignatureFailure::invalid_json);
  EXPECT_EQ(verify_text("").error().reason, SignatureFailure::invalid_json);
  EXPECT_EQ(verify_text("[]").error().reason, SignatureFailure::not_an_object);
}

TEST(AgentProtocolSignature, WhitespaceAndMemberOrderDoNotMatter) {
  const Json m = signed_hello();
  for (int indent : {-1, 0, 1, 4}) EXPECT_TRUE(verify_text(m.dump(indent))) << indent;
  EXPECT_TRUE(verify_text(" \r\n\t" + m.dump(2, '\t') + "\n\n"));
  // Members in reverse order (nlohmann writes them sorted; write them by hand).
  std::string reversed = "{";
  std::vector<std::pair<std::string, Json>> members;
  for (const auto& [k, v] : m.items()) members.emplace_back(k, v);
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    if (reversed.size() > 1) reversed += " , ";
    reversed += Json(it->first).dump() + " : " + it->second.dump();
  }
  reversed += "}";
  EXPECT_NE(reversed, m.dump());
  EXPECT_TRUE(verify_text(reversed)) << reversed;
  // Equivalent string escapes are the same canonical value.
  std::string escaped = m.dump();
  const auto pos = escaped.find("Freya");
  ASSERT_NE(pos, std::string::npos);
  escaped.replace(pos, 1, "\\u0046");
  EXPECT_TRUE(verify_text(escaped));
}

// ---- properties ----

// JSON values with valid UTF-8 strings (including escapes and non-BMP characters), integers,
// finite doubles, nesting.
rc::Gen<std::string> gen_text() {
  static const std::vector<std::string> atoms = {"a", "Z", "0", " ", "-", "\"", "\\", "/", "\n", "\t", "\x01", "\x7f",
                                                 "\xc3\xa9", "\xe2\x9c\x93", "\xf0\x9f\x98\x80", "\xef\xbf\xbf"};
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(atoms)), [](const std::vector<std::string>& parts) {
    std::string s;
    for (const auto& p : parts) s += p;
    return s;
  });
}

rc::Gen<Json> gen_scalar() {
  return rc::gen::weightedOneOf<Json>({
      {1, rc::gen::just(Json(nullptr))},
      {1, rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Json(b); })},
      {2, rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t i) { return Json(i); })},
      {1, rc::gen::map(rc::gen::suchThat(rc::gen::arbitrary<double>(), [](double d) { return std::isfinite(d); }),
                       [](double d) { return Json(d); })},
      {3, rc::gen::map(gen_text(), [](std::string s) { return Json(std::move(s)); })},
  });
}

rc::Gen<Json> gen_value(int depth) {
  if (depth <= 0) return gen_scalar();
  return rc::gen::weightedOneOf<Json>({
      {4, gen_scalar()},
      {1, rc::gen::map(rc::gen::container<std::vector<Json>>(rc::gen::resize(4, gen_value(depth - 1))),
                       [](std::vector<Json> v) { return Json(std::move(v)); })},
      {2, rc::gen::map(rc::gen::container<std::map<std::string, Json>>(rc::gen::resize(4, gen_text()), rc::gen::resize(4, gen_value(depth - 1))),
                       [](std::map<std::string, Json> m) { return Json(std::move(m)); })},
  });
}

rc::Gen<Json> gen_message() {
  return rc::gen::exec([] {
    Json m = hello(random_key());
    m["id"] = *gen_text();
    m["type"] = *rc::gen::elementOf(std::vector<std::string>{"hello", "request", "response", "notify", "error"});
    m["payload"] = *rc::gen::resize(6, gen_value(3));
    if (*rc::gen::arbitrary<bool>()) m["metadata"] = *rc::gen::resize(4, gen_value(2));
    return m;
  });
}

RC_GTEST_PROP(AgentProtocolSignatureProp, SignThenVerify, ()) {
  const Json m = *gen_message();
  auto s = sign(m, random_key());
  RC_ASSERT(s.has_value());
  RC_ASSERT(verify(*s).has_value());
  RC_ASSERT(verify_text(s->dump()).has_value());
  RC_ASSERT(verify_text(s->dump(*rc::gen::inRange(0, 4))).has_value());
}

// Changing, adding or removing one field of a signed message (other than the signature)
// makes verification fail.
RC_GTEST_PROP(AgentProtocolSignatureProp, AnyFieldChangeFails, ()) {
  Json m = *sign(*gen_message(), random_key());
  const auto field = *rc::gen::elementOf(std::vector<std::string>{"protocol", "id", "timestamp", "type", "payload", "to", "from/name", "new"});
  const Json replacement = *gen_value(2);
  const Json::json_pointer ptr("/" + field);
  // (RC_PRE/RC_ASSERT decompose their expression and would evaluate both sides of ||.)
  const bool changes = !m.contains(ptr) || m.at(ptr) != replacement;
  RC_PRE(changes);
  if (*rc::gen::arbitrary<bool>() && m.contains(ptr)) {
    m[ptr.parent_pointer()].erase(ptr.back());
  } else {
    m[ptr] = replacement;
  }
  auto r = verify(m);
  RC_ASSERT(!r.has_value());
  RC_ASSERT(r.error().reason == SignatureFailure::signature_mismatch);
}

// One byte of the signed text replaced by any byte: verify_text succeeds exactly when the
// mutated text still parses strictly to a value with the same canonical form.
RC_GTEST_PROP(AgentProtocolSignatureProp, OneByteChangeFailsUnlessCanonicalFormIsUnchanged, ()) {
  const Json m = *sign(*gen_message(), random_key());
  const std::string text = m.dump(*rc::gen::element(-1, 1));
  const std::string canonical = *json::canonicalize(m);
  const auto pos = *rc::gen::inRange<std::size_t>(0, text.size());
  const auto byte = *rc::gen::oneOf(rc::gen::elementOf(std::string(" \t\n\r\"\\{}[],:0123456789.eE+-tfnulAQgw=/")),
                                    rc::gen::arbitrary<char>());
  RC_PRE(byte != text[pos]);
  std::string mutated = text;
  mutated[pos] = byte;
  auto parsed = json::parse_strict(mutated);
  const bool same_canonical = parsed && json::canonicalize(*parsed).has_value() && *json::canonicalize(*parsed) == canonical;
  RC_TAG(same_canonical ? "canonical unchanged" : "canonical changed");
  RC_ASSERT(verify_text(mutated).has_value() == same_canonical);
}

// Whitespace-only changes keep the canonical form and so the signature.
RC_GTEST_PROP(AgentProtocolSignatureProp, WhitespaceOnlyChangesStillVerify, ()) {
  const Json m = *sign(*gen_message(), random_key());
  const std::string compact = m.dump();
  std::string spaced;
  bool in_string = false, escaped = false;
  for (char c : compact) {
    spaced += c;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') { in_string = true; continue; }
    if (c == ',' || c == ':' || c == '{' || c == '[') spaced += *rc::gen::elementOf(std::vector<std::string>{"", " ", "\n", "\t", "\r\n  "});
  }
  RC_ASSERT(spaced.size() >= compact.size());
  RC_ASSERT(verify_text(spaced).has_value());
}

}  // namespace
}  // namespace ac::proto::agentprotocol
