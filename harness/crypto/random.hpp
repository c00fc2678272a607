// Cryptographically secure random bytes (OpenSSL's DRBG), for key generation, JWT ids and
// test secrets. Never std::random_device or a seeded PRNG for anything secret.
#pragma once

#include <cstddef>
#include <string>

#include "harness/crypto/error.hpp"
#include "harness/util/expected.hpp"

namespace ac::crypto {

// n random bytes; fails only when the DRBG cannot be seeded or n is absurdly large (> 1 MiB).
Expected<std::string, CryptoError> random_bytes(std::size_t n);

}  // namespace ac::crypto
