// `fuzz --replay` sees a death that comes just after the last step: the independent Chopsticks
// controller (tests/peers/chopsticks/peer.py) started with --die-after-message dance:50 exits 50 ms
// after it receives a `dance` message, after the session's last step. The replay, started under
// --target-command, must trip (exit 1), and must not against the same controller without that
// flag (exit 0). A replay that probed only every few runs passed on the very target it crashed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/fuzz/fuzz_support.hpp"

namespace ac::fuzz {
namespace {

using Json = nlohmann::json;

int replay_on(const std::filesystem::path& dir, const std::string& peer_args, std::string& log) {
  return test::replay_against_peer(dir, dir / "dance.json", "chopsticks", "/chopsticks/ws", peer_args, 5, "", log);
}

TEST(FuzzCli, ReplayNoticesADeathAfterTheLastStep) {
  if (std::system("/usr/bin/python3 -c 'import aiohttp' > /dev/null 2>&1") != 0) GTEST_SKIP() << "python3-aiohttp missing";
  const auto dir = test::scratch("replay-death");
  const Json hello{{"type", "hello"}, {"protocolVersion", "1.0.0"}, {"agentId", "${a}"}, {"botUserId", nullptr}, {"tag", nullptr},
                   {"ready", true}, {"guildIds", Json::array()}, {"poolId", "pool-1"}};
  const Json steps = Json::array({{{"action", "connect"}, {"conn", "a"}, {"data", "/chopsticks/ws"}},
                                  {{"action", "text"}, {"conn", "a"}, {"data", hello.dump()}},
                                  {{"action", "text"}, {"conn", "a"}, {"data", R"({"type":"dance"})"}}});
  const Json reproducer = test::handwritten_reproducer("chopsticks", "crash", "the target exited with status 70", steps);
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
