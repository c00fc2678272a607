// Ed25519 (RFC 8032, pure Ed25519): the signature scheme of AgentProtocol 0.1 messages and of
// EdDSA JWTs (RFC 8037). Keys are OpenSSL 3 EVP keys (PEM, key generation); signing and the
// first verification go through libsodium, about twice as fast as OpenSSL 3.0, with
// OpenSSL's answers (a signature libsodium refuses is verified again by OpenSSL).
//
// Keys are immutable values sharing one reference-counted EVP_PKEY, so copying a key is cheap
// and a key can be used from several threads. A public key is only ever built from bytes that
// decode to a point of edwards25519 (RFC 8032 §5.1.3), so "invalid agent id" and "signature
// mismatch" are different answers.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "harness/crypto/error.hpp"
#include "harness/crypto/openssl_util.hpp"
#include "harness/util/expected.hpp"

namespace ac::crypto {

inline constexpr std::size_t kEd25519PublicKeySize = 32;
inline constexpr std::size_t kEd25519SeedSize = 32;
inline constexpr std::size_t kEd25519SignatureSize = 64;

// True when `raw` is 32 bytes that RFC 8032 §5.1.3 decodes to a point: y < p (canonical),
// x^2 = (y^2 - 1) / (d y^2 + 1) has a square root, and not (x = 0 with the sign bit set).
bool is_valid_ed25519_point(std::string_view raw);

class Ed25519PublicKey {
 public:
  // 32 raw bytes (RFC 8032 encoding); invalid_argument for another size, invalid_point when
  // the bytes are not a point.
  static Expected<Ed25519PublicKey, CryptoError> from_raw(std::string_view raw);
  // SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----") of an Ed25519 key.
  static Expected<Ed25519PublicKey, CryptoError> from_pem(std::string_view pem);
  // An EVP_PKEY that must be an Ed25519 key (public or private; only the public part is kept).
  static Expected<Ed25519PublicKey, CryptoError> from_pkey(EVP_PKEY* key);

  const std::string& raw() const { return raw_; }
  Expected<std::string, CryptoError> to_pem() const;

  // True iff `signature` is a valid 64-byte Ed25519 signature of `message` under this key.
  // Any other size, or any internal failure, is false (never an exception).
  bool verify(std::string_view message, std::string_view signature) const;
  // The same answer from OpenSSL alone (the reference the tests hold libsodium to).
  bool verify_openssl(std::string_view message, std::string_view signature) const;

  EVP_PKEY* native() const { return pkey_.get(); }

 private:
  Ed25519PublicKey(ossl::SharedPkey pkey, std::string raw) : pkey_(std::move(pkey)), raw_(std::move(raw)) {}
  ossl::SharedPkey pkey_;
  std::string raw_;
};

class Ed25519PrivateKey {
 public:
  static Expected<Ed25519PrivateKey, CryptoError> generate();
  // The 32-byte secret key (the "seed" of RFC 8032 §5.1.5), e.g. from the RFC's test vectors.
  static Expected<Ed25519PrivateKey, CryptoError> from_seed(std::string_view seed);
  // PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----") of an Ed25519 key.
  static Expected<Ed25519PrivateKey, CryptoError> from_pem(std::string_view pem);
  static Expected<Ed25519PrivateKey, CryptoError> from_pkey(ossl::SharedPkey key);

  // PKCS#8 PEM, unencrypted: protect the file (keygen writes it with mode 0600).
  Expected<std::string, CryptoError> to_pem() const;
  const Ed25519PublicKey& public_key() const { return public_; }

  // The 64-byte signature of `message` (deterministic: the same key and message always give
  // the same bytes).
  Expected<std::string, CryptoError> sign(std::string_view message) const;
  // The same signature from OpenSSL alone (the reference the tests hold libsodium to).
  Expected<std::string, CryptoError> sign_openssl(std::string_view message) const;

  EVP_PKEY* native() const { return pkey_.get(); }

 private:
  // libsodium's 64-byte secret key (seed || public key), wiped when the last copy goes.
  struct SodiumSecret {
    std::array<unsigned char, 64> bytes{};
    SodiumSecret() = default;
    SodiumSecret(const SodiumSecret&) = delete;
    SodiumSecret& operator=(const SodiumSecret&) = delete;
    ~SodiumSecret();
  };
  Ed25519PrivateKey(ossl::SharedPkey pkey, Ed25519PublicKey pub, std::shared_ptr<const SodiumSecret> secret)
      : pkey_(std::move(pkey)), public_(std::move(pub)), secret_(std::move(secret)) {}
  ossl::SharedPkey pkey_;
  Ed25519PublicKey public_;
  std::shared_ptr<const SodiumSecret> secret_;
};

// Public keys by raw bytes, decoded and validated once per thread: verifying a stream of
// messages from the same few agents then costs no key construction per message. The cache is
// thread-local and bounded (it is emptied when it reaches kPublicKeyCacheSize entries); invalid
// keys are never cached.
inline constexpr std::size_t kPublicKeyCacheSize = 256;
Expected<Ed25519PublicKey, CryptoError> cached_public_key(std::string_view raw);

}  // namespace ac::crypto
