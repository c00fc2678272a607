// A small, strict JSON Web Token implementation (RFC 7519 over RFC 7515 compact serialization)
// for A2ACP's `security.auth_token`: HS256 (HMAC-SHA256), RS256 (RSASSA-PKCS1-v1_5 SHA-256) and
// EdDSA (Ed25519, RFC 8037), all on OpenSSL.
//
// Strictness, and why:
//   - The verifier takes the algorithm from the KEY, never from the header: an HMAC secret only
//     verifies HS256, an RSA key only RS256, an Ed25519 key only EdDSA. A header asking for
//     another algorithm is `alg_not_allowed` (this closes "algorithm confusion": an RSA public
//     key's PEM text used as an HMAC secret). `alg: none` in any spelling is `alg_none`.
//   - `alg` is compared case-sensitively (RFC 7515 §4.1.1); `crit` is refused (we understand no
//     extension, §4.1.11); `typ`, when present, must be "JWT" (case-insensitively, §4.1.9).
//   - Exactly three segments, each strict base64url (no padding, no non-canonical bits), so a
//     token has one spelling; header and claims are read with parse_strict (duplicate names,
//     invalid UTF-8, trailing data are errors), and must be JSON objects.
//   - HMAC secrets shorter than 256 bits are refused (RFC 7518 §3.2 "MUST"), as are RSA keys
//     under 2048 bits (§3.3); signatures are compared in constant time (CRYPTO_memcmp).
//   - Time comes from an injectable clock, with a leeway (default 0): exp <= now - leeway is
//     expired, nbf > now + leeway is not yet valid, iat > now + leeway is issued in the future.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/crypto/ed25519.hpp"
#include "harness/crypto/openssl_util.hpp"
#include "harness/json/strict_reader.hpp"
#include "harness/util/expected.hpp"

namespace ac::crypto::jwt {

using Json = nlohmann::json;

enum class Alg { HS256, RS256, EdDSA };

std::string_view alg_name(Alg alg);                   // "HS256", "RS256", "EdDSA"
std::optional<Alg> parse_alg(std::string_view name);  // case-sensitive

enum class Errc {
  malformed,         // not three non-empty '.'-separated segments, or too long
  bad_base64,        // a segment is not strict base64url
  bad_header,        // header not a strict JSON object, alg missing/not a string, typ, crit
  alg_none,          // alg "none" in any letter case: unsecured JWTs are never accepted
  alg_unsupported,   // an algorithm this implementation does not know (ES256, hs256, ...)
  alg_not_allowed,   // a known algorithm other than the one the key is for (confusion)
  bad_signature,     // wrong length or does not verify
  bad_claims,        // claims not a strict JSON object, or a registered claim of the wrong type
  missing_claim,     // a required claim is absent
  expired,           // exp <= now - leeway
  not_yet_valid,     // nbf > now + leeway
  issued_in_future,  // iat > now + leeway
  wrong_audience,    // aud (string or array) does not contain the expected audience
  wrong_issuer,      // iss differs from the expected issuer
  bad_key,           // the key cannot be used (weak, wrong type, public key for issuing, ...)
  signing_failed,    // OpenSSL failed while signing
};

// Stable kebab-case name ("alg-none"), used in CLI output and tests.
std::string_view errc_name(Errc code);

struct Error {
  Errc code = Errc::malformed;
  std::string message;

  std::string describe() const { return std::string(errc_name(code)) + ": " + message; }
};

// Minimum HMAC secret size (RFC 7518 §3.2) and RSA modulus size (§3.3).
inline constexpr std::size_t kMinHmacSecretBytes = 32;
inline constexpr int kMinRsaBits = 2048;
// Tokens longer than this are refused before any decoding.
inline constexpr std::size_t kMaxTokenBytes = 64 * 1024;

// A key that fixes the algorithm. Signing needs a secret or a private key; verification takes
// a secret or a public key (a private key also verifies, through its public part).
class Key {
 public:
  // An HS256 secret (raw bytes). Refused when shorter than 32 bytes, or when it is PEM text
  // (a key file passed where a secret belongs is the algorithm-confusion mistake).
  static Expected<Key, Error> hmac(std::string secret);
  // PKCS#8 (or traditional RSA) private key PEM: RSA -> RS256, Ed25519 -> EdDSA.
  static Expected<Key, Error> from_private_pem(std::string_view pem);
  // SubjectPublicKeyInfo public key PEM: RSA -> RS256, Ed25519 -> EdDSA.
  static Expected<Key, Error> from_public_pem(std::string_view pem);
  // A private PEM when the text holds one, else a public PEM.
  static Expected<Key, Error> from_pem(std::string_view pem);
  static Key ed25519(const Ed25519PrivateKey& key);
  static Key ed25519(const Ed25519PublicKey& key);

  Alg alg() const { return alg_; }
  bool can_sign() const { return can_sign_; }

 private:
  friend Expected<std::string, Error> sign_input(std::string_view, const Key&);
  friend bool verify_input(std::string_view, std::string_view, const Key&);
  static Expected<Key, Error> from_pkey(ossl::SharedPkey key, bool is_private);

  Alg alg_ = Alg::HS256;
  bool can_sign_ = false;
  std::string secret_;
  ossl::SharedPkey pkey_;
};

// Seconds since the Unix epoch. Empty means the system clock.
using Clock = std::function<std::int64_t()>;
std::int64_t system_now();

// A clock that always answers `t` (tests, `--now`).
inline Clock fixed_clock(std::int64_t t) {
  return [t] { return t; };
}

struct VerifyOptions {
  Clock clock;                               // empty: system clock
  std::int64_t leeway = 0;                   // seconds of tolerance on exp, nbf, iat (>= 0)
  std::optional<std::string> audience;       // when set, aud must be it or contain it
  std::optional<std::string> issuer;         // when set, iss must equal it
  std::vector<std::string> required_claims;  // names that must be present
};

struct Verified {
  Json header;
  Json claims;
};

// Compact serialization of {"alg":<key's alg>,"typ":"JWT"} and `claims` (a JSON object),
// signed with `key`.
Expected<std::string, Error> issue(const Json& claims, const Key& key);

// Checks, in this order: shape, header, algorithm against the key, base64url of every segment,
// signature, claims JSON, registered-claim types, required claims, exp, nbf, iat, aud, iss.
// The first failure is the answer.
Expected<Verified, Error> verify(std::string_view token, const Key& key, const VerifyOptions& options = {});

// The JWS signature over a signing input ("<header>.<payload>") and its check: exposed for
// tests against RFC 7515/8037 examples whose payloads are not claims sets.
Expected<std::string, Error> sign_input(std::string_view signing_input, const Key& key);
bool verify_input(std::string_view signing_input, std::string_view signature, const Key& key);

}  // namespace ac::crypto::jwt
