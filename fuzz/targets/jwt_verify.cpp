// libFuzzer target fuzz_jwt_verify: strict JWT verification (HS256 and EdDSA keys) and the
// A2ACP token rules on arbitrary tokens.
//  1. Raw mode (input not starting with 0x01): the bytes are a token, verified with an HS256
//     secret and with an Ed25519 key, by the JWT layer and by the A2ACP layer. Nothing may
//     crash; every failure has a message; and a token that verifies under one key type cannot
//     verify under the other (the algorithm comes from the key).
//  2. Structured mode (first byte 0x01): valid tokens issued at start-up (one HS256, one
//     EdDSA) are mutated at fuzzer-chosen (position, byte) pairs. The result must verify
//     exactly when the mutated token equals the original (strict base64url gives every token
//     one spelling, so no edit can keep the signed bytes).
// abort() on any violation. Seeds: fuzz/corpus/jwt_verify/; dictionary fuzz/dict/jwt_verify.dict.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "harness/protocols/a2acp/token.hpp"

namespace {

namespace jwt = ac::crypto::jwt;
namespace a2acp = ac::proto::a2acp;

void check(bool ok) {
  if (!ok) std::abort();
}

constexpr std::int64_t kNow = 1706371500;

struct Keys {
  jwt::Key hs, ed_private, ed_public;
  std::string tokens[2];
};

const Keys& keys() {
  static const Keys k = [] {
    auto hs = jwt::Key::hmac("agentconform-test-secret-0123456789abcdef");
    check(hs.has_value());
    std::string seed(32, '\x42');
    auto ed = ac::crypto::Ed25519PrivateKey::from_seed(seed);
    check(ed.has_value());
    Keys out{*hs, jwt::Key::ed25519(*ed), jwt::Key::ed25519(ed->public_key()), {}};
    a2acp::IssueParams p;
    p.sub = "sdlc-test-agent";
    p.aud = "dataset-provisioning-agent";
    p.ttl = 600;
    p.capabilities = {"read:datasets"};
    p.domain = "a_domain";
    p.clock = jwt::fixed_clock(kNow - 100);
    auto t0 = a2acp::issue(p, out.hs);
    auto t1 = a2acp::issue(p, out.ed_private);
    check(t0.has_value() && t1.has_value());
    out.tokens[0] = *t0;
    out.tokens[1] = *t1;
    return out;
  }();
  return k;
}

a2acp::Expectations expectations() {
  a2acp::Expectations e;
  e.audience = "dataset-provisioning-agent";
  e.required_capabilities = {"read:datasets"};
  e.clock = jwt::fixed_clock(kNow);
  return e;
}

void raw_mode(std::string_view token) {
  const Keys& k = keys();
  jwt::VerifyOptions o;
  o.clock = jwt::fixed_clock(kNow);
  auto hs = jwt::verify(token, k.hs, o);
  auto ed = jwt::verify(token, k.ed_public, o);
  check(!(hs.has_value() && ed.has_value()));
  if (!hs) check(!hs.error().describe().empty());
  if (!ed) check(!ed.error().describe().empty());
  if (hs) check(hs->header["alg"] == "HS256" && hs->claims.is_object());
  if (ed) check(ed->header["alg"] == "EdDSA" && ed->claims.is_object());
  for (const jwt::Key* key : {&k.hs, &k.ed_public}) {
    auto r = a2acp::verify(token, *key, expectations());
    if (!r) check(!r.error().describe().empty());
    else check(r->aud == "dataset-provisioning-agent" && !r->sub.empty());
  }
}

void structured_mode(std::string_view ops) {
  if (ops.empty()) return;
  const Keys& k = keys();
  const int which = static_cast<unsigned char>(ops[0]) & 1;
  const std::string& original = k.tokens[which];
  std::string token = original;
  ops.remove_prefix(1);
  for (std::size_t i = 0; i + 3 <= ops.size() && i < 3 * 8; i += 3) {
    const std::size_t pos = (static_cast<unsigned char>(ops[i]) << 8 | static_cast<unsigned char>(ops[i + 1])) % token.size();
    token[pos] = ops[i + 2];
  }
  auto r = a2acp::verify(token, which == 0 ? k.hs : k.ed_public, expectations());
  check(r.has_value() == (token == original));
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
