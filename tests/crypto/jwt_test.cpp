// Strict JWT (HS256, RS256, EdDSA): the independently generated vectors in
// fixtures/vectors/jwt/jwt_vectors.json (RFC 7515 A.1, RFC 8037 A.4, alg none, algorithm
// confusion, expiry, audience, issuer, malformed tokens), key handling, clock and leeway, and
// issue -> verify properties for all three algorithms.
#include "harness/crypto/jwt.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/crypto/base64.hpp"
#include "crypto_test_support.hpp"

namespace ac::crypto::jwt {
namespace {

using ac::testing::read_json_fixture;
using ac::testing::read_source_file;

constexpr std::int64_t kNow = 1706371500;

const Json& vectors() {
  static const Json doc = read_json_fixture("fixtures/vectors/jwt/jwt_vectors.json");
  return doc;
}

Key key_named(const std::string& name) {
  const Json& k = vectors()["keys"][name];
  Expected<Key, Error> key = unexpected(Error{Errc::bad_key, "unknown key " + name});
  if (k.contains("secret_b64url")) key = Key::hmac(*base64url_decode(k["secret_b64url"].get<std::string>()));
  else if (name.find("private") != std::string::npos) key = Key::from_private_pem(k["pem"].get<std::string>());
  else key = Key::from_public_pem(k["pem"].get<std::string>());
  if (!key) throw std::runtime_error(name + ": " + key.error().describe());
  return *key;
}

Key hs_key() { return key_named("hs256"); }
Key rs_private() { return key_named("rs256_private"); }
Key rs_public() { return key_named("rs256_public"); }
Key ed_private() { return key_named("eddsa_private"); }
Key ed_public() { return key_named("eddsa_public"); }

Json spec_claims() {
  return Json{{"sub", "sdlc-test-agent"}, {"iss", "a_domain-auth-service"}, {"aud", "dataset-provisioning-agent"},
              {"exp", 1706371800}, {"iat", 1706371200}, {"capabilities", {"read:datasets", "write:test_scenarios"}},
              {"domain", "a_domain"}};
}

VerifyOptions at(std::int64_t now) {
  VerifyOptions o;
  o.clock = fixed_clock(now);
  return o;
}

TEST(JwtVectors, EveryCaseGetsItsExpectedVerdict) {
  std::size_t n = 0;
  for (const auto& c : vectors()["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    VerifyOptions o = at(c["now"].get<std::int64_t>());
    if (!c["audience"].is_null()) o.audience = c["audience"].get<std::string>();
    if (!c["issuer"].is_null()) o.issuer = c["issuer"].get<std::string>();
    o.required_claims = c["required"].get<std::vector<std::string>>();
    auto r = verify(c["token"].get<std::string>(), key_named(c["key"]), o);
    const std::string expect = c["expect"];
    if (expect == "ok") {
      EXPECT_TRUE(r) << r.error().describe();
    } else {
      ASSERT_FALSE(r) << "accepted";
      EXPECT_EQ(errc_name(r.error().code), expect) << r.error().describe();
      EXPECT_FALSE(r.error().message.empty());
    }
    ++n;
  }
  EXPECT_GE(n, 60u);
}

TEST(JwtVectors, Rfc7515AppendixA1Claims) {
  const Json* c = nullptr;
  for (const auto& x : vectors()["cases"]) if (x["name"] == "rfc7515-A.1-hs256") c = &x;
  ASSERT_NE(c, nullptr);
  auto r = verify((*c)["token"].get<std::string>(), key_named("rfc7515_hs256"), at(1300819379));
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(r->claims["iss"], "joe");
  EXPECT_EQ(r->claims["http://example.com/is_root"], true);
  EXPECT_EQ(r->header["typ"], "JWT");
}

TEST(JwtVectors, Rfc8037AppendixA4SignatureIsReproduced) {
  // Ed25519 is deterministic: our signature over the RFC's signing input is the RFC's.
  const std::string input = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc";
  auto sig = sign_input(input, ed_private());
  ASSERT_TRUE(sig) << sig.error().describe();
  EXPECT_EQ(base64url_encode(*sig), "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg");
  EXPECT_TRUE(verify_input(input, *sig, ed_public()));
}

TEST(JwtVectors, OurTokensEqualTheIndependentOnes) {
  // HS256, RS256 (PKCS#1 v1.5) and Ed25519 are deterministic, and both sides serialize the
  // claims compactly with sorted keys, so issue() must reproduce the generator's tokens.
  for (const auto& [alg, key] : {std::pair{"HS256", hs_key()}, {"RS256", rs_private()}, {"EdDSA", ed_private()}}) {
    const Json* c = nullptr;
    for (const auto& x : vectors()["cases"]) if (x["name"] == std::string("valid-") + alg) c = &x;
    ASSERT_NE(c, nullptr) << alg;
    auto t = issue(spec_claims(), key);
    ASSERT_TRUE(t) << t.error().describe();
    EXPECT_EQ(*t, (*c)["token"].get<std::string>()) << alg;
  }
}

TEST(JwtKeys, AlgorithmComesFromTheKey) {
  EXPECT_EQ(hs_key().alg(), Alg::HS256);
  EXPECT_EQ(rs_public().alg(), Alg::RS256);
  EXPECT_EQ(rs_private().alg(), Alg::RS256);
  EXPECT_EQ(ed_public().alg(), Alg::EdDSA);
  EXPECT_TRUE(ed_private().can_sign());
  EXPECT_FALSE(ed_public().can_sign());
  auto k = Key::from_pem(read_source_file("fixtures/vectors/jwt/rsa2048.pub"));
  ASSERT_TRUE(k);
  EXPECT_FALSE(k->can_sign());
  auto e = Ed25519PrivateKey::generate();
  EXPECT_EQ(Key::ed25519(*e).alg(), Alg::EdDSA);
  EXPECT_EQ(Key::ed25519(e->public_key()).alg(), Alg::EdDSA);
}

TEST(JwtKeys, Refusals) {
  auto short_secret = Key::hmac(std::string(31, 'k'));
  ASSERT_FALSE(short_secret);
  EXPECT_EQ(short_secret.error().code, Errc::bad_key);
  EXPECT_TRUE(Key::hmac(std::string(32, 'k')));
  // The RSA public key's PEM text is refused as an HMAC secret (algorithm confusion).
  auto pem_secret = Key::hmac(read_source_file("fixtures/vectors/jwt/rsa2048.pub"));
  ASSERT_FALSE(pem_secret);
  EXPECT_EQ(pem_secret.error().code, Errc::bad_key);
  EXPECT_NE(pem_secret.error().message.find("confusion"), std::string::npos);
  auto weak_rsa = Key::from_private_pem(read_source_file("fixtures/vectors/jwt/rsa1024.key"));
  ASSERT_FALSE(weak_rsa);
  EXPECT_EQ(weak_rsa.error().code, Errc::bad_key);
  EXPECT_NE(weak_rsa.error().message.find("2048"), std::string::npos);
  auto not_pem = Key::from_public_pem("secret");
  ASSERT_FALSE(not_pem);
  EXPECT_EQ(not_pem.error().code, Errc::bad_key);
  auto sign_with_public = issue(spec_claims(), rs_public());
  ASSERT_FALSE(sign_with_public);
  EXPECT_EQ(sign_with_public.error().code, Errc::bad_key);
}

TEST(JwtIssue, RefusesClaimsThatAreNotAnExactObject) {
  EXPECT_EQ(issue(Json::array({1}), hs_key()).error().code, Errc::bad_claims);
  EXPECT_EQ(issue(Json{{"x", std::nan("")}}, hs_key()).error().code, Errc::bad_claims);
  EXPECT_EQ(issue(Json{{"x", std::string("\xff")}}, hs_key()).error().code, Errc::bad_claims);
}

TEST(JwtIssue, HeaderNamesTheKeysAlgorithm) {
  for (const auto& [key, name] : {std::pair{hs_key(), "HS256"}, {rs_private(), "RS256"}, {ed_private(), "EdDSA"}}) {
    auto t = issue(spec_claims(), key);
    ASSERT_TRUE(t);
    auto h = base64url_decode(t->substr(0, t->find('.')));
    ASSERT_TRUE(h);
    EXPECT_EQ(*h, std::string(R"({"alg":")") + name + R"(","typ":"JWT"})");
  }
}

// Boundaries of the time rules with a fixed clock: exp is exclusive, nbf and iat inclusive,
// and the leeway widens each by exactly its value.
TEST(JwtTime, BoundariesAndLeeway) {
  Json c = spec_claims();
  c["nbf"] = 1706371300;
  const std::string t = *issue(c, hs_key());
  auto code = [&](std::int64_t now, std::int64_t leeway) -> std::string {
    VerifyOptions o = at(now);
    o.leeway = leeway;
    auto r = verify(t, hs_key(), o);
    return r ? "ok" : std::string(errc_name(r.error().code));
  };
  EXPECT_EQ(code(1706371799, 0), "ok");
  EXPECT_EQ(code(1706371800, 0), "expired");  // exp <= now
  EXPECT_EQ(code(1706371800, 1), "ok");
  EXPECT_EQ(code(1706371830, 30), "expired");
  EXPECT_EQ(code(1706371300, 0), "ok");       // nbf == now
  EXPECT_EQ(code(1706371299, 0), "not-yet-valid");
  EXPECT_EQ(code(1706371290, 10), "ok");
  EXPECT_EQ(code(1706371289, 10), "not-yet-valid");
  EXPECT_EQ(code(1706371000, -5), "not-yet-valid");  // negative leeway counts as 0

  Json only_iat = spec_claims();
  const std::string t2 = *issue(only_iat, hs_key());
  VerifyOptions o = at(1706371199);
  EXPECT_EQ(verify(t2, hs_key(), o).error().code, Errc::issued_in_future);
  o.leeway = 1;
  EXPECT_TRUE(verify(t2, hs_key(), o));
}

TEST(JwtTime, DefaultClockIsTheSystemClock) {
  Json c = spec_claims();
  c["iat"] = system_now() - 5;
  c["exp"] = system_now() + 300;
  EXPECT_TRUE(verify(*issue(c, hs_key()), hs_key()));
  c["exp"] = system_now() - 1;
  EXPECT_EQ(verify(*issue(c, hs_key()), hs_key()).error().code, Errc::expired);
}

TEST(JwtClaims, AudienceAsArrayAndIssuer) {
  Json c = spec_claims();
  c["aud"] = {"a", "b"};
  const std::string t = *issue(c, hs_key());
  VerifyOptions o = at(kNow);
  o.audience = "b";
  EXPECT_TRUE(verify(t, hs_key(), o));
  o.audience = "c";
  EXPECT_EQ(verify(t, hs_key(), o).error().code, Errc::wrong_audience);
  c["aud"] = {"a", 1};
  EXPECT_EQ(verify(*issue(c, hs_key()), hs_key(), at(kNow)).error().code, Errc::bad_claims);
  c = spec_claims();
  c.erase("iss");
  o = at(kNow);
  o.issuer = "a_domain-auth-service";
  EXPECT_EQ(verify(*issue(c, hs_key()), hs_key(), o).error().code, Errc::wrong_issuer);
  c["iss"] = 7;
  EXPECT_EQ(verify(*issue(c, hs_key()), hs_key(), o).error().code, Errc::bad_claims);
}

TEST(JwtMalformed, SizeLimitAndEmptyInput) {
  EXPECT_EQ(verify("", hs_key()).error().code, Errc::malformed);
  EXPECT_EQ(verify(std::string(kMaxTokenBytes + 1, 'a'), hs_key()).error().code, Errc::malformed);
  EXPECT_EQ(verify("..", hs_key()).error().code, Errc::malformed);
  EXPECT_EQ(verify("a.b.c.d.e", hs_key()).error().code, Errc::malformed);
}

// A forged token with alg none that carries the claims of a valid one is rejected, whatever
// key type the verifier holds.
TEST(JwtAlgNone, RejectedForEveryKeyType) {
  for (const auto& key : {hs_key(), rs_public(), ed_public()}) {
    for (const char* alg : {"none", "None", "NONE", "nonE"}) {
      const std::string token = base64url_encode(std::string(R"({"alg":")") + alg + R"("})") + "." +
                                base64url_encode(spec_claims().dump()) + ".";
      auto r = verify(token, key, at(kNow));
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().code, Errc::alg_none) << alg;
    }
  }
}

// ---- properties ----

Key key_for(int which) {
  switch (which) {
    case 0: return hs_key();
    case 1: return rs_private();
    default: return ed_private();
  }
}
Key verifier_for(int which) {
  switch (which) {
    case 0: return hs_key();
    case 1: return rs_public();
    default: return ed_public();
  }
}

rc::Gen<Json> gen_claims() {
  return rc::gen::exec([] {
    Json c = spec_claims();
    c["sub"] = *rc::gen::string<std::string>();
    c["capabilities"] = *rc::gen::container<std::vector<std::string>>(rc::gen::string<std::string>());
    c["n"] = *rc::gen::arbitrary<std::int32_t>();
    c["flag"] = *rc::gen::arbitrary<bool>();
    return c;
  });
}

RC_GTEST_PROP(JwtProp, IssueThenVerifyHoldsForAllAlgorithms, ()) {
  const int which = *rc::gen::inRange(0, 3);
  Json claims = *gen_claims();
  // Generated strings may be invalid UTF-8; issue() must refuse those, not emit them.
  auto t = issue(claims, key_for(which));
  if (!t) {
    RC_ASSERT(t.error().code == Errc::bad_claims);
    return;
  }
  VerifyOptions o = at(kNow);
  o.audience = "dataset-provisioning-agent";
  o.issuer = "a_domain-auth-service";
  auto r = verify(*t, verifier_for(which), o);
  RC_ASSERT(r.has_value());
  RC_ASSERT(r->claims == claims);
}

// Re-signing with another key, or changing any claim of a signed token (payload swapped in),
// breaks verification.
RC_GTEST_PROP(JwtProp, AnyClaimChangeBreaksTheSignature, ()) {
  const int which = *rc::gen::inRange(0, 3);
  Json claims = spec_claims();
  claims["sub"] = *rc::gen::elementOf(std::vector<std::string>{"a", "b", "sdlc-test-agent", "x-y-z"});
  const std::string token = *issue(claims, key_for(which));
  Json changed = claims;
  const auto field = *rc::gen::elementOf(std::vector<std::string>{"sub", "iss", "aud", "exp", "iat", "capabilities", "domain", "extra"});
  if (field == "exp" || field == "iat") changed[field] = changed[field].get<std::int64_t>() + *rc::gen::inRange(1, 1000);
  else if (field == "capabilities") changed[field].push_back("admin:all");
  else changed[field] = changed.value(field, std::string()) + "!";
  const std::string forged_payload = base64url_encode(changed.dump());
  const auto d1 = token.find('.'), d2 = token.rfind('.');
  const std::string forged = token.substr(0, d1 + 1) + forged_payload + token.substr(d2);
  auto r = verify(forged, verifier_for(which), at(kNow));
  RC_ASSERT(!r.has_value());
  RC_ASSERT(r.error().code == Errc::bad_signature);
}

// Any single character changed anywhere in a valid token is rejected (strict base64url makes
// every token spelling unique, so no change can keep the signed bytes).
RC_GTEST_PROP(JwtProp, AnyCharacterChangeIsRejected, ()) {
  const int which = *rc::gen::inRange(0, 3);
  const std::string token = *issue(spec_claims(), key_for(which));
  const auto pos = *rc::gen::inRange<std::size_t>(0, token.size());
  const char c = *rc::gen::elementOf(std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ "));
  RC_PRE(c != token[pos]);
  std::string mutated = token;
  mutated[pos] = c;
  RC_ASSERT(!verify(mutated, verifier_for(which), at(kNow)).has_value());
}

}  // namespace
}  // namespace ac::crypto::jwt
