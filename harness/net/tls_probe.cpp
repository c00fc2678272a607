// TLS and plain-text probes of a target (see tls_probe.hpp). Each call runs one coroutine on a
// private io_context; every operation is bounded by the tcp_stream's deadline, so the call
// returns within the timeout (plus a margin for name resolution).
#include "harness/net/tls_probe.hpp"

#include <arpa/inet.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>

#include "harness/net/beast_fwd.hpp"

namespace ac::net {

using namespace detail;

namespace {

constexpr std::size_t kMaxAnswer = 8 * 1024;

bool is_ip_address(const std::string& host) {
  error_code ec;
  (void)asio::ip::make_address(host, ec);
  return !ec;
}

std::string name_of(const std::string& host, const std::string& server_name) { return server_name.empty() ? host : server_name; }

// The names a leaf certificate carries: its subject CN and every DNS and IP subjectAltName.
std::vector<std::string> certificate_names(X509* cert) {
  std::vector<std::string> out;
  if (cert == nullptr) return out;
  if (X509_NAME* subject = X509_get_subject_name(cert)) {
    const int i = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
    if (i >= 0) {
      const ASN1_STRING* cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
      out.push_back("CN=" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(cn)),
                                        static_cast<std::size_t>(ASN1_STRING_length(cn))));
    }
  }
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS) {
      out.push_back("DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.dNSName)),
                                         static_cast<std::size_t>(ASN1_STRING_length(n->d.dNSName))));
    } else if (n->type == GEN_IPADD) {
      char text[INET6_ADDRSTRLEN] = {0};
      const int len = ASN1_STRING_length(n->d.iPAddress);
      const int family = len == 4 ? AF_INET : len == 16 ? AF_INET6 : 0;
      if (family != 0 && inet_ntop(family, ASN1_STRING_get0_data(n->d.iPAddress), text, sizeof text) != nullptr) {
        out.push_back(std::string("IP:") + text);
      }
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

std::string version_text(const SSL* ssl) {
  switch (SSL_version(ssl)) {
    case TLS1_3_VERSION: return "1.3";
    case TLS1_2_VERSION: return "1.2";
    case TLS1_1_VERSION: return "1.1";
    case TLS1_VERSION: return "1.0";
    default: return SSL_get_version(ssl);
  }
}

// A client context for the probe: version range, trust anchors. Verification never aborts the
// handshake (SSL_VERIFY_NONE): OpenSSL still verifies the chain and the name and keeps the
// result, which the probe reads afterwards.
Expected<std::shared_ptr<asio::ssl::context>, std::string> make_context(const TlsProbeOptions& o) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  ctx->set_verify_mode(asio::ssl::verify_none);
  if (!o.min_version.empty()) {
    auto v = tls_version_code(o.min_version);
    if (!v) return unexpected("min_version: " + v.error());
    SSL_CTX_set_min_proto_version(ctx->native_handle(), *v);
  } else {
    SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  }
  if (!o.max_version.empty()) {
    auto v = tls_version_code(o.max_version);
    if (!v) return unexpected("max_version: " + v.error());
    SSL_CTX_set_max_proto_version(ctx->native_handle(), *v);
  }
  error_code ec;
  if (!o.ca_file.empty()) ctx->load_verify_file(o.ca_file, ec);
  else ctx->set_default_verify_paths(ec);
  if (ec) return unexpected("cannot load CA file " + o.ca_file + ": " + ec.message() + " (tls.ca_file must name a readable PEM file)");
  return ctx;
}

// SNI (for a host name) and the name the verification checks (host name or IP address).
void set_names(SSL* ssl, const TlsProbeOptions& o) {
  const std::string name = name_of(o.host, o.server_name);
  if (is_ip_address(name)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl, name.c_str());
    SSL_set1_host(ssl, name.c_str());
  }
}

asio::awaitable<void> connect(beast::tcp_stream& stream, const TlsProbeOptions& o, std::string& error) {
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  tcp::resolver resolver(stream.get_executor());
  auto endpoints = co_await resolver.async_resolve(o.host, std::to_string(o.port), token);
  if (ec) {
    error = "cannot resolve " + o.host + ": " + ec.message();
    co_return;
  }
  co_await stream.async_connect(endpoints, token);
  if (ec) error = "cannot connect to " + o.host + ":" + std::to_string(o.port) + ": " + ec.message();
}

// Reads until the end of the status line (or 8 KiB, EOF, error, deadline); fills `answer`.
template <class Stream>
asio::awaitable<void> read_status_line(Stream& stream, RawHttpAnswer& answer) {
  error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  std::string data;
  char buf[1024];
  while (data.find("\r\n") == std::string::npos && data.size() < kMaxAnswer) {
    const std::size_t n = co_await stream.async_read_some(asio::buffer(buf), token);
    data.append(buf, n);
    if (ec) break;
  }
  const auto eol = data.find("\r\n");
  if (data.starts_with("HTTP/") && eol != std::string::npos) {
    answer.answered = true;
    answer.status_line = data.substr(0, eol);
    const auto sp = answer.status_line.find(' ');
    try {
      answer.status = sp == std::string::npos ? 0 : std::stoi(answer.status_line.substr(sp + 1, 3));
    } catch (const std::exception&) {
      answer.answered = false;
    }
    if (answer.answered) co_return;
  }
  if (data.empty()) {
    answer.error = ec == beast::error::timeout ? "no answer before the deadline"
                   : ec                        ? "the connection ended without an answer (" + ec.message() + ")"
                                               : "no answer";
  } else {
    answer.error = "the answer is not HTTP (" + std::to_string(data.size()) + " bytes, starting with byte 0x" +
                   [&] {
                     static const char* hex = "0123456789abcdef";
                     const auto c = static_cast<unsigned char>(data[0]);
                     return std::string{hex[c >> 4], hex[c & 15]};
                   }() +
                   ")";
  }
}

// Runs `body` on a private io_context and waits at most `timeout` plus a margin.
template <class Fn>
void run_bounded(std::chrono::milliseconds timeout, Fn&& body) {
  asio::io_context ioc;
  bool done = false;
  asio::co_spawn(ioc, [&]() -> asio::awaitable<void> {
    co_await body(ioc);
    done = true;
  }, asio::detached);
  ioc.run_for(timeout + std::chrono::milliseconds(2000));
  if (!done) ioc.stop();
}

}  // namespace

Expected<int, std::string> tls_version_code(const std::string& text) {
  if (text == "1.2") return TLS1_2_VERSION;
  if (text == "1.3") return TLS1_3_VERSION;
  return unexpected("unknown TLS version \"" + text + "\" (use \"1.2\" or \"1.3\")");
}

Expected<TlsProbeResult, std::string> probe_tls(const TlsProbeOptions& o) {
  auto ctx = make_context(o);
  if (!ctx) return unexpected(ctx.error());
  TlsProbeResult result;
  run_bounded(o.timeout, [&](asio::io_context& ioc) -> asio::awaitable<void> {
    beast::tcp_stream tcp_stream(ioc);
    tcp_stream.expires_after(o.timeout);
    co_await connect(tcp_stream, o, result.error);
    if (!result.error.empty()) co_return;
    result.tcp_connected = true;
    TlsStream stream(std::move(tcp_stream), **ctx);
    set_names(stream.native_handle(), o);
    error_code ec;
    co_await stream.async_handshake(asio::ssl::stream_base::client, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      result.error = ec == beast::error::timeout ? "no handshake answer before the deadline" : ec.message();
      co_return;
    }
    SSL* ssl = stream.native_handle();
    result.established = true;
    result.version = version_text(ssl);
    if (const char* cipher = SSL_get_cipher_name(ssl)) result.cipher = cipher;
    const long verify = SSL_get_verify_result(ssl);
    result.certificate_valid = verify == X509_V_OK;
    if (!result.certificate_valid) result.certificate_error = X509_verify_cert_error_string(verify);
    X509* leaf = SSL_get1_peer_certificate(ssl);
    if (leaf == nullptr) {
      result.certificate_valid = false;
      result.certificate_error = "the target presented no certificate";
    }
    result.certificate_names = certificate_names(leaf);
    X509_free(leaf);
    beast::get_lowest_layer(stream).expires_after(std::chrono::milliseconds(500));
    co_await stream.async_shutdown(asio::redirect_error(asio::use_awaitable, ec));
  });
  if (!result.established && result.error.empty()) result.error = "no handshake answer before the deadline";
  return result;
}

RawHttpAnswer raw_http_exchange(const TlsProbeOptions& o, bool tls, bool verify, const std::string& request) {
  RawHttpAnswer answer;
  auto ctx = make_context(o);
  if (tls && !ctx) {
    answer.error = ctx.error();
    return answer;
  }
  run_bounded(o.timeout, [&](asio::io_context& ioc) -> asio::awaitable<void> {
    beast::tcp_stream tcp_stream(ioc);
    tcp_stream.expires_after(o.timeout);
    co_await connect(tcp_stream, o, answer.error);
    if (!answer.error.empty()) co_return;
    error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    if (!tls) {
      answer.connected = true;
      co_await asio::async_write(tcp_stream, asio::buffer(request), token);
      co_await read_status_line(tcp_stream, answer);
      co_return;
    }
    TlsStream stream(std::move(tcp_stream), **ctx);
    set_names(stream.native_handle(), o);
    co_await stream.async_handshake(asio::ssl::stream_base::client, token);
    if (ec) {
      answer.error = "TLS handshake: " + ec.message();
      co_return;
    }
    if (verify && SSL_get_verify_result(stream.native_handle()) != X509_V_OK) {
      answer.error = std::string("certificate: ") + X509_verify_cert_error_string(SSL_get_verify_result(stream.native_handle()));
      co_return;
    }
    answer.connected = true;
    co_await asio::async_write(stream, asio::buffer(request), token);
    co_await read_status_line(stream, answer);
  });
  if (!answer.answered && answer.error.empty()) answer.error = "no answer before the deadline";
  return answer;
}

}  // namespace ac::net
