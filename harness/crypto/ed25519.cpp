// Ed25519 keys through OpenSSL 3 EVP; signing, and the first verification, through libsodium
// (see ed25519.hpp).
#include "harness/crypto/ed25519.hpp"

#include <array>
#include <unordered_map>

#include <openssl/err.h>
#include <sodium.h>

#include "harness/crypto/pem.hpp"

namespace ac::crypto {
namespace {

Unexpected<CryptoError> fail(CryptoErrc code, std::string message) {
  ERR_clear_error();
  return unexpected(CryptoError{code, std::move(message)});
}

// p = 2^255 - 19, d = -121665/121666 mod p, and (p - 1)/2 for Euler's criterion. Computed once;
// the BIGNUMs are only read afterwards, which OpenSSL allows from several threads.
struct CurveConstants {
  ossl::UniqueBn p{BN_new()}, d{BN_new()}, half{BN_new()};
  bool ok = false;

  CurveConstants() {
    ossl::UniqueBnCtx ctx(BN_CTX_new());
    ossl::UniqueBn num(BN_new()), den(BN_new()), inv(BN_new());
    ok = ctx && p && d && half && num && den && inv &&
         BN_set_bit(p.get(), 255) && BN_sub_word(p.get(), 19) &&
         BN_set_word(num.get(), 121665) && BN_sub(num.get(), p.get(), num.get()) &&  // -121665 mod p
         BN_set_word(den.get(), 121666) && BN_mod_inverse(inv.get(), den.get(), p.get(), ctx.get()) != nullptr &&
         BN_mod_mul(d.get(), num.get(), inv.get(), p.get(), ctx.get()) &&
         BN_rshift1(half.get(), p.get());  // (p - 1) / 2, as p is odd
    ERR_clear_error();
  }
};

const CurveConstants& curve() {
  static const CurveConstants c;
  return c;
}

// Empty messages are valid; give OpenSSL a non-null pointer for them.
const unsigned char* bytes_of(std::string_view s) {
  static const unsigned char empty = 0;
  return s.empty() ? &empty : reinterpret_cast<const unsigned char*>(s.data());
}

bool is_ed25519(EVP_PKEY* key) { return key != nullptr && EVP_PKEY_is_a(key, "ED25519") == 1; }

// sodium_init() picks libsodium's implementations; it is safe to call from several threads
// and more than once, but the result is needed before the first use.
bool sodium_ready() {
  static const bool ready = sodium_init() >= 0;
  return ready;
}

bool openssl_verify(EVP_PKEY* key, std::string_view message, std::string_view signature) {
  // One EVP_MD_CTX per thread, reset between uses: saves an allocation per verification.
  thread_local ossl::UniqueMdCtx ctx(EVP_MD_CTX_new());
  if (!ctx) return false;
  EVP_MD_CTX_reset(ctx.get());
  const bool ok = EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key) == 1 &&
                  EVP_DigestVerify(ctx.get(), bytes_of(signature), signature.size(), bytes_of(message), message.size()) == 1;
  if (!ok) ERR_clear_error();
  return ok;
}

}  // namespace

bool is_valid_ed25519_point(std::string_view raw) {
  if (raw.size() != kEd25519PublicKeySize) return false;
  const CurveConstants& c = curve();
  if (!c.ok) return false;
  unsigned char ybytes[32];
  for (std::size_t i = 0; i < 32; ++i) ybytes[i] = static_cast<unsigned char>(raw[i]);
  const bool x_sign = (ybytes[31] & 0x80) != 0;
  ybytes[31] &= 0x7F;

  ossl::UniqueBnCtx ctx(BN_CTX_new());
  ossl::UniqueBn y(BN_lebin2bn(ybytes, 32, nullptr)), y2(BN_new()), u(BN_new()), v(BN_new()), w(BN_new()), r(BN_new());
  if (!ctx || !y || !y2 || !u || !v || !w || !r) {
    ERR_clear_error();
    return false;
  }
  if (BN_cmp(y.get(), c.p.get()) >= 0) return false;  // non-canonical encoding of y
  bool ok = BN_mod_sqr(y2.get(), y.get(), c.p.get(), ctx.get()) &&
            BN_copy(u.get(), y2.get()) && BN_sub_word(u.get(), 1) &&                  // u = y^2 - 1 (y2 >= 0)
            BN_nnmod(u.get(), u.get(), c.p.get(), ctx.get()) &&
            BN_mod_mul(v.get(), c.d.get(), y2.get(), c.p.get(), ctx.get()) &&
            BN_add_word(v.get(), 1) && BN_nnmod(v.get(), v.get(), c.p.get(), ctx.get());  // v = d y^2 + 1
  if (!ok) {
    ERR_clear_error();
    return false;
  }
  // x = 0 exactly when u = 0 (v is never 0: -1/d is not a square mod p). Then the sign bit
  // must be clear (RFC 8032 §5.1.3 step 4).
  if (BN_is_zero(u.get())) return !x_sign;
  // x^2 = u/v must be a quadratic residue: (u/v)^((p-1)/2) == 1.
  ok = BN_mod_inverse(w.get(), v.get(), c.p.get(), ctx.get()) != nullptr &&
       BN_mod_mul(w.get(), u.get(), w.get(), c.p.get(), ctx.get()) &&
       BN_mod_exp(r.get(), w.get(), c.half.get(), c.p.get(), ctx.get());
  if (!ok) {
    ERR_clear_error();
    return false;
  }
  return BN_is_one(r.get());
}

// ---- public key ----

Expected<Ed25519PublicKey, CryptoError> Ed25519PublicKey::from_raw(std::string_view raw) {
  if (raw.size() != kEd25519PublicKeySize) {
    return fail(CryptoErrc::invalid_argument, "an Ed25519 public key is 32 bytes, got " + std::to_string(raw.size()));
  }
  if (!is_valid_ed25519_point(raw)) {
    return fail(CryptoErrc::invalid_point, "the 32 bytes do not encode a point of edwards25519 (RFC 8032 §5.1.3)");
  }
  ossl::UniquePkey key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, bytes_of(raw), raw.size()));
  if (!key) return unexpected(ossl::error(CryptoErrc::openssl, "EVP_PKEY_new_raw_public_key failed"));
  return Ed25519PublicKey(ossl::SharedPkey(std::move(key)), std::string(raw));
}

Expected<Ed25519PublicKey, CryptoError> Ed25519PublicKey::from_pkey(EVP_PKEY* key) {
  if (!is_ed25519(key)) return fail(CryptoErrc::wrong_key_type, "not an Ed25519 key");
  unsigned char raw[kEd25519PublicKeySize];
  std::size_t len = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(key, raw, &len) != 1 || len != sizeof raw) {
    return unexpected(ossl::error(CryptoErrc::openssl, "EVP_PKEY_get_raw_public_key failed"));
  }
  // Rebuild from the raw bytes: validates the point, and drops any private part.
  return from_raw(std::string_view(reinterpret_cast<const char*>(raw), len));
}

Expected<Ed25519PublicKey, CryptoError> Ed25519PublicKey::from_pem(std::string_view pem) {
  auto key = load_public_pem(pem);
  if (!key) return unexpected(std::move(key).error());
  if (!is_ed25519(key->get())) {
    return fail(CryptoErrc::wrong_key_type, std::string("the public key is ") + EVP_PKEY_get0_type_name(key->get()) + ", not ED25519");
  }
  return from_pkey(key->get());
}

Expected<std::string, CryptoError> Ed25519PublicKey::to_pem() const { return public_key_pem(pkey_.get()); }

bool Ed25519PublicKey::verify(std::string_view message, std::string_view signature) const {
  if (signature.size() != kEd25519SignatureSize || !pkey_) return false;
  // libsodium verifies in 60 us where OpenSSL 3.0 takes 130-150 (this machine, 2026-11-26), and
  // an AgentProtocol lobby verifies every message. It is the stricter of the two (it also
  // refuses small-order keys and R values, RFC 8032 does not), so what it accepts OpenSSL
  // accepts too (tests/crypto/ed25519_backends_test.cpp); what it refuses is asked of OpenSSL,
  // so the answer is always OpenSSL's, and a valid signature costs one libsodium check.
  if (sodium_ready() && crypto_sign_verify_detached(bytes_of(signature), bytes_of(message), message.size(), bytes_of(raw_)) == 0) {
    return true;
  }
  return openssl_verify(pkey_.get(), message, signature);
}

bool Ed25519PublicKey::verify_openssl(std::string_view message, std::string_view signature) const {
  return signature.size() == kEd25519SignatureSize && pkey_ && openssl_verify(pkey_.get(), message, signature);
}

// ---- private key ----

Expected<Ed25519PrivateKey, CryptoError> Ed25519PrivateKey::from_pkey(ossl::SharedPkey key) {
  if (!is_ed25519(key.get())) {
    return fail(CryptoErrc::wrong_key_type,
                std::string("the private key is ") + (key ? EVP_PKEY_get0_type_name(key.get()) : "missing") + ", not ED25519");
  }
  auto pub = Ed25519PublicKey::from_pkey(key.get());
  if (!pub) return unexpected(std::move(pub).error());
  // libsodium's form of the key (seed || public key), for signing: derived once here.
  auto secret = std::make_shared<SodiumSecret>();
  unsigned char seed[kEd25519SeedSize];
  std::size_t len = sizeof seed;
  unsigned char public_bytes[kEd25519PublicKeySize];
  const bool derived = sodium_ready() && EVP_PKEY_get_raw_private_key(key.get(), seed, &len) == 1 && len == sizeof seed &&
                       crypto_sign_seed_keypair(public_bytes, secret->bytes.data(), seed) == 0;
  sodium_memzero(seed, sizeof seed);
  if (!derived) return unexpected(ossl::error(CryptoErrc::openssl, "the Ed25519 secret key could not be read"));
  return Ed25519PrivateKey(std::move(key), std::move(*pub), std::move(secret));
}

Expected<Ed25519PrivateKey, CryptoError> Ed25519PrivateKey::generate() {
  ossl::UniquePkeyCtx ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &raw) != 1) {
    EVP_PKEY_free(raw);
    return unexpected(ossl::error(CryptoErrc::openssl, "Ed25519 key generation failed"));
  }
  return from_pkey(ossl::SharedPkey(ossl::UniquePkey(raw)));
}

Expected<Ed25519PrivateKey, CryptoError> Ed25519PrivateKey::from_seed(std::string_view seed) {
  if (seed.size() != kEd25519SeedSize) {
    return fail(CryptoErrc::invalid_argument, "an Ed25519 secret key is 32 bytes, got " + std::to_string(seed.size()));
  }
  ossl::UniquePkey key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, bytes_of(seed), seed.size()));
  if (!key) return unexpected(ossl::error(CryptoErrc::openssl, "EVP_PKEY_new_raw_private_key failed"));
  return from_pkey(ossl::SharedPkey(std::move(key)));
}

Expected<Ed25519PrivateKey, CryptoError> Ed25519PrivateKey::from_pem(std::string_view pem) {
  auto key = load_private_pem(pem);
  if (!key) return unexpected(std::move(key).error());
  return from_pkey(std::move(*key));
}

Expected<std::string, CryptoError> Ed25519PrivateKey::to_pem() const { return private_key_pem(pkey_.get()); }

Ed25519PrivateKey::SodiumSecret::~SodiumSecret() { sodium_memzero(bytes.data(), bytes.size()); }

Expected<std::string, CryptoError> Ed25519PrivateKey::sign(std::string_view message) const {
  // Ed25519 signatures are deterministic (RFC 8032 §5.1.6): libsodium's are OpenSSL's, byte for
  // byte (tests/crypto/ed25519_backends_test.cpp), in half of OpenSSL 3.0's time.
  std::string sig(kEd25519SignatureSize, '\0');
  if (!secret_ || crypto_sign_detached(reinterpret_cast<unsigned char*>(sig.data()), nullptr, bytes_of(message), message.size(),
                                       secret_->bytes.data()) != 0) {
    return fail(CryptoErrc::openssl, "Ed25519 signing failed");
  }
  return sig;
}

Expected<std::string, CryptoError> Ed25519PrivateKey::sign_openssl(std::string_view message) const {
  ossl::UniqueMdCtx ctx(EVP_MD_CTX_new());
  std::string sig(kEd25519SignatureSize, '\0');
  std::size_t len = sig.size();
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, pkey_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, bytes_of(message), message.size()) != 1 ||
      len != kEd25519SignatureSize) {
    return unexpected(ossl::error(CryptoErrc::openssl, "Ed25519 signing failed"));
  }
  return sig;
}

// ---- cache ----

Expected<Ed25519PublicKey, CryptoError> cached_public_key(std::string_view raw) {
  thread_local std::unordered_map<std::string, Ed25519PublicKey> cache;
  if (auto it = cache.find(std::string(raw)); it != cache.end()) return it->second;
  auto key = Ed25519PublicKey::from_raw(raw);
  if (!key) return key;
  if (cache.size() >= kPublicKeyCacheSize) cache.clear();
  cache.emplace(std::string(raw), *key);
  return key;
}

}  // namespace ac::crypto
