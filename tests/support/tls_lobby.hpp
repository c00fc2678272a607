// A reference lobby started with TLS (a self-signed CA made at run time) and the probe options
// that reach it, for the tests of the TLS faults (*.tls.*, issue 14) in tests/ref_<protocol>/.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "harness/net/self_signed.hpp"
#include "harness/net/tls_probe.hpp"
#include "reference/lobby/lobby.hpp"
#include "tests/support/process.hpp"

namespace ac::testing {

struct TlsLobby {
  TempDir dir;
  std::unique_ptr<ref::Lobby> lobby;
  net::TlsProbeOptions probe;  // 127.0.0.1, the lobby's port, its CA

  // Starts the lobby with these faults; false (and a test failure) when it cannot.
  bool start(const std::set<std::string>& faults) {
    auto files = net::write_self_signed_certificate(dir / "tls");
    if (!files) {
      ADD_FAILURE() << files.error();
      return false;
    }
    ref::LobbyConfig c;
    c.port = 0;
    c.tls_cert_file = files->cert_pem.string();
    c.tls_key_file = files->key_pem.string();
    c.faults = faults;
    auto l = ref::Lobby::start(c);
    if (!l) {
      ADD_FAILURE() << l.error();
      return false;
    }
    lobby = std::move(*l);
    probe.host = "127.0.0.1";
    probe.port = lobby->port();
    probe.ca_file = files->cert_pem.string();
    return true;
  }

  static std::string healthz() { return "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"; }
};

}  // namespace ac::testing
