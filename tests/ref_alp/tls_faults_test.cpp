// The TLS faults of reference/alp/faults.json (issue 14): the lobby started with a certificate is
// TLS-only and presents a certificate for its own name; each fault undoes one of them.
#include "tests/support/tls_lobby.hpp"

namespace ac::testing {
namespace {

TEST(AlpTlsFault, WithoutFaultsPlainTextIsClosedAndTheCertificateNamesTheLobby) {
  TlsLobby t;
  ASSERT_TRUE(t.start({}));
  EXPECT_FALSE(net::raw_http_exchange(t.probe, false, false, TlsLobby::healthz()).answered);
  auto r = net::probe_tls(t.probe);
  ASSERT_TRUE(r && r->established);
  EXPECT_TRUE(r->certificate_valid) << r->certificate_error;
}

TEST(AlpTlsFault, PlaintextBesideTlsServesPlainText) {
  TlsLobby t;
  ASSERT_TRUE(t.start({"alp.tls.plaintext-beside-tls"}));
  const auto plain = net::raw_http_exchange(t.probe, false, false, TlsLobby::healthz());
  ASSERT_TRUE(plain.answered) << plain.error;
  EXPECT_EQ(plain.status, 200);
}

TEST(AlpTlsFault, WrongCertificateNameChainsButNamesAnotherHost) {
  TlsLobby t;
  ASSERT_TRUE(t.start({"alp.tls.wrong-certificate-name"}));
  auto r = net::probe_tls(t.probe);
  ASSERT_TRUE(r && r->established);
  EXPECT_FALSE(r->certificate_valid);
  EXPECT_NE(std::find(r->certificate_names.begin(), r->certificate_names.end(), "DNS:wrong-name.invalid"), r->certificate_names.end());
  t.probe.server_name = "wrong-name.invalid";  // the same chain checked for the name it carries
  auto named = net::probe_tls(t.probe);
  ASSERT_TRUE(named && named->established);
  EXPECT_TRUE(named->certificate_valid) << named->certificate_error;
}

}  // namespace
}  // namespace ac::testing
