// Ed25519 over OpenSSL: the RFC 8032 §7.1 vectors (fixtures/vectors/), point validation against
// an independent RFC 8032 §5.1.3 transcription, PEM round trips and every PEM error, and
// sign/verify properties.
#include "harness/crypto/ed25519.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <thread>

#include <openssl/pem.h>

#include "harness/crypto/pem.hpp"
#include "crypto_test_support.hpp"

namespace ac::crypto {
namespace {

using ac::testing::from_hex;
using ac::testing::read_json_fixture;
using ac::testing::read_source_file;
using ac::testing::to_hex;

Ed25519PrivateKey must_generate() {
  auto k = Ed25519PrivateKey::generate();
  if (!k) throw std::runtime_error(k.error().describe());
  return *k;
}

TEST(Ed25519Rfc8032, Section71Vectors) {
  const auto doc = read_json_fixture("fixtures/vectors/rfc8032_7.1_ed25519.json");
  ASSERT_EQ(doc["vectors"].size(), 5u);
  for (const auto& v : doc["vectors"]) {
    SCOPED_TRACE(v["name"].get<std::string>());
    const std::string message = from_hex(v["message"]);
    const std::string expected_sig = from_hex(v["signature"]);
    auto key = Ed25519PrivateKey::from_seed(from_hex(v["secretKey"]));
    ASSERT_TRUE(key) << key.error().describe();
    EXPECT_EQ(to_hex(key->public_key().raw()), v["publicKey"].get<std::string>());

    auto sig = key->sign(message);
    ASSERT_TRUE(sig) << sig.error().describe();
    EXPECT_EQ(to_hex(*sig), v["signature"].get<std::string>());

    auto pub = Ed25519PublicKey::from_raw(from_hex(v["publicKey"]));
    ASSERT_TRUE(pub) << pub.error().describe();
    EXPECT_TRUE(pub->verify(message, expected_sig));

    // One flipped bit anywhere in the signature, or in the message, fails.
    for (std::size_t bit = 0; bit < expected_sig.size() * 8; bit += 37) {
      std::string bad = expected_sig;
      bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
      EXPECT_FALSE(pub->verify(message, bad)) << "signature bit " << bit;
    }
    if (!message.empty()) {
      std::string bad = message;
      bad[0] = static_cast<char>(bad[0] ^ 1);
      EXPECT_FALSE(pub->verify(bad, expected_sig));
    }
    EXPECT_FALSE(pub->verify(message + "x", expected_sig));
    EXPECT_FALSE(pub->verify(message, expected_sig.substr(0, 63)));
    EXPECT_FALSE(pub->verify(message, expected_sig + "x"));
  }
}

TEST(Ed25519Rfc8032, SignatureFromAnotherVectorFails) {
  const auto doc = read_json_fixture("fixtures/vectors/rfc8032_7.1_ed25519.json");
  auto pub = Ed25519PublicKey::from_raw(from_hex(doc["vectors"][0]["publicKey"]));
  ASSERT_TRUE(pub);
  EXPECT_FALSE(pub->verify(from_hex(doc["vectors"][1]["message"]), from_hex(doc["vectors"][1]["signature"])));
}

TEST(Ed25519Point, MatchesIndependentRfc8032Decoding) {
  const auto doc = read_json_fixture("fixtures/vectors/ed25519_points.json");
  std::size_t valid = 0, invalid = 0;
  for (const auto& c : doc["cases"]) {
    const std::string raw = from_hex(c["hex"]);
    const bool expected = c["valid"];
    EXPECT_EQ(is_valid_ed25519_point(raw), expected) << c["name"].get<std::string>();
    auto key = Ed25519PublicKey::from_raw(raw);
    EXPECT_EQ(key.has_value(), expected) << c["name"].get<std::string>();
    if (!expected) {
      ASSERT_FALSE(key);
      EXPECT_EQ(key.error().code, CryptoErrc::invalid_point);
    }
    (expected ? valid : invalid) += 1;
  }
  EXPECT_GT(valid, 20u);
  EXPECT_GT(invalid, 20u);
}

TEST(Ed25519Point, WrongSizes) {
  for (std::size_t n : {0u, 1u, 31u, 33u, 64u}) {
    auto key = Ed25519PublicKey::from_raw(std::string(n, '\x01'));
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().code, CryptoErrc::invalid_argument);
    EXPECT_FALSE(is_valid_ed25519_point(std::string(n, '\x01')));
  }
  auto seed = Ed25519PrivateKey::from_seed(std::string(31, 'a'));
  ASSERT_FALSE(seed);
  EXPECT_EQ(seed.error().code, CryptoErrc::invalid_argument);
}

TEST(Ed25519Pem, PrivateKeyRoundTrip) {
  const auto key = must_generate();
  auto pem = key.to_pem();
  ASSERT_TRUE(pem) << pem.error().describe();
  EXPECT_EQ(pem->rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u) << *pem;  // PKCS#8
  auto loaded = Ed25519PrivateKey::from_pem(*pem);
  ASSERT_TRUE(loaded) << loaded.error().describe();
  EXPECT_EQ(loaded->public_key().raw(), key.public_key().raw());
  // Same key, same deterministic signature.
  EXPECT_EQ(*loaded->sign("hello"), *key.sign("hello"));
  EXPECT_TRUE(key.public_key().verify("hello", *loaded->sign("hello")));
}

TEST(Ed25519Pem, PublicKeyRoundTrip) {
  const auto key = must_generate();
  auto pem = key.public_key().to_pem();
  ASSERT_TRUE(pem) << pem.error().describe();
  EXPECT_EQ(pem->rfind("-----BEGIN PUBLIC KEY-----\n", 0), 0u) << *pem;  // SubjectPublicKeyInfo
  auto loaded = Ed25519PublicKey::from_pem(*pem);
  ASSERT_TRUE(loaded) << loaded.error().describe();
  EXPECT_EQ(loaded->raw(), key.public_key().raw());
  EXPECT_TRUE(loaded->verify("m", *key.sign("m")));
}

// PEM files written by another implementation (Python cryptography) hold the RFC 8032 TEST 1 key.
TEST(Ed25519Pem, LoadsForeignPemFiles) {
  const auto doc = read_json_fixture("fixtures/vectors/jwt/jwt_vectors.json");
  auto priv = Ed25519PrivateKey::from_pem(doc["keys"]["eddsa_private"]["pem"].get<std::string>());
  ASSERT_TRUE(priv) << priv.error().describe();
  EXPECT_EQ(to_hex(priv->public_key().raw()), "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  auto pub = Ed25519PublicKey::from_pem(doc["keys"]["eddsa_public"]["pem"].get<std::string>());
  ASSERT_TRUE(pub) << pub.error().describe();
  EXPECT_EQ(pub->raw(), priv->public_key().raw());
  // And the PEM we write for that key is byte-identical to theirs.
  EXPECT_EQ(*priv->to_pem(), doc["keys"]["eddsa_private"]["pem"].get<std::string>());
  EXPECT_EQ(*pub->to_pem(), doc["keys"]["eddsa_public"]["pem"].get<std::string>());
}

TEST(Ed25519Pem, Errors) {
  const auto key = must_generate();
  const std::string priv_pem = *key.to_pem();
  const std::string pub_pem = *key.public_key().to_pem();
  const std::string rsa_pem = read_source_file("fixtures/vectors/jwt/rsa2048.key");
  const std::string rsa_pub = read_source_file("fixtures/vectors/jwt/rsa2048.pub");

  struct Case {
    std::string name;
    Expected<bool, CryptoError> result;
    CryptoErrc code;
  };
  auto priv = [](const std::string& t) -> Expected<bool, CryptoError> {
    auto k = Ed25519PrivateKey::from_pem(t);
    if (!k) return unexpected(k.error());
    return true;
  };
  auto pub = [](const std::string& t) -> Expected<bool, CryptoError> {
    auto k = Ed25519PublicKey::from_pem(t);
    if (!k) return unexpected(k.error());
    return true;
  };
  std::string corrupt = priv_pem;
  corrupt[30] = corrupt[30] == 'A' ? 'B' : 'A';  // inside the base64 body: bad DER
  std::string truncated = priv_pem.substr(0, priv_pem.size() / 2);
  const std::vector<Case> cases = {
      {"empty", priv(""), CryptoErrc::bad_pem},
      {"not pem", priv("hello"), CryptoErrc::bad_pem},
      {"public where private needed", priv(pub_pem), CryptoErrc::bad_pem},
      {"private where public needed", pub(priv_pem), CryptoErrc::bad_pem},
      {"rsa private key", priv(rsa_pem), CryptoErrc::wrong_key_type},
      {"rsa public key", pub(rsa_pub), CryptoErrc::wrong_key_type},
      {"corrupt body", priv(corrupt), CryptoErrc::bad_pem},
      {"truncated", priv(truncated), CryptoErrc::bad_pem},
      {"certificate", pub("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), CryptoErrc::bad_pem},
      {"too large", priv(std::string(kMaxPemBytes + 1, 'A')), CryptoErrc::bad_pem},
  };
  for (const auto& c : cases) {
    ASSERT_FALSE(c.result) << c.name;
    EXPECT_EQ(c.result.error().code, c.code) << c.name << ": " << c.result.error().describe();
    EXPECT_FALSE(c.result.error().message.empty());
  }
}

TEST(Ed25519Pem, EncryptedKeyIsRefusedWithoutPrompting) {
  const auto key = must_generate();
  ossl::UniqueBio bio(BIO_new(BIO_s_mem()));
  char pass[] = "correct horse";
  ASSERT_EQ(PEM_write_bio_PKCS8PrivateKey(bio.get(), key.native(), EVP_aes_256_cbc(), pass, sizeof pass - 1, nullptr, nullptr), 1);
  const std::string pem = ossl::bio_contents(bio.get());
  ASSERT_NE(pem.find("ENCRYPTED PRIVATE KEY"), std::string::npos);
  auto loaded = Ed25519PrivateKey::from_pem(pem);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, CryptoErrc::encrypted_pem);
}

TEST(Ed25519, GeneratedKeysDiffer) {
  EXPECT_NE(must_generate().public_key().raw(), must_generate().public_key().raw());
}

TEST(Ed25519, SignatureIsDeterministic) {
  const auto key = must_generate();
  EXPECT_EQ(*key.sign("same message"), *key.sign("same message"));
  EXPECT_NE(*key.sign("same message"), *key.sign("same message."));
}

TEST(Ed25519, CacheReturnsTheSameKeyAndRefusesInvalidOnes) {
  const auto key = must_generate();
  auto a = cached_public_key(key.public_key().raw());
  auto b = cached_public_key(key.public_key().raw());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->native(), b->native());  // the same EVP_PKEY, not rebuilt
  EXPECT_TRUE(b->verify("x", *key.sign("x")));
  std::string bad(32, '\0');
  bad[0] = 1;
  bad[31] = static_cast<char>(0x80);  // identity with the sign bit set: not a point
  EXPECT_FALSE(cached_public_key(bad));
  EXPECT_EQ(cached_public_key(bad).error().code, CryptoErrc::invalid_point);
  // Bounded: filling the cache beyond its size keeps working.
  for (std::size_t i = 0; i < kPublicKeyCacheSize + 8; ++i) ASSERT_TRUE(cached_public_key(must_generate().public_key().raw()));
  EXPECT_TRUE(cached_public_key(key.public_key().raw())->verify("x", *key.sign("x")));
}

TEST(Ed25519, VerifiesFromSeveralThreads) {
  const auto key = must_generate();
  const std::string sig = *key.sign("threaded");
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) good += key.public_key().verify("threaded", sig) && !key.public_key().verify("threadeD", sig);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 200);
}

RC_GTEST_PROP(Ed25519Prop, SignThenVerify, (const std::string& message)) {
  static const auto key = must_generate();
  auto sig = key.sign(message);
  RC_ASSERT(sig.has_value());
  RC_ASSERT(sig->size() == kEd25519SignatureSize);
  RC_ASSERT(key.public_key().verify(message, *sig));
}

RC_GTEST_PROP(Ed25519Prop, AnyBitFlipFails, (const std::string& message)) {
  static const auto key = must_generate();
  const std::string sig = *key.sign(message);
  const bool in_signature = message.empty() || *rc::gen::arbitrary<bool>();
  std::string m = message, s = sig;
  std::string& target = in_signature ? s : m;
  const auto bit = *rc::gen::inRange<std::size_t>(0, target.size() * 8);
  target[bit / 8] = static_cast<char>(target[bit / 8] ^ (1 << (bit % 8)));
  RC_ASSERT(!key.public_key().verify(m, s));
}

}  // namespace
}  // namespace ac::crypto
