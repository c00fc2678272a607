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

// Writes cert.pem and key.pem (mode 0600) into `dir` (created if needed).
Expected<CertificateFiles, std::string> write_self_signed_certificate(const std::filesystem::path& dir,
                                                                     int valid_days = 7);

}  // namespace ac::net
