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

// cert.pem and key.pem (mode 0600) into `dir`.
Expected<CertificateFiles, std::string> write_files(const std::filesystem::path& dir, X509* cert, EVP_PKEY* key) {
  CertificateFiles files{dir / "cert.pem", dir / "key.pem"};
  {
    std::unique_ptr<FILE, Deleters> f(std::fopen(files.cert_pem.c_str(), "wb"));
    if (!f || !PEM_write_X509(f.get(), cert)) return unexpected("cannot write " + files.cert_pem.string());
  }
  {
    std::unique_ptr<FILE, Deleters> f(std::fopen(files.key_pem.c_str(), "wb"));
    if (!f) return unexpected("cannot write " + files.key_pem.string());
    ::chmod(files.key_pem.c_str(), 0600);
    if (!PEM_write_PrivateKey(f.get(), key, nullptr, nullptr, 0, nullptr, nullptr)) {
      return unexpected("cannot write " + files.key_pem.string());
    }
  }
  return files;
}

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
  std::unique_ptr<X509_EXTENSION, Deleters> ca(X509V3_EXT_conf_nid(nullptr, &ctx, NID_basic_constraints, "critical,CA:TRUE"));
  if (!ca || !X509_add_ext(cert.get(), ca.get(), -1)) return unexpected(std::string("cannot add basicConstraints"));
  if (!X509_sign(cert.get(), key.get(), EVP_sha256())) return unexpected(std::string("cannot sign the certificate"));
  return write_files(dir, cert.get(), key.get());
}

Expected<CertificateFiles, std::string> write_certificate_for_name(const std::filesystem::path& dir, const CertificateFiles& issuer,
                                                                  const std::string& dns_name, int valid_days) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return unexpected("cannot create " + dir.string() + ": " + ec.message());
  std::unique_ptr<X509, Deleters> issuer_cert;
  std::unique_ptr<EVP_PKEY, Deleters> issuer_key;
  {
    std::unique_ptr<FILE, Deleters> f(std::fopen(issuer.cert_pem.c_str(), "rb"));
    if (f) issuer_cert.reset(PEM_read_X509(f.get(), nullptr, nullptr, nullptr));
    if (!issuer_cert) return unexpected("cannot read the certificate " + issuer.cert_pem.string() + " (PEM)");
  }
  {
    std::unique_ptr<FILE, Deleters> f(std::fopen(issuer.key_pem.c_str(), "rb"));
    if (f) issuer_key.reset(PEM_read_PrivateKey(f.get(), nullptr, nullptr, nullptr));
    if (!issuer_key) return unexpected("cannot read the private key " + issuer.key_pem.string() + " (PEM, unencrypted)");
  }
  std::unique_ptr<EVP_PKEY, Deleters> key(EVP_EC_gen("P-256"));
  if (!key) return unexpected(std::string("cannot generate a P-256 key"));
  std::unique_ptr<X509, Deleters> cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 2);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(valid_days) * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(dns_name.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), X509_get_subject_name(issuer_cert.get()));
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer_cert.get(), cert.get(), nullptr, nullptr, 0);
  const std::string san_text = "DNS:" + dns_name;
  std::unique_ptr<X509_EXTENSION, Deleters> san(X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san_text.c_str()));
  if (!san || !X509_add_ext(cert.get(), san.get(), -1)) return unexpected("cannot add subjectAltName " + san_text);
  if (!X509_sign(cert.get(), issuer_key.get(), EVP_sha256())) return unexpected(std::string("cannot sign the certificate"));
  return write_files(dir, cert.get(), key.get());
}

}  // namespace ac::net
