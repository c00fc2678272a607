// Probes of a target's transport security, for the TLS conformance cases (issue 14): a TLS
// handshake with a chosen version range that reports what was negotiated and whether the
// certificate verifies for the configured name, and one raw HTTP request over TLS or in plain
// text that reports only the status line (or that no HTTP answer came). The ordinary clients
// (client.hpp) hide these details on purpose; a conformance case has to see them.
//
// Blocking with a deadline, like the rest of the harness's client side: each probe runs its own
// small io_context, so it never holds a thread of the shared Runtime.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/util/expected.hpp"

namespace ac::net {

struct TlsProbeOptions {
  std::string host;           // to connect to (name or address)
  std::uint16_t port = 0;
  std::string server_name;    // SNI and the name the certificate must carry; empty: host
  std::string ca_file;        // trust anchors; empty: the system store
  std::string min_version;    // "1.2" or "1.3" (empty: OpenSSL's floor, TLS 1.2 here)
  std::string max_version;    // "1.2" or "1.3" (empty: the highest)
  std::chrono::milliseconds timeout{5000};
};

struct TlsProbeResult {
  bool tcp_connected = false;
  bool established = false;   // the handshake completed
  std::string version;        // "1.3", "1.2" when established
  std::string cipher;
  std::string error;          // why the handshake did not complete (an alert, a reset, a timeout)
  // Certificate check (done after the handshake, so a wrong name does not hide the version):
  bool certificate_valid = false;
  std::string certificate_error;                // OpenSSL's verify result text when not valid
  std::vector<std::string> certificate_names;   // "CN=…", "DNS:…", "IP:…" of the leaf
};

// Parses "1.2"/"1.3" (the only versions a probe may ask for). Error names the value.
Expected<int, std::string> tls_version_code(const std::string& text);

// Connects and handshakes. An Expected error only for a bad option (unknown version, unreadable
// CA file); what the target does is in the result.
Expected<TlsProbeResult, std::string> probe_tls(const TlsProbeOptions& options);

struct RawHttpAnswer {
  bool connected = false;  // the TCP connection (and for tls, the handshake) succeeded
  bool answered = false;   // an HTTP status line came back
  int status = 0;
  std::string status_line;
  std::string error;       // when not answered: closed, reset, timeout, TLS failure, not HTTP
};

// Sends `request` (complete HTTP/1.1 bytes) over TLS (options as above, certificate checked
// unless `verify` is false) or in plain text, and reads at most the first 8 KiB of the answer.
RawHttpAnswer raw_http_exchange(const TlsProbeOptions& options, bool tls, bool verify, const std::string& request);

}  // namespace ac::net
