// A throw-away self-signed certificate (ECDSA P-256, SAN 127.0.0.1 and localhost) for tests and
// for `agentconform lobby --tls-self-signed`. Generated at run time: no private key is ever
// committed to the repository.
#pragma once

#include <filesystem>
#include <string>

#include "harness/util/expected.hpp"

namespace ac::net {

struct CertificateFiles {
  std::filesystem::path cert_pem;  // also usable as the client's CA file
  std::filesystem::path key_pem;
};

// Writes cert.pem and key.pem (mode 0600) into `dir` (created if needed). The certificate is
// its own CA (basicConstraints CA:TRUE), so it can also sign certificates for other names.
Expected<CertificateFiles, std::string> write_self_signed_certificate(const std::filesystem::path& dir,
                                                                     int valid_days = 7);

// Writes into `dir` a certificate for `dns_name` only (CN and one DNS subjectAltName) with a
// fresh key, issued by the certificate and key in `issuer`: it chains to the same trust anchor
// but names another host. The reference lobby's fault "tls.wrong-certificate-name" presents it.
Expected<CertificateFiles, std::string> write_certificate_for_name(const std::filesystem::path& dir, const CertificateFiles& issuer,
                                                                  const std::string& dns_name, int valid_days = 7);

}  // namespace ac::net
