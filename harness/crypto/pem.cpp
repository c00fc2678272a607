// PEM key loading and saving with precise errors (see pem.hpp).
#include "harness/crypto/pem.hpp"

#include <optional>

#include <openssl/err.h>
#include <openssl/pem.h>

namespace ac::crypto {
namespace {

Unexpected<CryptoError> fail(CryptoErrc code, std::string message) {
  ERR_clear_error();
  return unexpected(CryptoError{code, std::move(message)});
}

// Checks size and label before OpenSSL parses anything, so the common mistakes get a clear
// message rather than "no start line".
std::optional<CryptoError> precheck(std::string_view pem, bool want_private) {
  if (pem.empty()) return CryptoError{CryptoErrc::bad_pem, "empty key file"};
  if (pem.size() > kMaxPemBytes) return CryptoError{CryptoErrc::bad_pem, "key file larger than " + std::to_string(kMaxPemBytes) + " bytes"};
  const std::string label = first_pem_label(pem);
  if (label.empty()) return CryptoError{CryptoErrc::bad_pem, "no PEM block (-----BEGIN ...-----) found"};
  if (want_private) {
    if (label == "ENCRYPTED PRIVATE KEY" || pem.find("Proc-Type: 4,ENCRYPTED") != std::string_view::npos) {
      return CryptoError{CryptoErrc::encrypted_pem, "the private key is passphrase-protected; decrypt it first (openssl pkey -in K -out K2)"};
    }
    if (label == "PUBLIC KEY" || label == "RSA PUBLIC KEY") {
      return CryptoError{CryptoErrc::bad_pem, "this is a public key (" + label + "); a private key (PRIVATE KEY) is needed"};
    }
    if (label != "PRIVATE KEY" && label != "RSA PRIVATE KEY" && label != "EC PRIVATE KEY") {
      return CryptoError{CryptoErrc::bad_pem, "PEM block '" + label + "' is not a private key"};
    }
  } else {
    if (label.find("PRIVATE KEY") != std::string::npos) {
      return CryptoError{CryptoErrc::bad_pem, "this is a private key (" + label + "); a public key (PUBLIC KEY) is needed"};
    }
    if (label != "PUBLIC KEY") {
      return CryptoError{CryptoErrc::bad_pem, "PEM block '" + label + "' is not a SubjectPublicKeyInfo public key (PUBLIC KEY)"};
    }
  }
  return std::nullopt;
}

}  // namespace

std::string first_pem_label(std::string_view text) {
  constexpr std::string_view begin = "-----BEGIN ";
  const auto b = text.find(begin);
  if (b == std::string_view::npos) return {};
  const auto start = b + begin.size();
  const auto end = text.find("-----", start);
  if (end == std::string_view::npos || end - start > 64) return {};
  return std::string(text.substr(start, end - start));
}

Expected<ossl::SharedPkey, CryptoError> load_private_pem(std::string_view pem) {
  if (auto e = precheck(pem, true)) return unexpected(std::move(*e));
  auto bio = ossl::memory_bio(pem);
  if (!bio) return unexpected(ossl::error(CryptoErrc::openssl, "BIO_new_mem_buf failed"));
  ossl::UniquePkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, ossl::refuse_password, nullptr));
  if (!key) return unexpected(ossl::error(CryptoErrc::bad_pem, "cannot decode the private key"));
  return ossl::SharedPkey(std::move(key));
}

Expected<ossl::SharedPkey, CryptoError> load_public_pem(std::string_view pem) {
  if (auto e = precheck(pem, false)) return unexpected(std::move(*e));
  auto bio = ossl::memory_bio(pem);
  if (!bio) return unexpected(ossl::error(CryptoErrc::openssl, "BIO_new_mem_buf failed"));
  ossl::UniquePkey key(PEM_read_bio_PUBKEY(bio.get(), nullptr, ossl::refuse_password, nullptr));
  if (!key) return unexpected(ossl::error(CryptoErrc::bad_pem, "cannot decode the public key"));
  return ossl::SharedPkey(std::move(key));
}

Expected<std::string, CryptoError> private_key_pem(EVP_PKEY* key) {
  if (key == nullptr) return fail(CryptoErrc::invalid_argument, "no key");
  ossl::UniqueBio bio(BIO_new(BIO_s_mem()));
  if (!bio) return unexpected(ossl::error(CryptoErrc::openssl, "BIO_new failed"));
  // OpenSSL 3 writes PKCS#8 PrivateKeyInfo ("PRIVATE KEY") through PEM_write_bio_PrivateKey.
  if (PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return unexpected(ossl::error(CryptoErrc::openssl, "PEM_write_bio_PrivateKey failed"));
  }
  return ossl::bio_contents(bio.get());
}

Expected<std::string, CryptoError> public_key_pem(EVP_PKEY* key) {
  if (key == nullptr) return fail(CryptoErrc::invalid_argument, "no key");
  ossl::UniqueBio bio(BIO_new(BIO_s_mem()));
  if (!bio) return unexpected(ossl::error(CryptoErrc::openssl, "BIO_new failed"));
  if (PEM_write_bio_PUBKEY(bio.get(), key) != 1) return unexpected(ossl::error(CryptoErrc::openssl, "PEM_write_bio_PUBKEY failed"));
  return ossl::bio_contents(bio.get());
}

}  // namespace ac::crypto
