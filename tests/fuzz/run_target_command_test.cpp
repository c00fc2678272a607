// `run --target-command` (issue 12 point 1, for `run`): agentconform starts the target itself,
// watches it, and restarts it after a crash or a hang. The target is the independent Node.js Agora
// relay (tests/peers/fuzz/agora_relay.js) with one planted bug, and the cases are ordinary ones
// plus two custom cases (tests/fuzz/watch/suites/) that reach a bug: the run must name the case
// that kills the relay (found by re-running the suspects alone), keep the crash evidence, go on
// after the restart with the other cases judged normally, and exit 1; the fixed relay passes with
// no death at all.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/fuzz/fuzz_support.hpp"

namespace ac::fuzz {
namespace {

using Json = nlohmann::json;
const std::filesystem::path kPeers = std::filesystem::path(AC_SOURCE_DIR) / "tests/peers/fuzz";
const std::filesystem::path kWatch = std::filesystem::path(AC_SOURCE_DIR) / "tests/fuzz/watch";

struct Outcome {
  int exit_code = -1;
  Json results;
  std::string log;
};

Outcome run_with_relay(const std::string& name, const std::string& bugs) {
  const auto dir = test::scratch("run-target-command-" + name);
  const std::uint16_t port = test::free_port();
  const std::string relay = "node " + (kPeers / "agora_relay.js").string() + " --port " + std::to_string(port) + " --bugs " + bugs;
  const std::string cmd = std::string(AC_CLI) + " run --protocol agora --target ws://127.0.0.1:" + std::to_string(port) +
                          "/agora/ws --config " + (kWatch / "relay.target.json").string() + " --suites " + (kWatch / "suites").string() +
                          " --case 'WATCH-*' --case AGORA-LC-001 --case AGORA-ST-001 --jobs 4 --report json --report-dir " +
                          (dir / "r").string() + " --target-command '" + relay + "' > " + (dir / "log").string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream log(dir / "log");
  o.log.assign(std::istreambuf_iterator<char>(log), {});
  std::ifstream results(dir / "r" / "results.json");
  o.results = Json::parse(results, nullptr, false);
  return o;
}

std::string verdict(const Json& results, const std::string& id) {
  for (const auto& c : results.value("cases", Json::array()))
    if (c.value("id", "") == id) return c.value("verdict", "");
  return "(absent)";
}

const Json* death_with_culprit(const Json& results, const std::string& culprit) {
  if (!results.contains("target_deaths")) return nullptr;
  for (const auto& d : results["target_deaths"])
    if (d.value("culprit", Json()).is_string() && d["culprit"] == culprit) return &d;
  return nullptr;
}

TEST(RunTargetCommand, FixedRelayPassesWithoutADeath) {
  const Outcome o = run_with_relay("fixed", "none");
  ASSERT_TRUE(o.results.is_object()) << o.log;
  EXPECT_EQ(o.exit_code, 0) << o.log;
  EXPECT_FALSE(o.results.contains("target_deaths")) << o.log;
  for (const char* id : {"WATCH-NUL-001", "WATCH-END-001", "AGORA-LC-001", "AGORA-ST-001"}) EXPECT_EQ(verdict(o.results, id), "PASS") << id << "\n" << o.log;
}

TEST(RunTargetCommand, CrashIsAttributedToItsCaseWithEvidence) {
  const Outcome o = run_with_relay("crash", "crash-nul");
  ASSERT_TRUE(o.results.is_object()) << o.log;
  EXPECT_EQ(o.exit_code, 1) << o.log;
  const Json* d = death_with_culprit(o.results, "WATCH-NUL-001");
  ASSERT_NE(d, nullptr) << "no death blamed on WATCH-NUL-001:\n" << o.log;
  EXPECT_NE(d->value("how", "").find("exited"), std::string::npos) << d->dump();  // node exits 1 on an uncaught error
  EXPECT_NE(d->value("evidence", "").find("null bytes"), std::string::npos) << d->dump();
  EXPECT_TRUE(d->value("restarted", false));
  EXPECT_EQ(verdict(o.results, "WATCH-NUL-001"), "FAIL");
  // The other cases are judged on the restarted relay as if nothing had happened.
  for (const char* id : {"WATCH-END-001", "AGORA-LC-001", "AGORA-ST-001"}) EXPECT_EQ(verdict(o.results, id), "PASS") << id << "\n" << o.log;
  EXPECT_NE(o.log.find("the target died"), std::string::npos) << o.log;
  EXPECT_EQ(o.log.find("the target stopped answering"), std::string::npos) << "a watched target is restarted, not given up:\n" << o.log;
}

TEST(RunTargetCommand, HangIsKilledRestartedAndAttributed) {
  const Outcome o = run_with_relay("hang", "hang-double-end");
  ASSERT_TRUE(o.results.is_object()) << o.log;
  EXPECT_EQ(o.exit_code, 1) << o.log;
  const Json* d = death_with_culprit(o.results, "WATCH-END-001");
  ASSERT_NE(d, nullptr) << "no death blamed on WATCH-END-001:\n" << o.log;
  EXPECT_NE(d->value("how", "").find("hung"), std::string::npos) << d->dump();
  EXPECT_EQ(verdict(o.results, "WATCH-END-001"), "FAIL");
  for (const char* id : {"WATCH-NUL-001", "AGORA-LC-001", "AGORA-ST-001"}) EXPECT_EQ(verdict(o.results, id), "PASS") << id << "\n" << o.log;
}

}  // namespace
}  // namespace ac::fuzz
