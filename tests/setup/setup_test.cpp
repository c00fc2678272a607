// Issue 11: a setup mistake is not a spec violation, a skipped case is not a pass. Each test
// misconfigures a target on purpose and runs the built `agentconform` (AC_CLI) against it as a
// user would, asserting the exit code, the one message that names what to fix, and the reports:
//   - the reference lobby with a wrong or missing API key, a wrong path;
//   - a plain HTTP server that is no lobby; https:// against a plain port; http:// against TLS;
//     nothing listening;
//   - a run where every case is N/A; a misspelled feature or setting; a --case that matches
//     nothing; too little MUST coverage;
//   - SIGINT mid-run; a target that dies mid-run.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/net/self_signed.hpp"
#include "harness/net/server.hpp"
#include "reference/lobby/lobby.hpp"
#include "tests/support/process.hpp"

namespace ac::testing {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

Process cli(std::vector<std::string> args, const TempDir& dir) {
  args.insert(args.begin(), AC_CLI);
  return run_process(args, dir.path());
}

std::unique_ptr<ref::Lobby> start_lobby(const std::string& cert = "", const std::string& key = "", std::set<std::string> faults = {}) {
  ref::LobbyConfig c;
  c.port = 0;
  c.api_keys = {"the-right-key"};
  c.tls_cert_file = cert;
  c.tls_key_file = key;
  c.faults = std::move(faults);
  auto l = ref::Lobby::start(c);
  if (!l) throw std::runtime_error(l.error());
  return std::move(*l);
}

std::string config(const TempDir& dir, const std::string& name, const Json& doc) {
  const auto path = dir / name;
  spit(path, doc.dump(1));
  return path.string();
}

Json results(const TempDir& dir, const std::string& report_dir) { return Json::parse(slurp(dir / report_dir / "results.json")); }

std::size_t verdicts(const Json& doc, const std::string& verdict) {
  std::size_t n = 0;
  for (const auto& c : doc["cases"]) n += c["verdict"] == verdict;
  return n;
}

// Waits (bounded) until a running CLI has printed a verdict line: cases are running.
bool wait_for_cases(const Running& r) {
  for (int i = 0; i < 600; ++i) {
    if (slurp(r.out_path).find("PASS ") != std::string::npos) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

// A web server that is not a lobby: it answers every path with a page.
class NotALobby final : public net::HttpHandler {
 public:
  net::HttpResponse handle(const net::HttpRequest&) override { return net::HttpResponse{200, {{"Content-Type", "text/html"}}, "<h1>my blog</h1>"}; }
};

TEST(Setup, WrongApiKeyIsOneSetupErrorNamingTheSetting) {
  TempDir dir;
  auto lobby = start_lobby();
  const auto cfg = config(dir, "target.json", {{"settings", {{"api_key", "not-the-key"}}}});
  const Process p = cli({"run", "--protocol", "alp", "--target", lobby->http_url(), "--config", cfg, "--report-dir", (dir / "r").string()}, dir);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_NE(p.out.find("setup error"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("settings.api_key was refused"), std::string::npos) << p.out;
  EXPECT_EQ(p.out.find("not-the-key"), std::string::npos) << "the key is a secret: " << p.out;
  const Json doc = results(dir, "r");
  EXPECT_FALSE(doc.value("setup_error", std::string()).empty());
  EXPECT_EQ(verdicts(doc, "FAIL"), 0u);
  EXPECT_EQ(doc["gate"]["exit_code"], 3);
  for (const char* f : {"junit.xml", "report.html", "summary.md"}) EXPECT_TRUE(std::filesystem::exists(dir / "r" / f)) << f;
}

// fuzz runs the same preflight: a refused key is one setup error (exit 3), not a campaign of
// findings against a lobby that refuses every session.
TEST(Setup, FuzzWithAWrongApiKeyIsOneSetupError) {
  TempDir dir;
  auto lobby = start_lobby();
  const auto cfg = config(dir, "target.json", {{"settings", {{"api_key", "not-the-key"}}}});
  const Process p = cli({"fuzz", "--protocol", "alp", "--target", lobby->http_url(), "--config", cfg, "--iterations", "5", "--out",
                         (dir / "f").string()},
                        dir);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_NE(p.err.find("setup error"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("settings.api_key was refused"), std::string::npos) << p.err;
  EXPECT_EQ((p.out + p.err).find("not-the-key"), std::string::npos) << "the key is a secret: " << p.out << p.err;
  const Json doc = Json::parse(slurp(dir / "f" / "results.json"));  // the reports say what went wrong
  EXPECT_NE(doc.value("setup_error", std::string()).find("settings.api_key was refused"), std::string::npos) << doc.dump(1);
  EXPECT_EQ(slurp(dir / "f" / "results.json").find("not-the-key"), std::string::npos);
}

// A2ACP's cases lease agents of settings.target_agents.dataset as handshake targets: a pool
// naming agents the broker does not list made 38 of 131 cases FAIL (every handshake answered
// CAPABILITY_NOT_FOUND). The preflight sends each one a probe handshake: one setup error naming
// the setting, and with agents the broker lists the preflight passes and the cases run.
TEST(Setup, A2acpPoolOfAgentsTheBrokerDoesNotListIsOneSetupError) {
  TempDir dir;
  auto lobby = start_lobby();
  auto target = [&](const Json& dataset) {
    return Json{{"settings",
                 {{"api_key", "the-right-key"},
                  {"jwt_secret", "agentconform-a2acp-test-secret-not-for-production"},
                  {"target_agents", {{"dataset", dataset}, {"remote", Json::array()}, {"denied", Json::array()}}}}}};
  };
  const auto wrong = config(dir, "wrong.json", target({"dataset-provisioning-agent", "no-such-agent-7"}));
  const Process p = cli({"run", "--protocol", "a2acp", "--target", lobby->http_url(), "--config", wrong, "--report-dir", (dir / "r").string()}, dir);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_NE(p.out.find("dataset-pool"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("1 of 2 dataset agent(s) do not get a handshake"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("no-such-agent-7: the handshake was answered with an error \"CAPABILITY_NOT_FOUND\""), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("fix: list in settings.target_agents.dataset"), std::string::npos) << p.out;
  EXPECT_EQ(verdicts(results(dir, "r"), "FAIL"), 0u);

  const auto right = config(dir, "right.json", target({"dataset-provisioning-agent"}));
  const Process ok = cli({"run", "--protocol", "a2acp", "--target", lobby->http_url(), "--config", right, "--case", "A2A-HS-005",
                          "--report-dir", (dir / "ok").string()},
                         dir);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("reached each of the 1 dataset agent(s)"), std::string::npos) << ok.out;
  EXPECT_EQ(verdicts(results(dir, "ok"), "PASS"), 1u) << ok.out;
}

TEST(Setup, MissingRequiredSettingIsNamed) {
  TempDir dir;
  auto lobby = start_lobby();
  const Process p = cli({"run", "--protocol", "alp", "--target", lobby->http_url(), "--report-dir", (dir / "r").string()}, dir);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_NE(p.out.find("required settings are not set: api_key"), std::string::npos) << p.out;
}

TEST(Setup, WrongPathIsOneSetupErrorNamingThePath) {
  TempDir dir;
  auto lobby = start_lobby();
  const auto cfg = config(dir, "target.json", {{"settings", {{"api_key", "the-right-key"}}}, {"paths", {{"register", "/v2/register"}}}});
  const Process p = cli({"run", "--protocol", "alp", "--target", lobby->http_url(), "--config", cfg, "--report-dir", (dir / "r").string()}, dir);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_NE(p.out.find("paths.register"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("404"), std::string::npos) << p.out;
}

TEST(Setup, PlainWebServerThatIsNoLobby) {
  TempDir dir;
  net::Server server(net::ServerOptions{});
  server.route("/", std::make_shared<NotALobby>());
  auto port = server.start();
  ASSERT_TRUE(port) << port.error();
  const std::string url = "http://127.0.0.1:" + std::to_string(*port);
  const auto cfg = config(dir, "target.json", {{"settings", {{"api_key", "k"}}}});
  const Process p = cli({"run", "--protocol", "alp", "--target", url, "--config", cfg, "--report-dir", (dir / "r").string()}, dir);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_NE(p.out.find("set paths."), std::string::npos) << p.out;
  EXPECT_EQ(verdicts(results(dir, "r"), "FAIL"), 0u);
  server.stop();
}

TEST(Setup, HttpsAgainstAPlainPort) {
  TempDir dir;
  auto lobby = start_lobby();
  const std::string url = "https://127.0.0.1:" + std::to_string(lobby->port());
  const Process p = cli({"run", "--protocol", "chopsticks", "--target", url, "--report-dir", (dir / "r").string()}, dir);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_NE(p.out.find("does not speak TLS"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("use http://"), std::string::npos) << p.out;
}

TEST(Setup, PlainSchemeAgainstATlsPort) {
  TempDir dir;
  auto cert = net::write_self_signed_certificate(dir / "tls");
  ASSERT_TRUE(cert) << cert.error();
  // The lobby started with a certificate is TLS-only (plain connections are closed unanswered),
  // as the servers users have: ws:// against it is one setup error whose advice names wss://.
  auto lobby = start_lobby(cert->cert_pem.string(), cert->key_pem.string());
  const std::string plain_url = "ws://127.0.0.1:" + std::to_string(lobby->port()) + "/chopsticks/ws";
  const Process plain = cli({"run", "--protocol", "chopsticks", "--target", plain_url, "--report-dir", (dir / "plain").string()}, dir);
  EXPECT_EQ(plain.exit_code, 3) << plain.out << plain.err;
  EXPECT_NE(plain.out.find("use wss://"), std::string::npos) << plain.out;
  const std::string tls_url = "wss://127.0.0.1:" + std::to_string(lobby->port()) + "/chopsticks/ws";
  const auto cfg = config(dir, "target.json", {{"tls", {{"ca_file", cert->cert_pem.string()}}}});
  const Process ok = cli({"run", "--protocol", "chopsticks", "--target", tls_url, "--config", cfg, "--case", "CHOP-VER-001",
                          "--report-dir", (dir / "ok").string()},
                         dir);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  const std::string untrusted = "wss://127.0.0.1:" + std::to_string(lobby->port());
  const Process bad = cli({"run", "--protocol", "chopsticks", "--target", untrusted, "--report-dir", (dir / "bad").string()}, dir);
  EXPECT_EQ(bad.exit_code, 3) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("tls.ca_file"), std::string::npos) << bad.out;
}

TEST(Setup, NothingListening) {
  TempDir dir;
  std::uint16_t port = 0;
  {
    auto lobby = start_lobby();
    port = lobby->port();
    lobby->stop();
  }
  const Process p = cli({"run", "--protocol", "chopsticks", "--target", "ws://127.0.0.1:" + std::to_string(port), "--report-dir",
                         (dir / "r").string()},
                        dir);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  EXPECT_NE(p.out.find("nothing answers"), std::string::npos) << p.out;
}

TEST(Setup, EveryCaseNotApplicableIsNoPass) {
  TempDir dir;
  auto lobby = start_lobby();
  const auto cfg = config(dir, "target.json", {{"features", Json::array()}});
  const Process p = cli({"run", "--protocol", "agora", "--target", lobby->ws_url() + "/agora/ws", "--config", cfg, "--suite", "streaming",
                         "--report-dir", (dir / "r").string()},
                        dir);
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_NE(p.out.find("N/A: feature agora.streaming not claimed in target.json"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("no case was executed"), std::string::npos) << p.out;
  const Json doc = results(dir, "r");
  ASSERT_FALSE(doc["not_applicable"].empty());
  EXPECT_EQ(doc["not_applicable"][0]["cause"], "feature agora.streaming not claimed in target.json");
}

TEST(Setup, MisspelledNamesAreConfigurationErrorsWithTheNearestName) {
  TempDir dir;
  auto lobby = start_lobby();
  const auto features = config(dir, "f.json", {{"features", {"agora.streeming"}}});
  const Process f = cli({"run", "--protocol", "agora", "--target", lobby->ws_url(), "--config", features}, dir);
  EXPECT_EQ(f.exit_code, 2) << f.out << f.err;
  EXPECT_NE(f.err.find("did you mean 'agora.streaming'"), std::string::npos) << f.err;
  const auto settings = config(dir, "s.json", {{"settings", {{"api_kye", "x"}}}});
  const Process s = cli({"run", "--protocol", "alp", "--target", lobby->http_url(), "--config", settings}, dir);
  EXPECT_EQ(s.exit_code, 2) << s.out << s.err;
  EXPECT_NE(s.err.find("did you mean 'api_key'"), std::string::npos) << s.err;
  const auto paths = config(dir, "p.json", {{"paths", {{"registr", "/r"}}}, {"settings", {{"api_key", "x"}}}});
  const Process q = cli({"run", "--protocol", "alp", "--target", lobby->http_url(), "--config", paths}, dir);
  EXPECT_EQ(q.exit_code, 2) << q.out << q.err;
  EXPECT_NE(q.err.find("did you mean 'register'"), std::string::npos) << q.err;
}

TEST(Setup, EveryCasePatternMustMatch) {
  TempDir dir;
  const Process p = cli({"run", "--protocol", "chopsticks", "--case", "CHOP-VER-001", "--case", "CHOP-VRE-*"}, dir);
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_NE(p.err.find("CHOP-VRE-*"), std::string::npos) << p.err;
  const Process empty = cli({"run", "--protocol", "chopsticks", "--target", ""}, dir);
  EXPECT_EQ(empty.exit_code, 2) << empty.out << empty.err;
}

TEST(Setup, TooLittleMustCoverageFailsTheGate) {
  TempDir dir;
  const Process p = cli({"run", "--protocol", "chopsticks", "--case", "CHOP-VER-001", "--min-must-coverage", "90", "--report-dir",
                         (dir / "r").string()},
                        dir);
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("MUST coverage"), std::string::npos) << p.out;
  const Json doc = results(dir, "r");
  EXPECT_LT(doc["coverage"]["must"]["percent"].get<double>(), 90.0);
  EXPECT_GT(doc["coverage"]["must"]["tested"].get<int>(), 0);
}

TEST(Setup, InterruptWritesTheReportsOfWhatRan) {
  TempDir dir;
  auto running = spawn({AC_CLI, "run", "--protocol", "chopsticks", "--jobs", "1", "--report-dir", (dir / "r").string()}, dir.path());
  ASSERT_TRUE(wait_for_cases(running));
  ::kill(running.pid, SIGINT);
  const auto sent = std::chrono::steady_clock::now();
  const Process p = finish(running);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 15s) << "the run must stop within a few seconds";
  EXPECT_EQ(p.exit_code, 130) << p.out << p.err;
  const Json doc = results(dir, "r");
  EXPECT_EQ(doc["interrupted"], "SIGINT");
  EXPECT_GT(verdicts(doc, "PASS"), 0u);
  EXPECT_EQ(verdicts(doc, "FAIL"), 0u);
  for (const char* f : {"junit.xml", "report.html", "summary.md"}) EXPECT_TRUE(std::filesystem::exists(dir / "r" / f)) << f;
}

// The reverse of a setup error: an entry point that answers but breaks the protocol. A lobby
// whose registration answers 201 without auth_token is no misconfiguration: the preflight's
// check is a FAIL of ALP-6-register-returns-token, the run goes on, and the cases that cannot
// connect their agents are BLOCKED by it, grouped as the run's first root cause.
TEST(Setup, EntryPointThatBreaksTheSpecIsAFailAndBlocksItsCases) {
  TempDir dir;
  auto lobby = start_lobby("", "", {"alp.register.omit-auth-token"});
  const auto cfg = config(dir, "target.json", {{"settings", {{"api_key", "the-right-key"}}}});
  const Process p = cli({"run", "--protocol", "alp", "--target", lobby->http_url(), "--config", cfg, "--suite", "lifecycle",
                         "--report-dir", (dir / "r").string()},
                        dir);
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  EXPECT_EQ(p.out.find("setup error"), std::string::npos) << p.out;
  const Json doc = results(dir, "r");
  EXPECT_FALSE(doc.contains("setup_error")) << p.out;
  ASSERT_FALSE(doc["cases"].empty());
  const Json& first = doc["cases"][0];
  EXPECT_EQ(first["id"], "PREFLIGHT-alp-registration") << first.dump();
  EXPECT_EQ(first["verdict"], "FAIL");
  EXPECT_EQ(first["blamed"], Json::array({"ALP-6-register-returns-token"}));
  std::size_t blocked = 0;
  for (const auto& c : doc["cases"]) {
    if (c["verdict"] != "BLOCKED") continue;
    ++blocked;
    EXPECT_EQ(c["blocked_by"], "ALP-6-register-returns-token") << c["id"];
  }
  EXPECT_GE(blocked, 10u) << p.out;
  // The other FAILs are the cases about that requirement, on their own evidence; every other case
  // that could not start judged nothing.
  for (const auto& c : doc["cases"]) {
    if (c["verdict"] != "FAIL" || c["id"] == "PREFLIGHT-alp-registration") continue;
    const auto reqs = c["requirements"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(reqs.begin(), reqs.end(), "ALP-6-register-returns-token"), reqs.end()) << c["id"] << ": " << c["reason"];
  }
  ASSERT_FALSE(doc["root_causes"].empty()) << p.out;
  EXPECT_EQ(doc["root_causes"][0]["cause"].get<std::string>().rfind("blocked by ALP-6-register-returns-token", 0), 0u) << doc["root_causes"].dump();
  EXPECT_NE(p.out.find("root causes"), std::string::npos) << p.out;
  EXPECT_LT(p.out.find("root causes"), p.out.find("protocol       cases")) << p.out;
  // The MUSTs of the blocked cases count as untested.
  EXPECT_LT(doc["coverage"]["must"]["percent"].get<double>(), 50.0);
  for (const char* f : {"junit.xml", "report.html", "summary.md"}) {
    EXPECT_NE(slurp(dir / "r" / f).find("BLOCKED"), std::string::npos) << f;
  }
  // --preflight strict: the same failed check ends the run before any case.
  const Process strict = cli({"run", "--protocol", "alp", "--target", lobby->http_url(), "--config", cfg, "--suite", "lifecycle",
                              "--preflight", "strict", "--report-dir", (dir / "s").string()},
                             dir);
  EXPECT_EQ(strict.exit_code, 3) << strict.out << strict.err;
}

TEST(Setup, TargetThatDiesMidRunGivesErrorsNotFails) {
  TempDir dir;
  auto lobby = start_lobby();
  auto running = spawn({AC_CLI, "run", "--protocol", "chopsticks", "--target", lobby->ws_url() + "/chopsticks/ws", "--jobs", "1",
                        "--report-dir", (dir / "r").string()},
                       dir.path());
  ASSERT_TRUE(wait_for_cases(running));
  lobby->stop();
  const Process p = finish(running);
  EXPECT_EQ(p.exit_code, 3) << p.out << p.err;
  const Json doc = results(dir, "r");
  ASSERT_TRUE(doc.contains("target_down")) << p.out;
  EXPECT_EQ(verdicts(doc, "FAIL"), 0u) << p.out;
  EXPECT_GT(verdicts(doc, "ERROR"), 0u);
  EXPECT_NE(p.out.find("stopped answering"), std::string::npos) << p.out;
}

}  // namespace
}  // namespace ac::testing
