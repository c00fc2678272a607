// RAII ownership of the OpenSSL objects the crypto module uses, and draining of OpenSSL's error
// queue into error text. Every EVP object is owned by one of these from the moment it is
// created, so early returns on hostile input cannot leak (the ASan build checks it).
#pragma once

#include <memory>
#include <string>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>

#include "harness/crypto/error.hpp"

namespace ac::crypto::ossl {

struct PkeyFree { void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); } };
struct PkeyCtxFree { void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); } };
struct MdCtxFree { void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); } };
struct BioFree { void operator()(BIO* p) const { BIO_free(p); } };
struct BnFree { void operator()(BIGNUM* p) const { BN_free(p); } };
struct BnCtxFree { void operator()(BN_CTX* p) const { BN_CTX_free(p); } };

using UniquePkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using UniquePkeyCtx = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;
using UniqueMdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;
using UniqueBio = std::unique_ptr<BIO, BioFree>;
using UniqueBn = std::unique_ptr<BIGNUM, BnFree>;
using UniqueBnCtx = std::unique_ptr<BN_CTX, BnCtxFree>;

// A shared, reference-counted EVP_PKEY (copies take EVP_PKEY_up_ref). Keys are immutable once
// built, so sharing one between key objects and threads is safe.
class SharedPkey {
 public:
  SharedPkey() = default;
  explicit SharedPkey(UniquePkey p) : p_(p.release()) {}
  // Shares a key owned elsewhere (takes a reference).
  static SharedPkey ref(EVP_PKEY* p) {
    if (p) EVP_PKEY_up_ref(p);
    return SharedPkey(UniquePkey(p));
  }
  SharedPkey(const SharedPkey& o) : p_(o.p_) { if (p_) EVP_PKEY_up_ref(p_); }
  SharedPkey(SharedPkey&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  SharedPkey& operator=(SharedPkey o) noexcept { std::swap(p_, o.p_); return *this; }
  ~SharedPkey() { EVP_PKEY_free(p_); }

  EVP_PKEY* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  EVP_PKEY* p_ = nullptr;
};

// Text of every queued OpenSSL error (oldest first, "; "-separated), clearing the queue.
// `what` prefixes the text; when the queue is empty the result is just `what`.
std::string drain_errors(const std::string& what);

// drain_errors() wrapped in a CryptoError of the given code.
CryptoError error(CryptoErrc code, const std::string& what);

// A read-only memory BIO over `data` (which must outlive it); null when it is too large.
UniqueBio memory_bio(std::string_view data);

// Everything written to a memory BIO.
std::string bio_contents(BIO* bio);

// A pem_password_cb that refuses: an encrypted key is an error, never a terminal prompt.
int refuse_password(char* buf, int size, int rwflag, void* userdata);

}  // namespace ac::crypto::ossl
