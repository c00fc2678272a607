// The error value of the crypto module: a reason code and one line of text. OpenSSL reports
// failures on a thread-local error queue; every failing call here drains that queue into the
// message so that a later, unrelated call never sees stale errors.
#pragma once

#include <string>
#include <string_view>

namespace ac::crypto {

enum class CryptoErrc {
  invalid_argument,  // wrong size of a raw key/seed, empty input, input too large
  invalid_point,     // 32 bytes that are not the encoding of a point on edwards25519
  bad_pem,           // not PEM, wrong PEM label, undecodable DER
  encrypted_pem,     // a passphrase-protected key (never prompted for)
  wrong_key_type,    // a valid key of another algorithm (RSA where Ed25519 is needed, ...)
  weak_key,          // a key below the size the algorithm's RFC requires
  openssl,           // an OpenSSL call failed for a reason other than the input
};

std::string_view errc_name(CryptoErrc code);

struct CryptoError {
  CryptoErrc code = CryptoErrc::openssl;
  std::string message;

  std::string describe() const { return std::string(errc_name(code)) + ": " + message; }
};

}  // namespace ac::crypto
