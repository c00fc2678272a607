// The TLS faults of reference/a2acp/faults.json (issue 14): the lobby started with a certificate
// is TLS-only with a TLS 1.3 floor and presents a certificate for its own name; each fault undoes
// one of them.
#include "tests/support/tls_lobby.hpp"

namespace ac::testing {
namespace {

TEST(A2acpTlsFault, AcceptTls12CompletesATls12Handshake) {
  TlsLobby t;
  ASSERT_TRUE(t.start({}));
  t.probe.min_version = t.probe.max_version = "1.2";
  auto refused = net::probe_tls(t.probe);
  ASSERT_TRUE(refused);
  EXPECT_FALSE(refused->established);

  TlsLobby faulty;
  ASSERT_TRUE(faulty.start({"a2acp.tls.accept-tls12"}));
  faulty.probe.min_version = faulty.probe.max_version = "1.2";
  auto r = net::probe_tls(faulty.probe);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->established) << r->error;
  EXPECT_EQ(r->version, "1.2");
}

TEST(A2acpTlsFault, PlaintextBesideTlsServesPlainText) {
  TlsLobby t;
  ASSERT_TRUE(t.start({"a2acp.tls.plaintext-beside-tls"}));
  const auto plain = net::raw_http_exchange(t.probe, false, false, TlsLobby::healthz());
  ASSERT_TRUE(plain.answered) << plain.error;
  EXPECT_EQ(plain.status, 200);
}

TEST(A2acpTlsFault, WrongCertificateNameDoesNotVerify) {
  TlsLobby t;
  ASSERT_TRUE(t.start({"a2acp.tls.wrong-certificate-name"}));
  auto r = net::probe_tls(t.probe);
  ASSERT_TRUE(r && r->established);
  EXPECT_FALSE(r->certificate_valid);
  EXPECT_NE(r->certificate_error.find("mismatch"), std::string::npos) << r->certificate_error;
}

}  // namespace
}  // namespace ac::testing
