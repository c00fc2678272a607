// `agentconform fuzz` as a user runs it: exit codes (0 nothing, 1 findings, 2 usage, 3 target
// unreachable), the reports with the findings, and --replay (1 still trips, 0 no longer).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include "harness/fuzz/hostile_hub.hpp"
#include "harness/schema/schema_store.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace ac::fuzz {
namespace {

int rc(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return Json::parse(in);
}

TEST(FuzzCli, ExitCodesReportsAndReplay) {
  const auto dir = test::scratch("cli");
  const std::string cli = AC_CLI;
  const std::string quiet = " > " + (dir / "log.txt").string() + " 2>&1";
  auto log = [&] {
    std::ifstream in(dir / "log.txt");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };

  EXPECT_EQ(rc(cli + " fuzz --protocol agora --iterations 20 --seed 5 --out " + (dir / "clean").string() + quiet), 0) << log();
  const Json clean = read_json(dir / "clean/results.json");
  EXPECT_EQ(clean["fuzz"]["sessions"], 20);
  EXPECT_TRUE(clean["findings"].empty());
  EXPECT_TRUE(std::filesystem::exists(dir / "clean/junit.xml"));
  EXPECT_TRUE(std::filesystem::exists(dir / "clean/report.html"));
  EXPECT_TRUE(std::filesystem::exists(dir / "clean/summary.md"));

  const std::string found = (dir / "found").string();
  EXPECT_EQ(rc(cli + " fuzz --protocol chopsticks --iterations 300 --seed 1 --max-findings 1 --out " + found +
               " --lobby-fault chopsticks.planted.accept-version-prefix" + quiet),
            1)
      << log();
  EXPECT_NE(log().find("seed 1"), std::string::npos) << "the seed is printed";
  EXPECT_NE(log().find("frames/s"), std::string::npos) << "the throughput is printed";
  const Json results = read_json(dir / "found/results.json");
  ASSERT_EQ(results["findings"].size(), 1u);
  const Json& finding = results["findings"][0];
  EXPECT_EQ(finding["oracle"], "protocol");
  ASSERT_TRUE(finding.contains("reproducer"));
  const std::string reproducer = finding["reproducer"]["file"].get<std::string>();
  EXPECT_TRUE(std::filesystem::exists(reproducer));
  // The results document is what the report schema describes.
  auto store = schema::SchemaStore::load_directory(std::filesystem::path(AC_SOURCE_DIR) / "schemas");
  ASSERT_TRUE(store) << store.error();
  const auto* report_schema = (*store)->find("report.schema.json");
  ASSERT_NE(report_schema, nullptr);
  for (const auto& v : report_schema->validate(results)) ADD_FAILURE() << v.pointer << " " << v.rule << ": " << v.message;
  std::ifstream html(dir / "found/report.html");
  const std::string page(std::istreambuf_iterator<char>(html), {});
  EXPECT_NE(page.find(finding["signature"].get<std::string>()), std::string::npos) << "the HTML shows the finding";

  // Replay: the recorded faults come back (still trips, 1); another lobby, no planted bug (0).
  EXPECT_EQ(rc(cli + " fuzz --replay " + reproducer + " --out " + (dir / "replay").string() + quiet), 1) << log();
  EXPECT_NE(log().find(" of 3 the same way"), std::string::npos) << log();
  EXPECT_EQ(rc(cli + " fuzz --replay " + reproducer + " --out " + (dir / "replay").string() +
               " --lobby-fault chopsticks.rpc.accept-resp-from-anyone" + quiet),
            0)
      << log();

  EXPECT_EQ(rc(cli + " fuzz --protocol nope" + quiet), 2);
  EXPECT_EQ(rc(cli + " fuzz --protocol alp --lobby-fault alp.no-such-fault --out " + (dir / "x").string() + quiet), 2);
  EXPECT_EQ(rc(cli + " fuzz --protocol alp --families field,bogus" + quiet), 2);
  EXPECT_EQ(rc(cli + " fuzz --replay " + (dir / "log.txt").string() + quiet), 2) << "not a reproducer";
  EXPECT_EQ(rc(cli + " fuzz --protocol agora --iterations 5 --probe-timeout 500 --target ws://127.0.0.1:9 --out " + (dir / "y").string() + quiet),
            3)
      << "an unreachable target";
  std::filesystem::remove_all(dir);
}

// Client fuzzing: the reference Chopsticks agent survives a hostile controller and reconnects;
// an agent that stops answering requests is reported.
// A hostile hub for `episodes` connections of the reference agent of `protocol`.
HostileHubOptions hub_for_reference_agent(Protocol protocol, std::uint64_t seed, double duration_s, std::size_t episodes) {
  HostileHubOptions o;
  o.protocol = protocol;
  o.seed = seed;
  o.duration_s = duration_s;
  o.max_episodes = episodes;
  o.answer_timeout = std::chrono::milliseconds(3000);
  o.command = std::string(AC_CLI) + " agent --protocol " + std::string(protocol_name(protocol));
  return o;
}

TEST(FuzzServe, ReferenceAgentSurvivesAndABrokenOneIsCaught) {
  HostileHubOptions o = hub_for_reference_agent(Protocol::chopsticks, 4, 60, 6);
  const auto good = hostile_hub(o);
  EXPECT_TRUE(good.client_connected);
  EXPECT_EQ(good.episodes, 6u) << "the agent reconnected after every episode";
  for (const auto& f : good.findings) ADD_FAILURE() << "[" << f.trip.oracle << "] " << f.trip.signature << ": " << f.trip.detail;

  o.command = std::string(AC_CLI) + " agent --protocol chopsticks --misbehave never-respond";
  o.max_episodes = 3;
  const auto bad = hostile_hub(o);
  bool liveness = false;
  for (const auto& f : bad.findings) liveness = liveness || f.trip.oracle == "liveness";
  EXPECT_TRUE(liveness) << "an agent that ignores requests is caught";

  // An agent that does not come back after its connection ended.
  o.command = std::string(AC_CLI) + " agent --protocol chopsticks --max-connections 1";
  o.max_episodes = 2;
  o.duration_s = 20;
  const auto gone = hostile_hub(o);
  bool reported = false;
  for (const auto& f : gone.findings) reported = reported || f.trip.oracle == "reconnect" || f.trip.oracle == "crash";
  EXPECT_TRUE(reported) << "an agent that does not reconnect is reported";
}

// An AgentProtocol client cannot discover its peer (the spec has none): the hub gives its agentId
// in AGENTCONFORM_PEER_ID, as `serve` does. Without it the reference agent refuses to start.
TEST(FuzzServe, AnAgentProtocolClientIsGivenTheHubsAgentId) {
  const auto report = hostile_hub(hub_for_reference_agent(Protocol::agentprotocol, 3, 20, 2));
  EXPECT_TRUE(report.client_connected) << "the AgentProtocol reference agent never connected";
  for (const auto& f : report.findings) EXPECT_NE(f.trip.oracle, "crash") << f.trip.signature << ": " << f.trip.detail;
}

}  // namespace
}  // namespace ac::fuzz
