// random_bytes() over RAND_bytes (see random.hpp).
#include "harness/crypto/random.hpp"

#include <openssl/rand.h>

#include "harness/crypto/openssl_util.hpp"

namespace ac::crypto {

Expected<std::string, CryptoError> random_bytes(std::size_t n) {
  if (n > (1u << 20)) return unexpected(CryptoError{CryptoErrc::invalid_argument, "random_bytes: more than 1 MiB requested"});
  std::string out(n, '\0');
  if (n == 0) return out;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return unexpected(ossl::error(CryptoErrc::openssl, "RAND_bytes failed"));
  }
  return out;
}

}  // namespace ac::crypto
