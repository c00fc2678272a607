#include "harness/net/self_signed.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>
#include <sys/stat.h>

namespace ac::net {
namespace {

struct Deleters {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(FILE* f) const { std::fclose(f); }
};

}  // namespace

Expected<CertificateFiles, std::string> write_self_signed_certificate(const std::filesystem::path& dir, int valid_days) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return unexpected("cannot create " + dir.string() + ": " + ec.message());

  std::unique_ptr<EVP_PKEY, Deleters> key(EVP_EC_gen("P-256"));
  if (!key) return unexpected(std::string("cannot generate a P-256 key"));
  std::unique_ptr<X509, Deleters> cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(valid_days) * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("agentconform test"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Deleters> san(
      X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost"));
  if (!san || !X509_add_ext(cert.get(), san.get(), -1)) return unexpected(std::string("cannot add subjectAltName"));
  if (!X509_sign(cert.get(), key.get(), EVP_sha256())) return unexpected(std::string("cannot sign the certificate"));

  CertificateFiles files{dir / "cert.pem", dir / "key.pem"};
  {
    std::unique_ptr<FILE, Deleters> f(std::fopen(files.cert_pem.c_str(), "wb"));
    if (!f || !PEM_write_X509(f.get(), cert.get())) return unexpected("cannot write " + files.cert_pem.string());
  }
  {
    std::unique_ptr<FILE, Deleters> f(std::fopen(files.key_pem.c_str(), "wb"));
    if (!f) return unexpected("cannot write " + files.key_pem.string());
    ::chmod(files.key_pem.c_str(), 0600);
    if (!PEM_write_PrivateKey(f.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
      return unexpected("cannot write " + files.key_pem.string());
    }
  }
  return files;
}

}  // namespace ac::net
