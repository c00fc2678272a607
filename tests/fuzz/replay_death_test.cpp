// `fuzz --replay` sees a death that comes just after the last step: the independent Chopsticks
// controller (tests/peers/chopsticks/peer.py) started with --die-after-message dance:50 exits 50 ms
// after it receives a `dance` message, after the session's last step. The replay, started under
// --target-command, must trip (exit 1), and must not against the same controller without that
// flag (exit 0). A replay that probed only every few runs passed on the very target it crashed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/fuzz/fuzz_support.hpp"

namespace ac::fuzz {
namespace {

using Json = nlohmann::json;
const std::filesystem::path kPeer = std::filesystem::path(AC_SOURCE_DIR) / "tests/peers/chopsticks/peer.py";

int replay_on(const std::filesystem::path& dir, const std::string& peer_args, std::string& log) {
  const std::uint16_t port = test::free_port();
  const std::string peer = "exec /usr/bin/python3 -B " + kPeer.string() + " " + std::to_string(port) + " --quiet " + peer_args;
  const auto out = dir / ("replay-" + std::to_string(port) + ".log");
  const std::string cmd = std::string(AC_CLI) + " fuzz --replay " + (dir / "dance.json").string() + " --times 5 --protocol chopsticks --target ws://127.0.0.1:" +
                          std::to_string(port) + "/chopsticks/ws --target-command '" + peer + "' --out " + (dir / "out").string() + " > " +
                          out.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(out);
  log.assign(std::istreambuf_iterator<char>(in), {});
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(FuzzCli, ReplayNoticesADeathAfterTheLastStep) {
  if (std::system("/usr/bin/python3 -c 'import aiohttp' > /dev/null 2>&1") != 0) GTEST_SKIP() << "python3-aiohttp missing";
  const auto dir = test::scratch("replay-death");
  const Json hello{{"type", "hello"}, {"protocolVersion", "1.0.0"}, {"agentId", "${a}"}, {"botUserId", nullptr}, {"tag", nullptr},
                   {"ready", true}, {"guildIds", Json::array()}, {"poolId", "pool-1"}};
  const Json steps = Json::array({{{"action", "connect"}, {"conn", "a"}, {"data", "/chopsticks/ws"}},
                                  {{"action", "text"}, {"conn", "a"}, {"data", hello.dump()}},
                                  {{"action", "text"}, {"conn", "a"}, {"data", R"({"type":"dance"})"}}});
  const Json reproducer{{"format", "agentconform-fuzz-reproducer/1"},
                        {"protocol", "chopsticks"},
                        {"oracle", "crash"},
                        {"signature", "the target exited with status 70"},
                        {"detail", "written by the test"},
                        {"placeholders", "${a} ${b} ${c} stand for agent ids made unique per execution"},
                        {"seed", 1},
                        {"iteration", 1},
                        {"mutations", Json::array({"structure: an unknown type"})},
                        {"steps", steps},
                        {"original_steps", steps},
                        {"target", {{"kind", "url"}, {"url", "ws://127.0.0.1:1/chopsticks/ws"}}}};
  std::ofstream(dir / "dance.json") << reproducer.dump(1);
  std::string log;
  EXPECT_EQ(replay_on(dir, "--die-after-message dance:50", log), 1) << log;
  // Every one of five runs from a fresh target sees the death, and the fixed peer none.
  EXPECT_NE(log.find("trips 5 of 5 the same way: [crash] the target exited with status 70"), std::string::npos) << log;
  EXPECT_EQ(replay_on(dir, "", log), 0) << log;
  EXPECT_NE(log.find("trips 0 of 5"), std::string::npos) << log;
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ac::fuzz
