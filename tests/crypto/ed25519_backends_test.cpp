// libsodium signs and verifies Ed25519 for speed (harness/crypto/ed25519.cpp); OpenSSL is the
// reference. These tests hold the two to the same answers: libsodium's signatures are OpenSSL's
// byte for byte, and verify() says what OpenSSL says, including for a signature libsodium alone
// refuses (a small-order key, which RFC 8032 does not forbid).
#include "harness/crypto/ed25519.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "crypto_test_support.hpp"

namespace ac::crypto {
namespace {

using ac::testing::from_hex;

RC_GTEST_PROP(Ed25519Backends, LibsodiumSignaturesAreOpenSslSignatures, (const std::string& message)) {
  const auto seed = *rc::gen::container<std::string>(kEd25519SeedSize, rc::gen::arbitrary<char>());
  auto key = Ed25519PrivateKey::from_seed(seed);
  RC_ASSERT(key.has_value());
  auto fast = key->sign(message);
  auto reference = key->sign_openssl(message);
  RC_ASSERT(fast.has_value());
  RC_ASSERT(reference.has_value());
  RC_ASSERT(*fast == *reference);
}

RC_GTEST_PROP(Ed25519Backends, VerifyAnswersAsOpenSslDoes, (const std::string& message, std::size_t flip)) {
  const auto seed = *rc::gen::container<std::string>(kEd25519SeedSize, rc::gen::arbitrary<char>());
  auto key = Ed25519PrivateKey::from_seed(seed);
  RC_ASSERT(key.has_value());
  auto sig = key->sign(message);
  RC_ASSERT(sig.has_value());
  const auto& pub = key->public_key();
  RC_ASSERT(pub.verify(message, *sig));
  RC_ASSERT(pub.verify_openssl(message, *sig));
  // One bit of the signature changed: both refuse.
  std::string bad = *sig;
  bad[flip % bad.size()] = static_cast<char>(bad[flip % bad.size()] ^ (1 << (flip % 8)));
  RC_ASSERT(pub.verify(message, bad) == pub.verify_openssl(message, bad));
  RC_ASSERT(!pub.verify(message, bad));
  // Another message under the same signature: both refuse.
  const std::string other = message + "x";
  RC_ASSERT(!pub.verify(other, *sig));
  RC_ASSERT(!pub.verify_openssl(other, *sig));
}

// The neutral element as the public key (y = 1, a point of order 1) and a signature R = B, S = 1
// satisfy [S]B = R + [k]A for every message: OpenSSL accepts it as RFC 8032 §5.1.7 describes,
// libsodium refuses small-order keys. verify() must give OpenSSL's answer, not libsodium's.
TEST(Ed25519Backends, ASignatureOnlyLibsodiumRefusesIsOpenSslsToJudge) {
  auto identity = Ed25519PublicKey::from_raw(from_hex("0100000000000000000000000000000000000000000000000000000000000000"));
  ASSERT_TRUE(identity) << identity.error().describe();
  const std::string signature = from_hex("5866666666666666666666666666666666666666666666666666666666666666"
                                         "0100000000000000000000000000000000000000000000000000000000000000");
  const bool reference = identity->verify_openssl("any message", signature);
  EXPECT_TRUE(reference) << "OpenSSL refuses a small-order key now: verify() still follows it, but this test no longer shows the fallback";
  EXPECT_EQ(identity->verify("any message", signature), reference);
}

TEST(Ed25519Backends, CopiesOfAKeySignAfterTheOriginalIsGone) {
  std::optional<Ed25519PrivateKey> copy;
  {
    auto key = Ed25519PrivateKey::from_seed(std::string(kEd25519SeedSize, '\x07'));
    ASSERT_TRUE(key);
    copy = *key;
  }
  auto sig = copy->sign("after");
  ASSERT_TRUE(sig);
  EXPECT_TRUE(copy->public_key().verify_openssl("after", *sig));
}

}  // namespace
}  // namespace ac::crypto
