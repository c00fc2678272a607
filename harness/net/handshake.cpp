#include "harness/net/handshake.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <boost/url/parse.hpp>

namespace ac::net {
namespace {

std::string base64(const unsigned char* data, std::size_t n) {
  std::string out(4 * ((n + 2) / 3), '\0');
  const int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(n));
  out.resize(static_cast<std::size_t>(len));
  return out;
}

}  // namespace

Expected<EndpointUrl, std::string> parse_endpoint_url(const std::string& url) {
  auto u = boost::urls::parse_uri(url);
  if (!u) return unexpected(url + ": " + u.error().message());
  EndpointUrl out;
  const std::string scheme(u->scheme());
  if (scheme == "wss" || scheme == "https") out.tls = true;
  else if (scheme != "ws" && scheme != "http") return unexpected(url + ": scheme must be http, https, ws or wss");
  out.websocket = scheme == "ws" || scheme == "wss";
  out.host = std::string(u->host_address());
  if (out.host.empty()) return unexpected(url + ": no host");
  if (u->host_type() == boost::urls::host_type::ipv6) out.host = std::string(u->encoded_host_address());
  out.port = u->has_port() ? std::string(u->port()) : (out.tls ? "443" : "80");
  out.target = std::string(u->encoded_path());
  if (out.target.empty()) out.target = "/";
  if (u->has_query()) out.target += "?" + std::string(u->encoded_query());
  const bool default_port = (out.tls && out.port == "443") || (!out.tls && out.port == "80");
  out.host_header = default_port ? out.host : out.host + ":" + out.port;
  return out;
}

std::string websocket_key() {
  unsigned char nonce[16];
  RAND_bytes(nonce, sizeof nonce);
  return base64(nonce, sizeof nonce);
}

std::string websocket_accept(std::string_view key) {
  const std::string input = std::string(key) + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(input.data(), input.size(), digest, &len, EVP_sha1(), nullptr);
  return base64(digest, len);
}

}  // namespace ac::net
