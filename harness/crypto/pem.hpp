// PEM key files: PKCS#8 private keys ("-----BEGIN PRIVATE KEY-----") and SubjectPublicKeyInfo
// public keys ("-----BEGIN PUBLIC KEY-----"), of any algorithm; the Ed25519 and JWT layers check
// the key type they need. Encrypted keys are refused (never a passphrase prompt), and each
// failure says which: not PEM, wrong label, encrypted, undecodable.
#pragma once

#include <string>
#include <string_view>

#include "harness/crypto/error.hpp"
#include "harness/crypto/openssl_util.hpp"
#include "harness/util/expected.hpp"

namespace ac::crypto {

// Larger PEM texts are refused before OpenSSL sees them (a 16384-bit RSA key is ~13 KB).
inline constexpr std::size_t kMaxPemBytes = 64 * 1024;

Expected<ossl::SharedPkey, CryptoError> load_private_pem(std::string_view pem);
Expected<ossl::SharedPkey, CryptoError> load_public_pem(std::string_view pem);

// PKCS#8 PEM of a private key; SubjectPublicKeyInfo PEM of a (public or private) key.
Expected<std::string, CryptoError> private_key_pem(EVP_PKEY* key);
Expected<std::string, CryptoError> public_key_pem(EVP_PKEY* key);

// The PEM label of the first block in `text` ("PRIVATE KEY", "PUBLIC KEY", ...), or "".
std::string first_pem_label(std::string_view text);

}  // namespace ac::crypto
