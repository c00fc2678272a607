// What every client and server of the harness needs to open a connection, without Beast: the
// parts of a ws/wss/http/https URL a request is built from, and the RFC 6455 §4 opening
// handshake's key and accept value. One implementation for the harness's client (client.cpp),
// the load generator's own connections (harness/load/engine.cpp) and the server's WebSocket
// sessions (ws_session.cpp).
#pragma once

#include <string>
#include <string_view>

#include "harness/util/expected.hpp"

namespace ac::net {

struct EndpointUrl {
  bool tls = false;        // wss or https
  bool websocket = false;  // ws or wss
  std::string host;        // an IPv6 address keeps its brackets
  std::string port;        // the URL's, or 443 / 80
  std::string target;      // origin-form: path + query ("/" when the URL has no path)
  std::string host_header; // host, plus ":port" when the port is not the scheme's default
};

// Parses (Boost.URL) and checks the scheme; the error names the URL and what is wrong with it.
Expected<EndpointUrl, std::string> parse_endpoint_url(const std::string& url);

// A fresh Sec-WebSocket-Key: 16 random bytes, base64 (RFC 6455 §4.1).
std::string websocket_key();
// The Sec-WebSocket-Accept a server must answer `key` with (RFC 6455 §4.2.2).
std::string websocket_accept(std::string_view key);

}  // namespace ac::net
