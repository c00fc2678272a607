// Issue 13, point 4: no credential leaves the process in clear. Canary tests through the built
// CLI, one per protocol:
//   - Lobby/*: the reference lobby started with a unique canary in each credential the
//     protocol declares secret (ALP api_key and admin_token, A2ACP api_key and jwt_secret), a
//     target.json holding them, a few cases run: no canary in stdout, stderr or any report.
//   - EchoPeer/*: a hostile peer on the protocol's declared paths that echoes every request
//     body and frame back (so the declared secrets of target.json come back from the peer) and
//     adds credentials of its own (a token, an api key, an Authorization value, a token= query
//     parameter, a JWT, a private key). None may appear in any output, while a harmless marker
//     sent next to them must (the peer's text did reach the reports).
#include <gtest/gtest.h>

#include <random>

#include <nlohmann/json.hpp>

#include "harness/embedded/embedded.hpp"
#include "harness/net/server.hpp"
#include "tests/hostile/cli.hpp"

namespace ac::testing {
namespace {

using Json = nlohmann::json;

std::string canary(const std::string& what) {
  static std::mt19937_64 rng(std::random_device{}());
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return "CANARY" + what + buf;
}

const std::vector<std::string> kProtocols = {"alp", "agora", "agentprotocol", "a2acp", "chopsticks"};

// A few cases of each protocol (their first suite's first cases): enough for registrations,
// connections and frames, short enough for seconds.
std::string case_glob(const std::string& p) {
  if (p == "alp") return "ALP-CN-00*";
  if (p == "agora") return "AGORA-ERR-00*";
  if (p == "agentprotocol") return "AP-CN-00*";
  if (p == "a2acp") return "A2A-CN-00*";
  return "CHOP-ERR-00*";
}

// The canaries planted in a lobby's configuration: each credential the protocol declares secret.
struct Planted {
  ref::LobbyConfig config;
  std::vector<std::string> secrets;
};

Planted plant(const std::string& protocol) {
  Planted out;
  out.config = embedded::lobby_config({protocol}, {});
  const std::string api = canary("api"), admin = canary("admin"), jwt = canary("jwtsecret") + "0123456789abcdef0123456789";
  out.config.api_keys = {api};
  out.config.admin_token = admin;
  out.config.protocols["a2acp"]["jwt_secret"] = jwt;
  if (protocol == "alp") out.secrets = {api, admin};
  if (protocol == "a2acp") out.secrets = {api, jwt};
  return out;
}

// target.json for the lobby described by `config` (the embedded lobby's own description).
std::string target_json(const TempDir& dir, const std::string& protocol, const ref::LobbyConfig& config) {
  Json doc = embedded::describe(protocol, config).document;
  doc["protocol"] = protocol;
  if (protocol == "agentprotocol") doc["transports"] = {"ws", "http"};
  const auto path = dir / "target.json";
  spit(path, doc.dump(1));
  return path.string();
}

void expect_absent(const std::string& all, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) EXPECT_EQ(where(all, s), "") << "secret " << s << " in clear";
}

class Lobby : public ::testing::TestWithParam<std::string> {};

TEST_P(Lobby, DeclaredSecretsNeverInAnyOutput) {
  const std::string p = GetParam();
  Planted planted = plant(p);
  if (planted.secrets.empty()) GTEST_SKIP() << p << " declares no secret setting (suites/" << p << "/target-settings.json)";
  auto lobby = ref::Lobby::start(planted.config);
  ASSERT_TRUE(lobby) << lobby.error();
  TempDir dir;
  const std::string cfg = target_json(dir, p, (*lobby)->config());
  const Process r = cli({"run", "--protocol", p, "--target", (*lobby)->http_url(), "--config", cfg, "--case", case_glob(p), "--jobs", "2",
                         "--report-dir", (dir / "r").string(), "--color", "never"},
                        dir);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  const std::string all = everything(r, {dir / "r"});
  EXPECT_NE(all.find("PASS"), std::string::npos) << "the cases ran against the lobby\n" << r.out;
  EXPECT_NE(all.find("<redacted:"), std::string::npos) << "the reports show where a secret was";
  expect_absent(all, planted.secrets);
}

// A peer that answers everything with credentials and echoes what it receives.
class Echo final : public net::HttpHandler, public net::WsHandler {
 public:
  explicit Echo(Json extra) : extra_(std::move(extra)) {}
  net::HttpResponse handle(const net::HttpRequest& request) override {
    Json body = extra_;
    body["echo"] = request.body;
    body["echo_target"] = request.target;
    for (const auto& [k, v] : request.headers) body["echo_headers"][k] = v;
    return net::HttpResponse{200, {{"Content-Type", "application/json"}}, body.dump()};
  }
  void on_open(const std::shared_ptr<net::Peer>& peer) override { peer->send_text(extra_.dump()); }
  void on_message(const std::shared_ptr<net::Peer>& peer, std::string_view frame, bool) override {
    peer->send_text(std::string(frame));
    Json reply = extra_;
    reply["echo"] = std::string(frame);
    peer->send_text(reply.dump());
  }
  void on_close(const std::shared_ptr<net::Peer>&, const net::CloseInfo&) override {}

 private:
  Json extra_;
};

class EchoPeer : public ::testing::TestWithParam<std::string> {};

TEST_P(EchoPeer, EchoedAndPeerCredentialsNeverInAnyOutput) {
  const std::string p = GetParam();
  Planted planted = plant(p);
  const std::string token = canary("token"), key = canary("apikey"), bearer = canary("bearer"), query = canary("query"),
                    password = canary("password");
  const std::string jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9." + canary("sig");
  const std::string pem_body = canary("pem");
  const std::string pem = "-----BEGIN PRIVATE KEY-----\n" + pem_body + "\n-----END PRIVATE KEY-----";
  const std::string marker = "ECHO-MARKER-" + canary("marker").substr(6);
  Json extra = {{"type", "error"},           {"token", token},   {"api_key", key},
                {"Authorization", "Bearer " + bearer}, {"password", password},
                {"next", "wss://peer.example/ws?agent=x&token=" + query},
                {"session", jwt},            {"key", pem},       {"message", marker}};
  auto echo = std::make_shared<Echo>(extra);
  net::Server server(net::ServerOptions{});
  const Json decl = Json::parse(slurp(std::filesystem::path(AC_SOURCE_DIR) / "suites" / p / "target-settings.json"));
  for (const auto& [name, path] : decl["paths"].items()) {
    if (path.value("transport", "") == "ws") server.route_ws(path["default"], echo);
    else server.route(path["default"], echo);
  }
  server.route("/healthz", echo);
  auto port = server.start();
  ASSERT_TRUE(port) << port.error();
  TempDir dir;
  const std::string cfg = target_json(dir, p, planted.config);
  const Process r = cli({"run", "--protocol", p, "--target", "http://127.0.0.1:" + std::to_string(*port), "--config", cfg, "--case",
                         case_glob(p), "--jobs", "2", "--timeout-scale", "0.2", "--report-dir", (dir / "r").string(), "--color", "never"},
                        dir);
  server.stop();
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  const std::string all = everything(r, {dir / "r"});
  EXPECT_NE(all.find(marker), std::string::npos) << "the peer's text reaches the reports\n" << r.out << r.err;
  std::vector<std::string> secrets = planted.secrets;
  for (const auto& s : {token, key, bearer, query, password, jwt, pem_body}) secrets.push_back(s);
  expect_absent(all, secrets);
}

// Agora, AgentProtocol and Chopsticks declare no secret setting: their canaries are the EchoPeer's.
INSTANTIATE_TEST_SUITE_P(Protocols, Lobby, ::testing::Values("alp", "a2acp"), [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });
INSTANTIATE_TEST_SUITE_P(Protocols, EchoPeer, ::testing::ValuesIn(kProtocols), [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace ac::testing
