// OpenSSL error-queue draining and small BIO helpers (see openssl_util.hpp).
#include "harness/crypto/openssl_util.hpp"

#include <climits>

#include <openssl/err.h>

namespace ac::crypto {

std::string_view errc_name(CryptoErrc code) {
  switch (code) {
    case CryptoErrc::invalid_argument: return "invalid-argument";
    case CryptoErrc::invalid_point: return "invalid-point";
    case CryptoErrc::bad_pem: return "bad-pem";
    case CryptoErrc::encrypted_pem: return "encrypted-pem";
    case CryptoErrc::wrong_key_type: return "wrong-key-type";
    case CryptoErrc::weak_key: return "weak-key";
    case CryptoErrc::openssl: return "openssl";
  }
  return "unknown";
}

namespace ossl {

std::string drain_errors(const std::string& what) {
  std::string out = what;
  bool first = true;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += first ? " (" : "; ";
    out += buf;
    first = false;
  }
  if (!first) out += ")";
  return out;
}

CryptoError error(CryptoErrc code, const std::string& what) { return CryptoError{code, drain_errors(what)}; }

UniqueBio memory_bio(std::string_view data) {
  if (data.size() > static_cast<std::size_t>(INT_MAX)) return nullptr;
  return UniqueBio(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

std::string bio_contents(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 && data != nullptr ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

int refuse_password(char* /*buf*/, int /*size*/, int /*rwflag*/, void* /*userdata*/) { return -1; }

}  // namespace ossl
}  // namespace ac::crypto
