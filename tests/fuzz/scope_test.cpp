// Partial roles and transports (issue 12): a target declares in target.json what of its protocol
// it plays ("roles": an A2ACP auth service alone, a broker alone) and offers ("transports":
// AgentProtocol over HTTP only), as `run` reads it; the fuzzer's seed flows, probe and oracles keep
// to it, so such a target is fuzzed instead of failing the liveness probe.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include "harness/embedded/embedded.hpp"
#include "harness/engine/driver.hpp"
#include "harness/util/data_dir.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace ac::fuzz {
namespace {

TEST(FuzzScope, GenerationKeepsToTheDeclaredScope) {
  const Scope http_only{{}, {"http"}};
  const Scope ws_only{{}, {"ws"}};
  const Scope auth_only{{"auth-service"}, {}};
  const Scope broker_only{{"broker"}, {}};
  std::size_t http_steps = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    for (const auto& step : generate(Protocol::agentprotocol, 3, i, {}, http_only).steps) {
      if (step.kind == Step::Kind::connect) {
        EXPECT_TRUE(step.data.starts_with("http:")) << "session " << i << ": " << step.data;
      }
    }
    for (const auto& step : generate(Protocol::agentprotocol, 3, i, {}, ws_only).steps) {
      if (step.kind == Step::Kind::connect) {
        EXPECT_FALSE(step.data.starts_with("http:")) << "session " << i << ": " << step.data;
      }
    }
    for (const auto& step : generate(Protocol::a2acp, 3, i, {}, auth_only).steps) {
      EXPECT_NE(step.kind, Step::Kind::connect) << "an auth service alone has no broker to connect to (session " << i << ")";
      if (step.kind == Step::Kind::http) {
        EXPECT_EQ(step.path, "${path.token}");
        ++http_steps;
      }
    }
    for (const auto& step : generate(Protocol::a2acp, 3, i, {}, broker_only).steps) {
      EXPECT_FALSE(step.kind == Step::Kind::http && step.path == "${path.token}") << "a broker alone has no token endpoint (session " << i << ")";
    }
  }
  EXPECT_GT(http_steps, 300u);
  // Both transports, when both are offered.
  std::size_t over_http = 0;
  for (std::uint64_t i = 0; i < 200; ++i) over_http += generate(Protocol::agentprotocol, 3, i).steps[0].data.starts_with("http:") ? 1 : 0;
  EXPECT_GT(over_http, 20u);
  EXPECT_LT(over_http, 180u);
}

int rc(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The reference lobby, started by the fuzzer (--target-command) as a third-party target would be,
// declared as a part of its protocol only.
int fuzz_partial(Protocol p, const Json& declaration, const std::filesystem::path& dir, const std::string& scheme) {
  std::filesystem::create_directories(dir);
  const ref::LobbyConfig config = embedded_config(p, {});
  std::ofstream(dir / "lobby.json") << config_document(config).dump(2);
  // The settings the lobby's configuration implies, as the embedded target declares them.
  static const auto declarations = engine::Declarations::load(data_dir() / "suites");
  EXPECT_TRUE(declarations.has_value());
  if (!declarations) return -1;
  auto t = embedded::target_for(*declarations, std::string(protocol_name(p)), config, "http://127.0.0.1:1", "ws://127.0.0.1:1");
  EXPECT_TRUE(t.has_value()) << (t ? "" : t.error());
  if (!t) return -1;
  Json target = declaration;
  target["settings"] = t->settings;
  std::ofstream(dir / "target.json") << target.dump(2);
  const std::string port = std::to_string(test::free_port());
  const std::string cmd = std::string(AC_CLI) + " fuzz --protocol " + std::string(protocol_name(p)) + " --target " + scheme +
                          "://127.0.0.1:" + port + " --config " + (dir / "target.json").string() + " --target-command \"" + AC_CLI +
                          " lobby --listen 127.0.0.1:" + port + " --config " + (dir / "lobby.json").string() +
                          "\" --iterations 40 --jobs 2 --seed 3 --report json --out " + (dir / "out").string() + " > " +
                          (dir / "log.txt").string() + " 2>&1";
  return rc(cmd);
}

TEST(FuzzScope, PartialTargetsAreFuzzedNotRefused) {
  const auto dir = test::scratch("scope");
  struct Case {
    Protocol protocol;
    Json declaration;
    std::string scheme;
  };
  const Case cases[] = {{Protocol::agentprotocol, {{"transports", {"http"}}}, "http"},
                        {Protocol::a2acp, {{"roles", {"auth-service"}}}, "http"},
                        {Protocol::a2acp, {{"roles", {"broker"}}}, "ws"}};
  int n = 0;
  for (const auto& c : cases) {
    const auto sub = dir / std::to_string(n++);
    const int code = fuzz_partial(c.protocol, c.declaration, sub, c.scheme);
    std::ifstream log(sub / "log.txt");
    const std::string text(std::istreambuf_iterator<char>(log), {});
    EXPECT_EQ(code, 0) << protocol_name(c.protocol) << " " << c.declaration.dump() << ":\n" << text;
    std::ifstream in(sub / "out/results.json");
    const Json results = Json::parse(in, nullptr, false);
    ASSERT_FALSE(results.is_discarded()) << text;
    EXPECT_EQ(results["fuzz"]["sessions"], 40) << text;
    EXPECT_GT(results["fuzz"]["frames"].get<int>(), 40) << text;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ac::fuzz
