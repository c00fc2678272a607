// The transport-security steps of a case (issue 14; docs/scenarios.md): `tls_handshake` (a
// handshake with a chosen version range: refused or established, the negotiated version, the
// certificate checked against tls.ca_file for the configured name) and `plaintext` (the same
// request over TLS and in plain text to the TLS port: the plain one must not be served). They
// talk to the target's host and port directly (harness/net/tls_probe.hpp), not through a driver.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/engine/driver.hpp"

namespace ac::engine {

struct TlsStepResult {
  enum class Kind { pass, fail, error, not_applicable };
  Kind kind = Kind::pass;
  std::string message;
  std::string expected;
  std::string actual;
  std::string request;  // for a failure: what was sent ("TLS 1.2 handshake", "plain POST /auth/token")
  std::string answer;   // and what came back, short
};

// `step` is already variable-substituted.
TlsStepResult run_tls_handshake_step(const nlohmann::json& step, CaseEnv& env, std::chrono::milliseconds timeout);
TlsStepResult run_plaintext_step(const nlohmann::json& step, CaseEnv& env, std::chrono::milliseconds timeout);

}  // namespace ac::engine
