// The TLS probes (harness/net/tls_probe.hpp) against the server's TLS options (issue 14): a
// TLS-only port closes plain connections unanswered, the version floor refuses TLS 1.2, and a
// certificate for another name completes the handshake but does not verify for 127.0.0.1.
// Certificates are made at run time (harness/net/self_signed.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "harness/net/self_signed.hpp"
#include "harness/net/server.hpp"
#include "harness/net/tls_probe.hpp"

namespace ac::net {
namespace {

using namespace std::chrono_literals;

class Created final : public HttpHandler {
 public:
  HttpResponse handle(const HttpRequest&) override { return HttpResponse::json(201, R"({"ok":true})"); }
};

struct TlsProbe : ::testing::Test {
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() / ("ac-tls-probe-" + std::to_string(::getpid()) + "-" +
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto files = write_self_signed_certificate(dir / "ca");
    ASSERT_TRUE(files) << files.error();
    ca = *files;
  }
  void TearDown() override {
    if (server) server->stop(200ms);
    std::filesystem::remove_all(dir);
  }
  void start(const CertificateFiles& cert, const std::string& min_version, bool tls_only) {
    ServerOptions o;
    o.tls_cert_file = cert.cert_pem;
    o.tls_key_file = cert.key_pem;
    o.tls_min_version = min_version;
    o.tls_only = tls_only;
    server = std::make_unique<Server>(o);
    server->route("/hello", std::make_shared<Created>());
    auto port = server->start();
    ASSERT_TRUE(port) << port.error();
    options.host = "127.0.0.1";
    options.port = *port;
    options.ca_file = ca.cert_pem;
    options.timeout = 5000ms;
  }

  std::filesystem::path dir;
  CertificateFiles ca;
  std::unique_ptr<Server> server;
  TlsProbeOptions options;
};

const std::string kRequest = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

TEST_F(TlsProbe, Tls13FloorRefusesATls12OnlyClient) {
  start(ca, "1.3", true);
  auto old = options;
  old.min_version = old.max_version = "1.2";
  auto refused = probe_tls(old);
  ASSERT_TRUE(refused) << refused.error();
  EXPECT_TRUE(refused->tcp_connected);
  EXPECT_FALSE(refused->established);
  EXPECT_FALSE(refused->error.empty());

  auto ok = probe_tls(options);
  ASSERT_TRUE(ok) << ok.error();
  ASSERT_TRUE(ok->established) << ok->error;
  EXPECT_EQ(ok->version, "1.3");
  EXPECT_TRUE(ok->certificate_valid) << ok->certificate_error;
  EXPECT_NE(std::find(ok->certificate_names.begin(), ok->certificate_names.end(), "IP:127.0.0.1"), ok->certificate_names.end());
}

TEST_F(TlsProbe, Tls12FloorAcceptsTls12) {
  start(ca, "1.2", true);
  options.max_version = "1.2";
  auto r = probe_tls(options);
  ASSERT_TRUE(r) << r.error();
  ASSERT_TRUE(r->established) << r->error;
  EXPECT_EQ(r->version, "1.2");
}

TEST_F(TlsProbe, CertificateForAnotherNameDoesNotVerifyButChains) {
  auto wrong = write_certificate_for_name(dir / "wrong", ca, "wrong-name.invalid");
  ASSERT_TRUE(wrong) << wrong.error();
  start(*wrong, "1.3", true);
  auto r = probe_tls(options);
  ASSERT_TRUE(r) << r.error();
  ASSERT_TRUE(r->established) << r->error;
  EXPECT_FALSE(r->certificate_valid);
  EXPECT_NE(r->certificate_error.find("mismatch"), std::string::npos) << r->certificate_error;
  EXPECT_NE(std::find(r->certificate_names.begin(), r->certificate_names.end(), "DNS:wrong-name.invalid"), r->certificate_names.end());
  // The same certificate checked for the name it carries verifies: only the name is wrong.
  options.server_name = "wrong-name.invalid";
  auto named = probe_tls(options);
  ASSERT_TRUE(named && named->established);
  EXPECT_TRUE(named->certificate_valid) << named->certificate_error;
}

TEST_F(TlsProbe, TlsOnlyPortClosesPlainTextUnanswered) {
  start(ca, "1.3", true);
  const auto secure = raw_http_exchange(options, true, true, kRequest);
  ASSERT_TRUE(secure.answered) << secure.error;
  EXPECT_EQ(secure.status, 201);
  const auto plain = raw_http_exchange(options, false, false, kRequest);
  EXPECT_TRUE(plain.connected);
  EXPECT_FALSE(plain.answered) << plain.status_line;
}

TEST_F(TlsProbe, MixedPortServesPlainText) {
  start(ca, "1.3", false);
  const auto plain = raw_http_exchange(options, false, false, kRequest);
  ASSERT_TRUE(plain.answered) << plain.error;
  EXPECT_EQ(plain.status, 201);
}

TEST_F(TlsProbe, BadOptionsAreErrorsNotCrashes) {
  options.host = "127.0.0.1";
  options.port = 1;
  options.min_version = "1.1";
  auto bad = probe_tls(options);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("1.1"), std::string::npos);
  options.min_version.clear();
  options.ca_file = (dir / "missing.pem").string();
  auto missing = probe_tls(options);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("tls.ca_file"), std::string::npos);
}

}  // namespace
}  // namespace ac::net
