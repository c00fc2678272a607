// libFuzzer target fuzz_signature_verify: AgentProtocol 0.1 signature verification.
//  1. Raw mode (any input not starting with 0x01): the bytes go to verify_text. It must never
//     crash, and a success must be a real one: the message re-verifies from its compact
//     serialization, and its signature is exactly 64 bytes under a 32-byte agentId.
//  2. Structured mode (first byte 0x01): a fixed message signed with a fixed key (the RFC 8032
//     TEST 1 key) is serialized, then the rest of the input is read as (position, byte) pairs
//     that overwrite bytes of that text. verify_text of the result must succeed exactly when
//     the mutated text still reads strictly to a value with the original's canonical form
//     (whitespace edits, equivalent escapes), and fail otherwise.
// abort() on any violation. Seeds: fuzz/corpus/signature_verify/; dictionary
// fuzz/dict/signature_verify.dict.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/crypto/base64.hpp"
#include "harness/json/canonical.hpp"
#include "harness/protocols/agentprotocol/signature.hpp"

namespace {

namespace ap = ac::proto::agentprotocol;
using ac::json::Json;

void check(bool ok) {
  if (!ok) std::abort();
}

struct Fixture {
  std::string texts[2];  // compact and indented serializations of the signed message
  std::string canonical;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    std::string seed(32, '\0');
    const char* hex = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    for (int i = 0; i < 32; ++i) seed[i] = static_cast<char>(std::stoi(std::string(hex + 2 * i, 2), nullptr, 16));
    auto key = ac::crypto::Ed25519PrivateKey::from_seed(seed);
    check(key.has_value());
    Json m = Json::parse(R"({
      "protocol": "agentprotocol/0.1", "id": "550e8400-e29b-41d4-a716-446655440000",
      "timestamp": "2026-02-01T15:08:00Z",
      "from": {"name": "Freya", "capabilities": ["agentprotocol:core", "agentprotocol:tasks"]},
      "to": {"agentId": "ABCdef123...", "broadcast": false},
      "type": "request",
      "payload": {"action": "code-review", "correlationId": "req-123", "timeout": 30000, "ratio": 0.25,
                  "params": {"code": "a\tb \u00e9\u2713 \ud83d\ude00", "n": [1, -2, 3e5, null, true]}}})");
    m = ap::with_agent_id(std::move(m), key->public_key());
    auto s = ap::sign(std::move(m), *key);
    check(s.has_value());
    Fixture out;
    out.texts[0] = s->dump();
    out.texts[1] = s->dump(2);
    auto c = ac::json::canonicalize(*s);
    check(c.has_value());
    out.canonical = *c;
    check(ap::verify_text(out.texts[0]).has_value() && ap::verify_text(out.texts[1]).has_value());
    return out;
  }();
  return f;
}

void raw_mode(std::string_view bytes) {
  auto r = ap::verify_text(bytes);
  if (!r) {
    check(!r.error().describe().empty());
    return;
  }
  auto parsed = ac::json::parse_strict(bytes);
  check(parsed.has_value());
  check(ap::verify_text(parsed->dump()).has_value());
  auto sig = ac::crypto::base64_decode((*parsed)["signature"].get<std::string>());
  check(sig.has_value() && sig->size() == 64);
  check(r->key.raw().size() == 32);
}

void structured_mode(std::string_view ops) {
  if (ops.empty()) return;
  const Fixture& f = fixture();
  std::string text = f.texts[static_cast<unsigned char>(ops[0]) & 1];
  ops.remove_prefix(1);
  for (std::size_t i = 0; i + 3 <= ops.size() && i < 3 * 8; i += 3) {
    const std::size_t pos = (static_cast<unsigned char>(ops[i]) << 8 | static_cast<unsigned char>(ops[i + 1])) % text.size();
    text[pos] = ops[i + 2];
  }
  auto parsed = ac::json::parse_strict(text);
  bool same = false;
  if (parsed) {
    auto c = ac::json::canonicalize(*parsed);
    same = c.has_value() && *c == f.canonical;
  }
  check(ap::verify_text(text).has_value() == same);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!bytes.empty() && bytes[0] == '\x01') {
    structured_mode(bytes.substr(1));
  } else {
    raw_mode(bytes);
  }
  return 0;
}
